//! ARM's request-id headers on every response: `x-ms-request-id` (fresh), `x-ms-correlation-request-id`
//! (echoed or fresh), `x-ms-client-request-id` (echoed), `x-ms-routing-request-id`
//! (`REGION:timestamp:guid`), plus the no-cache/security boilerplate real ARM sends.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, HeaderName, HeaderValue};

/// The ids one request travels with; inserted as a request extension so the journal can record them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestIds {
    /// Service-generated id.
    pub request_id: String,
    /// Caller's correlation id, or a fresh one.
    pub correlation_id: String,
    /// Caller's `x-ms-client-request-id`, when sent.
    pub client_request_id: Option<String>,
}

impl RequestIds {
    /// Reads the caller's ids from `headers` and generates the rest.
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let read = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        Self {
            request_id: fresh_id(),
            correlation_id: read("x-ms-correlation-request-id").unwrap_or_else(fresh_id),
            client_request_id: read("x-ms-client-request-id"),
        }
    }
}

/// A random (v4) GUID from the thread-local RNG: `Uuid::new_v4` asks the kernel for entropy on
/// every call, a system call per id on the request path.
fn fresh_id() -> String {
    uuid::Builder::from_random_bytes(rand::random())
        .into_uuid()
        .to_string()
}

/// Region name shown in `x-ms-routing-request-id`.
#[derive(Debug, Clone)]
pub struct RoutingRegion(pub String);

/// Middleware adding the id headers and boilerplate to every response.
pub async fn layer(
    State(region): State<RoutingRegion>,
    mut request: Request<Body>,
    next: Next,
) -> Response {
    let ids = RequestIds::from_headers(request.headers());
    request.extensions_mut().insert(ids.clone());
    let mut response = next.run(request).await;
    let now = time::OffsetDateTime::now_utc();
    let routing = format!(
        "{}:{:04}{:02}{:02}T{:02}{:02}{:02}Z:{}",
        region.0,
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        ids.request_id
    );
    let headers = response.headers_mut();
    set(headers, "x-ms-request-id", &ids.request_id);
    set(headers, "x-ms-correlation-request-id", &ids.correlation_id);
    set(headers, "x-ms-routing-request-id", &routing);
    if let Some(client) = &ids.client_request_id {
        set(headers, "x-ms-client-request-id", client);
    }
    for (name, value) in [
        ("cache-control", "no-cache"),
        ("pragma", "no-cache"),
        ("expires", "-1"),
        ("x-content-type-options", "nosniff"),
        (
            "strict-transport-security",
            "max-age=31536000; includeSubDomains",
        ),
    ] {
        if !headers.contains_key(name) {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
    }
    response
}

fn set(headers: &mut HeaderMap, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(HeaderName::from_static(name), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_ids_are_distinct_v4_guids() {
        let (a, b) = (fresh_id(), fresh_id());
        assert_ne!(a, b);
        let parsed = uuid::Uuid::parse_str(&a).unwrap();
        assert_eq!(parsed.get_version_num(), 4);
        assert_eq!(parsed.get_variant(), uuid::Variant::RFC4122);
    }

    #[test]
    fn echoes_caller_ids_and_generates_the_rest() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-ms-correlation-request-id",
            HeaderValue::from_static("corr"),
        );
        headers.insert("x-ms-client-request-id", HeaderValue::from_static("client"));
        let ids = RequestIds::from_headers(&headers);
        assert_eq!(ids.correlation_id, "corr");
        assert_eq!(ids.client_request_id.as_deref(), Some("client"));
        assert_eq!(ids.request_id.len(), 36);
        let fresh = RequestIds::from_headers(&HeaderMap::new());
        assert_ne!(fresh.correlation_id, fresh.request_id);
        assert_eq!(fresh.client_request_id, None);
    }
}
