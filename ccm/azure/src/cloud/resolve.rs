//! Which source gives the configured cloud its endpoints: the environment file, discovery, or the
//! well-known table.

use std::path::Path;

use super::discovery;
use super::endpoints::CloudEndpoints;
use super::environment_file;
use super::error::CloudError;
use crate::config::{Cloud, Identity};

/// Where a cloud's endpoints come from, decided from the config alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndpointSource {
    /// `cloud: AzureStackCloud` (not disabled) with `AZURE_ENVIRONMENT_FILEPATH`.
    EnvironmentFile(String),
    /// `resourceManagerEndpoint`'s metadata document.
    Discovery(String),
    /// The built-in endpoints of a public, China or US Government cloud.
    WellKnown(Cloud),
}

/// The source for `identity` (pure): the environment file for Azure Stack unless
/// `disableAzureStackCloud`, else discovery when `resourceManagerEndpoint` is set, else the table.
pub fn source(identity: &Identity) -> Result<EndpointSource, CloudError> {
    let stack = identity.cloud == Cloud::Stack;
    if stack
        && !identity.disable_azure_stack_cloud
        && let Some(file) = identity
            .environment_file_path
            .as_ref()
            .filter(|f| !f.is_empty())
    {
        return Ok(EndpointSource::EnvironmentFile(file.clone()));
    }
    if let Some(rm) = identity
        .resource_manager_endpoint
        .as_ref()
        .filter(|rm| !rm.is_empty())
    {
        return Ok(EndpointSource::Discovery(rm.clone()));
    }
    if stack {
        return Err(CloudError::StackWithoutEndpoints);
    }
    Ok(EndpointSource::WellKnown(identity.cloud))
}

/// Resolves `identity`'s cloud endpoints (discovery is fetched once per process and URL).
pub async fn resolve(
    identity: &Identity,
    http: &reqwest::Client,
) -> Result<CloudEndpoints, CloudError> {
    match source(identity)? {
        EndpointSource::EnvironmentFile(file) => environment_file::read(Path::new(&file)),
        EndpointSource::Discovery(rm) => discovery::discover(http, &rm, identity.cloud).await,
        EndpointSource::WellKnown(cloud) => {
            CloudEndpoints::well_known(cloud).ok_or(CloudError::StackWithoutEndpoints)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Inputs, Origin, SourceText, load};
    use std::collections::BTreeMap;

    fn identity(keys: &str, env_file: Option<&str>) -> Identity {
        let origin = Origin::File("/etc/kubernetes/azure.json".into());
        let text = format!(
            r#"{{"tenantId": "t", "subscriptionId": "s", "aadClientId": "c", "aadClientSecret": "x",
                 "resourceGroup": "rg", "location": "l" {keys}}}"#
        );
        let env = env_file
            .map(|f| BTreeMap::from([("AZURE_ENVIRONMENT_FILEPATH".to_string(), f.to_string())]))
            .unwrap_or_default();
        let inputs = Inputs {
            file: Some(SourceText {
                origin: &origin,
                text: &text,
            }),
            secret: None,
            env,
        };
        load(&inputs).expect("loads").config.identity
    }

    #[test]
    fn stack_uses_its_environment_file_unless_disabled() {
        let stack =
            r#", "cloud": "AzureStackCloud", "resourceManagerEndpoint": "https://arm.local/""#;
        assert_eq!(
            source(&identity(stack, Some("/env.json"))).expect("source"),
            EndpointSource::EnvironmentFile("/env.json".into())
        );
        let disabled = format!(r#"{stack}, "disableAzureStackCloud": true"#);
        assert_eq!(
            source(&identity(&disabled, Some("/env.json"))).expect("source"),
            EndpointSource::Discovery("https://arm.local/".into())
        );
        let bare = r#", "cloud": "AzureStackCloud""#;
        assert!(matches!(
            source(&identity(bare, None)),
            Err(CloudError::StackWithoutEndpoints)
        ));
    }

    #[test]
    fn named_clouds_use_the_table_unless_an_endpoint_is_given() {
        assert_eq!(
            source(&identity(
                r#", "cloud": "AzureChinaCloud""#,
                Some("/ignored.json")
            ))
            .expect("source"),
            EndpointSource::WellKnown(Cloud::China)
        );
        assert_eq!(
            source(&identity("", None)).expect("source"),
            EndpointSource::WellKnown(Cloud::Public)
        );
        let with_rm =
            r#", "cloud": "AzurePublicCloud", "resourceManagerEndpoint": "https://arm.local""#;
        assert_eq!(
            source(&identity(with_rm, None)).expect("source"),
            EndpointSource::Discovery("https://arm.local".into())
        );
    }
}
