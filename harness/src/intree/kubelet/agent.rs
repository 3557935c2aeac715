//! One simulated kubelet: a tokio task that registers its Node, then renews its Lease and posts
//! its status on their own periods until told to stop. Everything it does goes to its [`Log`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use k8s_openapi::api::core::v1::{Node, NodeAddress};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client};
use tokio::sync::{Semaphore, watch};
use tokio::time::MissedTickBehavior;

use super::imds::ImdsClient;
use super::lease;
use super::log::{Activity, Log};
use super::profile::{FactId, KubeVersion, Profile};
use super::registration::{self, CloudFacts, Mode, PROVIDED_NODE_IP};
use super::status::{self, UNREACHABLE_TAINT};

/// Where a kubelet's `--node-ip` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeIp {
    /// No `--node-ip`.
    Unset,
    /// These addresses (one, or two for dual-stack).
    Fixed(Vec<String>),
    /// The VM's first private IPv4 (and IPv6) from IMDS, as a node bootstrap script would pass.
    FromImds,
}

/// The flags of one kubelet that matter to the cloud integration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeletSpec {
    /// Node name (= hostname = VM computer name).
    pub node: String,
    /// The VM's IMDS base URL (`https://…/imds/<node>` from the fake).
    pub imds_url: String,
    /// `--cloud-provider`.
    pub mode: Mode,
    /// Kubernetes version of the kubelet.
    pub version: KubeVersion,
    /// `--node-ip`.
    pub node_ip: NodeIp,
}

/// Periods of a kubelet's loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Lease renewal (kubelet: a quarter of the 40 s lease duration).
    pub lease_renew: Duration,
    /// Status post (`nodeStatusUpdateFrequency`, 10 s).
    pub status_update: Duration,
    /// Wait before retrying a failed registration.
    pub retry: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            lease_renew: Duration::from_secs(10),
            status_update: Duration::from_secs(10),
            retry: Duration::from_secs(1),
        }
    }
}

/// What every kubelet of a [`super::Kubelets`] shares.
#[derive(Clone)]
pub struct Shared {
    /// The kube client (one connection pool for all).
    pub client: Client,
    /// IMDS client trusting the fake's CA.
    pub imds: ImdsClient,
    /// Loop periods.
    pub timing: Timing,
    /// Permits for API work in flight across all kubelets.
    pub in_flight: Arc<Semaphore>,
}

/// The running kubelet's view of itself after registration.
struct Registered {
    /// The Node as created or found (its UID owns the Lease).
    node: Node,
    /// True when this registration created the Node (false: it existed and was reconciled).
    created: bool,
    profile: Profile,
    cloud: Option<CloudFacts>,
    node_ips: Vec<String>,
}

fn record(log: &Mutex<Log>, activity: Activity) {
    log.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(activity);
}

/// Runs a kubelet until `stop` turns true (or its sender is dropped); a stop cancels the
/// request in flight, as killing a kubelet would.
pub async fn run(
    shared: Shared,
    spec: KubeletSpec,
    log: Arc<Mutex<Log>>,
    mut stop: watch::Receiver<bool>,
) {
    tokio::select! {
        _ = stop.changed() => {}
        _ = work(&shared, &spec, &log) => {}
    }
}

/// One unit of API work at a time per permit, so a thousand kubelets queue instead of opening
/// a thousand connections at once.
async fn throttled<T>(shared: &Shared, step: impl Future<Output = T>) -> T {
    // The semaphore is never closed; without a permit the step still runs.
    let _permit = shared.in_flight.acquire().await.ok();
    step.await
}

async fn work(shared: &Shared, spec: &KubeletSpec, log: &Mutex<Log>) {
    let mut registered = loop {
        match throttled(shared, register(shared, spec)).await {
            Ok(registered) => break registered,
            Err(reason) => record(log, Activity::Failed(reason)),
        }
        tokio::time::sleep(shared.timing.retry).await;
    };
    record(
        log,
        Activity::Registered {
            mode: spec.mode,
            created: registered.created,
        },
    );
    let mut lease_tick = tokio::time::interval(shared.timing.lease_renew);
    let mut status_tick = tokio::time::interval(shared.timing.status_update);
    lease_tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    status_tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = status_tick.tick() => match throttled(shared, async {
                refresh_cloud(shared, spec, &mut registered).await;
                post_status(shared, spec, &registered).await
            }).await {
                Ok(partial) => {
                    if let Some(reason) = partial {
                        record(log, Activity::Failed(reason));
                    }
                    record(log, Activity::StatusPosted);
                }
                Err(reason) => record(log, Activity::Failed(reason)),
            },
            _ = lease_tick.tick() => match throttled(shared, lease::renew(&shared.client, &registered.node)).await {
                Ok(at) => record(log, Activity::LeaseRenewed(at)),
                Err(e) => record(log, Activity::Failed(format!("renew lease: {e}"))),
            },
        }
    }
}

/// In-tree mode: the cloud's view of the node again before each status post, as the kubelet's
/// cloud resource sync manager polls `NodeAddresses` every `nodeStatusUpdateFrequency`
/// (kubernetes pkg/kubelet/cloudresource/cloud_request_manager.go, used by
/// pkg/kubelet/kubelet_node_status.go `setNodeStatus` via `nodestatus.NodeAddress`), so an
/// `ExternalIP` that IMDS reports once a load balancer frontend exists reaches the Node. A failed
/// IMDS read keeps the last view (the sync manager keeps its last answer too).
async fn refresh_cloud(shared: &Shared, spec: &KubeletSpec, me: &mut Registered) {
    if spec.mode != Mode::InTree {
        return;
    }
    let lookup = me.profile.holds(FactId::ImdsLoadBalancerPublicIp);
    if let Ok(instance) = shared.imds.instance(&spec.imds_url, lookup).await {
        me.cloud = Some(registration::cloud_facts(
            &instance,
            &spec.node,
            &me.profile,
        ));
    }
}

/// `initialNode` + `tryRegisterWithAPIServer`.
async fn register(shared: &Shared, spec: &KubeletSpec) -> Result<Registered, String> {
    let profile = Profile::of(spec.version);
    let needs_imds = spec.mode == Mode::InTree || spec.node_ip == NodeIp::FromImds;
    let instance = if needs_imds {
        let lookup = spec.mode == Mode::InTree && profile.holds(FactId::ImdsLoadBalancerPublicIp);
        Some(
            shared
                .imds
                .instance(&spec.imds_url, lookup)
                .await
                .map_err(|e| e.to_string())?,
        )
    } else {
        None
    };
    let node_ips = match (&spec.node_ip, &instance) {
        (NodeIp::Unset, _) => Vec::new(),
        (NodeIp::Fixed(ips), _) => ips.clone(),
        (NodeIp::FromImds, Some(instance)) => [&instance.ipv4, &instance.ipv6]
            .into_iter()
            .flatten()
            .map(|(private, _)| private.clone())
            .collect(),
        (NodeIp::FromImds, None) => Vec::new(),
    };
    let cloud = match (spec.mode, &instance) {
        (Mode::InTree, Some(instance)) => {
            Some(registration::cloud_facts(instance, &spec.node, &profile))
        }
        _ => None,
    };
    let initial = born_node(spec, &profile, cloud.as_ref(), &node_ips)?;
    let nodes: Api<Node> = Api::all(shared.client.clone());
    let (node, created) = match nodes.create(&PostParams::default(), &initial).await {
        Ok(node) => (node, true),
        Err(kube::Error::Api(e)) if e.code == 409 => {
            update_node(&nodes, &spec.node, |existing| {
                registration::reconcile_existing(&initial, existing)
            })
            .await?;
            let node = nodes
                .get(&spec.node)
                .await
                .map_err(|e| format!("get node: {e}"))?;
            (node, false)
        }
        Err(e) => return Err(format!("create node: {e}")),
    };
    Ok(Registered {
        node,
        created,
        profile,
        cloud,
        node_ips,
    })
}

/// The Node `initialNode` returns: registration fields, then `setNodeStatus` (status and the
/// provided-node-ip annotation), so the Node is born with them. A setter's error only leaves
/// its fields out.
fn born_node(
    spec: &KubeletSpec,
    profile: &Profile,
    cloud: Option<&CloudFacts>,
    node_ips: &[String],
) -> Result<Node, String> {
    let mut initial = registration::initial_node(&spec.node, spec.mode, cloud);
    let now = Timestamp::now();
    let addresses = status::addresses(
        spec.mode,
        profile,
        cloud.map(|c| c.addresses.as_slice()),
        &[],
        node_ips,
        &spec.node,
    )
    .ok()
    .flatten();
    let fields = status::status_fields(
        &status::healthy_conditions(now, now),
        addresses.as_deref(),
        spec.version,
    );
    initial.status = Some(serde_json::from_value(fields).map_err(|e| format!("node status: {e}"))?);
    if let Some(ips) = status::provided_node_ip(spec.mode, node_ips) {
        initial
            .metadata
            .annotations
            .get_or_insert_with(Default::default)
            .insert(PROVIDED_NODE_IP.to_owned(), ips);
    }
    Ok(initial)
}

/// Read-modify-replace of a Node, retried on conflict; `change` returns false for "nothing to do".
pub async fn update_node(
    nodes: &Api<Node>,
    name: &str,
    mut change: impl FnMut(&mut Node) -> bool,
) -> Result<(), String> {
    for _ in 0..5 {
        let mut node = nodes
            .get(name)
            .await
            .map_err(|e| format!("get node: {e}"))?;
        if !change(&mut node) {
            return Ok(());
        }
        match nodes.replace(name, &PostParams::default(), &node).await {
            Ok(_) => return Ok(()),
            Err(kube::Error::Api(e)) if e.code == 409 => continue,
            Err(e) => return Err(format!("update node: {e}")),
        }
    }
    Err(format!("update node {name}: conflicts persisted"))
}

/// One `syncNodeStatus`: annotation, addresses, conditions; then (as the node-lifecycle
/// controller would on a Ready node) the unreachable taints go. A failing address setter only
/// leaves the addresses out, as `setNodeStatus` logs setter errors and goes on: the post still
/// happens and the reason comes back as `Ok(Some(..))`.
async fn post_status(
    shared: &Shared,
    spec: &KubeletSpec,
    me: &Registered,
) -> Result<Option<String>, String> {
    let nodes: Api<Node> = Api::all(shared.client.clone());
    let node = nodes
        .get(&spec.node)
        .await
        .map_err(|e| format!("get node: {e}"))?;
    let wanted = status::provided_node_ip(spec.mode, &me.node_ips);
    let annotations = node.metadata.annotations.clone().unwrap_or_default();
    if annotations.get(PROVIDED_NODE_IP) != wanted.as_ref() {
        let patch = serde_json::json!({"metadata": {"annotations": {PROVIDED_NODE_IP: wanted}}});
        nodes
            .patch(&spec.node, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map_err(|e| format!("patch annotation: {e}"))?;
    }
    let node_status = node.status.clone().unwrap_or_default();
    let existing: Vec<NodeAddress> = node_status.addresses.clone().unwrap_or_default();
    let (addresses, partial) = match status::addresses(
        spec.mode,
        &me.profile,
        me.cloud.as_ref().map(|c| c.addresses.as_slice()),
        &existing,
        &me.node_ips,
        &spec.node,
    ) {
        Ok(addresses) => (addresses, None),
        Err(e) => (None, Some(format!("node addresses: {e:?}"))),
    };
    let now = Timestamp::now();
    let conditions = node_status.conditions.unwrap_or_default();
    let since = conditions
        .iter()
        .find(|c| c.type_ == "Ready" && c.status == "True")
        .and_then(|c| c.last_transition_time.as_ref())
        .map_or(now, |t| t.0);
    let patch = status::status_patch(
        &status::healthy_conditions(now, since),
        addresses.as_deref(),
        spec.version,
    );
    nodes
        .patch_status(
            &spec.node,
            &PatchParams::default(),
            &Patch::Strategic(&patch),
        )
        .await
        .map_err(|e| format!("patch status: {e}"))?;
    let tainted = |n: &Node| {
        n.spec
            .as_ref()
            .and_then(|s| s.taints.as_ref())
            .is_some_and(|t| t.iter().any(|t| t.key == UNREACHABLE_TAINT))
    };
    if tainted(&node) {
        update_node(&nodes, &spec.node, |n| {
            let taints = n
                .spec
                .get_or_insert_with(Default::default)
                .taints
                .get_or_insert_with(Vec::new);
            let before = taints.len();
            taints.retain(|t| t.key != UNREACHABLE_TAINT);
            taints.len() != before
        })
        .await?;
    }
    Ok(partial)
}

/// What the node-lifecycle controller does once a kubelet's grace period ran out: conditions
/// Unknown and the unreachable taints.
pub async fn mark_unreachable(client: &Client, node: &str) -> Result<(), String> {
    let nodes: Api<Node> = Api::all(client.clone());
    let current = nodes
        .get(node)
        .await
        .map_err(|e| format!("get node: {e}"))?;
    let now = Timestamp::now();
    let existing = current
        .status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default();
    let patch = serde_json::json!({
        "status": {"conditions": status::silent_conditions(&existing, now)}
    });
    nodes
        .patch_status(node, &PatchParams::default(), &Patch::Strategic(&patch))
        .await
        .map_err(|e| format!("patch status: {e}"))?;
    update_node(&nodes, node, |n| {
        let taints = n
            .spec
            .get_or_insert_with(Default::default)
            .taints
            .get_or_insert_with(Vec::new);
        let mut changed = false;
        for taint in status::unreachable_taints(now) {
            if !taints
                .iter()
                .any(|t| t.key == taint.key && t.effect == taint.effect)
            {
                taints.push(taint);
                changed = true;
            }
        }
        changed
    })
    .await
}
