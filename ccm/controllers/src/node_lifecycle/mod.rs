//! cloud-node-lifecycle controller: every `--node-monitor-period`, deletes NotReady Nodes whose
//! instance is gone and taints those whose instance is shut down. It reads the Nodes from the
//! process's Node cache ([`crate::node_cache::NodeFeed`]), like upstream's `MonitorNodes` reads
//! the informer's lister, instead of listing them each period.
//!
//! Pure decision ([`decision`]), thin effect ([`controller`]).
//!
//! Verified behaviour (source: `k8s.io/cloud-provider`
//! `controllers/nodelifecycle/node_lifecycle_controller.go`, migration.md 6.2; Azure's
//! `updateNodeTaint` in `pkg/provider/azure.go`, anchor-ccm.md 3.5-3.6):
//! - Ready=True: the shutdown taint is removed; never deleted, no cloud call;
//! - not Ready (False, Unknown, missing): `InstanceExists` error ⇒ nothing; false ⇒ Event
//!   `Normal DeletingNode "Deleting node <n> because it does not exist in the cloud provider"`, then
//!   DELETE (failure: `Warning DeletingNodeFailed`); true ⇒ `InstanceShutdown` true ⇒ taint
//!   `node.cloudprovider.kubernetes.io/shutdown:NoSchedule`; Events from
//!   `cloud-node-lifecycle-controller`;
//! - Azure: NotReady with the shutdown taint ⇒ `node.kubernetes.io/out-of-service:NoExecute`;
//!   Ready ⇒ removed.
//!
//! Ours, stricter than upstream: the DELETE carries `preconditions` (the cached resourceVersion
//! and uid), so a Node that became Ready (or was recreated) after the cloud was asked is kept.
//!
//! Inferred **[infer]**: the shutdown and out-of-service taints carry no value (as recalled of
//! upstream's `ShutdownTaint` and Azure's taint); Azure applies the out-of-service rule from its node informer, on every
//! Node event; we apply it in the same periodic pass (at most one `--node-monitor-period` later,
//! and in the same Update as the shutdown taint when both are added at once).

pub mod controller;
pub mod decision;

pub use controller::{NodeLifecycleController, NodeLifecycleError};

#[cfg(test)]
mod decision_table;
