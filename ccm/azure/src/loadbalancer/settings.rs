//! [`LbSettings`]: the azure.json values the load-balancer reconcile reads, resolved once (network
//! subscription, resource groups, names, tags) so each reconcile only adds the cluster name.

use std::collections::BTreeMap;

use crate::config::{BackendPoolType, Config, InTreeCompat, LoadBalancerSku, ProbeMode};

use super::names;
use super::service::{IpFamily, LbService};

/// Where the Service load balancers and their companions live.
#[derive(Debug, Clone, PartialEq)]
pub struct LbSettings {
    /// Subscription of LBs, PIPs, NSG and VNet (`networkResourceSubscriptionID` or the cluster's).
    pub subscription: String,
    /// Config `resourceGroup` (default PIP resource group).
    pub resource_group: String,
    /// `loadBalancerResourceGroup`.
    pub lb_resource_group: String,
    /// `loadBalancerName` (replaces the cluster name in LB names).
    pub lb_name: Option<String>,
    /// Region.
    pub location: String,
    /// `loadBalancerSku`.
    pub sku: LoadBalancerSku,
    /// `securityGroupName`.
    pub security_group: String,
    /// `securityGroupResourceGroup`.
    pub security_group_resource_group: String,
    /// `vnetName`.
    pub vnet: String,
    /// `vnetResourceGroup`.
    pub vnet_resource_group: String,
    /// VNet id written on nodeIP pool members ([`super::pools::vnet_id`]: the cluster's
    /// subscription, as upstream writes it).
    pub pool_vnet_id: String,
    /// `subnetName` (internal frontends' default subnet).
    pub subnet: String,
    /// `disableOutboundSNAT`.
    pub disable_outbound_snat: bool,
    /// Backend pool type.
    pub pool_type: BackendPoolType,
    /// `preConfiguredBackendPoolLoadBalancerTypes` set: the CCM leaves pool members alone.
    pub preconfigured_pools: bool,
    /// Probe mode for `externalTrafficPolicy: Cluster`.
    pub probe_mode: ProbeMode,
    /// Shared probe port.
    pub shared_probe_port: u16,
    /// Shared probe path.
    pub shared_probe_path: String,
    /// Config `tags`/`tagsMap`.
    pub tags: BTreeMap<String, String>,
    /// Config `systemTags`.
    pub system_tags: Vec<String>,
    /// `enableIPTagMutationForExistingPublicIP`.
    pub ip_tag_mutation: bool,
    /// In-tree provider behaviours to reproduce (default: none, today's CCM).
    pub in_tree: InTreeCompat,
}

impl LbSettings {
    /// Resolves the settings from azure.json.
    pub fn from_config(config: &Config) -> LbSettings {
        let identity = &config.identity;
        let cluster = &config.cluster;
        let lb = &config.load_balancer;
        LbSettings {
            subscription: identity
                .network_resource_subscription_id
                .clone()
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| identity.subscription_id.clone()),
            resource_group: cluster.resource_group.clone(),
            lb_resource_group: lb.resource_group.clone(),
            lb_name: lb.name.clone().filter(|n| !n.is_empty()),
            location: cluster.location.clone(),
            sku: lb.sku,
            security_group: cluster.security_group_name.clone(),
            security_group_resource_group: cluster.security_group_resource_group.clone(),
            vnet: cluster.vnet_name.clone(),
            vnet_resource_group: cluster.vnet_resource_group.clone(),
            pool_vnet_id: super::pools::vnet_id(config),
            subnet: cluster.subnet_name.clone(),
            disable_outbound_snat: lb.disable_outbound_snat,
            pool_type: lb.backend_pool_type,
            preconfigured_pools: lb.preconfigured_backend_pools.is_some(),
            probe_mode: lb.health_probe_mode,
            shared_probe_port: lb.shared_probe_port,
            shared_probe_path: lb.shared_probe_path.clone(),
            tags: cluster.tags.clone(),
            system_tags: cluster.system_tags.clone(),
            ip_tag_mutation: lb.enable_ip_tag_mutation_for_existing_public_ip,
            in_tree: lb.in_tree,
        }
    }

    /// True for the standard SKU (the default).
    pub fn standard(&self) -> bool {
        self.sku == LoadBalancerSku::Standard
    }

    /// Name of the public (`internal` false) or internal LB of the cluster.
    pub fn lb_name(&self, cluster_name: &str, internal: bool) -> String {
        names::load_balancer_name(self.lb_name.as_deref().unwrap_or(cluster_name), internal)
    }

    /// `/subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Network/<kind>/<name>`.
    pub fn network_id(&self, resource_group: &str, kind: &str, name: &str) -> String {
        format!(
            "/subscriptions/{}/resourceGroups/{resource_group}/providers/Microsoft.Network/{kind}/{name}",
            self.subscription
        )
    }

    /// Path of the LB resource group's collection of `kind`.
    pub fn collection_path(&self, resource_group: &str, kind: &str) -> String {
        format!(
            "/subscriptions/{}/resourceGroups/{resource_group}/providers/Microsoft.Network/{kind}",
            self.subscription
        )
    }

    /// Id of the cluster LB named `lb`.
    pub fn lb_id(&self, lb: &str) -> String {
        self.network_id(&self.lb_resource_group, "loadBalancers", lb)
    }

    /// Id of backend pool `<cluster>`/`<cluster>-IPv6` on LB `lb`.
    pub fn pool_id(&self, lb: &str, cluster_name: &str, family: IpFamily) -> String {
        format!(
            "{}/backendAddressPools/{}",
            self.lb_id(lb),
            names::backend_pool_name(cluster_name, family)
        )
    }

    /// The VNet id in the network subscription (internal frontends' subnets live there).
    pub fn vnet_id(&self) -> String {
        self.network_id(&self.vnet_resource_group, "virtualNetworks", &self.vnet)
    }

    /// Subnet id of a Service's internal frontend.
    pub fn subnet_id(&self, svc: &LbService) -> String {
        let subnet = svc.internal_subnet.as_deref().unwrap_or(&self.subnet);
        format!("{}/subnets/{subnet}", self.vnet_id())
    }

    /// Id of the cluster NSG.
    pub fn nsg_path(&self) -> String {
        self.network_id(
            &self.security_group_resource_group,
            "networkSecurityGroups",
            &self.security_group,
        )
    }
}
