//! The bounded request log and the per-operation counters behind it.

use std::collections::{BTreeMap, HashMap, VecDeque};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

/// Which endpoint family served a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    /// Azure Resource Manager.
    Arm,
    /// Entra ID token endpoints.
    Entra,
    /// Per-VM instance metadata service.
    Imds,
    /// `/metadata/endpoints` discovery.
    Metadata,
    /// The fake's own admin API (except reads and clears of the journal itself).
    Admin,
    /// The proxies (`--proxy-listen`, `/admin/proxies`): one entry per CONNECT (tunnelled or
    /// refused) and per other refused request. IMDS requests through a per-host proxy are `Imds`
    /// entries, the same as direct ones.
    Proxy,
}

/// One served request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntry {
    /// Position in the log (monotonic, never reused, survives clears).
    pub seq: u64,
    /// RFC 3339 UTC time the request arrived.
    pub time: String,
    /// Endpoint family.
    pub surface: Surface,
    /// `GET Microsoft.Network/loadBalancers`, `POST token`, `GET imds/instance`, ...
    pub operation: String,
    /// HTTP method.
    pub method: String,
    /// Path without query.
    pub path: String,
    /// `api-version` query parameter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// Response status (the status that would have been sent when the connection was reset).
    pub status: u16,
    /// Time spent serving, milliseconds.
    pub duration_ms: f64,
    /// `User-Agent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// Client (app) id of the bearer token, for ARM calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Refused by the throttle (429 from the token buckets, not an injected one).
    pub throttled: bool,
    /// Faults applied (`id:label`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub faults: Vec<String>,
    /// `x-ms-request-id` sent back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// `x-ms-correlation-request-id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// `x-ms-client-request-id` the caller sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_request_id: Option<String>,
}

/// Counts for one operation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationCounter {
    /// Requests.
    pub count: u64,
    /// Of which refused by the throttle.
    pub throttled: u64,
    /// Of which had a fault injected.
    pub faulted: u64,
    /// Requests per response status.
    pub by_status: BTreeMap<u16, u64>,
}

/// What `GET /admin/journal` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalExport {
    /// Entries with `seq >= since`, oldest first.
    pub entries: Vec<JournalEntry>,
    /// Entries evicted because the log was full (counters still include them).
    pub dropped: u64,
    /// `seq` the next request will get (pass as `since` to read only newer entries).
    pub next_seq: u64,
}

struct Inner {
    entries: VecDeque<JournalEntry>,
    next_seq: u64,
    dropped: u64,
    counters: HashMap<String, OperationCounter>,
}

/// Shared journal of one fake cloud.
pub struct Journal {
    inner: Mutex<Inner>,
    capacity: usize,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl Journal {
    /// Keeps at most `capacity` entries (older ones are evicted; counters are unbounded).
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Inner {
                entries: VecDeque::new(),
                next_seq: 0,
                dropped: 0,
                counters: HashMap::new(),
            }),
            capacity,
        }
    }

    /// Appends `entry` (its `seq` is assigned here) and counts it.
    pub fn record(&self, mut entry: JournalEntry) {
        let mut inner = self.inner.lock();
        entry.seq = inner.next_seq;
        inner.next_seq += 1;
        let counter = match inner.counters.get_mut(&entry.operation) {
            Some(c) => c,
            None => inner.counters.entry(entry.operation.clone()).or_default(),
        };
        counter.count += 1;
        counter.throttled += u64::from(entry.throttled);
        counter.faulted += u64::from(!entry.faults.is_empty());
        *counter.by_status.entry(entry.status).or_default() += 1;
        if self.capacity == 0 {
            inner.dropped += 1;
            return;
        }
        if inner.entries.len() >= self.capacity {
            inner.entries.pop_front();
            inner.dropped += 1;
        }
        inner.entries.push_back(entry);
    }

    /// Entries with `seq >= since`.
    pub fn export(&self, since: u64) -> JournalExport {
        let inner = self.inner.lock();
        JournalExport {
            entries: inner
                .entries
                .iter()
                .filter(|e| e.seq >= since)
                .cloned()
                .collect(),
            dropped: inner.dropped,
            next_seq: inner.next_seq,
        }
    }

    /// Per-operation counters, sorted by operation.
    pub fn counters(&self) -> BTreeMap<String, OperationCounter> {
        self.inner
            .lock()
            .counters
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Empties the log and the counters (`seq` keeps counting).
    pub fn clear(&self) {
        let mut inner = self.inner.lock();
        inner.entries.clear();
        inner.counters.clear();
        inner.dropped = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(operation: &str, status: u16, throttled: bool) -> JournalEntry {
        JournalEntry {
            seq: 99,
            time: "t".into(),
            surface: Surface::Arm,
            operation: operation.into(),
            method: "GET".into(),
            path: "/p".into(),
            api_version: None,
            status,
            duration_ms: 0.1,
            user_agent: None,
            client_id: None,
            throttled,
            faults: Vec::new(),
            request_id: None,
            correlation_id: None,
            client_request_id: None,
        }
    }

    #[test]
    fn records_counts_and_evicts() {
        let j = Journal::new(2);
        j.record(entry("GET a", 200, false));
        j.record(entry("GET a", 429, true));
        j.record(entry("PUT b", 201, false));
        let export = j.export(0);
        assert_eq!(
            export.entries.iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!((export.dropped, export.next_seq), (1, 3));
        assert_eq!(j.export(2).entries.len(), 1);
        let counters = j.counters();
        assert_eq!(counters["GET a"].count, 2);
        assert_eq!(counters["GET a"].throttled, 1);
        assert_eq!(
            counters["GET a"].by_status,
            BTreeMap::from([(200, 1), (429, 1)])
        );
        j.clear();
        assert!(j.export(0).entries.is_empty());
        assert!(j.counters().is_empty());
        j.record(entry("GET a", 200, false));
        assert_eq!(j.export(0).entries[0].seq, 3);
    }
}
