//! The validated, fully resolved topology: every name, address, zone and fault domain decided, so seeding
//! is a mechanical translation into ARM documents and cannot fail on user input.

use super::cidr::Cidr;
use super::spec::{CloudName, LbSku, OrchestrationMode, OsType, OutboundProtocol, PowerStateSpec};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::PathBuf;

/// Resolved topology.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Cloud name (IMDS `azEnvironment`).
    pub cloud: CloudName,
    /// Tenant id.
    pub tenant_id: String,
    /// Subscription id.
    pub subscription_id: String,
    /// Normalised location.
    pub location: String,
    /// Node resource group.
    pub node_rg: GroupPlan,
    /// VNet resource group when it differs from the node group.
    pub vnet_rg: Option<GroupPlan>,
    /// App registrations.
    pub apps: Vec<AppRegistration>,
    /// User-assigned identities.
    pub identities: Vec<ManagedIdentity>,
    /// Virtual network.
    pub vnet: VnetPlan,
    /// NSG name (node group).
    pub nsg: Option<String>,
    /// Route table name (node group).
    pub route_table: Option<String>,
    /// Load balancers.
    pub load_balancers: Vec<LbPlan>,
    /// Availability sets.
    pub availability_sets: Vec<AvailabilitySetPlan>,
    /// Scale sets (uniform and flexible).
    pub scale_sets: Vec<ScaleSetPlan>,
    /// Standalone, availability-set and flexible-member VMs, in creation order.
    pub vms: Vec<VmPlan>,
    /// Standalone public IPs (attached to nothing).
    pub public_ips: Vec<PublicIpPlan>,
}

impl Plan {
    /// Name of the group holding the VNet.
    pub fn vnet_rg_name(&self) -> &str {
        self.vnet_rg
            .as_ref()
            .map_or(&self.node_rg.name, |g| &g.name)
    }

    /// Number of nodes the topology creates (VMs plus uniform instances).
    pub fn node_count(&self) -> usize {
        self.vms.len()
            + self
                .scale_sets
                .iter()
                .filter(|s| s.mode == OrchestrationMode::Uniform)
                .map(|s| s.instances as usize)
                .sum::<usize>()
    }
}

/// A resource group.
#[derive(Debug, Clone)]
pub struct GroupPlan {
    /// Name.
    pub name: String,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

/// An Entra app registration the fake token endpoint accepts.
#[derive(Clone)]
pub struct AppRegistration {
    /// Display name.
    pub name: String,
    /// Application (client) id.
    pub client_id: String,
    /// Client secret (never printed by `Debug`).
    pub secret: Option<String>,
    /// Certificate used for client assertions (resolved against the topology file's directory).
    pub certificate_path: Option<PathBuf>,
    /// Federated credentials.
    pub federated_credentials: Vec<FederatedCredential>,
}

impl std::fmt::Debug for AppRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppRegistration")
            .field("name", &self.name)
            .field("client_id", &self.client_id)
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .field("certificate_path", &self.certificate_path)
            .field("federated_credentials", &self.federated_credentials)
            .finish()
    }
}

/// A federated identity credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FederatedCredential {
    /// Issuer URL.
    pub issuer: String,
    /// Subject.
    pub subject: String,
    /// Audiences.
    pub audiences: Vec<String>,
}

/// A user-assigned managed identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedIdentity {
    /// Name.
    pub name: String,
    /// Full ARM id (`.../Microsoft.ManagedIdentity/userAssignedIdentities/<name>`).
    pub resource_id: String,
    /// Client id.
    pub client_id: String,
    /// Principal (object) id.
    pub principal_id: String,
}

/// The virtual network.
#[derive(Debug, Clone)]
pub struct VnetPlan {
    /// Name.
    pub name: String,
    /// Address space.
    pub address_space: Vec<Cidr>,
    /// Subnets.
    pub subnets: Vec<SubnetPlan>,
}

/// A subnet.
#[derive(Debug, Clone)]
pub struct SubnetPlan {
    /// Name.
    pub name: String,
    /// IPv4 prefix.
    pub v4: Cidr,
    /// IPv6 prefix (dual-stack).
    pub v6: Option<Cidr>,
}

/// `<lb>/<pool>` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRef {
    /// LB name.
    pub lb: String,
    /// Pool name.
    pub pool: String,
}

/// A public IP resource to create.
#[derive(Debug, Clone)]
pub struct PublicIpPlan {
    /// Resource name.
    pub name: String,
    /// SKU.
    pub sku: LbSku,
    /// Pinned address.
    pub address: Option<IpAddr>,
}

/// A load balancer.
#[derive(Debug, Clone)]
pub struct LbPlan {
    /// Name.
    pub name: String,
    /// SKU.
    pub sku: LbSku,
    /// Frontends.
    pub frontends: Vec<FrontendPlan>,
    /// Backend pool names.
    pub pools: Vec<String>,
    /// Outbound rules.
    pub outbound_rules: Vec<OutboundRulePlan>,
}

impl LbPlan {
    /// Internal LBs have private frontends.
    pub fn is_internal(&self) -> bool {
        self.frontends.iter().any(|f| f.subnet.is_some())
    }
}

/// A frontend IP configuration.
#[derive(Debug, Clone)]
pub struct FrontendPlan {
    /// Name.
    pub name: String,
    /// Public IP (public frontends).
    pub public_ip: Option<PublicIpPlan>,
    /// Subnet index (internal frontends).
    pub subnet: Option<usize>,
    /// Planned private address (internal frontends).
    pub private_ip: Option<IpAddr>,
}

/// An outbound rule.
#[derive(Debug, Clone)]
pub struct OutboundRulePlan {
    /// Name.
    pub name: String,
    /// Frontend names.
    pub frontends: Vec<String>,
    /// Pool name.
    pub pool: String,
    /// Protocol.
    pub protocol: OutboundProtocol,
    /// SNAT ports per instance.
    pub allocated_outbound_ports: u32,
}

/// An availability set.
#[derive(Debug, Clone)]
pub struct AvailabilitySetPlan {
    /// Name.
    pub name: String,
    /// Fault domain count.
    pub fault_domains: u32,
    /// Update domain count.
    pub update_domains: u32,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

/// Managed identities of a VM or scale set.
#[derive(Debug, Clone, Default)]
pub struct IdentityPlan {
    /// System-assigned identity present.
    pub system_assigned: bool,
    /// Indexes into [`Plan::identities`].
    pub user_assigned: Vec<usize>,
}

/// A scale set.
#[derive(Debug, Clone)]
pub struct ScaleSetPlan {
    /// Name.
    pub name: String,
    /// Orchestration mode.
    pub mode: OrchestrationMode,
    /// Computer-name prefix.
    pub computer_name_prefix: String,
    /// VM size.
    pub size: String,
    /// Instances (uniform: `sku.capacity`; flexible: member VMs in [`Plan::vms`]).
    pub instances: u32,
    /// Zones.
    pub zones: Vec<u32>,
    /// `platformFaultDomainCount`.
    pub fault_domain_count: u32,
    /// Initial power state of every instance.
    pub power_state: PowerStateSpec,
    /// Subnet index.
    pub subnet: usize,
    /// Backend pools of the network profile.
    pub pools: Vec<PoolRef>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// Identities.
    pub identity: IdentityPlan,
    /// Guest OS.
    pub os_type: OsType,
}

impl ScaleSetPlan {
    /// Fault domain CRP gives the `index`-th instance (spread inside each zone).
    pub fn fault_domain_of(&self, index: u64) -> u32 {
        let per_zone = index / self.zones.len().max(1) as u64;
        (per_zone % u64::from(self.fault_domain_count.max(1))) as u32
    }

    /// Zone CRP gives the `index`-th instance (round-robin over the scale set's zones).
    pub fn zone_of(&self, index: u64) -> Option<u32> {
        (!self.zones.is_empty()).then(|| self.zones[(index % self.zones.len() as u64) as usize])
    }
}

/// A VM outside uniform scale sets.
#[derive(Debug, Clone)]
pub struct VmPlan {
    /// VM name.
    pub name: String,
    /// Computer name (= Kubernetes node name).
    pub computer_name: String,
    /// Size.
    pub size: String,
    /// Zone.
    pub zone: Option<u32>,
    /// Platform fault domain.
    pub fault_domain: u32,
    /// Platform update domain.
    pub update_domain: u32,
    /// Availability set name.
    pub availability_set: Option<String>,
    /// Flexible scale set name.
    pub scale_set: Option<String>,
    /// Initial power state.
    pub power_state: PowerStateSpec,
    /// Subnet index.
    pub subnet: usize,
    /// Planned private IPv4.
    pub ipv4: IpAddr,
    /// Planned private IPv6 (dual-stack).
    pub ipv6: Option<IpAddr>,
    /// Instance-level public IP.
    pub public_ip: Option<PublicIpPlan>,
    /// Backend pools.
    pub pools: Vec<PoolRef>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// Identities.
    pub identity: IdentityPlan,
    /// Guest OS.
    pub os_type: OsType,
}
