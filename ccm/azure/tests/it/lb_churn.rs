//! Churn property test against the real `azure-fakes serve` (small.yaml): random sequences of
//! Service creates / updates / deletes and node-list changes, reconciled after each step the way
//! the service controller does (ensure every live Service with the current nodes, ensure_deleted
//! the ones just deleted). After every step nothing of a deleted Service may remain and the
//! cluster's outbound frontend and PIP stay as they were; at the end the ARM state must equal the
//! state a fresh fake reaches with one reconcile of the final Services and nodes. Runs with
//! nodeIPConfiguration (default) and nodeIP pools. The run over every template (public/internal
//! flips, floating IP off) and the focused tests at the end are ignored until the NSG keeps no
//! destination a Service no longer has.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use ccm_azure::loadbalancer::ServiceSource;
use ccm_azure::loadbalancer::names::base_name;
use ccm_cloud::LoadBalancer;
use ccm_names::service_annotations::{DISABLE_FLOATING_IP, INTERNAL, TCP_IDLE_TIMEOUT};
use k8s_openapi::api::core::v1::{Node, Service};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestRunner};
use serde_json::Value;

use crate::lb_services::{Bed, CLUSTER, SMALL, ingress_ips, service};

/// Service slots (names `svc-<slot>`); a slot deleted and created again gets a new UID.
const SLOTS: usize = 4;
// Service templates (see [`churn_service`]).
const PUBLIC: usize = 0;
const INTERNAL_TEMPLATE: usize = 1;
const UDP: usize = 2;
const ETP_LOCAL: usize = 3;
const IDLE_TIMEOUT: usize = 4;
const FLOATING_OFF: usize = 5;
/// Port variants of [`churn_service`].
const PORT_VARIANTS: usize = 3;
const OUTBOUND_FRONTEND: &str = "outbound";
const OUTBOUND_PIP: &str = "k8s-outbound-pip";
/// azure.json keys for backend pools of node IPs.
const NODE_IP: &str = r#", "loadBalancerBackendPoolConfigurationType": "nodeIP""#;

/// One churn step.
#[derive(Debug, Clone)]
enum Step {
    /// Create the Service of `slot`, or update it to this template and ports.
    Upsert {
        slot: usize,
        template: usize,
        ports: usize,
    },
    /// Delete the Service of `slot` (nothing when it does not exist).
    Delete { slot: usize },
    /// Take the agent node `agent` out of the node list, or put it back.
    ToggleAgent { agent: usize },
}

/// Steps whose Upserts pick the template of a slot from `templates(slot)`.
fn step(templates: fn(usize) -> &'static [usize]) -> impl Strategy<Value = Step> {
    let upsert = (0..SLOTS, any::<prop::sample::Index>(), 0..PORT_VARIANTS).prop_map(
        move |(slot, pick, ports)| {
            let allowed = templates(slot);
            Step::Upsert {
                slot,
                template: allowed[pick.index(allowed.len())],
                ports,
            }
        },
    );
    prop_oneof![
        5 => upsert,
        2 => (0..SLOTS).prop_map(|slot| Step::Delete { slot }),
        2 => (0..2usize).prop_map(|agent| Step::ToggleAgent { agent }),
    ]
}

/// Every template in every slot.
fn any_template(_slot: usize) -> &'static [usize] {
    &[
        PUBLIC,
        INTERNAL_TEMPLATE,
        UDP,
        ETP_LOCAL,
        IDLE_TIMEOUT,
        FLOATING_OFF,
    ]
}

/// Even slots public (floating IP on), odd slots internal: no public/internal flip and no
/// floating IP off, the transitions whose NSG leftovers the ignored tests below show.
fn stable_kind(slot: usize) -> &'static [usize] {
    if slot.is_multiple_of(2) {
        &[PUBLIC, UDP, ETP_LOCAL, IDLE_TIMEOUT]
    } else {
        &[INTERNAL_TEMPLATE]
    }
}

/// The Service of `slot` (generation `generation`) built from a template: public TCP, internal,
/// public UDP, externalTrafficPolicy Local, TCP idle timeout annotation, floating IP off. Ports stay in the slot's own range so public Services never
/// share a frontend port.
fn churn_service(slot: usize, generation: usize, template: usize, ports: usize) -> Service {
    let port = 1000 + 10 * slot as i32;
    let node_port = 30000 + 10 * slot as i32;
    let port_list: Vec<(i32, i32)> = match ports {
        0 => vec![(port, node_port)],
        1 => vec![(port + 1, node_port + 1)],
        _ => vec![(port, node_port), (port + 2, node_port + 2)],
    };
    let annotations: Vec<(&str, &str)> = match template {
        INTERNAL_TEMPLATE => vec![(INTERNAL, "true")],
        IDLE_TIMEOUT => vec![(TCP_IDLE_TIMEOUT, "10")],
        FLOATING_OFF => vec![(DISABLE_FLOATING_IP, "true")],
        _ => Vec::new(),
    };
    let uid = format!("{slot:02x}{generation:06x}-0000-4000-8000-00000000c0de");
    let mut svc = service(&format!("svc-{slot}"), &uid, &annotations, &port_list);
    let spec = svc.spec.as_mut().expect("spec");
    if template == UDP {
        for p in spec.ports.iter_mut().flatten() {
            p.protocol = Some("UDP".to_string());
        }
    }
    if template == ETP_LOCAL {
        spec.external_traffic_policy = Some("Local".to_string());
        spec.health_check_node_port = Some(32000 + slot as i32);
    }
    svc
}

/// The live Services, as the service controller's cache would list them to the reconciler.
#[derive(Default)]
struct LiveServices(Mutex<Vec<Service>>);

impl ServiceSource for LiveServices {
    fn services(&self) -> Vec<Arc<Service>> {
        let services = self.0.lock().map(|s| s.clone()).unwrap_or_default();
        services.into_iter().map(Arc::new).collect()
    }
}

/// A bed over small.yaml with azure.json keys `extra` whose reconciler lists Services from
/// `source`.
async fn bed_with_source(extra: &str) -> (Bed, Arc<LiveServices>) {
    let bed = Bed::start("small.yaml", &format!("{SMALL}{extra}")).await;
    let source = Arc::new(LiveServices::default());
    bed.provider
        .load_balancers()
        .reconciler()
        .set_service_source(source.clone());
    (bed, source)
}

fn uid_of(svc: &Service) -> String {
    svc.metadata.uid.clone().unwrap_or_default()
}

fn name_of(svc: &Service) -> String {
    format!("default/{}", svc.metadata.name.clone().unwrap_or_default())
}

/// Fields that differ between two fakes reaching the same state by different paths.
const VOLATILE: &[&str] = &[
    "etag",
    "provisioningState",
    "resourceGuid",
    "ipAddress",
    "privateIPAddress",
    "priority",
    "backendIPConfigurations",
];

/// `doc` without volatile fields, IP strings renamed through `ips`, ids shortened to the part
/// below the resource group, arrays of named children keyed by name, other arrays sorted.
fn normalise(doc: &Value, ips: &BTreeMap<String, String>) -> Value {
    match doc {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !VOLATILE.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), normalise(v, ips)))
                .collect(),
        ),
        Value::Array(items) if !items.is_empty() && items.iter().all(|i| i["name"].is_string()) => {
            Value::Object(
                items
                    .iter()
                    .map(|i| {
                        (
                            i["name"].as_str().unwrap_or_default().to_string(),
                            normalise(i, ips),
                        )
                    })
                    .collect(),
            )
        }
        Value::Array(items) => {
            let mut out: Vec<Value> = items.iter().map(|v| normalise(v, ips)).collect();
            out.sort_by_key(|v| v.to_string());
            Value::Array(out)
        }
        Value::String(s) => {
            let lower = s.to_ascii_lowercase();
            let short = match lower.find("/providers/microsoft.") {
                Some(at) if lower.starts_with("/subscriptions/") => {
                    s[at + "/providers/".len()..].to_string()
                }
                _ => s.clone(),
            };
            Value::String(ips.get(&short).cloned().unwrap_or(short))
        }
        other => other.clone(),
    }
}

/// The leaf paths where `left` and `right` differ, one line each.
fn diff(path: &str, left: &Value, right: &Value, out: &mut Vec<String>) {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            let keys: BTreeSet<&String> = l.keys().chain(r.keys()).collect();
            for k in keys {
                let null = Value::Null;
                diff(
                    &format!("{path}/{k}"),
                    l.get(k).unwrap_or(&null),
                    r.get(k).unwrap_or(&null),
                    out,
                );
            }
        }
        (l, r) if l != r => out.push(format!("{path}: churned {l} | fresh {r}")),
        _ => {}
    }
}

/// Panics with the differences when the churned and the fresh documents differ.
fn assert_same<T: serde::Serialize>(what: &str, churned: &T, fresh: &T, steps: &[Step]) {
    let churned = serde_json::to_value(churned).expect("JSON");
    let fresh = serde_json::to_value(fresh).expect("JSON");
    let mut out = Vec::new();
    diff("", &churned, &fresh, &mut out);
    assert!(
        out.is_empty(),
        "{what} differ after {steps:?}:\n{}",
        out.join("\n")
    );
}

/// The elements of a JSON array by their `name`.
fn named(items: &Value) -> BTreeMap<String, Value> {
    items
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            (
                i["name"].as_str().unwrap_or_default().to_string(),
                i.clone(),
            )
        })
        .collect()
}

/// What the comparison looks at, normalised.
#[derive(Debug)]
struct ArmState {
    /// Every LB of the resource group by name.
    lbs: BTreeMap<String, Value>,
    /// Every PIP by name.
    pips: BTreeMap<String, Value>,
    /// Managed NSG rules (`k8s-azure-lb*`) by name.
    nsg_rules: BTreeMap<String, Value>,
    /// NIC name → pool ids its ipconfigs reference (only pools of the LBs in use).
    nic_pools: BTreeMap<String, BTreeSet<String>>,
}

/// Every `loadBalancerBackendAddressPools` id under `doc`, lowercased.
fn pool_refs(doc: &Value, out: &mut BTreeSet<String>) {
    match doc {
        Value::Object(map) => {
            if let Some(Value::Array(pools)) = map.get("loadBalancerBackendAddressPools") {
                out.extend(
                    pools
                        .iter()
                        .filter_map(|p| p["id"].as_str().map(str::to_ascii_lowercase)),
                );
            }
            map.values().for_each(|v| pool_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| pool_refs(v, out)),
        _ => {}
    }
}

/// IP → stable label: frontend IPs by Service name, node IPs by node name.
async fn ip_labels(
    bed: &Bed,
    statuses: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for name in bed.cluster.node_names() {
        let described = bed.cluster.described(&name).await;
        for ip in described["privateIps"].as_array().into_iter().flatten() {
            if let Some(ip) = ip.as_str() {
                out.insert(ip.to_string(), format!("node:{name}"));
            }
        }
    }
    for (svc, ips) in statuses {
        for ip in ips {
            out.insert(ip.clone(), format!("frontend:{svc}"));
        }
    }
    out
}

/// The ARM state of `bed`. Pool members (nodeIP addresses, NIC references) are compared only
/// for the LBs in `lbs_in_use`: nobody reconciles the members of an LB no live Service uses
/// (upstream neither), and the cluster LB's pool also serves its outbound rule.
async fn arm_state(
    bed: &Bed,
    statuses: &BTreeMap<String, Vec<String>>,
    lbs_in_use: &BTreeSet<String>,
) -> ArmState {
    let ips = ip_labels(bed, statuses).await;
    let lbs = bed.get("loadBalancers").await;
    let lbs: BTreeMap<String, Value> = named(&lbs["value"])
        .into_iter()
        .map(|(name, lb)| {
            let mut lb = normalise(&lb, &ips);
            if !lbs_in_use.contains(&name)
                && let Some(pools) = lb
                    .pointer_mut("/properties/backendAddressPools")
                    .and_then(Value::as_object_mut)
            {
                for pool in pools.values_mut() {
                    if let Some(props) = pool["properties"].as_object_mut() {
                        props.remove("loadBalancerBackendAddresses");
                    }
                }
            }
            (name, lb)
        })
        .collect();
    let pips = bed.get("publicIPAddresses").await;
    let pips = named(&pips["value"])
        .into_iter()
        .map(|(k, v)| (k, normalise(&v, &ips)))
        .collect();
    let nsg_rules = named(&Value::Array(bed.nsg_rules().await))
        .into_iter()
        .filter(|(k, _)| k.starts_with("k8s-azure-lb"))
        .map(|(k, v)| (k, normalise(&v, &ips)))
        .collect();
    let nics = bed.get("networkInterfaces").await;
    let pool_prefixes: Vec<String> = lbs_in_use
        .iter()
        .map(|lb| format!("/loadbalancers/{}/", lb.to_ascii_lowercase()))
        .collect();
    let nic_pools = named(&nics["value"])
        .into_iter()
        .map(|(name, nic)| {
            let mut refs = BTreeSet::new();
            pool_refs(&nic, &mut refs);
            refs.retain(|r| pool_prefixes.iter().any(|p| r.contains(p)));
            (name, refs)
        })
        .collect();
    ArmState {
        lbs,
        pips,
        nsg_rules,
        nic_pools,
    }
}

/// The cluster's outbound frontend and PIP, for "left untouched".
async fn outbound(bed: &Bed) -> (Value, Value) {
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    let frontend = named(&lb["properties"]["frontendIPConfigurations"])
        .remove(OUTBOUND_FRONTEND)
        .unwrap_or(Value::Null);
    let pip = bed.get(&format!("publicIPAddresses/{OUTBOUND_PIP}")).await;
    let none = BTreeMap::new();
    (normalise(&frontend, &none), normalise(&pip, &none))
}

/// The churn world: one fake, the live Services by slot and what the controller knows.
struct Churn {
    bed: Bed,
    source: Arc<LiveServices>,
    live: BTreeMap<usize, Service>,
    generations: [usize; SLOTS],
    agents_in: [bool; 2],
    /// Last status IPs by Service name.
    statuses: BTreeMap<String, Vec<String>>,
    /// UIDs of deleted Services (none live again: a re-created slot gets a new UID).
    deleted_uids: BTreeSet<String>,
    outbound: (Value, Value),
}

impl Churn {
    fn node_list(&self) -> Vec<Node> {
        node_list(&self.bed, self.agents_in)
    }

    /// Applies `step`; returns the Service deleted by it.
    fn apply(&mut self, step: &Step) -> Option<Service> {
        match *step {
            Step::Upsert {
                slot,
                template,
                ports,
            } => {
                let generation = self.generations[slot];
                self.live
                    .insert(slot, churn_service(slot, generation, template, ports));
                None
            }
            Step::Delete { slot } => {
                let gone = self.live.remove(&slot)?;
                self.generations[slot] += 1;
                self.deleted_uids.insert(uid_of(&gone));
                self.statuses.remove(&name_of(&gone));
                Some(gone)
            }
            Step::ToggleAgent { agent } => {
                self.agents_in[agent] = !self.agents_in[agent];
                None
            }
        }
    }

    /// The controller's reconcile after a step.
    async fn reconcile(&mut self, deleted: Option<Service>) {
        if let Ok(mut list) = self.source.0.lock() {
            *list = self.live.values().cloned().collect();
        }
        if let Some(gone) = deleted {
            self.bed.delete(&gone).await;
        }
        let nodes = self.node_list();
        for svc in self.live.values() {
            let status = self
                .bed
                .lb()
                .ensure_load_balancer(CLUSTER, svc, &crate::cluster::refs(&nodes))
                .await
                .unwrap_or_else(|e| panic!("ensure {}: {e}", name_of(svc)));
            self.statuses.insert(name_of(svc), ingress_ips(&status));
        }
    }

    /// Nothing of a deleted Service is left; the outbound frontend and PIP are untouched.
    async fn check_invariants(&self, after: &str) {
        let live_bases: Vec<String> = self.live.values().map(|s| base_name(&uid_of(s))).collect();
        let deleted_bases: Vec<String> = self.deleted_uids.iter().map(|u| base_name(u)).collect();
        let live_names: BTreeSet<String> = self.live.values().map(name_of).collect();

        for pip in self.bed.pips().await {
            let name = pip["name"].as_str().unwrap_or_default();
            let Some(tag) = pip["tags"]["k8s-azure-service"].as_str() else {
                continue;
            };
            for owner in tag.split(',').map(str::trim).filter(|o| !o.is_empty()) {
                assert!(
                    live_names.contains(owner),
                    "{after}: PIP {name} lists deleted Service {owner}: {pip:#}"
                );
            }
            assert!(
                live_bases.iter().any(|b| name.contains(b.as_str())),
                "{after}: managed PIP {name} belongs to no live Service"
            );
        }

        let lbs = self.bed.get("loadBalancers").await;
        for lb in lbs["value"].as_array().into_iter().flatten() {
            let lb_name = lb["name"].as_str().unwrap_or_default();
            for kind in ["frontendIPConfigurations", "loadBalancingRules", "probes"] {
                for child in named(&lb["properties"][kind]).keys() {
                    if child == OUTBOUND_FRONTEND {
                        continue;
                    }
                    assert!(
                        !deleted_bases.iter().any(|b| child.starts_with(b.as_str())),
                        "{after}: {lb_name} {kind} {child} of a deleted Service"
                    );
                    assert!(
                        live_bases.iter().any(|b| child.starts_with(b.as_str())),
                        "{after}: {lb_name} {kind} {child} of no live Service"
                    );
                }
            }
        }

        let node_ips: BTreeSet<String> = ip_labels(&self.bed, &BTreeMap::new())
            .await
            .into_keys()
            .collect();
        let frontend_ips: BTreeSet<String> = self.statuses.values().flatten().cloned().collect();
        for rule in self.bed.nsg_rules().await {
            let name = rule["name"].as_str().unwrap_or_default();
            if !name.starts_with("k8s-azure-lb") {
                continue;
            }
            let props = &rule["properties"];
            let destinations = props["destinationAddressPrefixes"]
                .as_array()
                .into_iter()
                .flatten()
                .chain(std::iter::once(&props["destinationAddressPrefix"]))
                .filter_map(Value::as_str);
            for dst in destinations {
                assert!(
                    dst == "*" || frontend_ips.contains(dst) || node_ips.contains(dst),
                    "{after}: NSG rule {name} keeps {dst}, no live Service's frontend or node: {rule:#}"
                );
            }
        }

        assert_eq!(
            outbound(&self.bed).await,
            self.outbound,
            "{after}: outbound frontend / PIP changed"
        );
    }
}

/// small.yaml's node objects with the agents of `agents_in` (the control plane always listed).
fn node_list(bed: &Bed, agents_in: [bool; 2]) -> Vec<Node> {
    let mut agent = 0;
    bed.nodes
        .iter()
        .filter(|n| {
            let name = n.metadata.name.as_deref().unwrap_or_default();
            if name.contains("master") {
                return true;
            }
            let keep = agents_in.get(agent).copied().unwrap_or(true);
            agent += 1;
            keep
        })
        .cloned()
        .collect()
}

async fn run_case(steps: Vec<Step>) {
    run_case_with(steps, "").await;
}

/// [`run_case`] with azure.json keys `extra` on both fakes.
async fn run_case_with(steps: Vec<Step>, extra: &str) {
    let (bed, source) = bed_with_source(extra).await;
    let outbound = outbound(&bed).await;
    let mut churn = Churn {
        bed,
        source,
        live: BTreeMap::new(),
        generations: [0; SLOTS],
        agents_in: [true; 2],
        statuses: BTreeMap::new(),
        deleted_uids: BTreeSet::new(),
        outbound,
    };
    for (i, step) in steps.iter().enumerate() {
        let deleted = churn.apply(step);
        churn.reconcile(deleted).await;
        churn
            .check_invariants(&format!("after step {i} {step:?} of {steps:?}"))
            .await;
    }

    let (fresh, fresh_source) = bed_with_source(extra).await;
    if let Ok(mut list) = fresh_source.0.lock() {
        *list = churn.live.values().cloned().collect();
    }
    let nodes = node_list(&fresh, churn.agents_in);
    let mut fresh_statuses = BTreeMap::new();
    for svc in churn.live.values() {
        let status = fresh
            .lb()
            .ensure_load_balancer(CLUSTER, svc, &crate::cluster::refs(&nodes))
            .await
            .unwrap_or_else(|e| panic!("fresh ensure {}: {e}", name_of(svc)));
        fresh_statuses.insert(name_of(svc), ingress_ips(&status));
    }
    let mut lbs_in_use = BTreeSet::new();
    for svc in churn.live.values() {
        let internal = svc
            .metadata
            .annotations
            .as_ref()
            .is_some_and(|a| a.get(INTERNAL).is_some_and(|v| v == "true"));
        lbs_in_use.insert(if internal {
            format!("{CLUSTER}-internal")
        } else {
            CLUSTER.to_string()
        });
    }
    let churned = arm_state(&churn.bed, &churn.statuses, &lbs_in_use).await;
    let expected = arm_state(&fresh, &fresh_statuses, &lbs_in_use).await;
    assert_same("load balancers", &churned.lbs, &expected.lbs, &steps);
    assert_same("public IPs", &churned.pips, &expected.pips, &steps);
    assert_same("NSG rules", &churned.nsg_rules, &expected.nsg_rules, &steps);
    assert_same(
        "NIC pool references",
        &churned.nic_pools,
        &expected.nic_pools,
        &steps,
    );
}

/// Runs 6 random cases of 8 steps, each against fresh fakes with azure.json keys `extra`.
fn churn(templates: fn(usize) -> &'static [usize], extra: &str) {
    let config = ProptestConfig {
        cases: 6,
        max_shrink_iters: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&proptest::collection::vec(step(templates), 8), |steps| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        runtime.block_on(run_case_with(steps, extra));
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn churned_services_converge_to_what_one_fresh_reconcile_builds() {
    churn(stable_kind, "");
}

#[test]
fn churn_with_node_ip_pools_converges_too() {
    churn(stable_kind, NODE_IP);
}

#[test]
fn churn_with_flips_and_floating_ip_off_converges_too() {
    churn(any_template, "");
}

fn up(slot: usize, template: usize, ports: usize) -> Step {
    Step::Upsert {
        slot,
        template,
        ports,
    }
}

fn toggle(agent: usize) -> Step {
    Step::ToggleAgent { agent }
}

fn delete(slot: usize) -> Step {
    Step::Delete { slot }
}

#[tokio::test]
async fn an_internal_service_turned_public_keeps_nothing_of_its_internal_frontend() {
    run_case(vec![up(0, INTERNAL_TEMPLATE, 0), up(0, PUBLIC, 0)]).await;
}

#[tokio::test]
async fn port_protocol_and_traffic_policy_changes_leave_only_the_new_rules() {
    run_case(vec![
        up(0, PUBLIC, 0),
        up(0, PUBLIC, 1),
        up(0, UDP, 2),
        up(0, ETP_LOCAL, 0),
        up(0, IDLE_TIMEOUT, 1),
        up(1, INTERNAL_TEMPLATE, 0),
        up(1, INTERNAL_TEMPLATE, 2),
    ])
    .await;
}

#[tokio::test]
async fn a_deleted_and_recreated_service_leaves_nothing_of_its_old_uid() {
    run_case(vec![
        up(0, PUBLIC, 0),
        delete(0),
        up(0, INTERNAL_TEMPLATE, 0),
        delete(0),
        up(0, PUBLIC, 0),
    ])
    .await;
}

#[tokio::test]
async fn nodes_leaving_and_returning_follow_the_pools() {
    run_case(vec![
        up(0, PUBLIC, 0),
        up(1, INTERNAL_TEMPLATE, 0),
        toggle(0),
        toggle(1),
        toggle(0),
    ])
    .await;
}

#[tokio::test]
async fn deleting_one_of_two_floating_ip_off_services_keeps_the_others_rule() {
    run_case(vec![
        up(0, FLOATING_OFF, 0),
        up(1, FLOATING_OFF, 0),
        delete(0),
    ])
    .await;
}

#[tokio::test]
async fn a_public_service_turned_internal_leaves_no_nsg_destination_on_its_old_ip() {
    run_case(vec![up(0, PUBLIC, 0), up(0, INTERNAL_TEMPLATE, 0)]).await;
}

#[tokio::test]
async fn turning_floating_ip_on_removes_the_node_ip_rule() {
    run_case(vec![up(0, FLOATING_OFF, 0), up(0, IDLE_TIMEOUT, 0)]).await;
}

#[tokio::test]
async fn turning_floating_ip_off_removes_the_frontend_ip_rule() {
    run_case(vec![up(0, IDLE_TIMEOUT, 0), up(0, FLOATING_OFF, 0)]).await;
}

#[tokio::test]
async fn a_node_leaving_leaves_the_floating_ip_off_rule() {
    run_case(vec![up(0, FLOATING_OFF, 0), toggle(0)]).await;
}

#[tokio::test]
async fn deleting_a_floating_ip_off_service_after_a_node_left_removes_its_rule() {
    run_case(vec![up(0, FLOATING_OFF, 0), toggle(0), delete(0)]).await;
}

#[tokio::test]
async fn the_node_sync_takes_a_node_that_left_out_of_the_floating_ip_off_rule() {
    let (bed, source) = bed_with_source("").await;
    let svc = churn_service(0, 0, FLOATING_OFF, 0);
    if let Ok(mut list) = source.0.lock() {
        *list = vec![svc.clone()];
    }
    bed.ensure(&svc).await;
    let agents = node_list(&bed, [false, true]);
    let gone = bed
        .nodes
        .iter()
        .find(|n| !agents.contains(n))
        .and_then(|n| n.metadata.name.clone())
        .expect("an agent left");
    let gone_ips: Vec<String> = ip_labels(&bed, &BTreeMap::new())
        .await
        .into_iter()
        .filter(|(_, label)| *label == format!("node:{gone}"))
        .map(|(ip, _)| ip)
        .collect();
    let rules = serde_json::to_string(&bed.nsg_rules().await).expect("JSON");
    assert!(
        gone_ips.iter().all(|ip| rules.contains(ip.as_str())),
        "the rule names every node first: {rules}"
    );

    bed.lb()
        .update_load_balancer(CLUSTER, &svc, &crate::cluster::refs(&agents))
        .await
        .unwrap_or_else(|e| panic!("update: {e}"));
    let rules = serde_json::to_string(&bed.nsg_rules().await).expect("JSON");
    for ip in &gone_ips {
        assert!(
            !rules.contains(ip.as_str()),
            "{gone} ({ip}) left but stays: {rules}"
        );
    }
}
