//! The election loop: acquire, renew until the deadline, observe other holders, release on shutdown.

use k8s_openapi::jiff::Timestamp;
use kube::Client;
use rand::Rng;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::{Duration, Instant, sleep, timeout_at};

use super::config::{ElectionConfig, ElectionConfigError, JITTER_FACTOR};
use super::lock::LeaseLock;
use super::record::LeaderRecord;

/// What this process currently is for one Lease; controllers start and stop work on changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaderState {
    /// Not leading; `holder` is the identity last observed in the Lease (if any).
    Standby {
        /// The current holder as last observed.
        holder: Option<String>,
    },
    /// This process holds the Lease and may run the work it guards.
    Leading,
    /// Renewal failed for the whole renew deadline: stop all guarded work and exit.
    Lost,
    /// Graceful shutdown finished (the Lease was released if held and `release_on_cancel`).
    Stopped,
}

impl LeaderState {
    /// Whether the guarded work may run.
    pub fn is_leading(&self) -> bool {
        matches!(self, LeaderState::Leading)
    }
}

/// A running election: its state channel, and the way to stop it.
pub struct LeaderHandle {
    state: watch::Receiver<LeaderState>,
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<LeaderState>>,
    lease: String,
}

impl LeaderHandle {
    /// Starts campaigning for `config`'s Lease on the tokio runtime.
    pub fn spawn(client: Client, config: ElectionConfig) -> Result<Self, ElectionConfigError> {
        config.validate()?;
        let lease = format!("{}/{}", config.namespace, config.name);
        let (state_tx, state) = watch::channel(LeaderState::Standby { holder: None });
        let (stop, stop_rx) = watch::channel(false);
        let elector = Elector {
            lock: LeaseLock::new(client, &config.namespace, &config.name),
            config,
            observed: None,
            observed_at: Instant::now(),
        };
        let task = tokio::spawn(elector.run(state_tx, stop_rx));
        Ok(LeaderHandle {
            state,
            stop,
            task: Some(task),
            lease,
        })
    }

    /// A receiver of every state change (start work on `Leading`, stop it on anything else).
    pub fn subscribe(&self) -> watch::Receiver<LeaderState> {
        self.state.clone()
    }

    /// The current state.
    pub fn state(&self) -> LeaderState {
        self.state.borrow().clone()
    }

    /// `namespace/name` of the Lease.
    pub fn lease(&self) -> &str {
        &self.lease
    }

    /// Waits until this process leads; returns the final state instead if the election ended first.
    pub async fn leading(&self) -> Result<(), LeaderState> {
        let mut rx = self.state.clone();
        let state = rx
            .wait_for(|s| {
                matches!(
                    s,
                    LeaderState::Leading | LeaderState::Lost | LeaderState::Stopped
                )
            })
            .await
            .map(|s| s.clone())
            .unwrap_or(LeaderState::Lost);
        match state {
            LeaderState::Leading => Ok(()),
            other => Err(other),
        }
    }

    /// Resolves when leadership is lost (the on-lost signal: the binary exits non-zero).
    pub async fn lost(&self) {
        let mut rx = self.state.clone();
        let _ = rx.wait_for(|s| *s == LeaderState::Lost).await;
    }

    /// Graceful shutdown: stop campaigning and, if leading, release the Lease. Call it after the
    /// guarded work has stopped, so a standby never starts while this process still works.
    pub async fn shutdown(mut self) -> LeaderState {
        let _ = self.stop.send(true);
        match self.task.take() {
            Some(task) => task.await.unwrap_or(LeaderState::Lost),
            None => LeaderState::Stopped,
        }
    }
}

impl Drop for LeaderHandle {
    /// Dropping without `shutdown` abandons the Lease without releasing it (like a crash).
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The state client-go's `LeaderElector` keeps: the last record seen and when it was first seen.
struct Elector {
    config: ElectionConfig,
    lock: LeaseLock,
    observed: Option<LeaderRecord>,
    /// Local monotonic time at which `observed` last changed; expiry is measured from here, never
    /// from the holder's `renewTime`, so clock skew between hosts does not matter.
    observed_at: Instant,
}

impl Elector {
    async fn run(
        mut self,
        state: watch::Sender<LeaderState>,
        mut stop: watch::Receiver<bool>,
    ) -> LeaderState {
        let lease = format!("{}/{}", self.config.namespace, self.config.name);
        tracing::info!(lease = %lease, identity = %self.config.identity, "attempting to acquire leader lease");
        // Acquire: retry with jitter until we hold the Lease or are stopped.
        loop {
            let deadline = Instant::now() + self.config.renew_deadline;
            if timeout_at(deadline, self.try_acquire_or_renew())
                .await
                .unwrap_or(false)
            {
                break;
            }
            let holder = self.observed.as_ref().and_then(|r| r.holder.clone());
            state.send_if_modified(|s| {
                let next = LeaderState::Standby {
                    holder: holder.clone(),
                };
                let changed = *s != next;
                *s = next;
                changed
            });
            if stopped_within(&mut stop, self.jittered_retry()).await {
                let _ = state.send(LeaderState::Stopped);
                return LeaderState::Stopped;
            }
        }
        tracing::info!(lease = %lease, identity = %self.config.identity, "successfully acquired lease");
        let _ = state.send(LeaderState::Leading);
        // Renew: every retry period; a renewal may retry until the renew deadline, then leadership is lost.
        loop {
            if stopped_within(&mut stop, self.config.retry_period).await {
                // Work stops on this state change before the Lease is released.
                let _ = state.send(LeaderState::Stopped);
                if self.config.release_on_cancel {
                    self.release().await;
                }
                return LeaderState::Stopped;
            }
            let deadline = Instant::now() + self.config.renew_deadline;
            let mut renewed = false;
            loop {
                if timeout_at(deadline, self.try_acquire_or_renew())
                    .await
                    .unwrap_or(false)
                {
                    renewed = true;
                    break;
                }
                if Instant::now() + self.config.retry_period >= deadline {
                    break;
                }
                if stopped_within(&mut stop, self.config.retry_period).await {
                    let _ = state.send(LeaderState::Stopped);
                    return LeaderState::Stopped;
                }
            }
            if !renewed {
                tracing::error!(lease = %lease, identity = %self.config.identity, "failed to renew lease before the renew deadline: leadership lost");
                let _ = state.send(LeaderState::Lost);
                return LeaderState::Lost;
            }
        }
    }

    fn jittered_retry(&self) -> Duration {
        let factor = rand::rng().random_range(0.0..JITTER_FACTOR);
        self.config.retry_period + self.config.retry_period.mul_f64(factor)
    }

    fn is_leader(&self) -> bool {
        self.observed
            .as_ref()
            .is_some_and(|r| r.is_held_by(&self.config.identity))
    }

    fn lease_valid(&self, now: Instant) -> bool {
        let seconds = self
            .observed
            .as_ref()
            .map(|r| r.lease_duration_seconds.max(0))
            .unwrap_or(0);
        self.observed_at + Duration::from_secs(u64::try_from(seconds).unwrap_or(0)) > now
    }

    fn set_observed(&mut self, record: LeaderRecord) {
        self.observed = Some(record);
        self.observed_at = Instant::now();
    }

    /// One attempt, as client-go's `tryAcquireOrRenew`: true when we hold the Lease afterwards.
    async fn try_acquire_or_renew(&mut self) -> bool {
        let now = Instant::now();
        let wall = Timestamp::now();
        let mut desired = LeaderRecord {
            holder: Some(self.config.identity.clone()),
            lease_duration_seconds: self.config.lease_duration_seconds(),
            acquire_time: Some(wall),
            renew_time: Some(wall),
            transitions: 0,
        };
        // Fast path: we lead and our view is fresh, so update on the version we last wrote.
        if self.is_leader()
            && self.lease_valid(now)
            && let Some(old) = self.observed.clone()
        {
            desired.acquire_time = old.acquire_time;
            desired.transitions = old.transitions;
            match self.lock.update(&desired).await {
                Ok(()) => {
                    self.set_observed(desired);
                    return true;
                }
                Err(err) => {
                    tracing::warn!(lease = %self.config.name, error = %err, "optimistic renew failed, re-reading the lease");
                }
            }
        }
        let current = match self.lock.get().await {
            Ok(Some(current)) => current,
            Ok(None) => {
                return match self.lock.create(&desired).await {
                    Ok(()) => {
                        self.set_observed(desired);
                        true
                    }
                    Err(err) => {
                        tracing::warn!(lease = %self.config.name, error = %err, "creating the lease failed");
                        false
                    }
                };
            }
            Err(err) => {
                tracing::warn!(lease = %self.config.name, error = %err, "reading the lease failed");
                return false;
            }
        };
        if self.observed.as_ref() != Some(&current) {
            self.set_observed(current.clone());
        }
        if current.holder.is_some() && self.lease_valid(now) && !self.is_leader() {
            tracing::debug!(lease = %self.config.name, holder = ?current.holder, "lease is held and has not expired");
            return false;
        }
        if self.is_leader() {
            desired.acquire_time = current.acquire_time;
            desired.transitions = current.transitions;
        } else {
            desired.transitions = current.transitions.saturating_add(1);
        }
        match self.lock.update(&desired).await {
            Ok(()) => {
                self.set_observed(desired);
                true
            }
            Err(err) => {
                tracing::debug!(lease = %self.config.name, error = %err, "taking the lease failed");
                false
            }
        }
    }

    /// Clears `holderIdentity` (lease duration 1 s, transitions kept) so a standby acquires at once.
    async fn release(&mut self) {
        if !self.is_leader() {
            return;
        }
        let wall = Timestamp::now();
        let released = LeaderRecord {
            holder: None,
            lease_duration_seconds: 1,
            acquire_time: Some(wall),
            renew_time: Some(wall),
            transitions: self.observed.as_ref().map(|r| r.transitions).unwrap_or(0),
        };
        let deadline = Instant::now() + self.config.renew_deadline;
        match timeout_at(deadline, self.lock.update(&released)).await {
            Ok(Ok(())) => {
                tracing::info!(lease = %self.config.name, "released leader lease");
                self.set_observed(released);
            }
            Ok(Err(err)) => {
                tracing::warn!(lease = %self.config.name, error = %err, "failed to release leader lease")
            }
            Err(_) => {
                tracing::warn!(lease = %self.config.name, "releasing the leader lease timed out")
            }
        }
    }
}

/// Sleeps for `period`; true if a stop was requested first (or the handle is gone).
async fn stopped_within(stop: &mut watch::Receiver<bool>, period: Duration) -> bool {
    if *stop.borrow() {
        return true;
    }
    tokio::select! {
        changed = stop.wait_for(|s| *s) => { let _ = changed; true }
        () = sleep(period) => false,
    }
}
