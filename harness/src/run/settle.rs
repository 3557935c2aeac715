//! Waiting for the cluster to settle after a phase: every LoadBalancer Service the cloud provider
//! owns has an ingress, no Service waits on its cleanup finalizer, no Node carries the
//! uninitialized taint or `NetworkUnavailable=True`, with cloud routes (kubenet) every Node has a
//! pod CIDR and `NetworkUnavailable=False` (the route controller sets it once the node's route
//! exists) and no route in the fake's route tables names a node that is gone, Nodes of VMs the
//! scenario deleted are gone, and the fake has seen no successful ARM write and no poll of a
//! long-running operation for a quiet period (a refused or failed write changes nothing). A
//! cluster that stops changing without getting there (a negative scenario's pitfall) is given up
//! on after a stall period with neither a change in what is pending nor such ARM activity, so a
//! negative costs seconds rather than the whole timeout; the checks then say what is wrong.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Node, Service};
use kube::api::{Api, ListParams};
use reqwest::Method;
use tokio::time::Instant;

use crate::cluster::FakeAdmin;

/// How long to wait.
#[derive(Debug, Clone, Copy)]
pub struct SettleLimits {
    /// Give up after this long in any case.
    pub timeout: Duration,
    /// Give up when nothing changed for this long while still unsettled.
    pub stall: Duration,
    /// No ARM write for this long counts as quiet.
    pub quiet: Duration,
    /// Poll interval.
    pub poll: Duration,
}

impl SettleLimits {
    /// After fault rules were cleared: the controllers' retry backoff grew while the faults lasted
    /// (the service controller doubles its per-Service delay from 5 s), so the next attempt may be
    /// tens of seconds away; wait that long for a change before giving up.
    pub fn after_faults(self) -> Self {
        Self {
            stall: Duration::from_secs(45).max(self.stall),
            ..self
        }
    }
}

impl Default for SettleLimits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(90),
            stall: Duration::from_secs(12),
            // Longer than the simulated kubelets' status period (switch::KUBELET_TIMING), so a
            // node's refresh of what the cloud just changed lands inside it.
            quiet: Duration::from_millis(2500),
            poll: Duration::from_millis(300),
        }
    }
}

/// How a settle wait ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// True when every condition held.
    pub settled: bool,
    /// What was still pending when it gave up (empty when settled).
    pub pending: Vec<String>,
    /// Time waited.
    pub waited: Duration,
}

/// The conditions still unmet in one observation; empty when settled (pure, unit-tested).
pub fn pending(
    nodes: &[Node],
    services: &[Service],
    gone: &BTreeSet<String>,
    routes: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    for node in nodes {
        let name = node.metadata.name.clone().unwrap_or_default();
        let spec = node.spec.as_ref();
        if routes && !gone.contains(&name) {
            let has_cidr = spec.is_some_and(|s| s.pod_cidr.is_some());
            let routed = node
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| {
                    c.iter()
                        .any(|c| c.type_ == "NetworkUnavailable" && c.status == "False")
                });
            if !has_cidr {
                out.push(format!("node {name}: no pod CIDR"));
            } else if !routed {
                out.push(format!(
                    "node {name}: no route yet (NetworkUnavailable is not False)"
                ));
            }
        }
        if spec
            .and_then(|s| s.taints.as_ref())
            .is_some_and(|t| t.iter().any(|t| t.key == ccm_names::taints::UNINITIALIZED))
        {
            out.push(format!("node {name}: uninitialized taint"));
        }
        let conditions = node.status.as_ref().and_then(|s| s.conditions.as_ref());
        if conditions.is_some_and(|c| {
            c.iter()
                .any(|c| c.type_ == "NetworkUnavailable" && c.status == "True")
        }) {
            out.push(format!("node {name}: NetworkUnavailable"));
        }
        if gone.contains(&name) {
            out.push(format!(
                "node {name}: its VM was deleted, the Node is still there"
            ));
        }
    }
    for svc in services {
        let name = format!(
            "{}/{}",
            svc.metadata.namespace.as_deref().unwrap_or_default(),
            svc.metadata.name.as_deref().unwrap_or_default()
        );
        let spec = svc.spec.as_ref();
        let is_lb = spec.and_then(|s| s.type_.as_deref()) == Some("LoadBalancer");
        if svc.metadata.deletion_timestamp.is_some() {
            out.push(format!("service {name}: deletion waits on its finalizer"));
            continue;
        }
        if !is_lb || spec.is_some_and(|s| s.load_balancer_class.is_some()) {
            continue;
        }
        let has_ingress = svc
            .status
            .as_ref()
            .and_then(|s| s.load_balancer.as_ref())
            .and_then(|l| l.ingress.as_ref())
            .is_some_and(|i| !i.is_empty());
        if !has_ingress {
            out.push(format!("service {name}: no ingress"));
        }
    }
    out
}

/// Waits until the cluster settles (or stalls, or times out). `gone` are Nodes whose VMs the
/// scenario deleted; `routes` when the cloud configures routes (kubenet).
pub async fn settle(
    client: &kube::Client,
    admin: &FakeAdmin,
    gone: &BTreeSet<String>,
    routes: bool,
    limits: SettleLimits,
) -> Settled {
    let start = Instant::now();
    let nodes: Api<Node> = Api::all(client.clone());
    let services: Api<Service> = Api::all(client.clone());
    let mut cursor = 0;
    let mut last_write_at = Instant::now();
    let mut last_change = Instant::now();
    let mut last_state = None;
    loop {
        let observed = async {
            let n = nodes.list(&ListParams::default()).await.ok()?;
            let s = services.list(&ListParams::default()).await.ok()?;
            Some((n.items, s.items))
        }
        .await;
        if arm_writes_since(admin, &mut cursor).await {
            last_write_at = Instant::now();
            last_change = Instant::now();
        }
        let mut now_pending = match &observed {
            Some((n, s)) => pending(n, s, gone, routes),
            None => vec!["the API server did not answer".to_owned()],
        };
        // The fake's whole state is read only once everything else holds.
        if routes
            && now_pending.is_empty()
            && let Some((nodes, _)) = &observed
        {
            now_pending.extend(stale_routes(admin, nodes).await);
        }
        if last_state.as_ref() != Some(&now_pending) {
            last_state = Some(now_pending.clone());
            last_change = Instant::now();
        }
        let quiet = last_write_at.elapsed() >= limits.quiet;
        if now_pending.is_empty() && quiet {
            return Settled {
                settled: true,
                pending: vec![],
                waited: start.elapsed(),
            };
        }
        let stalled = !now_pending.is_empty() && last_change.elapsed() >= limits.stall;
        if stalled || start.elapsed() >= limits.timeout {
            let mut pending = now_pending;
            if pending.is_empty() {
                pending.push("ARM writes never stopped".to_owned());
            }
            return Settled {
                settled: false,
                pending,
                waited: start.elapsed(),
            };
        }
        tokio::time::sleep(limits.poll).await;
    }
}

/// Node routes (named `<node>____<cidr>`, the form every provider release here writes) of nodes
/// that are gone; other routes (a user's, or the legacy `<node>` form) are never awaited.
async fn stale_routes(admin: &FakeAdmin, nodes: &[Node]) -> Vec<String> {
    let Ok(state) = admin.state().await else {
        return vec!["the fake's state could not be read".to_owned()];
    };
    let arm = crate::snapshot::ArmResources::from_admin_state(&state);
    let names: BTreeSet<&str> = nodes
        .iter()
        .filter_map(|n| n.metadata.name.as_deref())
        .collect();
    arm.route_tables
        .iter()
        .flat_map(|t| t.routes.iter().map(move |r| (t, r)))
        .filter(|(_, r)| {
            r.name
                .split_once("____")
                .is_some_and(|(node, _)| !names.contains(node))
        })
        .map(|(t, r)| format!("route {}/{}: its node is gone", t.name, r.name))
        .collect()
}

/// True when the fake journaled ARM activity that changes or is about to change state at or after
/// `cursor` (which moves past what was read): a successful write, or a poll of a long-running
/// operation (a write still in flight: the caller writes its result, e.g. a Service's status,
/// once the operation ends). Reads, token calls and refused or failed writes change nothing.
async fn arm_writes_since(admin: &FakeAdmin, cursor: &mut u64) -> bool {
    let path = format!("/admin/journal?since={cursor}");
    let Ok((_, journal)) = admin.call(Method::GET, &path, None).await else {
        return false;
    };
    if let Some(next) = journal["nextSeq"].as_u64() {
        *cursor = next;
    }
    journal["entries"]
        .as_array()
        .is_some_and(|entries| entries.iter().any(changes_state))
}

/// One journal entry: a successful ARM write, or an ARM operation poll.
fn changes_state(e: &serde_json::Value) -> bool {
    if e["surface"] != "arm" {
        return false;
    }
    let ok = e["status"]
        .as_u64()
        .is_some_and(|s| (200..300).contains(&s));
    let write = matches!(
        e["method"].as_str(),
        Some("PUT" | "PATCH" | "DELETE" | "POST")
    );
    let poll = e["method"] == "GET"
        && e["path"]
            .as_str()
            .is_some_and(|p| p.to_ascii_lowercase().contains("/operations/"));
    (ok && write) || poll
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{
        LoadBalancerIngress, LoadBalancerStatus, NodeSpec, ServiceSpec, ServiceStatus, Taint,
    };

    fn node(name: &str, tainted: bool) -> Node {
        let mut node = Node::default();
        node.metadata.name = Some(name.into());
        node.spec = Some(NodeSpec {
            taints: tainted.then(|| {
                vec![Taint {
                    key: ccm_names::taints::UNINITIALIZED.into(),
                    effect: "NoSchedule".into(),
                    ..Taint::default()
                }]
            }),
            ..NodeSpec::default()
        });
        node
    }

    fn lb(name: &str, ingress: bool) -> Service {
        let mut svc = Service::default();
        svc.metadata.name = Some(name.into());
        svc.metadata.namespace = Some("default".into());
        svc.spec = Some(ServiceSpec {
            type_: Some("LoadBalancer".into()),
            ..ServiceSpec::default()
        });
        svc.status = ingress.then(|| ServiceStatus {
            load_balancer: Some(LoadBalancerStatus {
                ingress: Some(vec![LoadBalancerIngress {
                    ip: Some("20.0.0.1".into()),
                    ..LoadBalancerIngress::default()
                }]),
            }),
            ..ServiceStatus::default()
        });
        svc
    }

    #[test]
    fn pending_lists_every_unmet_condition() {
        let gone = BTreeSet::from(["node-2".to_owned()]);
        let nodes = [
            node("node-0", false),
            node("node-1", true),
            node("node-2", false),
        ];
        let services = [lb("web", true), lb("api", false)];
        assert_eq!(
            pending(&nodes, &services, &gone, false),
            [
                "node node-1: uninitialized taint",
                "node node-2: its VM was deleted, the Node is still there",
                "service default/api: no ingress",
            ]
        );
        assert!(pending(&nodes[..1], &services[..1], &BTreeSet::new(), false).is_empty());
    }

    #[test]
    fn services_with_a_class_or_not_load_balancers_are_not_awaited() {
        let mut classy = lb("classy", false);
        classy.spec.as_mut().unwrap().load_balancer_class = Some("example.com/lb".into());
        let mut plain = lb("plain", false);
        plain.spec.as_mut().unwrap().type_ = Some("ClusterIP".into());
        assert!(pending(&[], &[classy, plain], &BTreeSet::new(), false).is_empty());
    }

    #[test]
    fn successful_writes_and_operation_polls_count_as_activity() {
        use serde_json::json;
        let entry = |method: &str, path: &str, status: u64| json!({"surface": "arm", "method": method, "path": path, "status": status});
        assert!(changes_state(&entry("PUT", "/subscriptions/s/x", 201)));
        assert!(!changes_state(&entry("PUT", "/subscriptions/s/x", 429)));
        assert!(!changes_state(&entry("GET", "/subscriptions/s/x", 200)));
        assert!(changes_state(&entry(
            "GET",
            "/subscriptions/s/providers/Microsoft.Network/locations/eastus/operations/1",
            200
        )));
        assert!(!changes_state(
            &json!({"surface": "imds", "method": "PUT", "status": 200})
        ));
    }

    #[test]
    fn with_routes_every_node_needs_a_pod_cidr_and_network_available() {
        use k8s_openapi::api::core::v1::{NodeCondition, NodeStatus};
        let mut routed = node("node-0", false);
        routed.spec.as_mut().unwrap().pod_cidr = Some("10.244.0.0/24".into());
        routed.status = Some(NodeStatus {
            conditions: Some(vec![NodeCondition {
                type_: "NetworkUnavailable".into(),
                status: "False".into(),
                ..NodeCondition::default()
            }]),
            ..NodeStatus::default()
        });
        let mut waiting = routed.clone();
        waiting.metadata.name = Some("node-1".into());
        waiting.status = None;
        let bare = node("node-2", false);
        let nodes = [routed, waiting, bare];
        assert_eq!(
            pending(&nodes, &[], &BTreeSet::new(), true),
            [
                "node node-1: no route yet (NetworkUnavailable is not False)",
                "node node-2: no pod CIDR",
            ]
        );
        assert!(pending(&nodes, &[], &BTreeSet::new(), false).is_empty());
    }
}
