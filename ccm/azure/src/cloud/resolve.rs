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
    if stack && !identity.disable_azure_stack_cloud {
        if let Some(file) = identity
            .environment_file_path
            .as_ref()
            .filter(|f| !f.is_empty())
        {
            return Ok(EndpointSource::EnvironmentFile(file.clone()));
        }
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
