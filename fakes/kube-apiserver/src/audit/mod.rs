//! The audit log of `--audit-log-path`: one JSON line per request, an `audit.k8s.io/v1` `Event`
//! at level `Metadata` as the real server writes with a policy of `level: Metadata` and
//! `omitStages: [RequestReceived]` (types: k8s.io/apiserver `pkg/apis/audit/v1/types.go`).
//!
//! Each request gets `stage: ResponseComplete` once its response is ready; a watch, which streams,
//! gets `ResponseStarted` when its headers go out and `ResponseComplete` when the stream ends or the
//! client goes away, like the real server's long-running requests. Verbs and the `objectRef` come
//! from [`request_info`], which follows the real `RequestInfoFactory`, so an RBAC check of the log
//! sees what the real authorizer would have been asked.
//!
//! Known divergences: requests refused by authentication (401) are not logged (the real server logs
//! them through its failed-authentication handler); `user.groups` are the certificate's or token's
//! groups, without the `system:authenticated` the real authenticator adds; `[infer]` no
//! `annotations` (the real server adds authorization decisions there).

pub mod request_info;

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt;
use parking_lot::Mutex;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::macros::format_description;

use crate::Error;
use crate::auth::User;
use request_info::RequestInfo;

/// An open audit log file; cheap to clone, lines are written whole.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
    file: Arc<Mutex<std::fs::File>>,
}

impl AuditLog {
    /// Opens (creates or appends to) the log at `path`.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Arc::new(Mutex::new(file)),
        })
    }

    fn write(&self, event: &Value) {
        let mut line = serde_json::to_vec(event).unwrap_or_default();
        line.push(b'\n');
        if let Err(error) = self.file.lock().write_all(&line) {
            tracing::warn!(path = %self.path.display(), %error, "writing the audit log failed");
        }
    }
}

/// What is known of a request before it is served.
struct Pending {
    log: AuditLog,
    audit_id: String,
    request_uri: String,
    info: RequestInfo,
    user: Option<User>,
    source_ip: Option<String>,
    user_agent: Option<String>,
    received: OffsetDateTime,
}

impl Pending {
    fn record(&self, stage: &str, code: u16) {
        self.log.write(&event(self, stage, code));
    }
}

/// Writes `ResponseComplete` of a streamed response when its body is dropped.
struct CompleteOnDrop {
    pending: Pending,
    code: u16,
}

impl Drop for CompleteOnDrop {
    fn drop(&mut self) {
        self.pending.record("ResponseComplete", self.code);
    }
}

/// Middleware: records every authenticated request in the audit log.
pub async fn record(State(log): State<AuditLog>, request: Request, next: Next) -> Response {
    let uri = request.uri();
    let request_uri = uri
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| uri.path().to_string());
    let info = request_info::parse(request.method().as_str(), uri.path(), uri.query());
    let pending = Pending {
        log,
        audit_id: request
            .headers()
            .get("Audit-ID")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        request_uri,
        info,
        user: request.extensions().get::<User>().cloned(),
        source_ip: request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip().to_string()),
        user_agent: request
            .headers()
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        received: OffsetDateTime::now_utc(),
    };
    let response = next.run(request).await;
    let code = response.status().as_u16();
    if pending.info.verb != "watch" || !response.status().is_success() {
        pending.record("ResponseComplete", code);
        return response;
    }
    pending.record("ResponseStarted", code);
    let (parts, body) = response.into_parts();
    let guard = CompleteOnDrop { pending, code };
    let stream = body.into_data_stream().map(move |chunk| {
        let _keep = &guard;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// MicroTime as the API writes it (`2006-01-02T15:04:05.000000Z`).
fn micro_time(t: OffsetDateTime) -> String {
    let format =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]Z");
    t.to_offset(time::UtcOffset::UTC)
        .format(&format)
        .unwrap_or_default()
}

fn event(p: &Pending, stage: &str, code: u16) -> Value {
    let mut e = Map::new();
    e.insert("kind".into(), json!("Event"));
    e.insert("apiVersion".into(), json!("audit.k8s.io/v1"));
    e.insert("level".into(), json!("Metadata"));
    e.insert("auditID".into(), json!(p.audit_id));
    e.insert("stage".into(), json!(stage));
    e.insert("requestURI".into(), json!(p.request_uri));
    e.insert("verb".into(), json!(p.info.verb));
    let user = p.user.as_ref().map_or_else(
        || json!({}),
        |u| json!({"username": u.name, "groups": u.groups}),
    );
    e.insert("user".into(), user);
    if let Some(ip) = &p.source_ip {
        e.insert("sourceIPs".into(), json!([ip]));
    }
    if let Some(agent) = &p.user_agent {
        e.insert("userAgent".into(), json!(agent));
    }
    if p.info.is_resource_request {
        let mut r = Map::new();
        let mut put = |key: &str, value: &str| {
            if !value.is_empty() {
                r.insert(key.into(), json!(value));
            }
        };
        put("resource", &p.info.resource);
        put("namespace", &p.info.namespace);
        put("name", &p.info.name);
        put("apiGroup", &p.info.api_group);
        put("apiVersion", &p.info.api_version);
        put("subresource", &p.info.subresource);
        e.insert("objectRef".into(), Value::Object(r));
    }
    e.insert(
        "responseStatus".into(),
        json!({"metadata": {}, "code": code}),
    );
    e.insert(
        "requestReceivedTimestamp".into(),
        json!(micro_time(p.received)),
    );
    e.insert(
        "stageTimestamp".into(),
        json!(micro_time(OffsetDateTime::now_utc())),
    );
    Value::Object(e)
}
