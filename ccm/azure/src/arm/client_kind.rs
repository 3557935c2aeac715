//! The ARM clients as upstream names them: each has its own rate limiter and throttle gates.

/// One ARM resource client (upstream's per-client rate-limit keys name them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientKind {
    /// `Microsoft.Compute/virtualMachines`.
    VirtualMachine,
    /// `Microsoft.Compute/virtualMachineScaleSets`.
    VirtualMachineScaleSet,
    /// `.../virtualMachineScaleSets/virtualMachines`.
    VirtualMachineScaleSetVm,
    /// `Microsoft.Compute/availabilitySets`.
    AvailabilitySet,
    /// VM sizes of a location.
    VirtualMachineSizes,
    /// `Microsoft.Network/networkInterfaces`.
    Interface,
    /// `Microsoft.Network/loadBalancers` (and backend pools).
    LoadBalancer,
    /// `Microsoft.Network/publicIPAddresses`.
    PublicIpAddress,
    /// `Microsoft.Network/publicIPPrefixes`.
    PublicIpPrefix,
    /// `Microsoft.Network/networkSecurityGroups`.
    SecurityGroup,
    /// `Microsoft.Network/routeTables`.
    RouteTable,
    /// `Microsoft.Network/routeTables/routes`.
    Route,
    /// `Microsoft.Network/virtualNetworks/subnets`.
    Subnet,
    /// `Microsoft.Network/privateLinkServices`.
    PrivateLinkService,
    /// `Microsoft.Network/natGateways`.
    NatGateway,
    /// `Microsoft.Resources` (resource groups, provider metadata).
    Resources,
}

impl ClientKind {
    /// Every client kind.
    pub const ALL: &'static [ClientKind] = &[
        ClientKind::VirtualMachine,
        ClientKind::VirtualMachineScaleSet,
        ClientKind::VirtualMachineScaleSetVm,
        ClientKind::AvailabilitySet,
        ClientKind::VirtualMachineSizes,
        ClientKind::Interface,
        ClientKind::LoadBalancer,
        ClientKind::PublicIpAddress,
        ClientKind::PublicIpPrefix,
        ClientKind::SecurityGroup,
        ClientKind::RouteTable,
        ClientKind::Route,
        ClientKind::Subnet,
        ClientKind::PrivateLinkService,
        ClientKind::NatGateway,
        ClientKind::Resources,
    ];

    /// The name in metric labels (`resource` attribute, `request` prefix).
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::VirtualMachine => "virtualMachine",
            ClientKind::VirtualMachineScaleSet => "virtualMachineScaleSet",
            ClientKind::VirtualMachineScaleSetVm => "virtualMachineScaleSetVM",
            ClientKind::AvailabilitySet => "availabilitySet",
            ClientKind::VirtualMachineSizes => "virtualMachineSizes",
            ClientKind::Interface => "interface",
            ClientKind::LoadBalancer => "loadBalancer",
            ClientKind::PublicIpAddress => "publicIPAddress",
            ClientKind::PublicIpPrefix => "publicIPPrefix",
            ClientKind::SecurityGroup => "securityGroup",
            ClientKind::RouteTable => "routeTable",
            ClientKind::Route => "route",
            ClientKind::Subnet => "subnet",
            ClientKind::PrivateLinkService => "privateLinkService",
            ClientKind::NatGateway => "natGateway",
            ClientKind::Resources => "resources",
        }
    }

    /// The azure.json per-client override key, `None` for clients that use the defaults.
    /// [infer] VMSS VMs share `virtualMachineScaleSetRateLimit`; public IP prefixes share
    /// `publicIPAddressRateLimit`.
    pub fn rate_limit_key(self) -> Option<&'static str> {
        Some(match self {
            ClientKind::VirtualMachine => "virtualMachineRateLimit",
            ClientKind::VirtualMachineScaleSet | ClientKind::VirtualMachineScaleSetVm => {
                "virtualMachineScaleSetRateLimit"
            }
            ClientKind::AvailabilitySet => "availabilitySetRateLimit",
            ClientKind::VirtualMachineSizes => "virtualMachineSizesRateLimit",
            ClientKind::Interface => "interfaceRateLimit",
            ClientKind::LoadBalancer => "loadBalancerRateLimit",
            ClientKind::PublicIpAddress | ClientKind::PublicIpPrefix => "publicIPAddressRateLimit",
            ClientKind::SecurityGroup => "securityGroupRateLimit",
            ClientKind::RouteTable => "routeTableRateLimit",
            ClientKind::Route => "routeRateLimit",
            ClientKind::Subnet => "subnetsRateLimit",
            ClientKind::PrivateLinkService => "privateLinkServiceRateLimit",
            ClientKind::NatGateway => "natGatewayRateLimit",
            ClientKind::Resources => return None,
        })
    }
}
