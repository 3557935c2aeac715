//! `AZURE_ENVIRONMENT_FILEPATH`: the Go SDK's environment JSON (autorest `azure.Environment`) that
//! gives `cloud: AzureStackCloud` its endpoints. Keys match case-insensitively, as Go's
//! `encoding/json` matches them; only the endpoints a credential and ARM need are read, the rest
//! (DNS suffixes, Key Vault, Graph...) are ignored.

use std::path::Path;

use serde_json::Value;
use url::Url;

use super::endpoints::CloudEndpoints;
use super::error::CloudError;

/// Name used when the file has no `name`.
const DEFAULT_NAME: &str = "AzureStackCloud";

/// Reads and parses the environment file at `path`.
pub fn read(path: &Path) -> Result<CloudEndpoints, CloudError> {
    let text = std::fs::read_to_string(path).map_err(|source| CloudError::EnvironmentFileRead {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, path)
}

/// Parses environment JSON; `path` only labels errors.
pub fn parse(text: &str, path: &Path) -> Result<CloudEndpoints, CloudError> {
    let document: Value =
        serde_json::from_str(text).map_err(|e| CloudError::EnvironmentFileParse {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    let Value::Object(map) = &document else {
        return Err(CloudError::EnvironmentFileParse {
            path: path.to_path_buf(),
            reason: "the document is not a JSON object".to_string(),
        });
    };
    let source_name = format!("AZURE_ENVIRONMENT_FILEPATH {}", path.display());
    let get = |key: &str| -> Option<String> {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .and_then(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let resource_manager = required_url(&get, "resourceManagerEndpoint", &source_name)?;
    let authority_host = required_url(&get, "activeDirectoryEndpoint", &source_name)?;
    let token_audience = get("tokenAudience")
        .or_else(|| get("serviceManagementEndpoint"))
        .unwrap_or_else(|| resource_manager.to_string());
    Ok(CloudEndpoints {
        name: get("name").unwrap_or_else(|| DEFAULT_NAME.to_string()),
        authority_host,
        resource_manager,
        token_audience,
    })
}

/// A key that must hold an `https` URL (credentials and ARM bearer tokens refuse plain HTTP).
pub(super) fn required_url(
    get: &dyn Fn(&str) -> Option<String>,
    key: &str,
    source_name: &str,
) -> Result<Url, CloudError> {
    let bad = |problem: String| CloudError::BadEndpoint {
        source_name: source_name.to_string(),
        key: key.to_string(),
        problem,
    };
    let value = get(key).ok_or_else(|| bad("is missing".to_string()))?;
    https_url(&value).map_err(|reason| bad(format!("is not an https URL: '{value}' ({reason})")))
}

/// Parses an `https` URL and gives it a trailing `/` so joins keep its path.
pub(super) fn https_url(value: &str) -> Result<Url, String> {
    let mut url = Url::parse(value).map_err(|e| e.to_string())?;
    if url.scheme() != "https" {
        return Err("scheme is not https".to_string());
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STACK: &str = r#"{
        "name": "AzureStackCloud",
        "managementPortalURL": "https://portal.local.azurestack.external/",
        "serviceManagementEndpoint": "https://management.adfs.azurestack.local/4e2b7b1f",
        "resourceManagerEndpoint": "https://management.local.azurestack.external",
        "activeDirectoryEndpoint": "https://login.microsoftonline.com/",
        "galleryEndpoint": "https://portal.local.azurestack.external:30015/",
        "graphEndpoint": "https://graph.windows.net/",
        "storageEndpointSuffix": "local.azurestack.external",
        "keyVaultDNSSuffix": "vault.local.azurestack.external",
        "tokenAudience": "https://management.adfs.azurestack.local/4e2b7b1f",
        "resourceIdentifiers": {"graph": "https://graph.windows.net/"}
    }"#;

    fn parsed(text: &str) -> Result<CloudEndpoints, CloudError> {
        parse(text, Path::new("/etc/kubernetes/azurestackcloud.json"))
    }

    #[test]
    fn azure_stack_environment_file() {
        insta::assert_yaml_snapshot!(parsed(STACK).expect("parses"));
    }

    #[test]
    fn keys_match_in_any_case_and_audience_falls_back() {
        let text = r#"{"RESOURCEMANAGERENDPOINT": "https://arm.example/", "ActiveDirectoryEndpoint": "https://login.example/",
                       "serviceManagementEndpoint": "https://management.example/"}"#;
        insta::assert_yaml_snapshot!(parsed(text).expect("parses"));
        let text = r#"{"resourceManagerEndpoint": "https://arm.example", "activeDirectoryEndpoint": "https://login.example"}"#;
        let endpoints = parsed(text).expect("parses");
        assert_eq!(endpoints.token_audience, "https://arm.example/");
        assert_eq!(endpoints.name, "AzureStackCloud");
    }

    #[test]
    fn errors_name_the_file_and_key() {
        let missing = parsed(r#"{"resourceManagerEndpoint": "https://arm.example"}"#)
            .expect_err("no activeDirectoryEndpoint");
        insta::assert_snapshot!(missing.to_string());
        let http = parsed(
            r#"{"resourceManagerEndpoint": "http://arm.example", "activeDirectoryEndpoint": "https://l"}"#,
        )
        .expect_err("plain http");
        insta::assert_snapshot!(http.to_string());
        let not_json = parsed("resourceManagerEndpoint: x").expect_err("not JSON");
        assert!(
            not_json.to_string().starts_with(
                "AZURE_ENVIRONMENT_FILEPATH: /etc/kubernetes/azurestackcloud.json is not"
            ),
            "{not_json}"
        );
        let unreadable = read(Path::new("/nonexistent/env.json")).expect_err("missing file");
        assert!(unreadable.to_string().contains("/nonexistent/env.json"));
    }
}
