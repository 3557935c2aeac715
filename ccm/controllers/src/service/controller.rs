//! The service controller's effects: watch Services and Nodes, ensure or delete each Service's
//! load balancer through the provider, keep the finalizer and `status.loadBalancer`, and record
//! Events; node changes are handled by [`super::node_sync`].

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use ccm_cloud::{CloudError, LoadBalancer, Provider};
use ccm_names::controllers::CLOUD_CONTROLLERS;
use ccm_names::events as reason;
use ccm_names::finalizers::LOAD_BALANCER_CLEANUP;
use futures::StreamExt;
use futures::channel::mpsc;
use k8s_openapi::api::core::v1::{LoadBalancerStatus, Service};
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::reflector::Store;
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kube::{Client, ResourceExt};
use serde_json::{Value, json};

use super::backoff::Backoff;
use super::config::ServiceControllerConfig;
use super::error::{ServiceControllerError, SyncError};
use super::event::ServiceEventRecorder;
use super::host_sets::HostSets;
use super::locker::ResourceLocker;
use super::metrics::ServiceMetrics;
use super::predicates::{
    Fingerprint, current_status, fingerprint, has_finalizer, needs_cleanup, node_names,
    stable_nodes, status_equal, wants_load_balancer,
};
use crate::node::event::EventType;
use crate::node_cache::{NodeFeed, SlimNode};

/// `source.component` of the service controller's Events (`service-controller`).
pub fn event_source() -> &'static str {
    CLOUD_CONTROLLERS
        .iter()
        .find(|c| c.canonical == ccm_names::controllers::SERVICE_LB)
        .map_or("service-controller", |c| c.event_source)
}

/// What the controller remembers between syncs.
#[derive(Debug)]
pub(super) struct State {
    /// Retry pacing per Service key.
    pub backoff: Backoff,
    /// Fingerprint of each Service's last successful ensure: an equal one needs no new call.
    pub synced: HashMap<String, Fingerprint>,
    /// Node names each Service's load balancer was last given (by ensure or update).
    pub hosts: HostSets,
}

/// Shared by the Service workers and the node sync.
pub(super) struct Context<P: Provider> {
    pub provider: Arc<P>,
    pub services: Api<Service>,
    pub nodes: Store<SlimNode>,
    /// The feed of `nodes`, to wait for its first list.
    pub node_feed: NodeFeed,
    pub config: ServiceControllerConfig,
    pub metrics: ServiceMetrics,
    pub events: ServiceEventRecorder,
    pub locker: Option<ResourceLocker>,
    /// Serialises provider calls while the locker is on (the Azure provider's process-wide mutex).
    pub serial: tokio::sync::Mutex<()>,
    pub state: Mutex<State>,
    /// Asks the Service controller to reconcile every Service (after a failed node sync).
    pub retrigger: mpsc::UnboundedSender<()>,
}

/// `namespace/name`, the key upstream's queues use.
pub(super) fn key_of(service: &Service) -> String {
    format!(
        "{}/{}",
        service.namespace().unwrap_or_default(),
        service.name_any()
    )
}

impl<P: Provider> Context<P> {
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The provider's load balancers (checked in `ServiceController::new`).
    pub fn balancer(&self) -> Result<&P::LoadBalancer, SyncError<P::Error>> {
        self.provider.load_balancer().ok_or(SyncError::Unsupported)
    }

    /// Runs one provider load-balancer call inside the resource-locker Lease (when configured).
    pub async fn locked<T, F>(
        &self,
        call: F,
        wrap: impl FnOnce(CloudError<P::Error>) -> SyncError<P::Error>,
    ) -> Result<T, SyncError<P::Error>>
    where
        F: Future<Output = Result<T, CloudError<P::Error>>>,
    {
        let Some(locker) = &self.locker else {
            return call.await.map_err(wrap);
        };
        let _serial = self.serial.lock().await;
        locker.lock().await.map_err(SyncError::Locker)?;
        let result = call.await;
        if let Err(error) = locker.unlock().await {
            tracing::warn!(%error, "could not release the resource locker lease");
        }
        result.map_err(wrap)
    }

    async fn record(&self, service: &Service, type_: EventType, reason: &str, message: &str) {
        self.events.record(service, type_, reason, message).await;
    }

    /// One Service: skip, wait out a backoff, or sync; failures become an Event and a requeue.
    async fn reconcile(&self, service: &Service) -> Action {
        let key = key_of(service);
        let print = fingerprint(service);
        let cleanup = needs_cleanup(service);
        if !wants_load_balancer(service) && !cleanup {
            let mut state = self.state();
            state.synced.remove(&key);
            state.hosts.remove(&key);
            state.backoff.reset(&key);
            return Action::await_change();
        }
        {
            let state = self.state();
            if let Some(wait) = state.backoff.wait(&key, &print) {
                return Action::requeue(wait);
            }
            // The store may still hold the object as it was before our own finalizer or
            // status write: what was synced is judged by the fingerprint alone.
            if state.synced.get(&key) == Some(&print) {
                return Action::await_change();
            }
        }
        match self.sync(service, cleanup).await {
            Ok(()) => {
                let mut state = self.state();
                state.backoff.reset(&key);
                if cleanup {
                    state.hosts.remove(&key);
                }
                state.synced.insert(key, print);
                Action::await_change()
            }
            Err(error) => {
                tracing::warn!(service = %key, %error, "error processing service (will retry)");
                let message = format!("Error syncing load balancer: {error}");
                self.record(
                    service,
                    EventType::Warning,
                    reason::SYNC_LOAD_BALANCER_FAILED,
                    &message,
                )
                .await;
                let retryable = error.is_retryable();
                let mut state = self.state();
                state.synced.remove(&key);
                let delay = state
                    .backoff
                    .fail(&key, print, retryable, error.retry_after());
                Action::requeue(delay)
            }
        }
    }

    async fn sync(&self, service: &Service, cleanup: bool) -> Result<(), SyncError<P::Error>> {
        let cluster = self.config.cluster_name.as_str();
        let balancer = self.balancer()?;
        if cleanup {
            let (_, exists) = balancer
                .get_load_balancer(cluster, service)
                .await
                .map_err(SyncError::Check)?;
            if exists {
                self.record(
                    service,
                    EventType::Normal,
                    reason::DELETING_LOAD_BALANCER,
                    reason::DELETING_LOAD_BALANCER_MESSAGE,
                )
                .await;
                self.locked(
                    balancer.ensure_load_balancer_deleted(cluster, service),
                    SyncError::Delete,
                )
                .await?;
            }
            self.set_finalizer(service, false)
                .await
                .map_err(SyncError::RemoveFinalizer)?;
            self.record(
                service,
                EventType::Normal,
                reason::DELETED_LOAD_BALANCER,
                reason::DELETED_LOAD_BALANCER_MESSAGE,
            )
            .await;
            return self.patch_status(service, None).await;
        }
        self.record(
            service,
            EventType::Normal,
            reason::ENSURING_LOAD_BALANCER,
            reason::ENSURING_LOAD_BALANCER_MESSAGE,
        )
        .await;
        self.set_finalizer(service, true)
            .await
            .map_err(SyncError::AddFinalizer)?;
        let _ = self.node_feed.ready().await;
        let cached = self.nodes.state();
        let nodes = stable_nodes(cached.iter().map(|n| &**n));
        if nodes.is_empty() {
            self.record(
                service,
                EventType::Warning,
                reason::UNAVAILABLE_LOAD_BALANCER,
                reason::UNAVAILABLE_LOAD_BALANCER_MESSAGE,
            )
            .await;
        }
        let status = self
            .locked(
                balancer.ensure_load_balancer(cluster, service, &nodes),
                SyncError::Ensure,
            )
            .await?;
        let names = node_names(&nodes);
        {
            let mut state = self.state();
            let names = state.hosts.share(names);
            state.hosts.insert(key_of(service), names);
        }
        self.record(
            service,
            EventType::Normal,
            reason::ENSURED_LOAD_BALANCER,
            reason::ENSURED_LOAD_BALANCER_MESSAGE,
        )
        .await;
        self.patch_status(service, Some(&status)).await
    }

    /// Adds or removes the cleanup finalizer through `/status`, as upstream's `PatchService`
    /// does, guarded by the read resourceVersion (a concurrent change makes it retry).
    async fn set_finalizer(&self, service: &Service, present: bool) -> Result<(), kube::Error> {
        if has_finalizer(service) == present {
            return Ok(());
        }
        let mut finalizers: Vec<String> = service.finalizers().to_vec();
        if present {
            finalizers.push(LOAD_BALANCER_CLEANUP.to_owned());
        } else {
            finalizers.retain(|f| f != LOAD_BALANCER_CLEANUP);
        }
        let patch = json!({"metadata": {
            "finalizers": finalizers,
            "resourceVersion": service.resource_version(),
        }});
        let api = self.namespaced(service);
        match api
            .patch_status(
                &service.name_any(),
                &PatchParams::default(),
                &Patch::Merge(patch),
            )
            .await
        {
            Err(kube::Error::Api(status)) if status.is_not_found() && !present => Ok(()),
            other => other.map(|_| ()),
        }
    }

    /// Writes `status.loadBalancer` only when it changed; a Service already gone is fine.
    async fn patch_status(
        &self,
        service: &Service,
        status: Option<&LoadBalancerStatus>,
    ) -> Result<(), SyncError<P::Error>> {
        if status_equal(current_status(service), status) {
            return Ok(());
        }
        let ingress = match status.and_then(|s| s.ingress.as_ref()) {
            Some(list) if !list.is_empty() => json!(list),
            _ => Value::Null,
        };
        let patch = json!({"status": {"loadBalancer": {"ingress": ingress}}});
        let api = self.namespaced(service);
        match api
            .patch_status(
                &service.name_any(),
                &PatchParams::default(),
                &Patch::Merge(patch),
            )
            .await
        {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.is_not_found() => Ok(()),
            Err(error) => Err(SyncError::Status(error)),
        }
    }

    fn namespaced(&self, service: &Service) -> Api<Service> {
        let namespace = service.namespace().unwrap_or_default();
        Api::namespaced(self.services.clone().into_client(), &namespace)
    }
}

/// Keeps cloud load balancers in step with `type: LoadBalancer` Services (`service-lb-controller`).
pub struct ServiceController<P: Provider> {
    client: Client,
    /// The Nodes load balancers are given: the process's shared feed, or one of its own.
    nodes: NodeFeed,
    provider: Arc<P>,
    config: ServiceControllerConfig,
    metrics: ServiceMetrics,
    store_sink: Option<StoreSink>,
}

/// Receives the controller's Service cache once it runs.
type StoreSink = Box<dyn FnOnce(Store<Service>) + Send>;

impl<P: Provider> ServiceController<P> {
    /// A controller over `client`; fails when the provider offers no load balancers.
    pub fn new(
        client: Client,
        provider: Arc<P>,
        config: ServiceControllerConfig,
        metrics: ServiceMetrics,
    ) -> Result<Self, ServiceControllerError> {
        if provider.load_balancer().is_none() {
            return Err(ServiceControllerError::LoadBalancerNotSupported);
        }
        Ok(Self {
            nodes: NodeFeed::new(client.clone(), NodeFeed::watch_config(None)),
            client,
            provider,
            config,
            metrics,
            store_sink: None,
        })
    }

    /// Hands the controller's Service cache to `sink` when it starts: a provider that needs
    /// the cluster's Services reads it instead of opening a second watch.
    pub fn on_service_store(mut self, sink: impl FnOnce(Store<Service>) + Send + 'static) -> Self {
        self.store_sink = Some(Box::new(sink));
        self
    }

    /// Reads the Nodes from `feed` (the process's shared Node cache) instead of a watch of its own.
    pub fn with_node_feed(mut self, feed: NodeFeed) -> Self {
        self.nodes = feed;
        self
    }

    /// Runs the Service workers and the node sync until the watches end (the caller drops or
    /// aborts the future on shutdown).
    pub async fn run(self) {
        let node_store = self.nodes.store();
        let node_events = self.nodes.changes();
        let (retrigger, retriggered) = mpsc::unbounded();
        let locker = self
            .config
            .resource_locker
            .clone()
            .map(|c| ResourceLocker::new(self.client.clone(), c));
        let workers = self.config.concurrent_service_syncs.max(1);
        let context = Arc::new(Context {
            provider: self.provider,
            services: Api::all(self.client.clone()),
            nodes: node_store,
            node_feed: self.nodes,
            events: ServiceEventRecorder::new(self.client.clone(), event_source()),
            locker,
            serial: tokio::sync::Mutex::new(()),
            state: Mutex::new(State {
                backoff: Backoff::new(self.config.min_retry_delay, self.config.max_retry_delay),
                synced: HashMap::new(),
                hosts: HostSets::default(),
            }),
            config: self.config,
            metrics: self.metrics,
            retrigger,
        });
        // Cached without managedFields: a thousand Services' field-ownership records are a few
        // MiB that nothing reads (writes are patches, never replacements of a cached Service).
        let (service_store, writer) = reflector::store();
        let watch = watcher(context.services.clone(), watcher::Config::default())
            .default_backoff()
            .modify(|service: &mut Service| service.metadata.managed_fields = None);
        let controller = Controller::for_stream(
            reflector(writer, watch).applied_objects(),
            service_store.clone(),
        )
        .with_config(controller::Config::default().concurrency(workers))
        .reconcile_all_on(retriggered);
        if let Some(sink) = self.store_sink {
            sink(service_store.clone());
        }
        let services = controller
            .run(
                |service, ctx: Arc<Context<P>>| async move {
                    Ok::<_, std::convert::Infallible>(ctx.reconcile(&service).await)
                },
                |_service, _error, _ctx| Action::requeue(Duration::from_secs(1)),
                context.clone(),
            )
            .for_each(|_| async {});
        let nodes = context.node_sync_loop(node_events, service_store);
        tokio::join!(services, nodes);
    }
}
