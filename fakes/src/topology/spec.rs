//! The YAML schema of a topology seed file, exactly as written by users (before validation).
//!
//! Every struct denies unknown fields so a typo is an error, and values whose problems are only found by
//! semantic validation are [`Spanned`] so those errors can name the line they came from.

use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// Root of a topology file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TopologySpec {
    /// Azure cloud the fake pretends to be.
    #[serde(default)]
    pub cloud: CloudName,
    /// Entra tenant (directory) id.
    pub tenant_id: Spanned<String>,
    /// Subscription holding every resource.
    pub subscription_id: Spanned<String>,
    /// Region of every resource (`eastus`).
    pub location: Spanned<String>,
    /// Resource groups for nodes and for the virtual network.
    pub resource_groups: ResourceGroupsSpec,
    /// Entra app registrations the CCM and other clients authenticate as.
    #[serde(default)]
    pub apps: Vec<Spanned<AppSpec>>,
    /// User-assigned managed identities VMs can carry.
    #[serde(default)]
    pub managed_identities: Vec<Spanned<ManagedIdentitySpec>>,
    /// Virtual network, subnets, NSG and route table.
    pub network: NetworkSpec,
    /// Pre-existing load balancers (e.g. the outbound Standard LB).
    #[serde(default)]
    pub load_balancers: Vec<Spanned<LoadBalancerSpec>>,
    /// Availability sets VMs can join.
    #[serde(default)]
    pub availability_sets: Vec<Spanned<AvailabilitySetSpec>>,
    /// Standalone / availability-set VMs.
    #[serde(default)]
    pub vms: Vec<Spanned<VmSpec>>,
    /// Uniform and flexible scale sets.
    #[serde(default)]
    pub scale_sets: Vec<Spanned<ScaleSetSpec>>,
    /// Standalone public IPs in the node resource group, attached to nothing: what a user creates
    /// before pinning it on a Service with `azure-pip-name`. `name` is required here.
    #[serde(default)]
    pub public_ips: Vec<Spanned<PublicIpSpec>>,
}

/// Azure clouds IMDS reports in `compute.azEnvironment`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum CloudName {
    /// Public Azure.
    #[default]
    AzurePublicCloud,
    /// Azure US Government.
    AzureUSGovernmentCloud,
    /// Azure China (21Vianet).
    AzureChinaCloud,
}

impl CloudName {
    /// The value IMDS reports as `azEnvironment`.
    pub fn as_str(self) -> &'static str {
        match self {
            CloudName::AzurePublicCloud => "AzurePublicCloud",
            CloudName::AzureUSGovernmentCloud => "AzureUSGovernmentCloud",
            CloudName::AzureChinaCloud => "AzureChinaCloud",
        }
    }
}

/// Node and VNet resource groups (AKS puts them apart when the VNet is brought by the user).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResourceGroupsSpec {
    /// Group of VMs, NICs, availability sets, scale sets, NSG, route table and load balancers.
    pub node: ResourceGroupSpec,
    /// Group of the virtual network; defaults to the node group.
    #[serde(default)]
    pub vnet: Option<ResourceGroupSpec>,
}

/// One resource group.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResourceGroupSpec {
    /// Group name (ARM casing is kept).
    pub name: Spanned<String>,
    /// Tags of the group.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

/// An Entra app registration (service principal) clients log in as.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppSpec {
    /// Display name.
    pub name: Spanned<String>,
    /// Application (client) id.
    pub client_id: Spanned<String>,
    /// Client secret; never logged.
    #[serde(default)]
    pub secret: Option<String>,
    /// PEM certificate the app authenticates with (client assertion).
    #[serde(default)]
    pub certificate_path: Option<Spanned<String>>,
    /// Federated credentials (workload identity).
    #[serde(default)]
    pub federated_credentials: Vec<FederatedCredentialSpec>,
}

impl std::fmt::Debug for AppSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppSpec")
            .field("name", &self.name.value)
            .field("client_id", &self.client_id.value)
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .field(
                "certificate_path",
                &self.certificate_path.as_ref().map(|c| &c.value),
            )
            .field("federated_credentials", &self.federated_credentials)
            .finish()
    }
}

/// A federated identity credential of an app registration.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FederatedCredentialSpec {
    /// Token issuer URL (the cluster's service-account issuer).
    pub issuer: String,
    /// Subject (`system:serviceaccount:<ns>:<sa>`).
    pub subject: String,
    /// Accepted audiences; defaults to `api://AzureADTokenExchange`.
    #[serde(default)]
    pub audiences: Vec<String>,
}

/// A user-assigned managed identity.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ManagedIdentitySpec {
    /// Identity resource name.
    pub name: Spanned<String>,
    /// Group holding the identity; defaults to the node group.
    #[serde(default)]
    pub resource_group: Option<String>,
    /// Client id tokens are issued to.
    pub client_id: Spanned<String>,
    /// Object (principal) id; derived from the client id when absent.
    #[serde(default)]
    pub principal_id: Option<String>,
}

/// Virtual network layout.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkSpec {
    /// The cluster VNet.
    pub vnet: VnetSpec,
    /// NSG attached to every subnet, created in the node group.
    #[serde(default)]
    pub security_group: Option<Spanned<String>>,
    /// Route table attached to every subnet, created in the node group.
    #[serde(default)]
    pub route_table: Option<Spanned<String>>,
}

/// The virtual network.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VnetSpec {
    /// VNet name.
    pub name: Spanned<String>,
    /// Address space CIDRs (IPv4, plus IPv6 for dual-stack).
    pub address_space: Vec<Spanned<String>>,
    /// Subnets; the first is the default subnet of VMs and scale sets.
    pub subnets: Vec<Spanned<SubnetSpec>>,
}

/// One subnet.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SubnetSpec {
    /// Subnet name.
    pub name: Spanned<String>,
    /// IPv4 CIDR.
    pub cidr: Spanned<String>,
    /// IPv6 CIDR (dual-stack).
    #[serde(default)]
    pub ipv6_cidr: Option<Spanned<String>>,
}

/// Load balancer SKUs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum LbSku {
    /// Basic SKU (not shown by IMDS `/metadata/loadbalancer`).
    Basic,
    /// Standard SKU.
    #[default]
    Standard,
}

impl LbSku {
    /// ARM `sku.name`.
    pub fn as_str(self) -> &'static str {
        match self {
            LbSku::Basic => "Basic",
            LbSku::Standard => "Standard",
        }
    }
}

/// A load balancer that exists before the CCM starts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoadBalancerSpec {
    /// LB name (`kubernetes` for the CCM's default LB).
    pub name: Spanned<String>,
    /// SKU; default Standard.
    #[serde(default)]
    pub sku: LbSku,
    /// Frontend IP configurations.
    #[serde(default)]
    pub frontends: Vec<Spanned<FrontendSpec>>,
    /// Backend pool names.
    #[serde(default)]
    pub backend_pools: Vec<Spanned<String>>,
    /// Outbound rules (Standard only).
    #[serde(default)]
    pub outbound_rules: Vec<Spanned<OutboundRuleSpec>>,
}

/// One LB frontend: public (new public IP) or internal (subnet).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FrontendSpec {
    /// Frontend name.
    pub name: Spanned<String>,
    /// Public IP created for this frontend.
    #[serde(default)]
    pub public_ip: Option<PublicIpSpec>,
    /// Subnet of an internal frontend.
    #[serde(default)]
    pub subnet: Option<Spanned<String>>,
    /// Static private address of an internal frontend.
    #[serde(default)]
    pub private_ip: Option<Spanned<String>>,
}

/// A public IP address resource.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PublicIpSpec {
    /// Resource name; defaults to `<owner>-pip`.
    #[serde(default)]
    pub name: Option<Spanned<String>>,
    /// SKU (Basic or Standard); default Standard.
    #[serde(default)]
    pub sku: LbSku,
    /// Pinned address; allocated by the fake when absent.
    #[serde(default)]
    pub address: Option<Spanned<String>>,
}

/// An outbound rule of a Standard LB.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OutboundRuleSpec {
    /// Rule name (`aksOutboundRule`).
    pub name: Spanned<String>,
    /// Frontends (by name) the rule SNATs through.
    pub frontends: Vec<Spanned<String>>,
    /// Backend pool (by name) the rule applies to.
    pub backend_pool: Spanned<String>,
    /// Protocol; default All.
    #[serde(default)]
    pub protocol: OutboundProtocol,
    /// SNAT ports per instance; default 0 (automatic).
    #[serde(default)]
    pub allocated_outbound_ports: u32,
}

/// Outbound rule protocols.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum OutboundProtocol {
    /// TCP and UDP.
    #[default]
    All,
    /// TCP only.
    Tcp,
    /// UDP only.
    Udp,
}

impl OutboundProtocol {
    /// ARM spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OutboundProtocol::All => "All",
            OutboundProtocol::Tcp => "Tcp",
            OutboundProtocol::Udp => "Udp",
        }
    }
}

/// An availability set.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AvailabilitySetSpec {
    /// Set name.
    pub name: Spanned<String>,
    /// Platform fault domains (1-3); default 2.
    #[serde(default)]
    pub fault_domains: Option<Spanned<u32>>,
    /// Platform update domains (1-20); default 5.
    #[serde(default)]
    pub update_domains: Option<Spanned<u32>>,
    /// Tags.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

/// VM power states a topology can start VMs in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PowerStateSpec {
    /// `PowerState/running`.
    #[default]
    Running,
    /// `PowerState/stopped` (still allocated).
    Stopped,
    /// `PowerState/deallocated`.
    Deallocated,
}

/// Guest OS families.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum OsType {
    /// Linux.
    #[default]
    Linux,
    /// Windows.
    Windows,
}

impl OsType {
    /// ARM/IMDS spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OsType::Linux => "Linux",
            OsType::Windows => "Windows",
        }
    }
}

/// Managed identities attached to a VM or scale set.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IdentitySpec {
    /// System-assigned identity.
    #[serde(default)]
    pub system_assigned: bool,
    /// User-assigned identities by name (`managedIdentities`).
    #[serde(default)]
    pub user_assigned: Vec<Spanned<String>>,
}

/// One VM (or `count` VMs named `<name>-<i>`) outside any uniform scale set.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VmSpec {
    /// VM name (= node name); with `count`, the prefix of `<name>-<i>`.
    pub name: Spanned<String>,
    /// Number of identical VMs to create.
    #[serde(default)]
    pub count: Option<Spanned<u32>>,
    /// OS computer name; defaults to the VM name.
    #[serde(default)]
    pub computer_name: Option<Spanned<String>>,
    /// Availability set (by name) to join.
    #[serde(default)]
    pub availability_set: Option<Spanned<String>>,
    /// VM size; default `Standard_D2s_v3`.
    #[serde(default)]
    pub size: Option<Spanned<String>>,
    /// Availability zone (1-3).
    #[serde(default)]
    pub zone: Option<Spanned<u32>>,
    /// Platform fault domain; default spreads VMs of an availability set round-robin.
    #[serde(default)]
    pub fault_domain: Option<Spanned<u32>>,
    /// Initial power state.
    #[serde(default)]
    pub power_state: PowerStateSpec,
    /// Subnet (by name); default the first subnet.
    #[serde(default)]
    pub subnet: Option<Spanned<String>>,
    /// Static private IPv4; allocated from the subnet when absent.
    #[serde(default)]
    pub private_ip: Option<Spanned<String>>,
    /// Static private IPv6 (dual-stack subnets); allocated when absent.
    #[serde(default)]
    pub private_ipv6: Option<Spanned<String>>,
    /// Instance-level public IP.
    #[serde(default)]
    pub public_ip: Option<PublicIpSpec>,
    /// LB backend pools (`<lb>/<pool>`) the NIC joins.
    #[serde(default)]
    pub backend_pools: Vec<Spanned<String>>,
    /// Tags.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// Managed identities.
    #[serde(default)]
    pub identity: Option<IdentitySpec>,
    /// Guest OS.
    #[serde(default)]
    pub os_type: OsType,
}

/// Scale-set orchestration modes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum OrchestrationMode {
    /// Instances materialised by CRP from `sku.capacity`.
    #[default]
    Uniform,
    /// Ordinary VMs referencing the scale set.
    Flexible,
}

impl OrchestrationMode {
    /// ARM spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OrchestrationMode::Uniform => "Uniform",
            OrchestrationMode::Flexible => "Flexible",
        }
    }
}

/// A scale set (node pool).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScaleSetSpec {
    /// Scale set name.
    pub name: Spanned<String>,
    /// Orchestration mode.
    #[serde(default)]
    pub mode: OrchestrationMode,
    /// Computer-name prefix; defaults to the scale set name.
    #[serde(default)]
    pub computer_name_prefix: Option<Spanned<String>>,
    /// VM size; default `Standard_D2s_v3`.
    #[serde(default)]
    pub size: Option<Spanned<String>>,
    /// Number of instances (0-1000).
    pub instances: Spanned<u32>,
    /// Zones instances are spread over (round-robin).
    #[serde(default)]
    pub zones: Vec<Spanned<u32>>,
    /// `platformFaultDomainCount`; default 1 when zonal or flexible, else 5.
    #[serde(default)]
    pub fault_domain_count: Option<Spanned<u32>>,
    /// Initial power state of every instance.
    #[serde(default)]
    pub power_state: PowerStateSpec,
    /// Subnet (by name); default the first subnet.
    #[serde(default)]
    pub subnet: Option<Spanned<String>>,
    /// LB backend pools (`<lb>/<pool>`) of the network profile.
    #[serde(default)]
    pub backend_pools: Vec<Spanned<String>>,
    /// Tags (copied to instances).
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// Managed identities.
    #[serde(default)]
    pub identity: Option<IdentitySpec>,
    /// Guest OS.
    #[serde(default)]
    pub os_type: OsType,
}
