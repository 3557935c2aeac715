//! The sampler: every `interval` (250 ms in runs) one list each of Nodes, Services and kube-system
//! Leases, one `GET /admin/state` of the fake, and the roster's live processes, reduced to what the
//! time-based checks need (`single-writer`, `time-to-ingress`, `taint-removal-delay`, `downtime`,
//! `no-node-deleted`). A failed poll leaves that part `None` in the sample (a gap, not an error).
//!
//! Load: four requests per tick; `/admin/state` is the whole fake cloud, fine for the embedded
//! topologies (tens of resources). Ticks that fall behind are skipped, never bunched.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Node, Service};
use kube::Api;
use kube::api::ListParams;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::arm::ArmResources;
use super::kube::{LeaseState, NodeState, ServiceState};
use crate::cluster::FakeAdmin;
use crate::record::now_ms;
use crate::roster::{ManagerKind, Roster};

/// One tick of the sampler.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    /// When the tick started, Unix epoch milliseconds.
    pub at_ms: i64,
    /// kube-system Leases (`None`: the list failed).
    pub leases: Option<Vec<LeaseSample>>,
    /// Processes of the roster alive at `at_ms`.
    pub processes: Vec<ProcessSample>,
    /// Nodes (`None`: the list failed).
    pub nodes: Option<Vec<NodeSample>>,
    /// LoadBalancer Services (`None`: the list failed).
    pub services: Option<Vec<ServiceSample>>,
    /// Per-Service frontend health in the fake's LB state (`None`: the state or the node list
    /// could not be read).
    pub lb: Option<Vec<FrontendSample>>,
}

/// A Lease at one tick: the same fields a snapshot keeps.
pub type LeaseSample = super::kube::LeaseState;

/// A live manager process at one tick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessSample {
    /// Roster name.
    pub name: String,
    /// Kind.
    pub kind: ManagerKind,
    /// Its host name (its Lease identity is `<hostname>_<uuid>`); empty when unknown.
    #[serde(default)]
    pub hostname: String,
    /// Cloud loops and their governing Lease (`""`: none).
    pub cloud_loops: std::collections::BTreeMap<String, String>,
}

/// A Node at one tick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSample {
    /// Name.
    pub name: String,
    /// UID.
    pub uid: String,
    /// Ready condition is `True`.
    pub ready: bool,
    /// Carries `node.cloudprovider.kubernetes.io/uninitialized`.
    pub uninitialized: bool,
    /// `spec.providerID` is set.
    pub provider_id_set: bool,
}

/// A LoadBalancer Service at one tick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSample {
    /// `namespace/name`.
    pub service: String,
    /// Ingress IPs.
    pub ingress: Vec<String>,
    /// Carries `service.kubernetes.io/load-balancer-cleanup`.
    pub finalizer: bool,
}

/// A Service's frontend in the fake's LB state at one tick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrontendSample {
    /// `namespace/name`.
    pub service: String,
    /// Some LB rule is named after the Service (`<a+uid>-...`).
    pub has_rule: bool,
    /// Members of those rules' backend pools whose Node is Ready.
    pub ready_backends: usize,
    /// All members of those pools.
    pub backends: usize,
}

impl Sample {
    /// The Lease called `name` at this tick.
    pub fn lease(&self, name: &str) -> Option<&LeaseSample> {
        self.leases.as_ref()?.iter().find(|l| l.name == name)
    }
}

/// Per-Service frontend health from ARM state and the Nodes (members matched to Nodes by
/// InternalIP, through the NIC IP configuration for `nodeIPConfiguration` pools).
pub fn frontend_health(
    arm: &ArmResources,
    nodes: &[NodeState],
    services: &[ServiceState],
) -> Vec<FrontendSample> {
    let ip_of = arm.ip_of_configuration();
    let ready_ips: BTreeSet<&str> = nodes
        .iter()
        .filter(|n| n.ready())
        .flat_map(NodeState::internal_ips)
        .collect();
    services
        .iter()
        .map(|service| {
            let base = service.base_name();
            let mut pools = BTreeSet::new();
            let mut has_rule = false;
            for lb in &arm.load_balancers {
                for rule in lb.rules.iter().filter(|r| r.name.starts_with(&base)) {
                    has_rule = true;
                    pools.extend(rule.pool_id.clone());
                }
            }
            let members: Vec<&str> = arm
                .load_balancers
                .iter()
                .flat_map(|lb| lb.pools.iter())
                .filter(|p| pools.contains(&p.id))
                .flat_map(|p| p.members.iter())
                .map(|m| ip_of.get(m.as_str()).copied().unwrap_or(m.as_str()))
                .collect();
            FrontendSample {
                service: service.key(),
                has_rule,
                ready_backends: members.iter().filter(|ip| ready_ips.contains(*ip)).count(),
                backends: members.len(),
            }
        })
        .collect()
}

/// Polls the cluster and the fake on a fixed interval until stopped.
#[derive(Debug)]
pub struct Sampler {
    stop: oneshot::Sender<()>,
    task: JoinHandle<Vec<Sample>>,
}

impl Sampler {
    /// Starts sampling every `interval` on the current Tokio runtime.
    pub fn start(
        client: kube::Client,
        admin: FakeAdmin,
        roster: Roster,
        interval: Duration,
    ) -> Sampler {
        let (stop, mut stopped) = oneshot::channel();
        let task = tokio::spawn(async move {
            let mut samples = Vec::new();
            let mut ticker = tokio::time::interval(interval);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    _ = &mut stopped => break,
                    _ = ticker.tick() => samples.push(poll(&client, &admin, &roster).await),
                }
            }
            samples
        });
        Sampler { stop, task }
    }

    /// Stops sampling and returns every sample, in time order.
    pub async fn stop(self) -> Vec<Sample> {
        let _ = self.stop.send(());
        self.task.await.unwrap_or_default()
    }
}

/// One tick.
async fn poll(client: &kube::Client, admin: &FakeAdmin, roster: &Roster) -> Sample {
    let at_ms = now_ms();
    roster.read_usage();
    let params = ListParams::default();
    let nodes = Api::<Node>::all(client.clone()).list(&params).await.ok();
    let services = Api::<Service>::all(client.clone()).list(&params).await.ok();
    let leases = Api::<Lease>::namespaced(client.clone(), ccm_names::leases::NAMESPACE)
        .list(&params)
        .await
        .ok();
    let arm = admin
        .state()
        .await
        .ok()
        .map(|s| ArmResources::from_admin_state(&s));
    let nodes: Option<Vec<NodeState>> =
        nodes.map(|l| l.items.iter().map(NodeState::from_api).collect());
    let services: Option<Vec<ServiceState>> =
        services.map(|l| l.items.iter().filter_map(ServiceState::from_api).collect());
    let lb = match (&arm, &nodes, &services) {
        (Some(arm), Some(nodes), Some(services)) => Some(frontend_health(arm, nodes, services)),
        _ => None,
    };
    Sample {
        at_ms,
        leases: leases.map(|l| {
            l.items
                .iter()
                .map(LeaseState::from_api)
                .map(|l| LeaseSample {
                    name: l.name,
                    holder: l.holder,
                    renew_ms: l.renew_ms,
                    duration_seconds: l.duration_seconds,
                    transitions: l.transitions,
                })
                .collect()
        }),
        processes: roster
            .processes()
            .into_iter()
            .filter(|p| p.alive_at(at_ms))
            .map(|p| ProcessSample {
                name: p.name,
                kind: p.kind,
                hostname: p.hostname,
                cloud_loops: p.cloud_loops,
            })
            .collect(),
        nodes: nodes.map(|list| {
            list.iter()
                .map(|n| NodeSample {
                    name: n.name.clone(),
                    uid: n.uid.clone(),
                    ready: n.ready(),
                    uninitialized: n.has_taint(ccm_names::taints::UNINITIALIZED),
                    provider_id_set: n.provider_id.as_deref().is_some_and(|p| !p.is_empty()),
                })
                .collect()
        }),
        services: services.map(|list| {
            list.iter()
                .map(|s| ServiceSample {
                    service: s.key(),
                    ingress: s.ingress.clone(),
                    finalizer: s
                        .finalizers
                        .iter()
                        .any(|f| f == ccm_names::finalizers::LOAD_BALANCER_CLEANUP),
                })
                .collect()
        }),
        lb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::builders::*;

    #[test]
    fn frontend_health_counts_ready_members_through_nic_ip_configurations() {
        let mut nodes = vec![node("node-0", "10.0.0.4"), node("node-1", "10.0.0.5")];
        let web = service("web", "1a2b3c4d-0000-0000-0000-000000000001", "20.1.2.3");
        let api = service("api", "2b2b3c4d-0000-0000-0000-000000000002", "20.1.2.4");
        let arm = arm_for(&nodes, std::slice::from_ref(&web));
        nodes[1].conditions[0].status = "False".into();
        let health = frontend_health(&arm, &nodes, &[web, api]);
        assert_eq!(
            health,
            [
                FrontendSample {
                    service: "default/web".into(),
                    has_rule: true,
                    ready_backends: 1,
                    backends: 2,
                },
                FrontendSample {
                    service: "default/api".into(),
                    has_rule: false,
                    ready_backends: 0,
                    backends: 0,
                },
            ]
        );
    }
}
