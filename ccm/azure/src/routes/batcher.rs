//! The route batcher: create and delete calls enqueue an operation and wait; every
//! `routeUpdateIntervalInSeconds` one batch reads the table (cached), applies every pending
//! operation, PUTs once with `If-Match` (one re-read and retry after a 412), waits
//! `routeUpdateWaitingInSeconds` after a write and then releases every waiter with the batch's
//! outcome. The task is started by the first operation and aborted when the batcher is dropped.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::arm::ArmError;
use crate::cache::ReadMode;

use super::apply::{RouteOp, apply, new_table};
use super::error::RouteError;
use super::nodes::NodeRegistry;
use super::table::TableAccess;

/// How often batches run and how long a write settles before waiters are released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchTiming {
    /// `routeUpdateIntervalInSeconds`.
    pub interval: Duration,
    /// `routeUpdateWaitingInSeconds`.
    pub waiting: Duration,
}

struct Pending {
    op: RouteOp,
    done: oneshot::Sender<Result<(), RouteError>>,
}

struct Worker {
    rx: mpsc::UnboundedReceiver<Pending>,
    table: Arc<TableAccess>,
    nodes: Arc<NodeRegistry>,
    timing: BatchTiming,
}

/// The queue in front of the batch task.
pub struct Batcher {
    tx: mpsc::UnboundedSender<Pending>,
    worker: Mutex<Option<Worker>>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Batcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batcher").finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Batcher {
    /// A batcher over `table`; nothing runs until the first operation.
    pub fn new(table: Arc<TableAccess>, nodes: Arc<NodeRegistry>, timing: BatchTiming) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        Batcher {
            tx,
            worker: Mutex::new(Some(Worker {
                rx,
                table,
                nodes,
                timing,
            })),
            task: Mutex::new(None),
        }
    }

    fn start(&self) {
        if let Some(worker) = lock(&self.worker).take() {
            *lock(&self.task) = Some(tokio::spawn(worker.run()));
        }
    }

    /// Enqueues `op` and waits for the batch that carries it.
    pub async fn submit(&self, op: RouteOp) -> Result<(), RouteError> {
        self.start();
        let (done, result) = oneshot::channel();
        self.tx
            .send(Pending { op, done })
            .map_err(|_| RouteError::Stopped)?;
        result.await.unwrap_or(Err(RouteError::Stopped))
    }
}

impl Drop for Batcher {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.task).take() {
            task.abort();
        }
    }
}

impl Worker {
    async fn run(mut self) {
        let first = tokio::time::Instant::now() + self.timing.interval;
        let mut ticker =
            tokio::time::interval_at(first, self.timing.interval.max(Duration::from_millis(1)));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            let mut batch = Vec::new();
            let closed = loop {
                match self.rx.try_recv() {
                    Ok(pending) => batch.push(pending),
                    Err(mpsc::error::TryRecvError::Empty) => break false,
                    Err(mpsc::error::TryRecvError::Disconnected) => break true,
                }
            };
            if !batch.is_empty() {
                self.run_batch(batch).await;
            }
            if closed {
                return;
            }
        }
    }

    async fn run_batch(&self, batch: Vec<Pending>) {
        let ops: Vec<RouteOp> = batch.iter().map(|p| p.op.clone()).collect();
        let mut known = self.nodes.names();
        known.extend(ops.iter().filter_map(RouteOp::node).map(str::to_string));
        let outcome = match update_table(&self.table, &ops, &known).await {
            Ok(true) => {
                tokio::time::sleep(self.timing.waiting).await;
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(e) => {
                tracing::warn!(table = %self.table.spec().name, error = %e, "route table update failed");
                Err(RouteError::Batch(Arc::new(e)))
            }
        };
        for pending in batch {
            // A waiter that gave up (its future was dropped) does not need the answer.
            let _ = pending.done.send(outcome.clone());
        }
    }
}

/// One batch against ARM: read (cached), apply, PUT with `If-Match`; after a 412 the table is
/// re-read and the batch applied and written once more. A missing table is created by the PUT.
/// True when a PUT was sent and succeeded.
pub async fn update_table(
    table: &TableAccess,
    ops: &[RouteOp],
    known_nodes: &BTreeSet<String>,
) -> Result<bool, ArmError> {
    let spec = table.spec();
    let mut mode = ReadMode::Default;
    loop {
        let current = table.read(mode).await?;
        let exists = current.is_some();
        let base =
            current.unwrap_or_else(|| new_table(&spec.name, &spec.location, spec.tags.as_ref()));
        let desired = match apply(&base, ops, known_nodes, spec.tags.as_ref()) {
            Some(desired) => desired,
            None if exists => return Ok(false),
            None => base.clone(),
        };
        match table.write(&desired, base.etag.as_deref()).await {
            Ok(()) => return Ok(true),
            Err(e) if e.is_precondition_failed() && mode == ReadMode::Default => {
                tracing::debug!(table = %spec.name, "stale route table ETag: re-reading once");
                mode = ReadMode::ForceRefresh;
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use azure_core::credentials::{AccessToken, TokenCredential, TokenRequestOptions};

    use super::*;
    use crate::arm::ArmClient;
    use crate::arm::api_versions::CloudFlavor;
    use crate::arm::options::ArmClientOptions;
    use crate::config::{Config, Inputs, Origin, SourceText, load};
    use crate::metrics::ArmMetrics;
    use crate::routes::table::TableSpec;

    #[derive(Debug)]
    struct NoToken;

    #[async_trait::async_trait]
    impl TokenCredential for NoToken {
        async fn get_token(
            &self,
            _: &[&str],
            _: Option<TokenRequestOptions<'_>>,
        ) -> azure_core::Result<AccessToken> {
            Ok(AccessToken::new(
                "t".to_string(),
                time::OffsetDateTime::now_utc() + time::Duration::hours(1),
            ))
        }
    }

    fn config() -> Config {
        let origin = Origin::File("/etc/kubernetes/azure.json".into());
        let text = r#"{"cloud": "AzurePublicCloud", "tenantId": "t", "subscriptionId": "s",
            "aadClientId": "c", "aadClientSecret": "x", "resourceGroup": "rg",
            "location": "eastus", "routeTableName": "rt"}"#;
        load(&Inputs {
            file: Some(SourceText {
                origin: &origin,
                text,
            }),
            secret: None,
            env: BTreeMap::new(),
        })
        .unwrap()
        .config
    }

    fn table(config: &Config) -> Arc<TableAccess> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let options = ArmClientOptions::new(
            url::Url::parse("https://127.0.0.1:9/").unwrap(),
            "https://management.azure.com/.default",
        )
        .unwrap();
        let mut registry = prometheus_client::registry::Registry::default();
        let arm = ArmClient::new(
            options,
            Arc::new(NoToken),
            reqwest::Client::new(),
            ArmMetrics::register(&mut registry),
        );
        Arc::new(TableAccess::new(
            arm,
            TableSpec::from_config(config),
            CloudFlavor::Public,
            config,
        ))
    }

    #[tokio::test]
    async fn dropping_the_batcher_stops_its_task() {
        let config = config();
        let table = table(&config);
        let timing = BatchTiming {
            interval: Duration::from_secs(3600),
            waiting: Duration::ZERO,
        };
        let batcher = Batcher::new(Arc::clone(&table), Arc::default(), timing);
        batcher.start();
        assert_eq!(
            Arc::strong_count(&table),
            2,
            "the running task holds the table"
        );
        drop(batcher);
        tokio::time::timeout(Duration::from_secs(30), async {
            while Arc::strong_count(&table) > 1 {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("the task is gone once the batcher is dropped");
    }

    #[test]
    fn the_table_lives_in_the_network_subscription_and_is_tagged_only_in_the_cluster_group() {
        let mut config = config();
        config.identity.network_resource_subscription_id = Some("net".into());
        config.cluster.tags = BTreeMap::from([("env".into(), "prod".into())]);
        let spec = TableSpec::from_config(&config);
        assert_eq!(
            spec.path,
            "/subscriptions/net/resourceGroups/rg/providers/Microsoft.Network/routeTables/rt"
        );
        assert!(spec.tags.is_some());
        config.cluster.route_table_resource_group = "other-rg".into();
        assert_eq!(TableSpec::from_config(&config).tags, None);
    }
}
