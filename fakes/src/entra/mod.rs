//! Fake Entra ID: the v2 (and v1) client-credentials token endpoint with client secrets,
//! certificate-signed client assertions and workload-identity federated assertions, AADSTS error
//! bodies, the token issuer every other endpoint shares, the OpenID configuration and the instance
//! discovery MSAL asks for.

mod assertion;
mod endpoint;
mod error;
mod instance_discovery;
mod issuer;
pub mod jwt;
mod registry;
mod scope;

pub use assertion::{AssertionError, verify_signature};
pub(crate) use endpoint::authority as request_authority;
pub use endpoint::{Entra, router};
pub use error::AadError;
pub use instance_discovery::public_authority_hosts;
pub use issuer::{
    AuthError, DEFAULT_LIFETIME_SECS, IssuedToken, IssuerError, TokenClaims, TokenIssuer,
    TokenRequest, claims_json, derived_object_id, now_unix, resource_of,
};
pub use registry::{
    AppRegistration, ClientSecret, DEFAULT_FEDERATED_AUDIENCE, FederatedCredential, Registry,
    Tenant,
};
