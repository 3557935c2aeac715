//! Which TTL each provider cache uses and whether `disableAPICallCache` turns it into a
//! pass-through, from the parsed azure.json ([`CacheSettings`]).

use std::time::Duration;

use crate::config::CacheSettings;

/// TTL of the instance-metadata cache (upstream `consts.MetadataCacheTTL`, one minute).
pub const INSTANCE_METADATA_TTL: Duration = Duration::from_secs(60);

/// How one cache behaves: how long entries stay fresh, or whether every read goes to the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePolicy {
    /// Age below which a [`ReadMode::Default`](super::ReadMode::Default) read serves the entry.
    pub ttl: Duration,
    /// `disableAPICallCache`: every read calls the loader and nothing is stored.
    pub disabled: bool,
}

impl CachePolicy {
    /// A caching policy with this TTL.
    pub fn with_ttl(ttl: Duration) -> Self {
        Self {
            ttl,
            disabled: false,
        }
    }

    /// A pass-through policy: reads always load, nothing is stored.
    pub fn pass_through() -> Self {
        Self {
            ttl: Duration::ZERO,
            disabled: true,
        }
    }

    /// The policy of one of the provider's caches under this configuration.
    pub fn for_kind(kind: CacheKind, settings: &CacheSettings) -> Self {
        let ttl = match kind {
            CacheKind::InstanceMetadata => return Self::with_ttl(INSTANCE_METADATA_TTL),
            CacheKind::Vm => settings.vm,
            CacheKind::Vmss => settings.vmss,
            CacheKind::VmssVirtualMachines => settings.vmss_virtual_machines,
            CacheKind::VmssFlex => settings.vmss_flex,
            CacheKind::VmssFlexVm => settings.vmss_flex_vm,
            CacheKind::NonVmssUniformNodes => settings.non_vmss_uniform_nodes,
            CacheKind::AvailabilitySets => settings.availability_sets,
            CacheKind::LoadBalancer => settings.load_balancer,
            CacheKind::PublicIp => settings.public_ip,
            CacheKind::SecurityGroup => settings.nsg,
            CacheKind::RouteTable => settings.route_table,
            CacheKind::PrivateLinkService => settings.private_link_service,
        };
        Self {
            ttl,
            disabled: settings.disable_api_call_cache,
        }
    }
}

/// The provider's caches (anchor-ccm.md §7.1), each with its upstream key in the docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CacheKind {
    /// IMDS instance document (+ load-balancer public IPs); one fixed key; 60 s, never disabled.
    InstanceMetadata,
    /// VMAS / standalone VM GET, keyed by VM name (`vmCacheTTLInSeconds`).
    Vm,
    /// VMSS list per known resource group (`vmssCacheTTLInSeconds`).
    Vmss,
    /// VMSS VM list keyed `<rg>/<vmss>` (`vmssVirtualMachinesCacheTTLInSeconds`).
    VmssVirtualMachines,
    /// Flexible scale sets (`vmssFlexCacheTTLInSeconds`).
    VmssFlex,
    /// VMs of one flexible scale set, keyed by its ID (`vmssFlexVMCacheTTLInSeconds`).
    VmssFlexVm,
    /// Names of VMAS and flex nodes (`nonVmssUniformNodesCacheTTLInSeconds`).
    NonVmssUniformNodes,
    /// Availability sets (`availabilitySetsCacheTTLInSeconds`).
    AvailabilitySets,
    /// Load balancers by name (`loadBalancerCacheTTLInSeconds`).
    LoadBalancer,
    /// Public IP lists per resource group (`publicIPCacheTTLInSeconds`).
    PublicIp,
    /// Network security groups by name (`nsgCacheTTLInSeconds`).
    SecurityGroup,
    /// Route tables by name (`routeTableCacheTTLInSeconds`).
    RouteTable,
    /// Private link services per resource group (`plsCacheTTLInSeconds`).
    PrivateLinkService,
}
