//! Node sync: when the stable node set changes (a node added, removed, excluded, given a
//! providerID, tainted for deletion) and every `node_sync_period`, give each LoadBalancer
//! Service's load balancer the new set with `UpdateLoadBalancer`; failures requeue the Service.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use ccm_cloud::{LoadBalancer, NodeView, Provider};
use ccm_names::events as reason;
use futures::{FutureExt, Stream, StreamExt};
use k8s_openapi::api::core::v1::Service;
use kube::runtime::reflector::Store;

use super::controller::{Context, key_of};
use super::error::SyncError;
use super::predicates::{
    has_finalizer, node_names, stable_node_names, stable_nodes, wants_load_balancer,
};
use crate::node::event::EventType;

/// Node names shown in `UpdateLoadBalancerFailed` (upstream `maxNodeNamesToLog`).
const MAX_NODE_NAMES_TO_LOG: usize = 20;

/// Upstream's `loggableNodeNames` as Go's `%v` prints it: `[a b c]`, at most 20 sorted names
/// then `<N more>`.
fn loggable_node_names(names: &BTreeSet<String>) -> String {
    let mut shown: Vec<String> = names.iter().take(MAX_NODE_NAMES_TO_LOG).cloned().collect();
    if names.len() > MAX_NODE_NAMES_TO_LOG {
        shown.push(format!("<{} more>", names.len() - MAX_NODE_NAMES_TO_LOG));
    }
    format!("[{}]", shown.join(" "))
}

impl<P: Provider> Context<P> {
    /// Runs a node sync on each burst of node changes (the feed signals nothing during a list,
    /// only once it is complete) and every period.
    pub(super) async fn node_sync_loop(
        &self,
        events: impl Stream<Item = ()>,
        services: Store<Service>,
    ) {
        let mut events = std::pin::pin!(events);
        let mut ticker = tokio::time::interval(self.config.node_sync_period);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_names: Option<BTreeSet<String>> = None;
        loop {
            let ticked = tokio::select! {
                _ = ticker.tick() => true,
                event = events.next() => {
                    if event.is_none() {
                        return;
                    }
                    // A burst of node events (a thousand nodes initialised) makes one sync.
                    while let Some(next) = events.next().now_or_never() {
                        if next.is_none() {
                            return;
                        }
                    }
                    false
                }
            };
            if services.wait_until_ready().await.is_err() {
                continue;
            }
            let names = stable_node_names(self.nodes.state().iter().map(|n| &**n));
            if !ticked && last_names.as_ref() == Some(&names) {
                // Nodes changed but not the stable set: nothing for the provider (the periodic
                // sync still compares every Service's hosts).
                continue;
            }
            last_names = Some(names);
            self.sync_nodes(&services).await;
        }
    }

    /// Updates every load balancer whose Service was last synced with another node set.
    async fn sync_nodes(&self, services: &Store<Service>) {
        let started = Instant::now();
        self.forget_deleted(services);
        let cached = self.nodes.state();
        let nodes = stable_nodes(cached.iter().map(|n| &**n));
        let names = self.state().hosts.share(node_names(&nodes));
        let stale: Vec<_> = services
            .state()
            .into_iter()
            .filter(|s| wants_load_balancer(s) && has_finalizer(s))
            .filter(|s| s.metadata.deletion_timestamp.is_none())
            .filter(|s| {
                self.state()
                    .hosts
                    .get(&key_of(s))
                    .is_some_and(|hosts| *hosts != *names)
            })
            .collect();
        let workers = usize::from(self.config.concurrent_service_syncs.max(1));
        let nodes = &nodes;
        let names = &names;
        futures::stream::iter(stale)
            .for_each_concurrent(workers, |service| async move {
                let key = key_of(&service);
                match self.update_hosts(&service, nodes, names).await {
                    Ok(()) => {
                        self.state().hosts.insert(key, Arc::clone(names));
                    }
                    Err(error) => {
                        tracing::warn!(service = %key, %error, "failed to update load balancer hosts");
                        self.metrics.nodesync_error.inc();
                        let mut state = self.state();
                        state.synced.remove(&key);
                        state.backoff.release(&key);
                        drop(state);
                        let _ = self.retrigger.unbounded_send(());
                    }
                }
            })
            .await;
        self.metrics
            .nodesync_latency
            .observe(started.elapsed().as_secs_f64());
    }

    /// Drops what is remembered about Services that no longer exist (the workers never see a
    /// Service after it is gone).
    fn forget_deleted(&self, services: &Store<Service>) {
        let live: BTreeSet<String> = services.state().iter().map(|s| key_of(s)).collect();
        let mut state = self.state();
        state.synced.retain(|key, _| live.contains(key));
        state.hosts.retain(|key| live.contains(key));
        state.backoff.retain(|key| live.contains(key));
    }

    async fn update_hosts(
        &self,
        service: &Service,
        nodes: &[&dyn NodeView],
        names: &BTreeSet<String>,
    ) -> Result<(), SyncError<P::Error>> {
        let cluster = self.config.cluster_name.as_str();
        let balancer = self.balancer()?;
        self.metrics.loadbalancer_sync.inc();
        let started = Instant::now();
        let result = self
            .locked(
                balancer.update_load_balancer(cluster, service, nodes),
                SyncError::Update,
            )
            .await;
        self.metrics
            .update_host_latency
            .observe(started.elapsed().as_secs_f64());
        let error = match result {
            Ok(()) => {
                let (type_, reason, message) = if nodes.is_empty() {
                    (
                        EventType::Warning,
                        reason::UNAVAILABLE_LOAD_BALANCER,
                        reason::UNAVAILABLE_LOAD_BALANCER_MESSAGE,
                    )
                } else {
                    (
                        EventType::Normal,
                        reason::UPDATED_LOAD_BALANCER,
                        reason::UPDATED_LOAD_BALANCER_MESSAGE,
                    )
                };
                self.events.record(service, type_, reason, message).await;
                return Ok(());
            }
            Err(error) => error,
        };
        // Only an error while the load balancer still exists (upstream rule).
        if let Ok((_, false)) = balancer.get_load_balancer(cluster, service).await {
            return Ok(());
        }
        // Upstream prints the provider's error itself, without our context prefix.
        let detail = match &error {
            SyncError::Update(cloud) => cloud.to_string(),
            other => other.to_string(),
        };
        let message = format!(
            "Error updating load balancer with new hosts {} [node names limited, total number \
             of nodes: {}], error: {detail}",
            loggable_node_names(names),
            names.len()
        );
        self.events
            .record(
                service,
                EventType::Warning,
                reason::UPDATE_LOAD_BALANCER_FAILED,
                &message,
            )
            .await;
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_are_limited_like_upstream() {
        let few: BTreeSet<String> = ["b", "a"].iter().map(|s| s.to_string()).collect();
        assert_eq!(loggable_node_names(&few), "[a b]");
        let many: BTreeSet<String> = (0..25).map(|i| format!("n{i:02}")).collect();
        let shown = loggable_node_names(&many);
        assert!(shown.starts_with("[n00 n01 "), "{shown}");
        assert!(shown.ends_with(" n19 <5 more>]"), "{shown}");
    }
}
