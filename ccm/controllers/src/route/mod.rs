//! node-route-controller: one cloud route per node pod CIDR (kubenet clusters), through the
//! provider's `Routes`, and the Node condition `NetworkUnavailable` telling the kubelet whether
//! pod traffic can reach the node.
//!
//! Pure decisions ([`plan`], [`condition`], [`config`]), thin effect ([`controller`]).
//!
//! Verified behaviour (source: `k8s.io/cloud-provider` `controllers/route/route_controller.go`,
//! read through kubernetes/kubernetes `staging/src/k8s.io/cloud-provider`; migration.md 6.4;
//! anchor-ccm.md 5):
//! - every `--route-reconciliation-period` (10 s): list routes, list the Nodes from the informer's
//!   lister (`reconcileNodeRoutes`: `rc.nodeLister.List`; ours: the process's Node cache,
//!   [`crate::node_cache::NodeFeed`]); a route per entry of
//!   `spec.podCIDRs` that has none (name hint = node UID, target node addresses attached);
//! - routes whose CIDR lies (first or last address) inside a `--cluster-cidr` are deleted when
//!   they are blackholes, target no node, or target a node without that pod CIDR; routes outside
//!   are never touched;
//! - at most 200 provider operations in flight;
//! - a failed creation: `Warning FailedToCreateRoute "Could not create route <hint> <cidr> for
//!   node <node> after <elapsed>: <err>"`, source `route_controller`, not retried before the next
//!   pass;
//! - `NetworkUnavailable` `False`/`RouteCreated`/"RouteController created a route" when every pod
//!   CIDR of the node has a route, else `True`/`NoRouteCreated`/"RouteController failed to create
//!   a route" (also for a node that has routes but no podCIDRs); not written when already at that
//!   status; nodes without pod CIDRs and routes are left alone.
//!
//! Inferred **[infer]**:
//! - deletions finish before creations start (upstream runs both at once sharing the 200
//!   slots, and waits in between only when routes carry node addresses);
//! - the elapsed time in the event message uses Rust's `Debug` rendering (`1.2ms`), close to but
//!   not always equal to Go's `Duration.String`;
//! - the Event's involved object carries the Node's UID (upstream puts the node name there);
//! - the condition is set with a strategic merge patch of `status.conditions`, heartbeat and
//!   transition time both "now" (upstream's `SetNodeCondition`);
//! - a podCIDR that does not parse is skipped with a warning (upstream compares strings);
//! - the watch-based reconciliation of KEP-5237 is not implemented (timer only).

pub mod condition;
pub mod config;
pub mod controller;
pub mod metrics;
pub mod plan;

pub use config::{RouteConfigError, RouteControllerConfig};
pub use controller::{RouteController, RouteControllerError};
pub use metrics::RouteMetrics;
