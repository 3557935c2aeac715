//! Middleware recording every request of one surface in the journal, after the response is built
//! (so it sees the status, the throttle and fault markers and the caller identity).

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use time::format_description::well_known::Rfc3339;

use super::operation::arm_operation;
use super::store::{Journal, JournalEntry, Surface};
use crate::arm_auth::Principal;
use crate::faults::FaultInjected;
use crate::request_ids::RequestIds;
use crate::throttle::Throttled;

/// What the layer needs: the shared journal and the surface it is mounted on.
#[derive(Clone, Debug)]
pub struct JournalLayer {
    /// Shared journal.
    pub journal: Arc<Journal>,
    /// Surface of the wrapped router.
    pub surface: Surface,
}

/// Middleware.
pub async fn layer(
    State(ctx): State<JournalLayer>,
    request: Request<Body>,
    next: Next,
) -> Response {
    if ctx.surface == Surface::Admin && reads_the_journal(request.uri().path()) {
        return next.run(request).await;
    }
    let started = Instant::now();
    let time = time::OffsetDateTime::now_utc()
        .format(&Rfc3339)
        .unwrap_or_default();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let api_version = request.uri().query().and_then(api_version_of);
    let user_agent = request
        .headers()
        .get(http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let ids = request.extensions().get::<RequestIds>().cloned();
    let response = next.run(request).await;
    let extensions = response.extensions();
    let operation = match ctx.surface {
        Surface::Arm => arm_operation(&method, &path),
        Surface::Entra => format!("{method} entra/{}", path_after(&path, 1)),
        Surface::Imds => format!("{method} imds/{}", path_after(&path, 2)),
        Surface::Metadata | Surface::Admin | Surface::Proxy => {
            format!("{method} {}", path.trim_start_matches('/'))
        }
    };
    ctx.journal.record(JournalEntry {
        seq: 0,
        time,
        surface: ctx.surface,
        operation,
        method: method.to_string(),
        path,
        api_version,
        status: response.status().as_u16(),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        user_agent,
        client_id: extensions.get::<Principal>().map(|p| p.0.client_id.clone()),
        throttled: extensions.get::<Throttled>().is_some(),
        faults: extensions
            .get::<FaultInjected>()
            .map(|f| f.0.clone())
            .unwrap_or_default(),
        request_id: ids.as_ref().map(|i| i.request_id.clone()),
        correlation_id: ids.as_ref().map(|i| i.correlation_id.clone()),
        client_request_id: ids.and_then(|i| i.client_request_id),
    });
    response
}

/// Requests to the journal itself are not journaled: reading or clearing it must not change it.
fn reads_the_journal(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    ["/admin/journal", "/admin/counters"]
        .iter()
        .any(|p| path.eq_ignore_ascii_case(p))
}

/// The path's segments after the first `skip` (the tenant; `imds/<node>`), joined with `/`: the
/// operation name of an Entra or IMDS request, the same for every tenant and node.
fn path_after(path: &str, skip: usize) -> String {
    path.split('/')
        .filter(|s| !s.is_empty())
        .skip(skip)
        .collect::<Vec<_>>()
        .join("/")
}

fn api_version_of(query: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "api-version")
        .map(|(_, v)| v.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_reads_are_not_journaled() {
        assert!(reads_the_journal("/admin/journal"));
        assert!(reads_the_journal("/admin/counters/"));
        assert!(!reads_the_journal("/admin/faults"));
    }

    #[test]
    fn api_version_is_read_from_the_query() {
        assert_eq!(
            api_version_of("a=b&api-version=2025-05-01").as_deref(),
            Some("2025-05-01")
        );
        assert_eq!(api_version_of("a=b"), None);
    }
}
