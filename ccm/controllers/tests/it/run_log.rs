//! Stand-ins for guarded work: record when each "controller" runs, and the Lease history, and check
//! that no two runs overlap and the Lease never changed hands unsafely.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ccm_controllers::leader::LeaderRecord;
use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;
use kube::runtime::watcher;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// How long any test waits for something that should happen within a few lease durations.
pub const PATIENCE: Duration = Duration::from_secs(90);

/// One run of a stand-in controller: who ran it and when (end `None`: still running).
#[derive(Debug, Clone)]
pub struct Run {
    pub who: String,
    pub start: Instant,
    pub end: Option<Instant>,
}

/// Every run of every stand-in, shared by all of them.
#[derive(Clone, Default)]
pub struct RunLog(Arc<Mutex<Vec<Run>>>);

impl RunLog {
    pub fn runs(&self) -> Vec<Run> {
        self.0.lock().unwrap().clone()
    }

    pub fn push(&self, run: Run) {
        self.0.lock().unwrap().push(run);
    }

    pub fn runs_of(&self, who: &str) -> usize {
        self.runs().iter().filter(|r| r.who == who).count()
    }

    /// Waits until `who` has started a run (its stand-in saw the state that allows it).
    pub async fn wait_started(&self, who: &str) {
        let deadline = Instant::now() + PATIENCE;
        while self.runs_of(who) == 0 {
            assert!(
                Instant::now() < deadline,
                "{who} never ran: {:#?}",
                self.runs()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Fails if two runs (by different stand-ins) ever overlapped.
    pub fn assert_never_overlapping(&self) {
        let mut runs = self.runs();
        runs.sort_by_key(|r| r.start);
        for pair in runs.windows(2) {
            let end = pair[0]
                .end
                .expect("an earlier run is still open while a later one started");
            assert!(
                end <= pair[1].start,
                "{} still ran when {} started: {runs:#?}",
                pair[0].who,
                pair[1].who
            );
        }
    }
}

/// A stand-in controller: runs while `may_run(state)` holds, recording each run in the log.
pub struct StandInController {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl StandInController {
    pub fn start<T: Clone + Send + Sync + 'static>(
        who: &str,
        log: &RunLog,
        mut state: watch::Receiver<T>,
        may_run: impl Fn(&T) -> bool + Send + Sync + 'static,
    ) -> Self {
        let (stop, mut stop_rx) = watch::channel(false);
        let who = who.to_string();
        let log = log.clone();
        let task = tokio::spawn(async move {
            loop {
                // Wait to be allowed to run (or to be stopped).
                tokio::select! {
                    r = state.wait_for(|s| may_run(s)) => if r.is_err() { return; },
                    _ = stop_rx.wait_for(|s| *s) => return,
                }
                let index = {
                    let mut runs = log.0.lock().unwrap();
                    runs.push(Run {
                        who: who.clone(),
                        start: Instant::now(),
                        end: None,
                    });
                    runs.len() - 1
                };
                tokio::select! {
                    _ = state.wait_for(|s| !may_run(s)) => {},
                    _ = stop_rx.wait_for(|s| *s) => {},
                }
                log.0.lock().unwrap()[index].end = Some(Instant::now());
                if *stop_rx.borrow() {
                    return;
                }
            }
        });
        StandInController { stop, task }
    }

    /// Stops the work and waits until it has stopped (the binary does this before releasing).
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

/// Every version of one Lease, as seen through a watch.
pub struct LeaseHistory {
    records: Arc<Mutex<Vec<LeaderRecord>>>,
    task: JoinHandle<()>,
}

impl LeaseHistory {
    pub fn watch(client: kube::Client, namespace: &str, name: &str) -> Self {
        let api: Api<Lease> = Api::namespaced(client, namespace);
        let records = Arc::new(Mutex::new(Vec::new()));
        let sink = records.clone();
        let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
        let task = tokio::spawn(async move {
            let mut stream = watcher::watcher(api, config).boxed();
            while let Some(event) = stream.next().await {
                let leases = match event {
                    Ok(watcher::Event::Apply(lease)) | Ok(watcher::Event::InitApply(lease)) => {
                        vec![lease]
                    }
                    _ => continue,
                };
                for lease in leases {
                    let record = LeaderRecord::from_lease(&lease);
                    let mut all = sink.lock().unwrap();
                    if all.last() != Some(&record) {
                        all.push(record);
                    }
                }
            }
        });
        LeaseHistory { records, task }
    }

    pub fn records(&self) -> Vec<LeaderRecord> {
        self.records.lock().unwrap().clone()
    }

    /// Waits until some version satisfies `pred`.
    pub async fn wait_for(&self, what: &str, pred: impl Fn(&LeaderRecord) -> bool) -> LeaderRecord {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(r) = self.records().into_iter().find(|r| pred(r)) {
                return r;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: never seen in {:#?}",
                self.records()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// client-go's invariants over consecutive versions: a change of holder increments
    /// `leaseTransitions` and, unless the lease was released, happens only after the old holder's
    /// last renewal plus the lease duration; the same holder keeps `acquireTime` and transitions.
    pub fn assert_safe_handovers(&self) {
        let records = self.records();
        for pair in records.windows(2) {
            let (old, new) = (&pair[0], &pair[1]);
            match (&old.holder, &new.holder) {
                (Some(a), Some(b)) if a == b => {
                    assert_eq!(
                        old.acquire_time, new.acquire_time,
                        "renewal changed acquireTime: {pair:#?}"
                    );
                    assert_eq!(
                        old.transitions, new.transitions,
                        "renewal changed transitions: {pair:#?}"
                    );
                }
                (Some(_), Some(_)) => {
                    assert_eq!(new.transitions, old.transitions + 1, "{pair:#?}");
                    let expiry = old.renew_time.expect("renewTime")
                        + Duration::from_secs(u64::try_from(old.lease_duration_seconds).unwrap());
                    // MicroTime has microsecond precision; allow one microsecond of rounding.
                    let acquired =
                        new.acquire_time.expect("acquireTime") + Duration::from_micros(1);
                    assert!(
                        acquired >= expiry,
                        "taken before the lease expired: {pair:#?}"
                    );
                }
                (None, Some(_)) => assert_eq!(new.transitions, old.transitions + 1, "{pair:#?}"),
                (Some(_), None) => {
                    assert_eq!(new.lease_duration_seconds, 1, "release: {pair:#?}");
                    assert_eq!(new.transitions, old.transitions, "release: {pair:#?}");
                }
                (None, None) => {}
            }
        }
    }
}

impl Drop for LeaseHistory {
    fn drop(&mut self) {
        self.task.abort();
    }
}
