//! `--wait-routes`: before the node is initialised, mark it `NetworkUnavailable=True` (reason
//! `NodeInitialization`, message "Waiting for cloud routes") so no pod is scheduled before the
//! route controller has created its route and clears the condition (anchor-ccm.md 1.4, step a).
//!
//! **[infer]** upstream sets the condition inside its init sync; here it is done once, before the
//! cloud-node controller starts, on the first sight of the Node while it still carries the
//! uninitialized taint (the controller removes that taint, so running before it keeps the order).

use anyhow::Context;
use ccm_controllers::node::update::is_uninitialized;
use futures::TryStreamExt;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::json;

/// The condition type the route controller clears.
const NETWORK_UNAVAILABLE: &str = "NetworkUnavailable";

/// Waits for the Node `name` to exist, then sets the condition if it is still uninitialised and
/// has no `NetworkUnavailable` condition yet.
pub async fn mark_network_unavailable(nodes: &Api<Node>, name: &str) -> anyhow::Result<()> {
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let stream = watcher(nodes.clone(), config).applied_objects();
    futures::pin_mut!(stream);
    let node = stream
        .try_next()
        .await
        .with_context(|| format!("watching Node {name}"))?
        .with_context(|| format!("the watch of Node {name} ended"))?;
    let has_condition = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == NETWORK_UNAVAILABLE));
    if !is_uninitialized(&node) || has_condition {
        return Ok(());
    }
    let now = Timestamp::now().to_string();
    let patch = json!({"status": {"conditions": [{
        "type": NETWORK_UNAVAILABLE,
        "status": "True",
        "reason": "NodeInitialization",
        "message": "Waiting for cloud routes",
        "lastTransitionTime": now,
        "lastHeartbeatTime": now,
    }]}});
    nodes
        .patch_status(name, &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .with_context(|| format!("setting {NETWORK_UNAVAILABLE} on Node {name}"))?;
    tracing::info!(node = %name, "NetworkUnavailable=True set (--wait-routes)");
    Ok(())
}
