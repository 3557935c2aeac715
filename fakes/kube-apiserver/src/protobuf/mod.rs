//! Protobuf request bodies (`application/vnd.kubernetes.protobuf`), which client-go's typed
//! clientsets, and so kubectl's imperative commands (`create namespace|configmap|secret|
//! deployment|...`), send for built-in kinds. The body is decoded against per-message field
//! tables into the JSON the same object would have been sent as, and the request then goes
//! through the JSON path unchanged (validation, defaulting, field validation, dry-run).
//! Responses stay JSON: client-go accepts any media type its `Accept` list names.

mod decode;
mod envelope;
mod error;
mod schema;
mod tables;
mod wire;
mod zero_values;

use serde_json::{Map, Value};

use crate::status::ApiError;

pub use error::ProtobufError;
pub use zero_values::zero_value_pointers;

/// The media type of Kubernetes protobuf.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// Whether a `Content-Type` header value is Kubernetes protobuf (parameters ignored).
pub fn is_protobuf(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case(MEDIA_TYPE))
}

/// Decodes a protobuf body into the JSON object (with `apiVersion` and `kind` from the envelope)
/// the JSON path would have received.
pub fn to_json(body: &[u8]) -> Result<Value, ProtobufError> {
    let envelope = envelope::parse(body)?;
    let root = tables::root(&envelope.api_version, &envelope.kind).ok_or_else(|| {
        ProtobufError::UnknownKind {
            api_version: envelope.api_version.clone(),
            kind: envelope.kind.clone(),
        }
    })?;
    let fields = decode::message(root, envelope.raw, "")?;
    let mut object = Map::new();
    object.insert("apiVersion".into(), Value::String(envelope.api_version));
    object.insert("kind".into(), Value::String(envelope.kind));
    object.extend(fields);
    Ok(Value::Object(object))
}

/// A protobuf request body re-encoded as JSON bytes, or the API error the client gets: 415 for
/// a kind without a table (JSON is then the only accepted media type), 400 for a malformed body.
pub fn request_body_to_json(content_type: &str, body: &[u8]) -> Result<Vec<u8>, ApiError> {
    match to_json(body) {
        Ok(value) => serde_json::to_vec(&value).map_err(|e| ApiError::internal(e.to_string())),
        Err(ProtobufError::UnknownKind { .. }) => Err(ApiError::unsupported_media_type(
            content_type,
            "application/json",
        )),
        Err(e) => Err(ApiError::bad_request(format!(
            "error decoding request body: {e}"
        ))),
    }
}
