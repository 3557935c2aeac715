//! [`CachedNic`]: a uniform scale-set instance's NIC as the scale-set NIC cache keeps it (those
//! NICs are read-only in NRP), and the view of any NIC node addresses and routes read.

use serde::Deserialize;

use crate::arm::resources::NetworkInterface;
use crate::arm::resources::SelectionError;
use crate::arm::resources::envelope::{is_ipv6_version, only_or_flagged};
use crate::arm::resources::network_interface::NicIpConfiguration;

use super::parts::IdOnly;

/// A NIC reduced to its id, name and the address facts of each ipconfig, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "Listed")]
pub struct CachedNic {
    /// Full id.
    pub id: Option<String>,
    /// NIC name (error messages).
    pub name: Option<String>,
    /// `properties.ipConfigurations` (`None` when the member is absent).
    pub ip_configurations: Option<Vec<CachedIpConfig>>,
}

/// One ipconfig's address facts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "ListedIpConfig")]
pub struct CachedIpConfig {
    /// Ipconfig name.
    pub name: Option<String>,
    /// The `primary` flag.
    pub primary: Option<bool>,
    /// `privateIPAddress`.
    pub private_ip_address: Option<String>,
    /// `privateIPAddressVersion` is `IPv6`.
    pub ipv6: bool,
    /// Id of the instance-level public IP.
    pub public_ip_id: Option<String>,
}

#[derive(Deserialize)]
struct Listed {
    id: Option<String>,
    name: Option<String>,
    properties: Option<ListedProperties>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListedProperties {
    ip_configurations: Option<Vec<CachedIpConfig>>,
}

#[derive(Deserialize)]
struct ListedIpConfig {
    name: Option<String>,
    properties: Option<ListedIpConfigProperties>,
}

#[derive(Default, Deserialize)]
struct ListedIpConfigProperties {
    primary: Option<bool>,
    #[serde(rename = "privateIPAddress")]
    private_ip_address: Option<String>,
    #[serde(rename = "privateIPAddressVersion")]
    private_ip_address_version: Option<String>,
    #[serde(rename = "publicIPAddress")]
    public_ip_address: Option<IdOnly>,
}

impl From<Listed> for CachedNic {
    fn from(l: Listed) -> CachedNic {
        CachedNic {
            id: l.id,
            name: l.name,
            ip_configurations: l.properties.and_then(|p| p.ip_configurations),
        }
    }
}

impl From<ListedIpConfig> for CachedIpConfig {
    fn from(l: ListedIpConfig) -> CachedIpConfig {
        let p = l.properties.unwrap_or_default();
        CachedIpConfig {
            name: l.name,
            primary: p.primary,
            private_ip_address: p.private_ip_address,
            ipv6: is_ipv6_version(p.private_ip_address_version.as_deref()),
            public_ip_id: p.public_ip_address.and_then(|r| r.id),
        }
    }
}

impl From<&NicIpConfiguration> for CachedIpConfig {
    fn from(c: &NicIpConfiguration) -> CachedIpConfig {
        let p = c.properties.as_ref();
        CachedIpConfig {
            name: c.name.clone(),
            primary: p.and_then(|p| p.primary),
            private_ip_address: p.and_then(|p| p.private_ip_address.clone()),
            ipv6: is_ipv6_version(p.and_then(|p| p.private_ip_address_version.as_deref())),
            public_ip_id: p
                .and_then(|p| p.public_ip_address.as_ref())
                .and_then(|r| r.id.clone()),
        }
    }
}

impl From<&NetworkInterface> for CachedNic {
    /// The projection of a whole document (availability-set NICs, cached whole for their PUTs).
    fn from(nic: &NetworkInterface) -> CachedNic {
        CachedNic {
            id: nic.id.clone(),
            name: nic.name.clone(),
            ip_configurations: nic
                .properties
                .as_ref()
                .and_then(|p| p.ip_configurations.as_ref())
                .map(|c| c.iter().map(CachedIpConfig::from).collect()),
        }
    }
}

impl CachedNic {
    fn nic_name(&self) -> String {
        self.name.clone().unwrap_or_default()
    }

    fn configs(&self) -> Result<&[CachedIpConfig], SelectionError> {
        self.ip_configurations
            .as_deref()
            .ok_or_else(|| SelectionError::NoIpConfigurations {
                nic: self.nic_name(),
            })
    }

    /// The primary ipconfig, as [`NetworkInterface::primary_ip_configuration`] picks it.
    pub fn primary_ip_configuration(&self) -> Result<&CachedIpConfig, SelectionError> {
        only_or_flagged(self.configs()?, |c| c.primary == Some(true)).ok_or_else(|| {
            SelectionError::NoPrimaryIpConfig {
                nic: self.nic_name(),
            }
        })
    }

    /// The first ipconfig with a private address of the family, as
    /// [`NetworkInterface::ip_configuration_of_family`] picks it.
    pub fn ip_configuration_of_family(
        &self,
        ipv6: bool,
    ) -> Result<&CachedIpConfig, SelectionError> {
        self.configs()?
            .iter()
            .find(|c| c.private_ip_address.is_some() && c.ipv6 == ipv6)
            .ok_or_else(|| SelectionError::NoIpConfigOfFamily {
                nic: self.nic_name(),
                ipv6,
            })
    }
}
