//! cloud-node controller: initialises Nodes carrying `node.cloudprovider.kubernetes.io/uninitialized`
//! from the provider's `InstancesV2` metadata, keeps GA labels equal to their beta twins and
//! refreshes addresses every `--node-status-update-frequency`.
//!
//! Pure decision ([`update`], [`labels`], [`addresses`], [`patch`]), thin effect ([`controller`]).
//!
//! Verified behaviour (source: `k8s.io/cloud-provider` `controllers/node/node_controller.go` and
//! `node/helpers/address.go`, summarised in migration.md 6.1 and anchor-ccm.md 3.3-3.5):
//! - only tainted nodes are initialised; `spec.providerID` is set only when empty;
//! - GA and beta labels for instance type, zone and region; the provider's additional labels unless
//!   in a `kubernetes.io`/`k8s.io` namespace or already present;
//! - the uninitialized taint is removed in the same write as the labels (retry on conflict), then
//!   `status.addresses` is patched; Event `Normal Synced "Node synced successfully"`, source
//!   `cloud-node-controller`;
//! - addresses: the kubelet's Hostname is kept when the cloud returns none; with
//!   `alpha.kubernetes.io/provided-node-ip` each listed IP must be among the cloud's addresses and
//!   becomes the only address of its type; an empty cloud list changes nothing;
//! - periodic address refresh only for untainted nodes, written only when the set changed.
//!
//! Deliberate divergence: upstream reads the Node (GET) and writes it whole (Update); ours writes
//! the same changes as one merge patch computed from the watch cache's Node and guarded by its
//! resourceVersion (a GET only after a 409), so an initialisation is three calls instead of four
//! and holds no fresh Node while it waits on the rate limit ([`patch`]). Upstream syncs Nodes with
//! `--concurrent-node-syncs` workers (default 1, k8s.io/cloud-provider since 1.27); ours defaults
//! to [`DEFAULT_CONCURRENT_NODE_SYNCS`].
//!
//! Inferred **[infer]**:
//! - a node that cannot be initialised gets a Warning Event `NodeInitializationFailed` naming the
//!   cause (upstream only logs and requeues); a retry failing with the same message records none;
//! - Events are core/v1 in namespace `default`, named `<node>.<hex unix nanoseconds>` like
//!   client-go's recorder (recalled, not re-read); identical events are not aggregated into a
//!   `count` as client-go's correlator does;
//! - the annotation parser rejects `0.0.0.0`/`::` and more than two IPs (as recalled of
//!   `ParseNodeIPAnnotation`);
//! - addresses are fetched on the refresh timer only; watch events between two refreshes only
//!   reconcile labels (upstream's `UpdateNodeStatus` runs from a timer too);
//! - upstream's newest `address.go` revision orders addresses (provided IP first) instead of
//!   dropping the other addresses of the same type; we follow the filtering revision described in
//!   the annotation's docs (the kubelet's IP must be the node's address of that type).

pub mod addresses;
pub mod conflict;
pub mod controller;
pub mod event;
pub mod labels;
pub mod metrics;
pub mod patch;
pub mod sync_queue;
pub mod update;

pub use controller::{
    CloudNodeConfig, CloudNodeController, CloudNodeError, DEFAULT_CONCURRENT_NODE_SYNCS,
};
pub use labels::BetaLabels;
pub use metrics::NodeMetrics;

#[cfg(test)]
mod update_snapshots;
