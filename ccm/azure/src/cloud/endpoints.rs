//! One cloud's endpoints: where Entra ID issues tokens, where ARM lives, and the audience ARM
//! tokens are requested for; the three well-known clouds are constants here.

use std::sync::Arc;

use azure_core::cloud::{CloudConfiguration, CustomConfiguration};
use serde::Serialize;
use url::Url;

use crate::config::Cloud;

/// The endpoints every credential and ARM client of one cloud uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CloudEndpoints {
    /// Environment name (e.g. `AzurePublicCloud`, or the discovered/custom name).
    pub name: String,
    /// Entra ID authority host (`https://login.microsoftonline.com/`); tokens come from
    /// `<authority>/<tenant>/oauth2/v2.0/token`.
    #[serde(serialize_with = "url_text")]
    pub authority_host: Url,
    /// ARM base URL (`https://management.azure.com/`).
    #[serde(serialize_with = "url_text")]
    pub resource_manager: Url,
    /// Audience ARM tokens are requested for (`https://management.core.windows.net/`).
    pub token_audience: String,
}

fn url_text<S: serde::Serializer>(url: &Url, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(url.as_str())
}

/// Public cloud: authority, ARM and audience of the Go SDK's `AzurePublicCloud`.
const PUBLIC: (&str, &str, &str, &str) = (
    "AzurePublicCloud",
    "https://login.microsoftonline.com/",
    "https://management.azure.com/",
    "https://management.core.windows.net/",
);
/// China: the Go SDK's `AzureChinaCloud`.
const CHINA: (&str, &str, &str, &str) = (
    "AzureChinaCloud",
    "https://login.chinacloudapi.cn/",
    "https://management.chinacloudapi.cn/",
    "https://management.core.chinacloudapi.cn/",
);
/// US Government: the Go SDK's `AzureUSGovernmentCloud`.
const US_GOVERNMENT: (&str, &str, &str, &str) = (
    "AzureUSGovernmentCloud",
    "https://login.microsoftonline.us/",
    "https://management.usgovcloudapi.net/",
    "https://management.core.usgovcloudapi.net/",
);

impl CloudEndpoints {
    /// The endpoints of a well-known cloud; `None` for `AzureStackCloud`, whose endpoints come
    /// from an environment file or discovery.
    pub fn well_known(cloud: Cloud) -> Option<CloudEndpoints> {
        let (name, authority, arm, audience) = match cloud {
            Cloud::Public => PUBLIC,
            Cloud::China => CHINA,
            Cloud::UsGovernment => US_GOVERNMENT,
            Cloud::Stack => return None,
        };
        Some(CloudEndpoints {
            name: name.to_string(),
            authority_host: Url::parse(authority).ok()?,
            resource_manager: Url::parse(arm).ok()?,
            token_audience: audience.to_string(),
        })
    }

    /// The one scope ARM tokens are requested with: `<audience>/.default` (a trailing `/` of the
    /// audience dropped, so `https://management.core.windows.net//.default` never appears).
    pub fn arm_scope(&self) -> String {
        format!("{}/.default", self.token_audience.trim_end_matches('/'))
    }

    /// The same authority as azure_identity's cloud configuration, so its credentials ask this
    /// cloud's Entra ID (never `AZURE_AUTHORITY_HOST` behind our back).
    pub fn cloud_configuration(&self) -> Arc<CloudConfiguration> {
        let mut custom = CustomConfiguration::default();
        custom.authority_host = self
            .authority_host
            .as_str()
            .trim_end_matches('/')
            .to_string();
        Arc::new(CloudConfiguration::Custom(custom))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_clouds_and_their_scopes() {
        let public = CloudEndpoints::well_known(Cloud::Public).expect("public");
        assert_eq!(
            public.arm_scope(),
            "https://management.core.windows.net/.default"
        );
        assert_eq!(
            CloudEndpoints::well_known(Cloud::China)
                .expect("china")
                .authority_host
                .as_str(),
            "https://login.chinacloudapi.cn/"
        );
        assert_eq!(
            CloudEndpoints::well_known(Cloud::UsGovernment)
                .expect("gov")
                .resource_manager
                .as_str(),
            "https://management.usgovcloudapi.net/"
        );
        assert!(CloudEndpoints::well_known(Cloud::Stack).is_none());
    }
}
