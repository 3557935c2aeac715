//! `GET /metadata/endpoints?api-version=2019-05-01`: ARM's cloud discovery document. Clients
//! configured with only a `resourceManagerEndpoint` (the Go CCM, az CLI custom clouds, Azure Stack
//! tooling) read the login endpoint and token audience from it, so serving it points them at the
//! fake's own Entra ID and ARM. Unauthenticated, like the real endpoint.
//!
//! With an `api-version` the answer is a JSON array of environments (the shape the Go CCM parses:
//! `name`, `resourceManager`, `authentication.{loginEndpoint,audiences}`); without one it is the
//! legacy single object (`galleryEndpoint`, `graphEndpoint`, `portalEndpoint`, `authentication`).

use axum::Router;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::{HeaderMap, Uri};
use serde_json::{Value, json};
use std::collections::HashMap;

/// Which Azure cloud the fake impersonates: decides the environment name, token audiences,
/// Graph URL and DNS suffixes the document advertises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CloudKind {
    /// Public Azure (`AzureCloud`).
    #[default]
    Public,
    /// Azure US Government (`AzureUSGovernment`).
    UsGovernment,
    /// Azure China (`AzureChinaCloud`).
    China,
}

impl CloudKind {
    /// Environment name as `/metadata/endpoints` spells it.
    pub fn environment_name(self) -> &'static str {
        match self {
            Self::Public => "AzureCloud",
            Self::UsGovernment => "AzureUSGovernment",
            Self::China => "AzureChinaCloud",
        }
    }

    /// ARM token audiences of this cloud (the first one is what clients request).
    pub fn audiences(self) -> [&'static str; 2] {
        match self {
            Self::Public => [
                "https://management.core.windows.net/",
                "https://management.azure.com/",
            ],
            Self::UsGovernment => [
                "https://management.core.usgovcloudapi.net/",
                "https://management.usgovcloudapi.net/",
            ],
            Self::China => [
                "https://management.core.chinacloudapi.cn/",
                "https://management.chinacloudapi.cn/",
            ],
        }
    }

    fn dns(
        self,
    ) -> (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ) {
        // (graph, storage, keyVaultDns, acrLoginServer, sqlServerHostname)
        match self {
            Self::Public => (
                "https://graph.windows.net/",
                "core.windows.net",
                "vault.azure.net",
                "azurecr.io",
                "database.windows.net",
            ),
            Self::UsGovernment => (
                "https://graph.windows.net/",
                "core.usgovcloudapi.net",
                "vault.usgovcloudapi.net",
                "azurecr.us",
                "database.usgovcloudapi.net",
            ),
            Self::China => (
                "https://graph.chinacloudapi.cn/",
                "core.chinacloudapi.cn",
                "vault.azure.cn",
                "azurecr.cn",
                "database.chinacloudapi.cn",
            ),
        }
    }
}

/// Environment name of the custom-cloud entry (what azure.json calls an Azure Stack / custom cloud).
pub const CUSTOM_CLOUD_NAME: &str = "AzureStackCloud";

/// Router serving the document.
pub fn router(cloud: CloudKind) -> Router {
    Router::new()
        .route("/metadata/endpoints", get(endpoints))
        .with_state(cloud)
}

async fn endpoints(
    State(cloud): State<CloudKind>,
    Query(query): Query<HashMap<String, String>>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let base = crate::entra::request_authority(&uri, &headers);
    let document = if query.contains_key("api-version") {
        // Clients pick the entry whose `name` matches their configured cloud: the impersonated
        // cloud's name for azure.json `cloud: AzurePublicCloud` (etc.) and the custom-cloud name
        // for `cloud: AzureStackCloud`, both pointing at the fake.
        let mut custom = environment(cloud, &base);
        custom["name"] = json!(CUSTOM_CLOUD_NAME);
        json!([environment(cloud, &base), custom])
    } else {
        legacy(cloud, &base)
    };
    axum::Json(document).into_response()
}

/// The environment entry for a fake served at `base` (`https://127.0.0.1:8443`).
pub fn environment(cloud: CloudKind, base: &str) -> Value {
    let (graph, storage, key_vault, acr, sql) = cloud.dns();
    json!({
        "portal": format!("{base}/"),
        "authentication": {
            "loginEndpoint": format!("{base}/"),
            "audiences": cloud.audiences(),
            "tenant": "common",
            "identityProvider": "AAD",
        },
        "graphAudience": graph,
        "graph": graph,
        "name": cloud.environment_name(),
        "suffixes": {
            "acrLoginServer": acr,
            "sqlServerHostname": sql,
            "keyVaultDns": key_vault,
            "storage": storage,
        },
        "resourceManager": format!("{base}/"),
        "gallery": format!("{base}/"),
    })
}

fn legacy(cloud: CloudKind, base: &str) -> Value {
    let (graph, ..) = cloud.dns();
    json!({
        "galleryEndpoint": format!("{base}/"),
        "graphEndpoint": graph,
        "portalEndpoint": format!("{base}/"),
        "authentication": { "loginEndpoint": format!("{base}/"), "audiences": cloud.audiences() },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_points_at_the_fake() {
        let env = environment(CloudKind::Public, "https://127.0.0.1:8443");
        insta::assert_json_snapshot!(env);
        assert_eq!(
            env["authentication"]["audiences"][0],
            "https://management.core.windows.net/"
        );
        let legacy = legacy(CloudKind::China, "https://h");
        assert_eq!(legacy["authentication"]["loginEndpoint"], "https://h/");
        assert_eq!(
            environment(CloudKind::UsGovernment, "https://h")["name"],
            "AzureUSGovernment"
        );
    }
}
