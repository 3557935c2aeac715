//! The calls one user made, read back from the audit log this server writes (`--audit-log-path`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::Call;

/// Why the audit log could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AuditReadError {
    /// The file could not be read.
    #[error("reading the audit log {path}: {source}")]
    Io {
        /// The log.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not a JSON event.
    #[error("audit log line {line}: {source}")]
    Json {
        /// 1-based line number.
        line: usize,
        /// The cause.
        source: serde_json::Error,
    },
}

/// Every distinct call `username` made, from the audit log's JSON lines.
pub fn calls_by(log: &Path, username: &str) -> Result<BTreeSet<Call>, AuditReadError> {
    let text = std::fs::read_to_string(log).map_err(|source| AuditReadError::Io {
        path: log.display().to_string(),
        source,
    })?;
    let field = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let mut out = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let e: Value = serde_json::from_str(line).map_err(|source| AuditReadError::Json {
            line: i + 1,
            source,
        })?;
        if e["user"]["username"] != username {
            continue;
        }
        let o = &e["objectRef"];
        let path = if o.is_object() {
            String::new()
        } else {
            field(&e, "requestURI")
                .split('?')
                .next()
                .unwrap_or_default()
                .to_string()
        };
        out.insert(Call {
            verb: field(&e, "verb"),
            group: field(o, "apiGroup"),
            resource: field(o, "resource"),
            subresource: field(o, "subresource"),
            namespace: field(o, "namespace"),
            name: field(o, "name"),
            path,
        });
    }
    Ok(out)
}
