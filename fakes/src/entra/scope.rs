//! The `scope` of a v2 client-credentials request: which single resource the token is for.
//!
//! Verified behaviours and their sources:
//! - MSAL-based clients (MSAL Go, under azidentity and so under the production CCM) append the reserved
//!   OIDC scopes `openid offline_access profile` to every token request, client credentials included
//!   (`AppendDefaultScopes` in AzureAD/microsoft-authentication-library-for-go,
//!   `apps/internal/oauth/ops/accesstokens/accesstokens.go`); real Entra issues the `/.default` token
//!   for such requests, since those clients work against it. The fake ignores the three reserved scopes.
//! - A scope without the `/.default` suffix is refused with `AADSTS1002012` / `invalid_scope`
//!   (error text quoted in MicrosoftDocs/azure-docs#99862 and microsoftgraph/microsoft-graph-docs#14323).
//! - Two `/.default` scopes of different resources are refused with `AADSTS70011` / `invalid_scope`
//!   ("The scope A/.default B/.default is not valid", Azure/azure-sdk-for-net#9076).
//!
//! Inferred, not verified:
//! - [infer] Reserved scopes are matched case-insensitively.
//! - [infer] Two resources refused with `AADSTS70011` also when reserved scopes follow them (the
//!   public report had none; authorization-code flows answer `AADSTS28000` there).
//! - [infer] The same `/.default` scope given twice names one resource and is accepted.
//! - [infer] A scope holding only reserved scopes (no resource) is refused with `AADSTS1002012`.

use http::StatusCode;

use super::error::AadError;

/// OIDC scopes MSAL adds to every request, which Entra ignores on a client-credentials grant.
const RESERVED: [&str; 3] = ["openid", "offline_access", "profile"];
/// Suffix every client-credentials scope must carry.
const DEFAULT_SUFFIX: &str = "/.default";

/// The one `/.default` scope a client-credentials `scope` parameter asks for, reserved scopes dropped.
pub(crate) fn client_credentials_scope(scope: &str) -> Result<&str, AadError> {
    let requested: Vec<&str> = scope
        .split_whitespace()
        .filter(|s| !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(s)))
        .collect();
    if requested.is_empty() || !requested.iter().all(|s| s.ends_with(DEFAULT_SUFFIX)) {
        return Err(AadError::new(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            1002012,
            format!(
                "The provided value for scope {scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI)."
            ),
        ));
    }
    let first = requested[0];
    if requested.iter().any(|s| !s.eq_ignore_ascii_case(first)) {
        return Err(AadError::new(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            70011,
            format!(
                "The provided request must include a 'scope' input parameter. The provided value for the input parameter 'scope' is not valid. The scope {scope} is not valid."
            ),
        ));
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARM: &str = "https://management.azure.com/.default";

    fn code(scope: &str) -> Option<u32> {
        client_credentials_scope(scope).err().map(|e| e.code)
    }

    #[test]
    fn reserved_scopes_are_dropped_wherever_they_stand() {
        for scope in [
            format!("{ARM} openid offline_access profile"),
            format!("openid {ARM} profile"),
            format!("OpenID {ARM} OFFLINE_ACCESS"),
            format!("{ARM} {ARM}"),
        ] {
            assert_eq!(client_credentials_scope(&scope), Ok(ARM), "{scope}");
        }
    }

    #[test]
    fn malformed_scopes_keep_their_real_codes() {
        assert_eq!(
            code("https://graph.microsoft.com/User.Read.All"),
            Some(1002012)
        );
        assert_eq!(code(&format!("{ARM} User.Read")), Some(1002012));
        assert_eq!(code("openid offline_access profile"), Some(1002012));
        assert_eq!(
            code(&format!("{ARM} https://storage.azure.com/.default openid")),
            Some(70011)
        );
    }
}
