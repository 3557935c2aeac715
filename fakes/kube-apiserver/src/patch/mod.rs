//! The four patch formats (JSON merge, JSON patch, strategic merge, server-side apply) and the
//! managedFields bookkeeping that goes with writes.

pub mod apply;
pub mod fieldset;
pub mod managed;
pub mod schema;
pub mod strategic;

use serde_json::Value;

/// Which patch format a request carries, from its Content-Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/apply-patch+yaml` (server-side apply).
    Apply,
}

impl PatchType {
    /// Reads the Content-Type (parameters ignored).
    pub fn from_content_type(ct: &str) -> Option<Self> {
        match ct.split(';').next().unwrap_or_default().trim() {
            "application/json-patch+json" => Some(Self::Json),
            "application/merge-patch+json" => Some(Self::Merge),
            "application/strategic-merge-patch+json" => Some(Self::Strategic),
            "application/apply-patch+yaml"
            | "application/apply-patch+json"
            | "application/apply-patch+cbor" => Some(Self::Apply),
            _ => None,
        }
    }
}

/// Applies a JSON merge, JSON or strategic patch (apply is separate: it needs ownership state).
pub fn apply_simple(
    kind: &str,
    ty: PatchType,
    original: &Value,
    body: &[u8],
) -> Result<Value, String> {
    match ty {
        PatchType::Json => {
            let ops: json_patch::Patch =
                serde_json::from_slice(body).map_err(|e| format!("invalid JSON patch: {e}"))?;
            let mut out = original.clone();
            json_patch::patch(&mut out, &ops).map_err(|e| {
                format!("the server rejected our request due to an error in our request: {e}")
            })?;
            Ok(out)
        }
        PatchType::Merge => {
            let patch: Value =
                serde_json::from_slice(body).map_err(|e| format!("invalid merge patch: {e}"))?;
            let mut out = original.clone();
            json_patch::merge(&mut out, &patch);
            Ok(out)
        }
        PatchType::Strategic => {
            let patch: Value = serde_json::from_slice(body)
                .map_err(|e| format!("invalid strategic merge patch: {e}"))?;
            strategic::apply(kind, original, &patch)
        }
        PatchType::Apply => Err("apply patches are handled by server-side apply".into()),
    }
}
