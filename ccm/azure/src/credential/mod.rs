//! Azure credentials from azure.json: workload identity (federated token file, re-read on every
//! token fetch), managed identity (system, user-assigned by client ID or resource ID; our own IMDS
//! token client when the IMDS base URL is overridden), client secret and client certificate (PEM or
//! PFX, RS256 assertion with `x5t` and the `x5c` chain), in upstream's precedence, as one
//! `Arc<dyn TokenCredential>`; plus the network tenant's credential and auxiliary header.
//!
//! Tokens are cached until five minutes before expiry (azure_identity's `TokenCache` for Entra ID
//! credentials, [`token_cache`] for ours). Secrets and tokens never reach a log line, an error or a
//! `Debug` output: errors name the azure.json key and the file, never the value.
//!
//! # Verified behaviour (sources)
//! - Precedence workload identity > managed identity > client secret > client certificate, first
//!   match wins; `userAssignedIdentityID` containing `/subscriptions/` is a resource ID, otherwise
//!   a client ID; empty means system-assigned (anchor-ccm.md §6.3).
//! - Multi-tenant network resources: a second client-secret (or certificate) credential for
//!   `networkResourceTenantID`; workload identity has no multi-tenant support and managed identity
//!   needs a Key Vault auxiliary token provider upstream (anchor-ccm.md §6.3), so both are refused
//!   here with a typed error.
//! - The certificate chain is sent (`x5c`) upstream (anchor-ccm.md §2.2, `aadClientCertPath`).
//! - Client assertions: RS256, `x5t` = base64url SHA-1 of the leaf DER, `aud` = the token
//!   endpoint, `iss` = `sub` = client ID, `jti`, `nbf`, `exp` (arm-imds-aad.md §4.1).
//! - IMDS token request: `/metadata/identity/oauth2/token?api-version&resource` plus one of
//!   `client_id` / `msi_res_id`, header `Metadata: true`; `expires_on` is a string of unix seconds
//!   (arm-imds-aad.md §3.6). azure_identity's client hard-codes `169.254.169.254` (§5.1/5.2).
//! - azure_identity's certificate credential needs OpenSSL (feature `client_certificate`,
//!   arm-imds-aad.md §5.1): we sign assertions ourselves with ring, through its
//!   `ClientAssertionCredential`, and read PFX files with the pure-Rust `p12-keystore`.
//!
//! # Inferred or deliberately different
//! - [infer] On cross-tenant network calls the network tenant's token authorises the call and the
//!   main tenant's token goes in `x-ms-authorization-auxiliary` (the ARM layer sends it).
//! - [infer] A PEM `aadClientCertPath` holds an unencrypted PKCS#8 or PKCS#1 RSA key; the leaf is
//!   the certificate carrying that key's public half (any order in the file).
//! - Deliberate: the federated token file is checked when the credential is built (a missing file
//!   fails at start, naming `aadFederatedTokenFile`) and re-read on every token fetch.
//! - Deliberate: our IMDS client does not retry (azure_identity's does, on 404/410/429/5xx); the
//!   callers' own retry applies.

pub mod build;
pub mod certificate;
pub mod error;
pub mod federated;
pub mod imds_token;
pub mod jwt;
pub mod network;
pub mod options;
pub mod plan;
pub mod token_cache;

#[cfg(test)]
mod tests;

pub use build::Credentials;
pub use error::CredentialError;
pub use network::{AUXILIARY_HEADER, NetworkTenant};
pub use options::{AZURE_IMDS_ENDPOINT, CredentialOptions, DEFAULT_IMDS_ENDPOINT};
pub use plan::{CredentialPlan, ManagedIdentityId, plan};
