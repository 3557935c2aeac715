//! `resourceManagerEndpoint` discovery: `GET <rm>/metadata/endpoints?api-version=2019-05-01`,
//! fetched once per process and URL (upstream's CCM fetches it once per client it builds, 78
//! times at start), then the entry named like the configured cloud picked from it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;
use tokio::sync::OnceCell;
use url::Url;

use super::endpoints::CloudEndpoints;
use super::environment_file::https_url;
use super::error::CloudError;
use crate::config::Cloud;

/// The api-version upstream asks the metadata endpoint with.
pub const API_VERSION: &str = "2019-05-01";

/// Documents fetched so far, by metadata URL; failures are not cached, so a later build retries.
type Documents = Mutex<HashMap<String, Arc<OnceCell<Value>>>>;

fn documents() -> &'static Documents {
    static DOCUMENTS: OnceLock<Documents> = OnceLock::new();
    DOCUMENTS.get_or_init(Documents::default)
}

/// The metadata URL for `resource_manager`.
pub fn metadata_url(resource_manager: &str) -> Result<Url, CloudError> {
    let base =
        https_url(resource_manager).map_err(|reason| CloudError::BadResourceManagerEndpoint {
            value: resource_manager.to_string(),
            reason,
        })?;
    let mut url =
        base.join("metadata/endpoints")
            .map_err(|e| CloudError::BadResourceManagerEndpoint {
                value: resource_manager.to_string(),
                reason: e.to_string(),
            })?;
    url.query_pairs_mut()
        .append_pair("api-version", API_VERSION);
    Ok(url)
}

/// Discovers `cloud`'s endpoints from `resource_manager`'s metadata document (cached per process).
pub async fn discover(
    http: &reqwest::Client,
    resource_manager: &str,
    cloud: Cloud,
) -> Result<CloudEndpoints, CloudError> {
    let url = metadata_url(resource_manager)?;
    let cell = {
        let mut map = documents()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(map.entry(url.to_string()).or_default())
    };
    let document = cell.get_or_try_init(|| fetch(http, &url)).await?;
    select(document, cloud, &url)
}

async fn fetch(http: &reqwest::Client, url: &Url) -> Result<Value, CloudError> {
    let failed = |reason: String| CloudError::Discovery {
        url: url.to_string(),
        reason,
    };
    tracing::debug!(%url, "discovering cloud endpoints");
    let response = http
        .get(url.clone())
        .send()
        .await
        .map_err(|e| failed(e.to_string()))?;
    let status = response.status();
    if !status.is_success() {
        return Err(failed(format!("status {status}")));
    }
    response
        .json::<Value>()
        .await
        .map_err(|e| failed(format!("body is not JSON: {e}")))
}

/// Names a metadata entry may carry for `cloud` (the CCM's spelling and ARM's).
fn names(cloud: Cloud) -> Vec<&'static str> {
    let mut names = Cloud::ACCEPTED
        .iter()
        .copied()
        .filter(|n| Cloud::parse(n) == Some(cloud))
        .collect::<Vec<_>>();
    if cloud == Cloud::Public {
        names.push("AzureCloud");
    }
    names
}

/// Picks `cloud`'s entry: by name (any case); a document with a single entry (or the legacy single
/// object) is taken whatever its name.
pub fn select(document: &Value, cloud: Cloud, url: &Url) -> Result<CloudEndpoints, CloudError> {
    let entries: Vec<&Value> = match document {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let entry_name = |e: &Value| e["name"].as_str().unwrap_or_default().to_string();
    let wanted = names(cloud);
    let chosen = entries
        .iter()
        .find(|e| {
            wanted
                .iter()
                .any(|w| w.eq_ignore_ascii_case(&entry_name(e)))
        })
        .or(if entries.len() == 1 {
            entries.first()
        } else {
            None
        })
        .ok_or_else(|| CloudError::NoMatchingEnvironment {
            url: url.to_string(),
            wanted: wanted.join(" or "),
            listed: entries
                .iter()
                .map(|e| entry_name(e))
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    entry(chosen, cloud, url)
}

fn entry(entry: &Value, cloud: Cloud, url: &Url) -> Result<CloudEndpoints, CloudError> {
    let source_name = url.to_string();
    let bad = |key: &str, problem: String| CloudError::BadEndpoint {
        source_name: source_name.clone(),
        key: key.to_string(),
        problem,
    };
    let url_at = |key: &str, value: Option<&str>| -> Result<Url, CloudError> {
        let value = value.ok_or_else(|| bad(key, "is missing".to_string()))?;
        https_url(value).map_err(|r| bad(key, format!("is not an https URL: '{value}' ({r})")))
    };
    // The versioned document says `resourceManager`; the legacy one has no ARM URL: ARM is the
    // host we asked.
    let resource_manager = match entry["resourceManager"].as_str() {
        Some(rm) => url_at("resourceManager", Some(rm))?,
        None => url_at(
            "resourceManager",
            Some(url.origin().ascii_serialization().as_str()),
        )?,
    };
    let authority_host = url_at(
        "authentication.loginEndpoint",
        entry["authentication"]["loginEndpoint"].as_str(),
    )?;
    let token_audience = entry["authentication"]["audiences"][0]
        .as_str()
        .ok_or_else(|| bad("authentication.audiences", "is missing".to_string()))?
        .to_string();
    let name = entry["name"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| cloud.as_str().to_string());
    Ok(CloudEndpoints {
        name,
        authority_host,
        resource_manager,
        token_audience,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn url() -> Url {
        metadata_url("https://127.0.0.1:8443").expect("url")
    }

    fn document() -> Value {
        let env = |name: &str| {
            json!({
                "name": name,
                "resourceManager": "https://127.0.0.1:8443/",
                "authentication": {"loginEndpoint": "https://127.0.0.1:8443/",
                                   "audiences": ["https://management.core.windows.net/", "https://management.azure.com/"]}
            })
        };
        json!([env("AzureCloud"), env("AzureStackCloud")])
    }

    #[test]
    fn metadata_url_has_the_api_version() {
        assert_eq!(
            url().as_str(),
            "https://127.0.0.1:8443/metadata/endpoints?api-version=2019-05-01"
        );
        assert!(metadata_url("http://insecure").is_err());
    }

    #[test]
    fn picks_the_entry_named_like_the_cloud() {
        let stack = select(&document(), Cloud::Stack, &url()).expect("stack");
        assert_eq!(stack.name, "AzureStackCloud");
        let public = select(&document(), Cloud::Public, &url()).expect("public");
        assert_eq!(public.name, "AzureCloud");
        assert_eq!(
            public.arm_scope(),
            "https://management.core.windows.net/.default"
        );
        let china = select(&document(), Cloud::China, &url()).expect_err("no china entry");
        insta::assert_snapshot!(china.to_string());
    }

    #[test]
    fn a_single_or_legacy_entry_is_taken_whatever_its_name() {
        let legacy = json!({"authentication": {"loginEndpoint": "https://login.example/", "audiences": ["https://a/"]}});
        let endpoints = select(&legacy, Cloud::Stack, &url()).expect("legacy");
        assert_eq!(
            endpoints.resource_manager.as_str(),
            "https://127.0.0.1:8443/"
        );
        assert_eq!(endpoints.name, "AzureStackCloud");
        let broken = json!([{"name": "AzureStackCloud", "resourceManager": "https://x/"}]);
        let error = select(&broken, Cloud::Stack, &url()).expect_err("no login endpoint");
        assert!(
            error.to_string().contains("authentication.loginEndpoint"),
            "{error}"
        );
    }
}
