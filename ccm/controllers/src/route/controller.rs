//! The route controller's effects: every period list the cloud's routes and read the Nodes from
//! the process's Node cache (upstream reads its informer's lister), delete and create routes as [`super::plan`] says (at most 200 provider calls in flight), then set
//! each Node's `NetworkUnavailable` condition.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use ccm_cloud::{CloudError, NodeView, Provider, Routes};
use ccm_names::controllers::{CLOUD_CONTROLLERS, NODE_ROUTE};
use ccm_names::events::FAILED_TO_CREATE_ROUTE;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::{Client, ResourceExt};

use super::condition;
use super::config::{MAX_CONCURRENT_ROUTE_OPERATIONS, RouteControllerConfig};
use super::metrics::RouteMetrics;
use super::plan::{Creation, RouteNode, plan};
use crate::node::event::{EventType, NodeEventRecorder};
use crate::node_cache::{NodeFeed, NodeFeedError};

/// `source.component` of the route controller's Events (`route_controller`).
pub fn event_source() -> &'static str {
    CLOUD_CONTROLLERS
        .iter()
        .find(|c| c.canonical == NODE_ROUTE)
        .map_or("route_controller", |c| c.event_source)
}

/// Why the controller cannot start or a pass failed.
#[derive(Debug, thiserror::Error)]
pub enum RouteControllerError<E: std::error::Error + 'static> {
    /// The provider offers no `Routes` (or `--configure-cloud-routes` is off).
    #[error("the cloud provider does not support routes")]
    RoutesNotSupported,
    /// Listing the cloud's routes failed; nothing was changed.
    #[error("error listing routes: {0}")]
    ListRoutes(#[source] CloudError<E>),
    /// The Node cache cannot be read; nothing was changed.
    #[error("error listing nodes: {0}")]
    ListNodes(#[source] NodeFeedError),
}

/// Keeps one route per node pod CIDR (`node-route-controller`).
pub struct RouteController<P: Provider> {
    nodes: Api<Node>,
    /// The Nodes routes are kept for: the process's shared feed, or one of this controller's own.
    feed: NodeFeed,
    provider: Arc<P>,
    config: RouteControllerConfig,
    metrics: RouteMetrics,
    events: NodeEventRecorder,
}

impl<P: Provider> RouteController<P> {
    /// A controller over `client`; fails when the provider offers no routes.
    pub fn new(
        client: Client,
        provider: Arc<P>,
        config: RouteControllerConfig,
        metrics: RouteMetrics,
    ) -> Result<Self, RouteControllerError<P::Error>> {
        if provider.routes().is_none() {
            return Err(RouteControllerError::RoutesNotSupported);
        }
        Ok(Self {
            nodes: Api::all(client.clone()),
            feed: NodeFeed::new(client.clone(), NodeFeed::watch_config(None)),
            provider,
            config,
            metrics,
            events: NodeEventRecorder::new(client, event_source()),
        })
    }

    /// Reads the Nodes from `feed` (the process's shared Node cache) instead of a watch of its own.
    pub fn with_node_feed(mut self, feed: NodeFeed) -> Self {
        self.feed = feed;
        self
    }

    /// Runs a pass every `reconciliation_period` until the future is dropped; a failed pass is
    /// logged and the next one runs on schedule.
    pub async fn run(self) {
        let mut ticker = tokio::time::interval(self.config.reconciliation_period);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            if let Err(error) = self.pass().await {
                tracing::warn!(%error, "couldn't reconcile node routes");
            }
        }
    }

    fn routes(&self) -> Result<&P::Routes, RouteControllerError<P::Error>> {
        self.provider
            .routes()
            .ok_or(RouteControllerError::RoutesNotSupported)
    }

    /// One reconciliation of the cloud's routes with the Nodes.
    pub async fn pass(&self) -> Result<(), RouteControllerError<P::Error>> {
        let cluster = self.config.cluster_name.as_str();
        let routes = self.routes()?;
        let existing = routes
            .list_routes(cluster)
            .await
            .map_err(RouteControllerError::ListRoutes)?;
        let mut nodes = self
            .feed
            .ready()
            .await
            .map_err(RouteControllerError::ListNodes)?
            .state();
        nodes.sort_by(|a, b| a.name().cmp(b.name()));
        self.metrics.route_sync.inc();
        let route_nodes: Vec<RouteNode> = nodes.iter().map(|n| RouteNode::of_cached(n)).collect();
        let work = plan(&self.config.cluster_cidrs, &route_nodes, &existing);

        futures::stream::iter(&work.delete)
            .for_each_concurrent(MAX_CONCURRENT_ROUTE_OPERATIONS, |route| async move {
                let started = Instant::now();
                match routes.delete_route(cluster, route).await {
                    Ok(()) => tracing::info!(route = %route.name, cidr = %route.destination_cidr,
                        after = ?started.elapsed(), "deleted route"),
                    Err(error) => {
                        tracing::warn!(route = %route.name, cidr = %route.destination_cidr,
                        %error, "could not delete route")
                    }
                }
            })
            .await;

        let work = Mutex::new(work);
        let creations: Vec<Creation> = work
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .create
            .clone();
        let by_name = |name: &str| nodes.iter().find(|n| n.name() == name);
        futures::stream::iter(&creations)
            .for_each_concurrent(MAX_CONCURRENT_ROUTE_OPERATIONS, |creation| {
                let work = &work;
                async move {
                    let route = &creation.route;
                    let started = Instant::now();
                    match routes
                        .create_route(cluster, &creation.name_hint, route)
                        .await
                    {
                        Ok(()) => {
                            tracing::info!(node = %route.target_node, cidr = %route.destination_cidr,
                                hint = %creation.name_hint, "created route");
                            work.lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .created(&route.target_node, &route.destination_cidr);
                        }
                        Err(error) => {
                            let message = format!(
                                "Could not create route {} {} for node {} after {:?}: {error}",
                                creation.name_hint,
                                route.destination_cidr,
                                route.target_node,
                                started.elapsed()
                            );
                            tracing::warn!(%message);
                            if let Some(node) = by_name(&route.target_node) {
                                self.events
                                    .record(&**node, EventType::Warning, FAILED_TO_CREATE_ROUTE, &message)
                                    .await;
                            }
                        }
                    }
                }
            })
            .await;

        let work = work.into_inner().unwrap_or_else(PoisonError::into_inner);
        let now = Timestamp::now();
        futures::stream::iter(&nodes)
            .for_each_concurrent(MAX_CONCURRENT_ROUTE_OPERATIONS, |node| {
                let work = &work;
                async move {
                    let Some(unavailable) = work.network_unavailable(&node.name_any()) else {
                        return;
                    };
                    if condition::already(&**node, unavailable) {
                        return;
                    }
                    let patch = condition::patch(unavailable, now);
                    if let Err(error) = self
                        .nodes
                        .patch_status(&node.name_any(), &PatchParams::default(), &Patch::Strategic(patch))
                        .await
                    {
                        tracing::warn!(node = %node.name_any(), %error, "could not update NetworkUnavailable");
                    }
                }
            })
            .await;
        Ok(())
    }
}
