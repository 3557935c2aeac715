//! Transport rules every IMDS request must satisfy before anything is looked up: GET only, header
//! `Metadata: true`, no `X-Forwarded-For` (IMDS refuses proxied requests), no repeated query parameter.

use super::responses;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use std::collections::HashMap;

const MISSING_HEADER: &str = "Bad request. Required metadata header not specified";

/// Checks method and headers.
pub(super) fn transport(
    method: &Method,
    headers: &HeaderMap,
    oauth: bool,
) -> Result<(), Box<Response>> {
    if method != Method::GET {
        return Err(Box::new(responses::error(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "Method not allowed",
            oauth,
        )));
    }
    let metadata_ok = headers.get_all("metadata").iter().any(|v| {
        v.to_str()
            .is_ok_and(|s| s.trim().eq_ignore_ascii_case("true"))
    });
    if !metadata_ok || headers.contains_key("x-forwarded-for") {
        let message = if oauth {
            "Required metadata header not specified"
        } else {
            MISSING_HEADER
        };
        return Err(Box::new(responses::error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            message,
            oauth,
        )));
    }
    Ok(())
}

/// Decoded query parameters (each name at most once).
pub(super) struct Query(HashMap<String, String>);

impl Query {
    /// Parses `raw`, refusing duplicate names like IMDS does.
    pub(super) fn parse(raw: &str, oauth: bool) -> Result<Self, Box<Response>> {
        let mut map = HashMap::new();
        for (k, v) in url::form_urlencoded::parse(raw.as_bytes()) {
            if map.insert(k.to_string(), v.to_string()).is_some() {
                return Err(Box::new(responses::error(
                    StatusCode::BAD_REQUEST,
                    "invalid_request",
                    &format!("Bad request. Query parameter '{k}' is specified more than once"),
                    oauth,
                )));
            }
        }
        Ok(Self(map))
    }

    /// Value of `name`.
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn metadata_header_is_required_and_proxies_refused() {
        let mut h = HeaderMap::new();
        assert!(transport(&Method::GET, &h, false).is_err());
        h.insert("metadata", HeaderValue::from_static("True"));
        assert!(transport(&Method::GET, &h, false).is_ok());
        assert!(transport(&Method::POST, &h, false).is_err());
        h.insert("x-forwarded-for", HeaderValue::from_static("10.0.0.1"));
        assert!(transport(&Method::GET, &h, false).is_err());
    }

    #[test]
    fn duplicate_parameters_are_rejected() {
        assert!(Query::parse("api-version=1&api-version=2", false).is_err());
        let q = Query::parse(
            "api-version=2021-10-01&resource=https%3A%2F%2Fmanagement.azure.com%2F",
            true,
        )
        .ok()
        .unwrap();
        assert_eq!(q.get("resource"), Some("https://management.azure.com/"));
    }
}
