//! `Microsoft.Network/loadBalancers` and its children: frontends, backend pools, rules, probes,
//! outbound rules, inbound NAT rules (the service controller's main write target).

use serde::{Deserialize, Serialize};

use super::envelope::{Child, Extra, Reference, Resource};

/// A read-only member skipped while decoding (its content is never allocated) and never sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Discarded;

impl<'de> Deserialize<'de> for Discarded {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(Discarded)
    }
}

/// A load-balancer document.
pub type LoadBalancer = Resource<LoadBalancerProperties>;

/// `properties` of a load balancer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancerProperties {
    /// Frontend IP configurations (one per service, plus AKS's outbound frontend).
    #[serde(
        rename = "frontendIPConfigurations",
        skip_serializing_if = "Option::is_none"
    )]
    pub frontend_ip_configurations: Option<Vec<FrontendIpConfiguration>>,
    /// Backend pools (`<cluster>`, `<cluster>-IPv6`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_address_pools: Option<Vec<BackendAddressPool>>,
    /// Load-balancing rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancing_rules: Option<Vec<LoadBalancingRule>>,
    /// Health probes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probes: Option<Vec<Probe>>,
    /// Inbound NAT rules (conflict checks only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbound_nat_rules: Option<Vec<InboundNatRule>>,
    /// Outbound rules (owned by AKS; their frontends are never deleted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outbound_rules: Option<Vec<OutboundRule>>,
    /// `Succeeded`, `Updating`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`inboundNatPools`, `resourceGuid`, `scope`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A frontend IP configuration.
pub type FrontendIpConfiguration = Child<FrontendIpConfigurationProperties>;

/// `frontendIPConfigurations[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrontendIpConfigurationProperties {
    /// Public frontend: the PIP.
    #[serde(rename = "publicIPAddress", skip_serializing_if = "Option::is_none")]
    pub public_ip_address: Option<Reference>,
    /// Public frontend from a prefix.
    #[serde(rename = "publicIPPrefix", skip_serializing_if = "Option::is_none")]
    pub public_ip_prefix: Option<Reference>,
    /// Internal frontend: its subnet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet: Option<Reference>,
    /// Internal frontend: its address.
    #[serde(rename = "privateIPAddress", skip_serializing_if = "Option::is_none")]
    pub private_ip_address: Option<String>,
    /// `Static` / `Dynamic`.
    #[serde(
        rename = "privateIPAllocationMethod",
        skip_serializing_if = "Option::is_none"
    )]
    pub private_ip_allocation_method: Option<String>,
    /// `IPv4` / `IPv6`.
    #[serde(
        rename = "privateIPAddressVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub private_ip_address_version: Option<String>,
    /// Rules using this frontend (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancing_rules: Option<Vec<Reference>>,
    /// Outbound rules using this frontend (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outbound_rules: Option<Vec<Reference>>,
    /// Inbound NAT rules using this frontend (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inbound_nat_rules: Option<Vec<Reference>>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`gatewayLoadBalancer`, `inboundNatPools`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A backend address pool.
pub type BackendAddressPool = Child<BackendAddressPoolProperties>;

/// `backendAddressPools[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackendAddressPoolProperties {
    /// IP-based members (`nodeIP` pool type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancer_backend_addresses: Option<Vec<BackendAddress>>,
    /// NIC ipconfigs that joined (read-only; `nodeIPConfiguration` pool type): skipped while
    /// decoding and never sent. ARM lists every member there (one id per node: 5000 in each
    /// copy of the document at 5000 nodes), ignores it in a PUT, and membership is read from
    /// the NICs and instances, so the only exception to the models' round trip.
    #[serde(rename = "backendIPConfigurations", default, skip_serializing)]
    pub backend_ip_configurations: Discarded,
    /// VNet of IP-based pools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub virtual_network: Option<Reference>,
    /// Rules using the pool (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancing_rules: Option<Vec<Reference>>,
    /// Outbound rules using the pool (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outbound_rules: Option<Vec<Reference>>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`outboundRule`, `location`, `syncMode`, `drainPeriodInSeconds`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `loadBalancerBackendAddresses[]`: `{name, properties{ipAddress, virtualNetwork, subnet, ...}}`.
pub type BackendAddress = Child<BackendAddressProperties>;

/// `loadBalancerBackendAddresses[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackendAddressProperties {
    /// The node IP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_address: Option<String>,
    /// Its VNet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub virtual_network: Option<Reference>,
    /// Its subnet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet: Option<Reference>,
    /// NIC ipconfig behind the address (read-only).
    #[serde(
        rename = "networkInterfaceIPConfiguration",
        skip_serializing_if = "Option::is_none"
    )]
    pub network_interface_ip_configuration: Option<Reference>,
    /// Everything else (`adminState`, `loadBalancerFrontendIPConfiguration`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A load-balancing rule.
pub type LoadBalancingRule = Child<LoadBalancingRuleProperties>;

/// `loadBalancingRules[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancingRuleProperties {
    /// Frontend.
    #[serde(
        rename = "frontendIPConfiguration",
        skip_serializing_if = "Option::is_none"
    )]
    pub frontend_ip_configuration: Option<Reference>,
    /// Backend pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_address_pool: Option<Reference>,
    /// Backend pools (multi-pool form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_address_pools: Option<Vec<Reference>>,
    /// Health probe.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<Reference>,
    /// `Tcp` / `Udp` / `All`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Service port (0 with `All` = HA ports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontend_port: Option<i64>,
    /// Service port, or NodePort when floating IP is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_port: Option<i64>,
    /// Idle timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_timeout_in_minutes: Option<i64>,
    /// Floating IP (Direct Server Return).
    #[serde(rename = "enableFloatingIP", skip_serializing_if = "Option::is_none")]
    pub enable_floating_ip: Option<bool>,
    /// TCP reset on idle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_tcp_reset: Option<bool>,
    /// From config `disableOutboundSnat`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disable_outbound_snat: Option<bool>,
    /// `Default` / `SourceIP` / `SourceIPProtocol`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_distribution: Option<String>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`enableConnectionTracking`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A health probe.
pub type Probe = Child<ProbeProperties>;

/// `probes[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeProperties {
    /// `Tcp` / `Http` / `Https`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Probed port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<i64>,
    /// Interval (default 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_in_seconds: Option<i64>,
    /// Probe count (default 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number_of_probes: Option<i64>,
    /// Probe threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe_threshold: Option<i64>,
    /// HTTP(S) path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_path: Option<String>,
    /// Rules using the probe (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancing_rules: Option<Vec<Reference>>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`noHealthyBackendsBehavior`).
    #[serde(flatten)]
    pub extra: Extra,
}

/// An outbound rule.
pub type OutboundRule = Child<OutboundRuleProperties>;

/// `outboundRules[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboundRuleProperties {
    /// Frontends used for SNAT.
    #[serde(
        rename = "frontendIPConfigurations",
        skip_serializing_if = "Option::is_none"
    )]
    pub frontend_ip_configurations: Option<Vec<Reference>>,
    /// Backend pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_address_pool: Option<Reference>,
    /// `Tcp` / `Udp` / `All`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// SNAT ports per instance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocated_outbound_ports: Option<i64>,
    /// Idle timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_timeout_in_minutes: Option<i64>,
    /// TCP reset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_tcp_reset: Option<bool>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// An inbound NAT rule.
pub type InboundNatRule = Child<InboundNatRuleProperties>;

/// `inboundNatRules[].properties`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InboundNatRuleProperties {
    /// Frontend.
    #[serde(
        rename = "frontendIPConfiguration",
        skip_serializing_if = "Option::is_none"
    )]
    pub frontend_ip_configuration: Option<Reference>,
    /// `Tcp` / `Udp` / `All`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Single frontend port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontend_port: Option<i64>,
    /// Port range start (pool form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontend_port_range_start: Option<i64>,
    /// Port range end (pool form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontend_port_range_end: Option<i64>,
    /// Backend port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_port: Option<i64>,
    /// Backend pool (pool form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_address_pool: Option<Reference>,
    /// `Succeeded`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_state: Option<String>,
    /// Everything else (`backendIPConfiguration`, timeouts, flags).
    #[serde(flatten)]
    pub extra: Extra,
}

impl FrontendIpConfigurationProperties {
    /// True for an internal frontend (it sits in a subnet rather than on a public IP).
    pub fn is_internal(&self) -> bool {
        self.subnet.is_some()
    }
}
