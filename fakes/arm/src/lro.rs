//! Long-running operations: the operation table, the `Azure-AsyncOperation` / `Location` URLs and bodies
//! per provider, and completion (commit, rollback or removal) driven by polls or by age.

use crate::error::ArmError;
use crate::error_codes;
use crate::kinds::{Kind, KindId, Provider};
use crate::resources;
use crate::store::Store;
use crate::write::WriteCtx;
use serde_json::{Value, json};
use std::time::Instant;

/// What an operation will do when it finishes.
#[derive(Debug, Clone)]
pub(crate) enum OpKind {
    /// Create/update: on failure the previous document (if any) is restored.
    Put {
        /// Document before the write (`None` on create).
        previous: Option<Value>,
    },
    /// Delete of these entry keys (the resource and its cascade).
    Delete {
        /// Entry keys removed on success.
        keys: Vec<String>,
    },
}

/// Lifecycle of an operation.
#[derive(Debug, Clone)]
pub(crate) enum OpStatus {
    /// Still running.
    InProgress,
    /// Finished successfully.
    Succeeded,
    /// Finished with an error.
    Failed(ArmError),
    /// Canceled (superseded by a newer PUT).
    Canceled(ArmError),
}

/// One asynchronous operation.
#[derive(Debug, Clone)]
pub(crate) struct Operation {
    /// GUID.
    pub id: String,
    /// Provider whose URL shape it uses.
    pub provider: Provider,
    /// `true` for resource-group deletes (Location-only `operationresults` URL).
    pub rg_delete: bool,
    /// Normalised location of the resource.
    pub location: String,
    /// Subscription.
    pub subscription: String,
    /// api-version of the request that started it (echoed in its URLs).
    pub api_version: String,
    /// Entry key of the resource.
    pub entry_key: String,
    /// What completion does.
    pub kind: OpKind,
    /// Polls still answered InProgress.
    pub polls_left: u32,
    /// Creation instant (for age-based completion).
    pub started: Instant,
    /// RFC 3339 start time (CRP bodies).
    pub start_time: String,
    /// RFC 3339 end time once finished.
    pub end_time: Option<String>,
    /// Status.
    pub status: OpStatus,
    /// Forced failure (fault injection) applied at completion.
    pub fail: Option<ArmError>,
}

/// RFC 3339 "now" with 7 fractional digits like ARM.
pub(crate) fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    let fmt = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:7]+00:00"
    );
    now.format(&fmt).unwrap_or_default()
}

impl Operation {
    /// Relative `Azure-AsyncOperation` URL (`None` for RG deletes, which only send `Location`).
    pub fn async_path(&self) -> Option<String> {
        if self.rg_delete {
            return None;
        }
        let ns = self.provider.namespace();
        let extra = if self.provider == Provider::Compute {
            format!("&p={}", self.id)
        } else {
            String::new()
        };
        Some(format!(
            "/subscriptions/{}/providers/{ns}/locations/{}/operations/{}?api-version={}{extra}",
            self.subscription, self.location, self.id, self.api_version
        ))
    }

    /// Relative `Location` URL.
    pub fn location_path(&self) -> String {
        let ns = self.provider.namespace();
        match (self.rg_delete, self.provider) {
            (true, _) => format!(
                "/subscriptions/{}/operationresults/{}?api-version={}",
                self.subscription, self.id, self.api_version
            ),
            (false, Provider::Compute) => format!(
                "/subscriptions/{}/providers/{ns}/locations/{}/operations/{}?p={}&monitor=true&api-version={}",
                self.subscription, self.location, self.id, self.id, self.api_version
            ),
            (false, _) => format!(
                "/subscriptions/{}/providers/{ns}/locations/{}/operationResults/{}?api-version={}",
                self.subscription, self.location, self.id, self.api_version
            ),
        }
    }

    /// `true` once terminal.
    pub fn is_done(&self) -> bool {
        !matches!(self.status, OpStatus::InProgress)
    }

    /// Status word.
    pub fn status_str(&self) -> &'static str {
        match self.status {
            OpStatus::InProgress => "InProgress",
            OpStatus::Succeeded => "Succeeded",
            OpStatus::Failed(_) => "Failed",
            OpStatus::Canceled(_) => "Canceled",
        }
    }

    /// The Azure-AsyncOperation body (NRP `{status}`, CRP `{startTime,endTime,status,name}`, + `error`).
    pub fn status_body(&self) -> Value {
        let mut body = match self.provider {
            Provider::Compute => {
                let mut b = json!({ "startTime": self.start_time, "status": self.status_str(), "name": self.id });
                if let Some(end) = &self.end_time {
                    b["endTime"] = json!(end);
                }
                b
            }
            _ => json!({ "status": self.status_str() }),
        };
        if let OpStatus::Failed(e) | OpStatus::Canceled(e) = &self.status {
            body["error"] = e.error_object();
        }
        body
    }
}

/// NRP's cancel error for a PUT superseded by a newer PUT.
pub(crate) fn superseded(provider: Provider, old: &str, new: &str) -> ArmError {
    match provider {
        Provider::Compute => ArmError::new(
            error_codes::OPERATION_PREEMPTED,
            "Operation execution has been preempted by a more recent operation.",
        ),
        _ => ArmError::nrp(
            error_codes::CANCELED_AND_SUPERSEDED,
            format!("Operation {old} was canceled and superseded by operation {new}."),
        ),
    }
}

impl Store {
    /// Starts an InProgress operation on the resource at `entry_key` and queues it for age-based
    /// completion: PUT and DELETE share one place that decides its URLs (the resource's location,
    /// else the configured default; the request's api-version), poll budget and injected failure.
    pub(crate) fn start_op(
        &mut self,
        op_id: &str,
        kind: &Kind,
        entry_key: &str,
        subscription: &str,
        what: OpKind,
        cx: &WriteCtx,
    ) {
        let location = self
            .entries
            .get(entry_key)
            .map(|e| e.location().to_string())
            .filter(|l| !l.is_empty())
            .unwrap_or_else(|| cx.cfg.default_location.clone());
        let op = Operation {
            id: op_id.to_string(),
            provider: kind.provider,
            rg_delete: kind.id == KindId::ResourceGroup && matches!(what, OpKind::Delete { .. }),
            location,
            subscription: subscription.to_string(),
            api_version: cx.api_version.clone(),
            entry_key: entry_key.to_string(),
            kind: what,
            polls_left: cx.cfg.lro_polls_in_progress,
            started: Instant::now(),
            start_time: now_rfc3339(),
            end_time: None,
            status: OpStatus::InProgress,
            fail: cx.fail.clone(),
        };
        self.pending.push_back((op.started, op.id.clone()));
        self.ops.insert(op.id.clone(), op);
    }

    /// `true` when [`Store::settle_expired`] has work: the oldest queued operation is finished
    /// (housekeeping) or older than `max_age`. Operations start in time order, so the front
    /// decides; this keeps the read path (every GET) free of a scan over all operations.
    pub(crate) fn settle_due(&self, max_age: std::time::Duration) -> bool {
        self.pending.front().is_some_and(|(started, id)| {
            started.elapsed() >= max_age || self.ops.get(id).is_none_or(Operation::is_done)
        })
    }

    /// Completes any operation older than `max_age` (clients that never poll must not wedge a resource).
    pub(crate) fn settle_expired(&mut self, max_age: std::time::Duration) {
        while let Some((started, id)) = self.pending.front().cloned() {
            let running = self.ops.get(&id).is_some_and(|o| !o.is_done());
            if running && started.elapsed() < max_age {
                break;
            }
            self.pending.pop_front();
            if running {
                self.finish_op(&id);
            }
        }
    }

    /// Records one poll; finishes the operation once its InProgress polls are used up.
    pub(crate) fn poll(&mut self, op_id: &str) -> Option<Operation> {
        let op = self.ops.get_mut(op_id)?;
        if !op.is_done() {
            if op.polls_left == 0 {
                self.finish_op(op_id);
            } else {
                op.polls_left -= 1;
            }
        }
        self.ops.get(op_id).cloned()
    }

    /// Completes an operation: commit (or roll back / mark Failed) a PUT, remove the entries of a DELETE.
    pub(crate) fn finish_op(&mut self, op_id: &str) {
        let Some(op) = self.ops.get(op_id).cloned() else {
            return;
        };
        if op.is_done() {
            return;
        }
        let key = op.entry_key.clone();
        let status = match (&op.kind, &op.fail) {
            (OpKind::Put { previous }, Some(err)) => {
                if let Some(prev) = previous.clone() {
                    let kind = self.entries.get(&key).map(|e| e.kind);
                    if let Some(kind) = kind {
                        let mut prev = prev;
                        resources::set_state(&mut prev, kind, "Failed");
                        self.commit(&key, kind, prev, None);
                        resources::after_rollback(self, &key);
                    }
                } else if let Some(e) = self.entries.get_mut(&key) {
                    let kind = e.kind;
                    resources::set_state(&mut e.doc, kind, "Failed");
                    e.rerender();
                }
                OpStatus::Failed(err.clone())
            }
            (OpKind::Put { .. }, None) => {
                if let Some(e) = self.entries.get_mut(&key) {
                    let kind = e.kind;
                    resources::set_state(&mut e.doc, kind, "Succeeded");
                    e.rerender();
                }
                resources::on_provisioned(self, &key);
                OpStatus::Succeeded
            }
            (OpKind::Delete { .. }, Some(err)) => {
                if let Some(e) = self.entries.get_mut(&key) {
                    let kind = e.kind;
                    resources::set_state(&mut e.doc, kind, "Failed");
                    e.rerender();
                }
                OpStatus::Failed(err.clone())
            }
            (OpKind::Delete { keys }, None) => {
                resources::before_remove(self, keys);
                self.remove_entries(keys);
                OpStatus::Succeeded
            }
        };
        if let Some(e) = self.entries.get_mut(&key)
            && e.op.as_deref() == Some(op_id)
        {
            e.op = None;
        }
        if let Some(o) = self.ops.get_mut(op_id) {
            o.status = status;
            o.end_time = Some(now_rfc3339());
        }
    }
}
