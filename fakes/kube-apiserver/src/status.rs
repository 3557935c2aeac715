//! `metav1.Status` errors: clients (kube-rs, client-go, kubectl) branch on `reason` and `code`,
//! so every failure is answered in exactly the shape the real API server uses.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One entry of `details.causes`: which field was wrong and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// Machine-readable cause (`FieldValueInvalid`, `FieldValueRequired`, `FieldManagerConflict`...).
    pub reason: String,
    /// Human-readable explanation.
    pub message: String,
    /// JSON path of the field, e.g. `spec.ports[0].nodePort` or `.spec.replicas` for SSA conflicts.
    pub field: String,
}

/// An API error rendered as a `metav1.Status` body with the matching HTTP code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status code, also put in `Status.code`.
    pub code: u16,
    /// `Status.reason` (`NotFound`, `AlreadyExists`, `Conflict`, `Invalid`...).
    pub reason: &'static str,
    /// `Status.message`.
    pub message: String,
    /// `details.name`, `details.group`, `details.kind` when the error concerns one object.
    pub details: Option<Box<Details>>,
    /// `details.causes`.
    pub causes: Vec<Cause>,
    /// `details.retryAfterSeconds`, also sent as the `Retry-After` header.
    pub retry_after: Option<u32>,
}

/// The object an error is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Details {
    /// Object name (may be empty).
    pub name: String,
    /// API group ("" for core).
    pub group: String,
    /// Resource plural (the real server puts the resource here, not the Kind).
    pub kind: String,
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            reason,
            message: message.into(),
            details: None,
            causes: Vec::new(),
            retry_after: None,
        }
    }

    fn with_details(mut self, group: &str, resource: &str, name: &str) -> Self {
        self.details = Some(Box::new(Details {
            name: name.into(),
            group: group.into(),
            kind: resource.into(),
        }));
        self
    }

    /// `404 NotFound`: `services "x" not found`.
    pub fn not_found(group: &str, resource: &str, name: &str) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", qualified(group, resource)),
        )
        .with_details(group, resource, name)
    }

    /// `409 AlreadyExists`.
    pub fn already_exists(group: &str, resource: &str, name: &str) -> Self {
        Self::new(
            409,
            "AlreadyExists",
            format!("{} \"{name}\" already exists", qualified(group, resource)),
        )
        .with_details(group, resource, name)
    }

    /// `409 Conflict` for a stale resourceVersion, with the real message text.
    pub fn stale(group: &str, resource: &str, name: &str) -> Self {
        Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
                qualified(group, resource)
            ),
        )
        .with_details(group, resource, name)
    }

    /// `409 Conflict` with a free-form message (SSA field conflicts, terminating namespaces).
    pub fn conflict(
        group: &str,
        resource: &str,
        name: &str,
        message: impl Into<String>,
        causes: Vec<Cause>,
    ) -> Self {
        let mut e = Self::new(409, "Conflict", message).with_details(group, resource, name);
        e.causes = causes;
        e
    }

    /// `422 Invalid` with field causes: `Service "x" is invalid: spec.ports[0].port: Invalid value: ...`.
    pub fn invalid(group: &str, kind: &str, name: &str, causes: Vec<Cause>) -> Self {
        let list: Vec<String> = causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        let joined = if list.len() == 1 {
            list[0].clone()
        } else {
            format!("[{}]", list.join(", "))
        };
        let mut e = Self::new(
            422,
            "Invalid",
            format!("{kind} \"{name}\" is invalid: {joined}"),
        );
        e.details = Some(Box::new(Details {
            name: name.into(),
            group: group.into(),
            kind: kind.into(),
        }));
        e.causes = causes;
        e
    }

    /// `400 BadRequest`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    /// `410 Expired` for a list continue token or resourceVersion older than the history kept.
    pub fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    /// `410 Gone` for a watch starting before the oldest event kept.
    pub fn gone(message: impl Into<String>) -> Self {
        Self::new(410, "Gone", message)
    }

    /// `405 MethodNotAllowed`.
    pub fn method_not_allowed(verb: &str, resource: &str) -> Self {
        Self::new(
            405,
            "MethodNotAllowed",
            format!(
                "the server does not allow this method on the requested resource ({verb} {resource})"
            ),
        )
    }

    /// `401 Unauthorized`.
    pub fn unauthorized() -> Self {
        Self::new(401, "Unauthorized", "Unauthorized")
    }

    /// `415 UnsupportedMediaType` naming the accepted media types.
    pub fn unsupported_media_type(content_type: &str, accepted: &str) -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: {accepted} (got {content_type:?})"
            ),
        )
    }

    /// `404 NotFound` for a path that names no known resource.
    pub fn no_route() -> Self {
        Self::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    }

    /// `504 Timeout` for a get or list at a resourceVersion the server has not reached yet
    /// (the real watch cache gives up waiting for it and says so, with a retry hint).
    pub fn resource_version_too_large(requested: u64, current: u64) -> Self {
        let mut e = Self::new(
            504,
            "Timeout",
            format!("Timeout: Too large resource version: {requested}, current: {current}"),
        );
        e.causes = vec![Cause {
            reason: "ResourceVersionTooLarge".into(),
            message: "Too large resource version".into(),
            field: String::new(),
        }];
        e.retry_after = Some(1);
        e
    }

    /// `500 InternalError`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, "InternalError", message)
    }

    /// A 500 with no reason: what the real server answers for errors that are not API statuses
    /// (server-side apply's schema errors among them); kubectl prints `Error from server: ...`.
    pub fn unclassified(message: impl Into<String>) -> Self {
        Self::new(500, "", message)
    }

    /// `403 Forbidden` (namespace terminating, immutable fields the real server forbids).
    pub fn forbidden(group: &str, resource: &str, name: &str, message: impl Into<String>) -> Self {
        Self::new(403, "Forbidden", message).with_details(group, resource, name)
    }

    /// The `metav1.Status` object.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if self.reason.is_empty()
            && let Some(m) = status.as_object_mut()
        {
            m.remove("reason");
        }
        if self.details.is_some() || !self.causes.is_empty() || self.retry_after.is_some() {
            let mut details = serde_json::Map::new();
            if let Some(d) = &self.details {
                if !d.name.is_empty() {
                    details.insert("name".into(), json!(d.name));
                }
                if !d.group.is_empty() {
                    details.insert("group".into(), json!(d.group));
                }
                details.insert("kind".into(), json!(d.kind));
            }
            if !self.causes.is_empty() {
                let causes: Vec<Value> = self
                    .causes
                    .iter()
                    .map(|c| {
                        let mut cause = json!({"reason": c.reason, "message": c.message});
                        if !c.field.is_empty() {
                            cause["field"] = json!(c.field);
                        }
                        cause
                    })
                    .collect();
                details.insert("causes".into(), Value::Array(causes));
            }
            if let Some(seconds) = self.retry_after {
                details.insert("retryAfterSeconds".into(), json!(seconds));
            }
            status["details"] = Value::Object(details);
        }
        status
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.reason, self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = self.to_status().to_string();
        let mut response = (code, body).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// `services` or `leases.coordination.k8s.io`, as the real messages name resources.
fn qualified(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_string()
    } else {
        format!("{resource}.{group}")
    }
}

/// A field-validation cause for `Invalid` errors.
pub fn invalid_value(field: impl Into<String>, value: &Value, why: &str) -> Cause {
    let shown = match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {shown}: {why}"),
        field: field.into(),
    }
}

/// A required-field cause for `Invalid` errors.
pub fn required(field: impl Into<String>) -> Cause {
    Cause {
        reason: "FieldValueRequired".into(),
        message: "Required value".into(),
        field: field.into(),
    }
}

/// A forbidden-field cause for `Invalid` errors (a field the object's other settings rule out).
pub fn forbidden(field: impl Into<String>, why: &str) -> Cause {
    Cause {
        reason: "FieldValueForbidden".into(),
        message: format!("Forbidden: {why}"),
        field: field.into(),
    }
}

/// A not-supported cause for `Invalid` errors: an enum field holding a value outside `supported`
/// (listed quoted, in the order given, as the real server's message does).
pub fn not_supported(field: impl Into<String>, got: &str, supported: &[&str]) -> Cause {
    let list = supported
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    Cause {
        reason: "FieldValueNotSupported".into(),
        message: format!("Unsupported value: {got:?}: supported values: {list}"),
        field: field.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflict_message_matches_the_real_server() {
        let e = ApiError::stale("coordination.k8s.io", "leases", "ccm");
        assert_eq!(
            e.message,
            "Operation cannot be fulfilled on leases.coordination.k8s.io \"ccm\": the object has been modified; please apply your changes to the latest version and try again"
        );
        let s = e.to_status();
        assert_eq!(s["details"]["kind"], "leases");
        assert_eq!(s["code"], 409);
    }

    #[test]
    fn too_large_resource_version_is_a_timeout_with_a_retry_hint() {
        let e = ApiError::resource_version_too_large(99, 12);
        let s = e.to_status();
        assert_eq!(
            (s["code"].clone(), s["reason"].clone()),
            (json!(504), json!("Timeout"))
        );
        assert_eq!(
            s["message"],
            "Timeout: Too large resource version: 99, current: 12"
        );
        assert_eq!(
            s["details"],
            json!({"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}], "retryAfterSeconds": 1})
        );
        let r = e.into_response();
        assert_eq!(r.status().as_u16(), 504);
        assert_eq!(r.headers()[header::RETRY_AFTER], "1");
    }

    #[test]
    fn invalid_lists_causes() {
        let e = ApiError::invalid("", "Service", "web", vec![required("spec.ports")]);
        assert_eq!(
            e.message,
            "Service \"web\" is invalid: spec.ports: Required value"
        );
        assert_eq!(e.to_status()["details"]["causes"][0]["field"], "spec.ports");
    }
}
