//! Entra ID's OAuth error body (`error`, `error_description` starting with `AADSTSnnnn:`,
//! `error_codes`, `timestamp`, `trace_id`, `correlation_id`, `error_uri`), which azure_identity
//! surfaces to the user as "codes: description".
//!
//! Codes documented in the reference: 7000215 (bad secret), 700016 (unknown app), 90002 (unknown
//! tenant), 70021 (no federated record), 700024 (assertion time range). 1002012 and 70011 (scopes)
//! carry their sources in `scope.rs`. The others used here (900144, 70003, 7000218, 50027, 700027,
//! 700212, 50013) follow public error pages and are not verified against a primary source [infer].

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::json;

/// One AADSTS error: HTTP status, OAuth `error`, numeric code and description (without prefix).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("AADSTS{code}: {description}")]
pub struct AadError {
    /// HTTP status (400 or 401).
    pub status: StatusCode,
    /// OAuth `error` value (`invalid_client`, `invalid_request`, `unauthorized_client`...).
    pub error: &'static str,
    /// AADSTS number.
    pub code: u32,
    /// Text after `AADSTSnnnn: `.
    pub description: String,
}

impl AadError {
    /// Builds an error.
    pub fn new(
        status: StatusCode,
        error: &'static str,
        code: u32,
        description: impl Into<String>,
    ) -> Self {
        Self {
            status,
            error,
            code,
            description: description.into(),
        }
    }

    /// 90002: the tenant in the authority path is unknown.
    pub fn tenant_not_found(tenant: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            90002,
            format!(
                "Tenant '{tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud. Check with your subscription administrator, this may happen if there are no active subscriptions for the tenant."
            ),
        )
    }

    /// 900144: a required form parameter is missing.
    pub fn missing_parameter(name: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            900144,
            format!("The request body must contain the following parameter: '{name}'."),
        )
    }

    /// 700016: the app is not registered in the tenant.
    pub fn app_not_found(client_id: &str, tenant: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
            700016,
            format!(
                "Application with identifier '{client_id}' was not found in the directory '{tenant}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant."
            ),
        )
    }

    /// 7000215: wrong client secret.
    pub fn bad_secret(client_id: &str) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            7000215,
            format!(
                "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '{client_id}'."
            ),
        )
    }

    /// 700024: assertion outside its validity window.
    pub fn assertion_time(now: i64, nbf: Option<i64>, exp: Option<i64>) -> Self {
        let show = |t: Option<i64>| t.map(rfc3339).unwrap_or_else(|| "<missing>".into());
        Self::new(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            700024,
            format!(
                "Client assertion is not within its valid time range. Current time: {}, assertion valid from {}, expiry time of assertion {}.",
                rfc3339(now),
                show(nbf),
                show(exp)
            ),
        )
    }

    /// 70021: no federated credential matches the assertion's issuer and subject.
    pub fn no_federated_record(iss: &str, sub: &str, aud: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            70021,
            format!(
                "No matching federated identity record found for presented assertion. Assertion Issuer: '{iss}'. Assertion Subject: '{sub}'. Assertion Audience: '{aud}'."
            ),
        )
    }

    /// HTTP status + body, with fresh trace id and the caller's correlation id when it sent one.
    pub fn render(&self, correlation_id: Option<&str>) -> Response {
        let trace_id = uuid::Uuid::new_v4().to_string();
        let correlation_id = correlation_id
            .map(str::to_string)
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let now = time::OffsetDateTime::now_utc();
        let timestamp = format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}Z",
            now.year(),
            u8::from(now.month()),
            now.day(),
            now.hour(),
            now.minute(),
            now.second()
        );
        let description = format!(
            "AADSTS{}: {} Trace ID: {trace_id} Correlation ID: {correlation_id} Timestamp: {timestamp}",
            self.code, self.description
        );
        let body = json!({
            "error": self.error,
            "error_description": description,
            "error_codes": [self.code],
            "timestamp": timestamp,
            "trace_id": trace_id,
            "correlation_id": correlation_id,
            "error_uri": format!("https://login.microsoftonline.com/error?code={}", self.code),
        });
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Ok(value) = http::HeaderValue::from_str(&correlation_id) {
            response.headers_mut().insert("client-request-id", value);
        }
        response
    }
}

fn rfc3339(unix: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| unix.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn body_carries_codes_ids_and_prefixed_description() {
        let response = AadError::bad_secret("app-1").render(Some("corr-1"));
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["error"], "invalid_client");
        assert_eq!(body["error_codes"], json!([7000215]));
        assert_eq!(body["correlation_id"], "corr-1");
        assert!(
            body["error_description"]
                .as_str()
                .unwrap()
                .starts_with("AADSTS7000215: Invalid client secret")
        );
        assert!(body["trace_id"].as_str().unwrap().len() == 36);
    }
}
