//! Network resources in another tenant (`networkResourceTenantID`): a second credential for that
//! tenant, and the `x-ms-authorization-auxiliary` header value ARM needs on cross-tenant calls.

use std::fmt;
use std::sync::Arc;

use azure_core::credentials::TokenCredential;

/// The header ARM reads auxiliary-tenant tokens from.
pub const AUXILIARY_HEADER: &str = "x-ms-authorization-auxiliary";

/// Credentials for calls on network resources in `tenant_id`: the network tenant's credential
/// authorises the call, the main tenant's goes in [`AUXILIARY_HEADER`].
#[derive(Clone)]
pub struct NetworkTenant {
    /// `networkResourceTenantID`.
    pub tenant_id: String,
    /// The credential in the network tenant (the call's `Authorization`).
    pub credential: Arc<dyn TokenCredential>,
    /// The main tenant's credential (the auxiliary token).
    pub auxiliary: Arc<dyn TokenCredential>,
}

impl fmt::Debug for NetworkTenant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NetworkTenant")
            .field("tenant_id", &self.tenant_id)
            .finish_non_exhaustive()
    }
}

impl NetworkTenant {
    /// The [`AUXILIARY_HEADER`] value for `scope`: `Bearer <main-tenant token>`.
    pub async fn auxiliary_header_value(&self, scope: &str) -> azure_core::Result<String> {
        let token = self.auxiliary.get_token(&[scope], None).await?;
        Ok(format!("Bearer {}", token.token.secret()))
    }
}
