//! Every version of one Lease as a watch saw it, so tests can check from the Lease itself (not
//! from wall-clock timing) that no two processes held it at once and how fast a standby took over.

use std::sync::{Arc, Mutex, PoisonError};

use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::Api;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};

/// One observed version of the Lease's spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRecord {
    /// `holderIdentity` (`None` when empty: released).
    pub holder: Option<String>,
    /// `acquireTime`.
    pub acquire: Option<Timestamp>,
    /// `renewTime`.
    pub renew: Option<Timestamp>,
    /// `leaseDurationSeconds`.
    pub duration_seconds: i64,
    /// `leaseTransitions`.
    pub transitions: i64,
}

impl LeaseRecord {
    /// The spec of `lease` (a missing spec reads as released).
    pub fn of(lease: &Lease) -> LeaseRecord {
        let spec = lease.spec.clone().unwrap_or_default();
        LeaseRecord {
            holder: spec.holder_identity.filter(|h| !h.is_empty()),
            acquire: spec.acquire_time.map(|t| t.0),
            renew: spec.renew_time.map(|t| t.0),
            duration_seconds: spec.lease_duration_seconds.unwrap_or(0).into(),
            transitions: spec.lease_transitions.unwrap_or(0).into(),
        }
    }
}

/// A holder's tenure: from its first record to its last renewal seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tenure {
    /// The holder.
    pub holder: String,
    /// `acquireTime` of its first record.
    pub acquired: Timestamp,
    /// The last `renewTime` it wrote.
    pub last_renew: Timestamp,
    /// `leaseTransitions` while it held the Lease.
    pub transitions: i64,
    /// `leaseDurationSeconds` of its last record.
    pub duration_seconds: i64,
    /// Whether the record after its tenure cleared the holder (a release).
    pub released: bool,
}

/// Records every version of `namespace/name` until dropped.
pub struct LeaseHistory {
    records: Arc<Mutex<Vec<LeaseRecord>>>,
    task: tokio::task::JoinHandle<()>,
}

impl LeaseHistory {
    /// Starts watching (call it before the processes campaign, so the first holder is seen).
    pub fn record(client: kube::Client, namespace: &str, name: &str) -> LeaseHistory {
        let records = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&records);
        let api: Api<Lease> = Api::namespaced(client, namespace);
        let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
        let name = name.to_owned();
        let task = tokio::spawn(async move {
            // With a backoff, a watch whose server has gone (after the test's teardown) waits
            // between retries instead of spinning, so the task can be aborted.
            let stream = watcher::watcher(api, config).default_backoff();
            futures::pin_mut!(stream);
            while let Some(event) = stream.next().await {
                let lease = match event {
                    Ok(Event::Apply(lease) | Event::InitApply(lease)) => lease,
                    _ => continue,
                };
                // The field selector may be ignored by a server: filter here too.
                if lease.metadata.name.as_deref() != Some(name.as_str()) {
                    continue;
                }
                let record = LeaseRecord::of(&lease);
                let mut records = sink.lock().unwrap_or_else(PoisonError::into_inner);
                if records.last() != Some(&record) {
                    records.push(record);
                }
            }
        });
        LeaseHistory { records, task }
    }

    /// The versions seen so far, in order.
    pub fn records(&self) -> Vec<LeaseRecord> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The holders one after the other (releases close a tenure).
    pub fn tenures(&self) -> Vec<Tenure> {
        tenures(&self.records())
    }
}

impl Drop for LeaseHistory {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Folds records into tenures.
pub fn tenures(records: &[LeaseRecord]) -> Vec<Tenure> {
    let mut out: Vec<Tenure> = Vec::new();
    let mut open = false;
    for record in records {
        match &record.holder {
            None => {
                if let Some(last) = out.last_mut().filter(|_| open) {
                    last.released = true;
                }
                open = false;
            }
            Some(holder) => {
                let renew = record
                    .renew
                    .or(record.acquire)
                    .unwrap_or(Timestamp::UNIX_EPOCH);
                match out.last_mut() {
                    Some(last) if open && last.holder == *holder => {
                        last.last_renew = renew;
                        last.duration_seconds = record.duration_seconds;
                    }
                    _ => {
                        out.push(Tenure {
                            holder: holder.clone(),
                            acquired: record.acquire.unwrap_or(renew),
                            last_renew: renew,
                            transitions: record.transitions,
                            duration_seconds: record.duration_seconds,
                            released: false,
                        });
                        open = true;
                    }
                }
            }
        }
    }
    out
}

/// The current holder of `name` (`None`: absent, or released).
pub async fn lease_holder(leases: &Api<Lease>, name: &str) -> Option<String> {
    leases
        .get_opt(name)
        .await
        .expect("get lease")
        .and_then(|l| l.spec)
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty())
}

/// Holder changes that broke mutual exclusion: a new holder acquired before the previous one's
/// last renewal had expired (`renewTime + leaseDurationSeconds`) without a release in between,
/// or `leaseTransitions` did not grow by one. Empty when the history is sound.
pub fn overlaps(tenures: &[Tenure]) -> Vec<String> {
    let mut problems = Vec::new();
    for pair in tenures.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let expiry = before.last_renew + SignedDuration::from_secs(before.duration_seconds);
        if !before.released && after.acquired < expiry {
            problems.push(format!(
                "{} acquired at {} while {} held the Lease until {expiry}",
                after.holder, after.acquired, before.holder
            ));
        }
        if after.acquired < before.last_renew {
            problems.push(format!(
                "{} acquired at {} before {}'s last renewal at {}",
                after.holder, after.acquired, before.holder, before.last_renew
            ));
        }
        if after.transitions != before.transitions + 1 {
            problems.push(format!(
                "leaseTransitions went from {} to {} when {} took over",
                before.transitions, after.transitions, after.holder
            ));
        }
    }
    problems
}
