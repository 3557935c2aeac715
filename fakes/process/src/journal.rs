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

/// Writes that break mutual exclusion: each `(agent, from)` turn starts when that writer's
/// process took the Lease (turns in order); every write must come from the agent whose turn
/// covers its time, and a turn's writes all follow the previous turn's in the journal. Empty
/// when the writers took turns.
pub fn writes_out_of_turn(writes: &[ArmWrite], turns: &[(&str, Timestamp)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut last_seq_of_turn: Vec<Option<u64>> = vec![None; turns.len()];
    let mut first_seq_of_turn: Vec<Option<u64>> = vec![None; turns.len()];
    for write in writes {
        let agent = write.user_agent.as_deref().unwrap_or("");
        let Some(index) = turns.iter().position(|(a, _)| *a == agent) else {
            problems.push(format!("a write from no known writer: {write:?}"));
            continue;
        };
        let (_, from) = turns[index];
        let until = turns.get(index + 1).map(|(_, t)| *t);
        if write.time < from || until.is_some_and(|u| write.time >= u) {
            problems.push(format!(
                "{agent} wrote outside its turn [{from}, {until:?}): {write:?}"
            ));
        }
        last_seq_of_turn[index] = Some(write.seq);
        first_seq_of_turn[index].get_or_insert(write.seq);
    }
    for index in 1..turns.len() {
        if let (Some(last), Some(first)) = (last_seq_of_turn[index - 1], first_seq_of_turn[index])
            && last > first
        {
            problems.push(format!(
                "{}'s write #{last} came after {}'s first write #{first}",
                turns[index - 1].0,
                turns[index].0
            ));
        }
    }
    problems
}

/// How many writes each agent made.
pub fn writes_by(writes: &[ArmWrite], agent: &str) -> usize {
    writes
        .iter()
        .filter(|w| w.user_agent.as_deref() == Some(agent))
        .count()
}
