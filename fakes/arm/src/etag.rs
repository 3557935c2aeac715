//! ETag styles (NRP weak GUIDs shared by parent and children, CRP integer counters) and If-Match /
//! If-None-Match evaluation with the per-provider 412 bodies.

use crate::error::{ArmError, ErrorDetail};
use crate::error_codes;
use crate::kinds::Provider;

/// A fresh NRP etag: `W/"<guid>"`.
pub fn new_nrp() -> String {
    format!("W/\"{}\"", uuid::Uuid::new_v4())
}

/// CRP etag for model version `n`: `"n"`.
pub fn crp(n: u64) -> String {
    format!("\"{n}\"")
}

/// Conditional-request headers of a write.
#[derive(Debug, Clone, Default)]
pub struct Preconditions {
    /// `If-Match` value as sent.
    pub if_match: Option<String>,
    /// `If-None-Match` value as sent.
    pub if_none_match: Option<String>,
}

fn strip_weak(v: &str) -> &str {
    v.trim().trim_start_matches("W/").trim_matches('"')
}

/// Checks the preconditions against the current etag (`None` = resource absent) per the ARM matrix.
pub fn check(
    pre: &Preconditions,
    current: Option<&str>,
    provider: Provider,
    id: &str,
) -> Result<(), ArmError> {
    if let Some(inm) = pre.if_none_match.as_deref()
        && inm.trim() == "*"
        && let Some(cur) = current
    {
        return Err(precondition_failed(provider, inm, cur, id));
    }
    if let Some(im) = pre.if_match.as_deref() {
        match current {
            None => return Err(precondition_failed(provider, im, "", id)),
            Some(cur) if im.trim() != "*" && strip_weak(im) != strip_weak(cur) => {
                return Err(precondition_failed(provider, im, cur, id));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn precondition_failed(provider: Provider, sent: &str, current: &str, id: &str) -> ArmError {
    match provider {
        Provider::Network => {
            let shown = if sent.trim_start().starts_with("W/") {
                sent.to_string()
            } else {
                format!("W/\"{}\"", sent.trim().trim_matches('"'))
            };
            let detail = if current.is_empty() {
                format!(
                    "Etag provided in if-match header {shown} does not match etag of resource {id} in NRP data store (the resource does not exist)."
                )
            } else {
                format!(
                    "Etag provided in if-match header {shown} does not match etag {current} of resource {id} in NRP data store."
                )
            };
            ArmError::new(error_codes::PRECONDITION_FAILED, "Precondition failed.").with_details(
                vec![ErrorDetail {
                    code: error_codes::PRECONDITION_FAILED_ETAG_MISMATCH,
                    message: detail,
                    target: None,
                }],
            )
        }
        _ => {
            let shown = format!("\"{}\"", sent.trim().trim_matches('"'));
            let msg = if current.is_empty() {
                format!(
                    "Etag provided in if-match header {shown} does not match etag of resource (the resource does not exist)."
                )
            } else {
                format!(
                    "Etag provided in if-match header {shown} does not match etag {current} of resource."
                )
            };
            ArmError::new(error_codes::PRECONDITION_FAILED, msg)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pre(im: Option<&str>, inm: Option<&str>) -> Preconditions {
        Preconditions {
            if_match: im.map(String::from),
            if_none_match: inm.map(String::from),
        }
    }

    #[test]
    fn matrix_follows_the_arm_addendum() {
        let cur = Some("W/\"abc\"");
        assert!(check(&pre(None, None), None, Provider::Network, "x").is_ok());
        assert!(check(&pre(Some("*"), None), None, Provider::Network, "x").is_err());
        assert!(check(&pre(Some("*"), None), cur, Provider::Network, "x").is_ok());
        assert!(check(&pre(Some("W/\"abc\""), None), cur, Provider::Network, "x").is_ok());
        assert!(check(&pre(Some("abc"), None), cur, Provider::Network, "x").is_ok());
        assert!(check(&pre(Some("W/\"zzz\""), None), cur, Provider::Network, "x").is_err());
        assert!(check(&pre(None, Some("*")), None, Provider::Network, "x").is_ok());
        assert!(check(&pre(None, Some("*")), cur, Provider::Network, "x").is_err());
        assert!(
            check(
                &pre(Some("\"2\""), None),
                Some("\"3\""),
                Provider::Compute,
                "x"
            )
            .is_err()
        );
    }
}
