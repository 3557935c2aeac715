//! Registry of the resource types this fake serves: canonical casing, owning provider, and whether a type is
//! stored as its own entry or embedded in its parent's `properties` (NRP child collections).

/// Which resource provider answers for a type; drives ETag style, LRO URLs and error flavours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// `Microsoft.Resources` (resource groups).
    Resources,
    /// `Microsoft.Network` (NRP): weak GUID etags, `details: []` errors.
    Network,
    /// `Microsoft.Compute` (CRP): integer etags.
    Compute,
}

impl Provider {
    /// Canonical namespace spelling.
    pub fn namespace(self) -> &'static str {
        match self {
            Provider::Resources => "Microsoft.Resources",
            Provider::Network => "Microsoft.Network",
            Provider::Compute => "Microsoft.Compute",
        }
    }
}

/// Identity of each served type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum KindId {
    /// `Microsoft.Resources/resourceGroups`.
    ResourceGroup,
    /// `Microsoft.Network/loadBalancers`.
    LoadBalancer,
    /// `Microsoft.Network/publicIPAddresses`.
    PublicIp,
    /// `Microsoft.Network/publicIPPrefixes`.
    PublicIpPrefix,
    /// `Microsoft.Network/networkSecurityGroups`.
    Nsg,
    /// `Microsoft.Network/networkInterfaces`.
    Nic,
    /// `Microsoft.Network/routeTables`.
    RouteTable,
    /// `Microsoft.Network/virtualNetworks`.
    Vnet,
    /// `Microsoft.Network/privateLinkServices`.
    PrivateLinkService,
    /// `Microsoft.Compute/virtualMachines`.
    Vm,
    /// `Microsoft.Compute/virtualMachineScaleSets`.
    Vmss,
    /// `Microsoft.Compute/virtualMachineScaleSets/virtualMachines` (uniform instances).
    VmssVm,
    /// `Microsoft.Compute/virtualMachineScaleSets/virtualMachines/networkInterfaces` (served by NRP, read-only).
    VmssNic,
    /// `Microsoft.Compute/virtualMachineScaleSets/virtualMachines/networkInterfaces/ipConfigurations/publicIPAddresses`
    /// (a uniform instance's public IP, materialised from `publicIPAddressConfiguration`; served by NRP, read-only).
    VmssPip,
    /// `Microsoft.Compute/availabilitySets`.
    AvailabilitySet,
    /// An NRP child embedded in its parent's `properties.<collection>`.
    Embedded,
}

/// Static description of one type.
#[derive(Debug)]
pub struct Kind {
    /// Identity.
    pub id: KindId,
    /// Provider answering for it.
    pub provider: Provider,
    /// Canonical type segments, outermost first.
    pub types: &'static [&'static str],
    /// For embedded children: clients may PUT/DELETE them through their own endpoint.
    pub writable: bool,
}

impl Kind {
    /// `Namespace/type1/type2`, the value of the `type` property.
    pub fn full_type(&self) -> String {
        let mut s = self.provider.namespace().to_string();
        for t in self.types {
            s.push('/');
            s.push_str(t);
        }
        s
    }

    /// `true` for NRP children stored inside the parent document.
    pub fn is_embedded(&self) -> bool {
        self.id == KindId::Embedded
    }

    /// Last type segment (the child collection's property name for embedded kinds).
    pub fn last_type(&self) -> &'static str {
        self.types.last().copied().unwrap_or("")
    }
}

const fn k(id: KindId, provider: Provider, types: &'static [&'static str], writable: bool) -> Kind {
    Kind {
        id,
        provider,
        types,
        writable,
    }
}

use KindId::*;
use Provider::*;

/// Every served type.
pub static KINDS: &[Kind] = &[
    k(ResourceGroup, Resources, &["resourceGroups"], true),
    k(LoadBalancer, Network, &["loadBalancers"], true),
    k(
        Embedded,
        Network,
        &["loadBalancers", "frontendIPConfigurations"],
        false,
    ),
    k(
        Embedded,
        Network,
        &["loadBalancers", "backendAddressPools"],
        true,
    ),
    k(
        Embedded,
        Network,
        &["loadBalancers", "loadBalancingRules"],
        false,
    ),
    k(Embedded, Network, &["loadBalancers", "probes"], false),
    k(
        Embedded,
        Network,
        &["loadBalancers", "inboundNatRules"],
        true,
    ),
    k(
        Embedded,
        Network,
        &["loadBalancers", "outboundRules"],
        false,
    ),
    k(PublicIp, Network, &["publicIPAddresses"], true),
    k(PublicIpPrefix, Network, &["publicIPPrefixes"], true),
    k(Nsg, Network, &["networkSecurityGroups"], true),
    k(
        Embedded,
        Network,
        &["networkSecurityGroups", "securityRules"],
        true,
    ),
    k(
        Embedded,
        Network,
        &["networkSecurityGroups", "defaultSecurityRules"],
        false,
    ),
    k(Nic, Network, &["networkInterfaces"], true),
    k(
        Embedded,
        Network,
        &["networkInterfaces", "ipConfigurations"],
        false,
    ),
    k(RouteTable, Network, &["routeTables"], true),
    k(Embedded, Network, &["routeTables", "routes"], true),
    k(Vnet, Network, &["virtualNetworks"], true),
    k(Embedded, Network, &["virtualNetworks", "subnets"], true),
    k(PrivateLinkService, Network, &["privateLinkServices"], true),
    k(Vm, Compute, &["virtualMachines"], true),
    k(Vmss, Compute, &["virtualMachineScaleSets"], true),
    k(
        VmssVm,
        Compute,
        &["virtualMachineScaleSets", "virtualMachines"],
        true,
    ),
    k(
        VmssNic,
        Network,
        &[
            "virtualMachineScaleSets",
            "virtualMachines",
            "networkInterfaces",
        ],
        false,
    ),
    k(
        Embedded,
        Network,
        &[
            "virtualMachineScaleSets",
            "virtualMachines",
            "networkInterfaces",
            "ipConfigurations",
        ],
        false,
    ),
    k(
        VmssPip,
        Network,
        &[
            "virtualMachineScaleSets",
            "virtualMachines",
            "networkInterfaces",
            "ipConfigurations",
            "publicIPAddresses",
        ],
        false,
    ),
    // Scale-set-wide list views (`.../virtualMachineScaleSets/{ss}/networkInterfaces|publicIPAddresses`): listed
    // after the canonical per-instance kinds so `by_id` keeps returning those.
    k(
        VmssNic,
        Network,
        &["virtualMachineScaleSets", "networkInterfaces"],
        false,
    ),
    k(
        VmssPip,
        Network,
        &["virtualMachineScaleSets", "publicIPAddresses"],
        false,
    ),
    k(AvailabilitySet, Compute, &["availabilitySets"], true),
];

/// Finds the kind for a lower-cased `namespace/type/...` key. VMSS NIC paths live under `Microsoft.Compute`
/// in the URL although NRP serves them.
pub fn lookup(type_key: &str) -> Option<&'static Kind> {
    let (ns, rest) = type_key.split_once('/')?;
    KINDS.iter().find(|kind| {
        let ns_ok = if kind.provider == Network && kind.types[0] == "virtualMachineScaleSets" {
            ns == "microsoft.compute"
        } else {
            ns == kind.provider.namespace().to_ascii_lowercase()
        };
        ns_ok && {
            let mut parts = rest.split('/');
            kind.types
                .iter()
                .all(|t| parts.next().is_some_and(|p| p.eq_ignore_ascii_case(t)))
                && parts.next().is_none()
        }
    })
}

/// The canonical kind for a top-level (stored) id kind.
pub fn by_id(id: KindId) -> &'static Kind {
    KINDS.iter().find(|k| k.id == id).unwrap_or(&KINDS[0])
}

/// `true` for the scale-set-wide list views (`.../virtualMachineScaleSets/{ss}/networkInterfaces` and
/// `.../publicIPAddresses`), which gather the per-instance resources of every instance.
pub fn is_scale_set_wide_view(kind: &Kind) -> bool {
    matches!(kind.id, VmssNic | VmssPip) && kind.types.len() == 2
}

/// Namespace as it must appear in ids of this kind (VMSS instance paths use `Microsoft.Compute`).
pub fn path_namespace(kind: &Kind) -> &'static str {
    if kind.types[0] == "virtualMachineScaleSets" {
        "Microsoft.Compute"
    } else {
        kind.provider.namespace()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_case_insensitive_and_exact() {
        assert_eq!(
            lookup("microsoft.network/loadbalancers").unwrap().id,
            LoadBalancer
        );
        assert!(
            lookup("microsoft.network/loadbalancers/backendaddresspools")
                .unwrap()
                .writable
        );
        assert_eq!(
            lookup("microsoft.compute/virtualmachinescalesets/virtualmachines/networkinterfaces")
                .unwrap()
                .id,
            VmssNic
        );
        assert_eq!(
            lookup("microsoft.compute/virtualmachinescalesets/virtualmachines/networkinterfaces/ipconfigurations/publicipaddresses")
                .unwrap()
                .id,
            VmssPip
        );
        assert!(is_scale_set_wide_view(
            lookup("microsoft.compute/virtualmachinescalesets/networkinterfaces").unwrap()
        ));
        assert_eq!(by_id(VmssNic).types.len(), 3);
        assert_eq!(
            lookup("microsoft.network/publicipprefixes").unwrap().id,
            PublicIpPrefix
        );
        assert!(lookup("microsoft.network/virtualmachines").is_none());
        assert!(lookup("microsoft.network/loadbalancers/x").is_none());
    }
}
