//! Why a pure selection over a model (primary NIC, primary ipconfig) found nothing.

/// A fact the CCM needs is missing from an ARM document; messages follow upstream's wording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    /// No NIC (or several, none marked primary) on a VM or scale-set VM.
    #[error("failed to find a primary nic for the vm. vmname={vm:?}")]
    NoPrimaryNic {
        /// VM name.
        vm: String,
    },
    /// The NIC has no `ipConfigurations` at all.
    #[error("nic.IPConfigurations for nic (nicname={nic:?}) is nil")]
    NoIpConfigurations {
        /// NIC name.
        nic: String,
    },
    /// Several ipconfigs and none marked primary.
    #[error("failed to determine the primary ipconfig. nicname={nic:?}")]
    NoPrimaryIpConfig {
        /// NIC name.
        nic: String,
    },
    /// No ipconfig with an address of the wanted family.
    #[error("failed to determine the ipconfig(IPv6={ipv6}). nicname={nic:?}")]
    NoIpConfigOfFamily {
        /// NIC name.
        nic: String,
        /// The family looked for.
        ipv6: bool,
    },
}
