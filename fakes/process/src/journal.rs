//! The fake ARM's request journal as typed entries, to tell writers apart by `User-Agent`.

use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

/// One write (PUT, PATCH, POST, DELETE) the fake ARM served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmWrite {
    /// Position in the journal.
    pub seq: u64,
    /// When the request arrived.
    pub time: Timestamp,
    /// HTTP method.
    pub method: String,
    /// Path without query.
    pub path: String,
    /// `User-Agent` sent.
    pub user_agent: Option<String>,
}

/// The ARM writes of a journal document (`{"entries": [...]}`), in journal order.
pub fn arm_writes(journal: &Value) -> Vec<ArmWrite> {
    let mut writes: Vec<ArmWrite> = journal["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["surface"] == "arm" && e["method"] != "GET")
        .map(|e| ArmWrite {
            seq: e["seq"].as_u64().unwrap_or_default(),
            time: e["time"]
                .as_str()
                .and_then(|t| t.parse().ok())
                .unwrap_or_else(|| panic!("journal entry without an RFC 3339 time: {e}")),
            method: e["method"].as_str().unwrap_or_default().to_owned(),
            path: e["path"].as_str().unwrap_or_default().to_owned(),
            user_agent: e["userAgent"].as_str().map(str::to_owned),
        })
        .collect();
    writes.sort_by_key(|w| w.seq);
    writes
}
