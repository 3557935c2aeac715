//! IMDS api-versions: the list the service supports and the 400 bodies for a missing or unknown version.

use super::responses;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

/// Versions real IMDS accepts (docs list plus 2023-07-01 from the REST spec), oldest first.
pub const SUPPORTED_VERSIONS: &[&str] = &[
    "2017-03-01",
    "2017-04-02",
    "2017-08-01",
    "2017-10-01",
    "2017-12-01",
    "2018-02-01",
    "2018-04-02",
    "2018-10-01",
    "2019-02-01",
    "2019-03-11",
    "2019-04-30",
    "2019-06-01",
    "2019-06-04",
    "2019-08-01",
    "2019-08-15",
    "2019-11-01",
    "2020-06-01",
    "2020-07-15",
    "2020-09-01",
    "2020-10-01",
    "2020-12-01",
    "2021-01-01",
    "2021-02-01",
    "2021-03-01",
    "2021-05-01",
    "2021-08-01",
    "2021-10-01",
    "2021-11-01",
    "2021-11-15",
    "2021-12-13",
    "2023-07-01",
];

/// The three newest versions, which IMDS lists in `newest-versions` when a request has none or a bad one.
pub const NEWEST_VERSIONS: &[&str] = &["2023-07-01", "2021-12-13", "2021-11-15"];

/// Accepts `version` if it is supported and not older than the endpoint (`since`).
pub(super) fn check(version: Option<&str>, since: &str, oauth: bool) -> Result<(), Box<Response>> {
    let message = match version {
        None | Some("") => {
            "Bad request. api-version was not specified in the request. For more information refer to aka.ms/azureimds"
        }
        Some(v) if SUPPORTED_VERSIONS.contains(&v) && v >= since => return Ok(()),
        Some(_) => {
            "Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds"
        }
    };
    if oauth {
        return Err(Box::new(responses::error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            message,
            true,
        )));
    }
    Err(Box::new(responses::json(
        StatusCode::BAD_REQUEST,
        &json!({ "error": message, "newest-versions": NEWEST_VERSIONS }),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_sorted_and_newest_are_the_tail() {
        let mut sorted = SUPPORTED_VERSIONS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, SUPPORTED_VERSIONS);
        let tail: Vec<&str> = SUPPORTED_VERSIONS.iter().rev().take(3).copied().collect();
        assert_eq!(tail, NEWEST_VERSIONS);
    }

    #[test]
    fn endpoint_minimums_apply() {
        assert!(check(Some("2021-10-01"), "2017-04-02", false).is_ok());
        assert!(check(Some("2019-08-01"), "2020-10-01", false).is_err());
        assert!(check(Some("2022-01-01"), "2017-04-02", false).is_err());
        assert!(check(None, "2017-04-02", false).is_err());
    }
}
