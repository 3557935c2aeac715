//! [`CachedPublicIp`]: a public IP as the address caches keep it (the load balancer reconcile
//! reads its own fresh, whole PIP list; these caches only give nodes their ExternalIP).

use serde::Deserialize;

use crate::arm::resources::PublicIpAddress;

/// A public IP reduced to its id and address.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "Listed")]
pub struct CachedPublicIp {
    /// Full id.
    pub id: Option<String>,
    /// `properties.ipAddress`.
    pub ip_address: Option<String>,
}

#[derive(Deserialize)]
struct Listed {
    id: Option<String>,
    properties: Option<ListedProperties>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListedProperties {
    ip_address: Option<String>,
}

impl From<Listed> for CachedPublicIp {
    fn from(l: Listed) -> CachedPublicIp {
        CachedPublicIp {
            id: l.id,
            ip_address: l.properties.and_then(|p| p.ip_address),
        }
    }
}

impl From<&PublicIpAddress> for CachedPublicIp {
    /// The projection of a whole document.
    fn from(pip: &PublicIpAddress) -> CachedPublicIp {
        CachedPublicIp {
            id: pip.id.clone(),
            ip_address: pip.properties.as_ref().and_then(|p| p.ip_address.clone()),
        }
    }
}
