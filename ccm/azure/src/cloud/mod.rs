//! Azure clouds: the endpoints (Entra ID authority, ARM, token audience) of the public, China and
//! US Government clouds, and of Azure Stack / custom clouds read from `AZURE_ENVIRONMENT_FILEPATH`
//! or discovered from `resourceManagerEndpoint`; plus the one HTTPS client builder ([`trust`]) that
//! trusts the system roots and `SSL_CERT_FILE` / `SSL_CERT_DIR`.
//!
//! # Verified behaviour (sources)
//! - Authority hosts and ARM URLs of the three named clouds: arm-imds-aad.md §4.2; their ARM token
//!   audiences (`https://management.core.windows.net/` etc.) are the Go SDK's cloud configuration
//!   values, also what the fake's `/metadata/endpoints` lists first (`fakes/src/metadata_endpoints.rs`).
//! - Discovery: `GET <resourceManagerEndpoint>/metadata/endpoints?api-version=2019-05-01`, reading
//!   `resourceManager`, `authentication.loginEndpoint` and `authentication.audiences[0]`
//!   (anchor-ccm.md §2.2, §6.4). Upstream fetches it once per client (78 times at start,
//!   ISSUE 10); we fetch it once per process and URL, caching only successes.
//! - `AZURE_ENVIRONMENT_FILEPATH` holds the Go SDK's environment JSON (`resourceManagerEndpoint`,
//!   `activeDirectoryEndpoint`, `tokenAudience`, ...) and applies to `cloud: AzureStackCloud`
//!   (anchor-ccm.md §2.1, §6.4); keys match case-insensitively like Go's `encoding/json`.
//! - Credentials and bearer tokens need `https` endpoints (azure_identity refuses a non-https
//!   authority, azure_core's bearer policy non-TLS requests: arm-imds-aad.md §5.1, §5.2), so
//!   every endpoint read here must be `https`.
//! - Go's `crypto/x509` on Linux reads `SSL_CERT_FILE` and the `:`-separated `SSL_CERT_DIR`.
//!
//! # Inferred or deliberately different
//! - [infer] With `cloud: AzureStackCloud`, `disableAzureStackCloud: false` and both an
//!   environment file and `resourceManagerEndpoint`, the environment file wins;
//!   `disableAzureStackCloud: true` ignores the environment file and uses discovery only.
//! - [infer] The environment file's audience is `tokenAudience`, else `serviceManagementEndpoint`,
//!   else `resourceManagerEndpoint`.
//! - [infer] Discovery picks the entry named like the configured cloud (any spelling the config
//!   accepts, plus ARM's `AzureCloud` for public); a document with one entry is taken whatever its
//!   name; several entries and no match is an error listing them.
//! - Deliberate: `SSL_CERT_FILE` / `SSL_CERT_DIR` roots are added to the system roots (Go replaces
//!   the system bundle with them); an unreadable `SSL_CERT_FILE` is an error, not ignored.
//! - Deliberate: the ARM scope is `<audience>/.default` with the audience's trailing `/` dropped.

pub mod discovery;
pub mod endpoints;
pub mod environment_file;
pub mod error;
pub mod resolve;
pub mod trust;

pub use endpoints::CloudEndpoints;
pub use error::CloudError;
pub use resolve::{EndpointSource, resolve, source};
