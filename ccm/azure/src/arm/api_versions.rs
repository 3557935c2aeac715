//! The api-version the CCM sends for each ARM resource type, public cloud and Azure Stack Hub.
//!
//! Source: anchor-ccm.md §6.1 (api-versions pinned by upstream's vendored SDK clients, and the
//! Azure Stack overrides applied when `cloud` is `AzureStackCloud` and `disableAzureStackCloud` is
//! false). Types without an Azure Stack override keep the public version there too.

/// Resource types the CCM calls, one per api-version row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceType {
    /// `Microsoft.Compute/virtualMachines`.
    VirtualMachines,
    /// `Microsoft.Compute/virtualMachineScaleSets`.
    VirtualMachineScaleSets,
    /// `Microsoft.Compute/virtualMachineScaleSets/virtualMachines`.
    ScaleSetVms,
    /// `Microsoft.Compute/availabilitySets`.
    AvailabilitySets,
    /// NICs and public IPs of uniform scale-set VMs (served under Compute paths by NRP).
    ScaleSetVmNetwork,
    /// `Microsoft.Network/networkInterfaces`.
    NetworkInterfaces,
    /// `Microsoft.Network/loadBalancers` (and its backend-pool sub-resource).
    LoadBalancers,
    /// `Microsoft.Network/publicIPAddresses`.
    PublicIpAddresses,
    /// `Microsoft.Network/publicIPPrefixes`.
    PublicIpPrefixes,
    /// `Microsoft.Network/networkSecurityGroups`.
    NetworkSecurityGroups,
    /// `Microsoft.Network/routeTables` (and routes).
    RouteTables,
    /// `Microsoft.Network/virtualNetworks` and subnets.
    VirtualNetworks,
    /// `Microsoft.Network/privateLinkServices`.
    PrivateLinkServices,
    /// `GET /subscriptions/{sub}/providers/Microsoft.Compute` (zone mappings).
    ProviderMetadata,
}

/// Which cloud flavour picks the version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloudFlavor {
    /// Public, China, US Gov and custom clouds that are not Azure Stack.
    Public,
    /// Azure Stack Hub (`AzureStackCloud` without `disableAzureStackCloud`).
    AzureStack,
}

/// One row of the table: type, public version, Azure Stack override.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiVersionRow {
    /// The resource type.
    pub resource_type: ResourceType,
    /// Public-cloud api-version.
    pub public: &'static str,
    /// Azure Stack override, when upstream has one.
    pub azure_stack: Option<&'static str>,
}

impl ResourceType {
    /// Every type, in table order.
    pub const ALL: [ResourceType; 14] = [
        ResourceType::VirtualMachines,
        ResourceType::VirtualMachineScaleSets,
        ResourceType::ScaleSetVms,
        ResourceType::AvailabilitySets,
        ResourceType::ScaleSetVmNetwork,
        ResourceType::NetworkInterfaces,
        ResourceType::LoadBalancers,
        ResourceType::PublicIpAddresses,
        ResourceType::PublicIpPrefixes,
        ResourceType::NetworkSecurityGroups,
        ResourceType::RouteTables,
        ResourceType::VirtualNetworks,
        ResourceType::PrivateLinkServices,
        ResourceType::ProviderMetadata,
    ];

    /// This type's row of the table (anchor-ccm.md §6.1): public version, Azure Stack override.
    pub const fn row(self) -> ApiVersionRow {
        use ResourceType::*;
        let (public, azure_stack) = match self {
            VirtualMachines => ("2025-04-01", Some("2017-12-01")),
            VirtualMachineScaleSets => ("2025-04-01", Some("2019-07-01")),
            ScaleSetVms => ("2025-04-01", Some("2019-07-01")),
            AvailabilitySets => ("2025-04-01", Some("2019-07-01")),
            ScaleSetVmNetwork => ("2018-10-01", None),
            NetworkInterfaces => ("2025-05-01", Some("2018-11-01")),
            LoadBalancers => ("2025-05-01", Some("2018-11-01")),
            PublicIpAddresses => ("2025-05-01", Some("2018-11-01")),
            PublicIpPrefixes => ("2025-05-01", None),
            NetworkSecurityGroups => ("2025-05-01", Some("2018-11-01")),
            RouteTables => ("2025-05-01", Some("2018-11-01")),
            VirtualNetworks => ("2025-05-01", Some("2018-11-01")),
            PrivateLinkServices => ("2025-05-01", Some("2019-03-01")),
            ProviderMetadata => ("2021-04-01", None),
        };
        ApiVersionRow {
            resource_type: self,
            public,
            azure_stack,
        }
    }

    /// The api-version to send for this type in `flavor`.
    pub const fn api_version(self, flavor: CloudFlavor) -> &'static str {
        let row = self.row();
        match (flavor, row.azure_stack) {
            (CloudFlavor::AzureStack, Some(version)) => version,
            _ => row.public,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_its_type_and_a_dated_version() {
        for t in ResourceType::ALL {
            let row = t.row();
            assert_eq!(row.resource_type, t);
            for v in std::iter::once(row.public).chain(row.azure_stack) {
                assert_eq!(v.len(), 10, "{t:?}: {v}");
                assert!(v.starts_with("20"), "{t:?}: {v}");
            }
        }
    }

    #[test]
    fn public_and_azure_stack_versions() {
        use CloudFlavor::*;
        use ResourceType::*;
        assert_eq!(VirtualMachines.api_version(Public), "2025-04-01");
        assert_eq!(VirtualMachines.api_version(AzureStack), "2017-12-01");
        assert_eq!(ScaleSetVms.api_version(AzureStack), "2019-07-01");
        assert_eq!(LoadBalancers.api_version(Public), "2025-05-01");
        assert_eq!(LoadBalancers.api_version(AzureStack), "2018-11-01");
        assert_eq!(PrivateLinkServices.api_version(AzureStack), "2019-03-01");
        // The scale-set VM NIC/PIP API is fixed by the SDK in every cloud.
        assert_eq!(ScaleSetVmNetwork.api_version(Public), "2018-10-01");
        assert_eq!(ScaleSetVmNetwork.api_version(AzureStack), "2018-10-01");
        assert_eq!(PublicIpPrefixes.api_version(AzureStack), "2025-05-01");
        assert_eq!(ProviderMetadata.api_version(Public), "2021-04-01");
    }
}
