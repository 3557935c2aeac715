//! Model-based property test: random create/update/delete sequences never leave a dangling reference and never
//! delete a resource something still references (NICs in a deleted load balancer's pool are detached instead; including the NIC a private link service owns, which goes only with
//! its service). The sequences run twice: through the programmatic API (many cases, cheap) and as HTTPS requests to
//! the router with every long-running operation polled to its end, as an ARM client sends them (fewer cases).

use crate::Fake;
use fake_arm::{ArmConfig, ArmState};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
enum Op {
    PutPip(u8),
    PutLb(u8, Option<u8>),
    PutNic(u8, Option<u8>, Option<u8>),
    PutNsg(u8),
    AttachNsg(Option<u8>),
    /// Uniform scale set `ss{i}` with `capacity` instances (each with a public IP), optionally joined to an LB's
    /// pool and guarded by an NSG in its model.
    PutVmss(u8, u8, Option<u8>, Option<u8>),
    /// Private link service `pls{i}` on LB `lb{l}`'s frontend.
    PutPls(u8, u8),
    Delete(Res),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Res {
    Pip(u8),
    Lb(u8),
    Nic(u8),
    Nsg(u8),
    Vmss(u8),
    Pls(u8),
    /// The NIC NRP created for `pls{i}`.
    PlsNic(u8),
}

fn id(r: Res) -> String {
    match r {
        Res::Pip(i) => Fake::net("rg", &format!("publicIPAddresses/pip{i}")),
        Res::Lb(i) => Fake::net("rg", &format!("loadBalancers/lb{i}")),
        Res::Nic(i) => Fake::net("rg", &format!("networkInterfaces/nic{i}")),
        Res::Nsg(i) => Fake::net("rg", &format!("networkSecurityGroups/nsg{i}")),
        Res::Vmss(i) => Fake::cmp("rg", &format!("virtualMachineScaleSets/ss{i}")),
        Res::Pls(i) | Res::PlsNic(i) => Fake::net("rg", &format!("privateLinkServices/pls{i}")),
    }
}

fn op() -> impl Strategy<Value = Op> {
    let n = 0u8..3;
    prop_oneof![
        n.clone().prop_map(Op::PutPip),
        (n.clone(), proptest::option::of(n.clone())).prop_map(|(a, b)| Op::PutLb(a, b)),
        (
            n.clone(),
            proptest::option::of(n.clone()),
            proptest::option::of(n.clone())
        )
            .prop_map(|(a, b, c)| Op::PutNic(a, b, c)),
        n.clone().prop_map(Op::PutNsg),
        proptest::option::of(n.clone()).prop_map(Op::AttachNsg),
        (
            0u8..2,
            0u8..3,
            proptest::option::of(n.clone()),
            proptest::option::of(n.clone())
        )
            .prop_map(|(a, c, l, g)| Op::PutVmss(a, c, l, g)),
        (0u8..2, n.clone()).prop_map(|(p, l)| Op::PutPls(p, l)),
        prop_oneof![
            n.clone().prop_map(Res::Pip),
            n.clone().prop_map(Res::Lb),
            n.clone().prop_map(Res::Nic),
            n.clone().prop_map(Res::Nsg),
            (0u8..2).prop_map(Res::Vmss),
            (0u8..2).prop_map(Res::Pls),
            (0u8..2).prop_map(Res::PlsNic)
        ]
        .prop_map(Op::Delete),
    ]
}

/// Simple model: which resources exist and what each references.
#[derive(Default)]
struct Model {
    refs: BTreeMap<Res, BTreeSet<Res>>,
    subnet_nsg: Option<u8>,
}

impl Model {
    /// `true` when something blocks deleting `r`. NICs in a load balancer's pool do not: deleting the LB detaches
    /// them.
    fn referenced(&self, r: Res) -> bool {
        self.refs
            .iter()
            .any(|(k, t)| t.contains(&r) && !(matches!(r, Res::Lb(_)) && matches!(k, Res::Nic(_))))
            || matches!(r, Res::Nsg(i) if self.subnet_nsg == Some(i))
    }
}

fn every_reference_resolves(state: &ArmState) {
    let snapshot = state.export();
    for e in snapshot["entries"].as_array().unwrap() {
        let mut ids = Vec::new();
        collect_ids(&e["doc"], &mut ids, false);
        for target in ids {
            assert!(
                state.get(&target).is_ok(),
                "dangling reference to {target} from {}",
                e["doc"]["id"]
            );
        }
    }
}

fn collect_ids(v: &Value, out: &mut Vec<String>, nested: bool) {
    match v {
        Value::Object(m) => {
            if nested
                && m.len() == 1
                && let Some(Value::String(s)) = m.get("id")
            {
                out.push(s.clone());
            }
            for (_, c) in m {
                collect_ids(c, out, true);
            }
        }
        Value::Array(a) => a.iter().for_each(|c| collect_ids(c, out, true)),
        _ => {}
    }
}

fn apply(arm: &dyn Writes, state: &ArmState, model: &mut Model, op: &Op) {
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    match op {
        Op::PutPip(i) => {
            let r = arm.put(&id(Res::Pip(*i)), json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Static"}}));
            assert!(r.is_ok(), "{r:?}");
            model.refs.entry(Res::Pip(*i)).or_default();
        }
        Op::PutLb(i, pip) => {
            let fe = match pip {
                Some(p) => {
                    json!({"name":"fe","properties":{"publicIPAddress":{"id":id(Res::Pip(*p))}}})
                }
                None => json!({"name":"fe","properties":{"subnet":{"id":subnet}}}),
            };
            let r = arm.put(&id(Res::Lb(*i)), json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"frontendIPConfigurations":[fe],"backendAddressPools":[{"name":"pool"}]}}));
            let pip_ok = pip.is_none_or(|p| {
                model.refs.contains_key(&Res::Pip(p))
                    && !model
                        .refs
                        .iter()
                        .any(|(k, t)| *k != Res::Lb(*i) && t.contains(&Res::Pip(p)))
            });
            assert_eq!(r.is_ok(), pip_ok, "{op:?} -> {r:?}");
            if r.is_ok() {
                model
                    .refs
                    .insert(Res::Lb(*i), pip.map(Res::Pip).into_iter().collect());
            }
        }
        Op::PutNic(i, lb, pip) => {
            let mut ipc = json!({"name":"ipc","properties":{"subnet":{"id":subnet}}});
            if let Some(l) = lb {
                ipc["properties"]["loadBalancerBackendAddressPools"] =
                    json!([{"id": format!("{}/backendAddressPools/pool", id(Res::Lb(*l)))}]);
            }
            if let Some(p) = pip {
                ipc["properties"]["publicIPAddress"] = json!({"id": id(Res::Pip(*p))});
            }
            let r = arm.put(
                &id(Res::Nic(*i)),
                json!({"location":"eastus","properties":{"ipConfigurations":[ipc]}}),
            );
            let lb_ok = lb.is_none_or(|l| model.refs.contains_key(&Res::Lb(l)));
            let pip_ok = pip.is_none_or(|p| {
                model.refs.contains_key(&Res::Pip(p))
                    && !model
                        .refs
                        .iter()
                        .any(|(k, t)| *k != Res::Nic(*i) && t.contains(&Res::Pip(p)))
            });
            assert_eq!(r.is_ok(), lb_ok && pip_ok, "{op:?} -> {r:?}");
            if r.is_ok() {
                let mut t = BTreeSet::new();
                t.extend(lb.map(Res::Lb));
                t.extend(pip.map(Res::Pip));
                model.refs.insert(Res::Nic(*i), t);
            }
        }
        Op::PutNsg(i) => {
            assert!(
                arm.put(&id(Res::Nsg(*i)), json!({"location":"eastus"}))
                    .is_ok()
            );
            model.refs.entry(Res::Nsg(*i)).or_default();
        }
        Op::AttachNsg(n) => {
            let mut props = json!({"addressPrefix":"10.0.0.0/24"});
            if let Some(n) = n {
                props["networkSecurityGroup"] = json!({"id": id(Res::Nsg(*n))});
            }
            let r = arm.put(&subnet, json!({"properties": props}));
            let ok = n.is_none_or(|n| model.refs.contains_key(&Res::Nsg(n)));
            assert_eq!(r.is_ok(), ok, "{op:?} -> {r:?}");
            if r.is_ok() {
                model.subnet_nsg = *n;
            }
        }
        Op::PutVmss(i, capacity, lb, nsg) => {
            let mut ipc = json!({"name":"ipc","properties":{"primary":true,"subnet":{"id":subnet},
                "publicIPAddressConfiguration":{"name":"pub","properties":{"idleTimeoutInMinutes":4}}}});
            if let Some(l) = lb {
                ipc["properties"]["loadBalancerBackendAddressPools"] =
                    json!([{"id": format!("{}/backendAddressPools/pool", id(Res::Lb(*l)))}]);
            }
            let mut nic =
                json!({"name":"nic","properties":{"primary":true,"ipConfigurations":[ipc]}});
            if let Some(g) = nsg {
                nic["properties"]["networkSecurityGroup"] = json!({"id": id(Res::Nsg(*g))});
            }
            let r = arm.put(
                &id(Res::Vmss(*i)),
                json!({"location":"eastus","sku":{"name":"Standard_D2s_v3","capacity":capacity},"properties":{
                    "orchestrationMode":"Uniform","upgradePolicy":{"mode":"Automatic"},
                    "virtualMachineProfile":{"networkProfile":{"networkInterfaceConfigurations":[nic]}}}}),
            );
            let ok = lb.is_none_or(|l| model.refs.contains_key(&Res::Lb(l)))
                && nsg.is_none_or(|g| model.refs.contains_key(&Res::Nsg(g)));
            assert_eq!(r.is_ok(), ok, "{op:?} -> {r:?}");
            if r.is_ok() {
                let mut t = BTreeSet::new();
                t.extend(lb.map(Res::Lb));
                t.extend(nsg.map(Res::Nsg));
                model.refs.insert(Res::Vmss(*i), t);
                let pips = state
                    .list(&format!("{}/publicIPAddresses", id(Res::Vmss(*i))))
                    .unwrap();
                assert_eq!(
                    pips.len(),
                    usize::from(*capacity),
                    "one public IP per instance"
                );
            }
        }
        Op::PutPls(i, l) => {
            let fe = format!("{}/frontendIPConfigurations/fe", id(Res::Lb(*l)));
            let pls_subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/pls");
            let r = arm.put(
                &id(Res::Pls(*i)),
                json!({"location":"eastus","properties":{"loadBalancerFrontendIpConfigurations":[{"id":fe}],
                    "ipConfigurations":[{"name":"nat","properties":{"subnet":{"id":pls_subnet}}}]}}),
            );
            let ok = model.refs.contains_key(&Res::Lb(*l));
            assert_eq!(r.is_ok(), ok, "{op:?} -> {r:?}");
            if let Ok(pls) = r {
                let nic = state.get(pls_nic(&pls)).unwrap();
                assert_eq!(nic["properties"]["privateLinkService"]["id"], pls["id"]);
                model
                    .refs
                    .insert(Res::Pls(*i), BTreeSet::from([Res::Lb(*l)]));
            }
        }
        Op::Delete(Res::PlsNic(i)) => {
            if model.refs.contains_key(&Res::Pls(*i)) {
                let pls = state.get(&id(Res::Pls(*i))).unwrap();
                let r = arm.delete(pls_nic(&pls));
                assert!(r.is_err(), "deleted the NIC of pls{i} on its own");
            }
        }
        Op::Delete(Res::Pls(i)) => {
            let nic = state
                .get(&id(Res::Pls(*i)))
                .ok()
                .map(|p| pls_nic(&p).to_string());
            assert!(arm.delete(&id(Res::Pls(*i))).is_ok());
            model.refs.remove(&Res::Pls(*i));
            if let Some(nic) = nic {
                assert!(state.get(&nic).is_err(), "the NIC goes with its PLS");
            }
        }
        Op::Delete(res) => {
            let exists = model.refs.contains_key(res);
            let r = arm.delete(&id(*res));
            if exists && model.referenced(*res) {
                assert!(r.is_err(), "deleted in-use {res:?}");
            } else {
                assert!(r.is_ok(), "{res:?}: {r:?}");
                model.refs.remove(res);
                for t in model.refs.values_mut() {
                    t.remove(res);
                }
            }
        }
    }
}

fn pls_nic(pls: &Value) -> &str {
    pls["properties"]["networkInterfaces"][0]["id"]
        .as_str()
        .unwrap_or_default()
}

/// Where a sequence's writes go; failures carry the status and error for the assertion messages.
trait Writes {
    fn put(&self, id: &str, body: Value) -> Result<Value, String>;
    fn delete(&self, id: &str) -> Result<(), String>;
}

impl Writes for ArmState {
    fn put(&self, id: &str, body: Value) -> Result<Value, String> {
        ArmState::put(self, id, body).map_err(|e| format!("{e:?}"))
    }

    fn delete(&self, id: &str) -> Result<(), String> {
        ArmState::delete(self, id).map_err(|e| format!("{e:?}"))
    }
}

/// HTTPS requests to a served fake, each write's operation polled to its end before the next request.
struct OverHttps {
    rt: tokio::runtime::Runtime,
    fake: Fake,
}

fn api_of(id: &str) -> &'static str {
    if id.contains("/Microsoft.Compute/") {
        crate::CMP
    } else {
        crate::NET
    }
}

impl OverHttps {
    /// Polls the operation a write answered with (if any) and fails unless it succeeded.
    async fn settle(&self, headers: &reqwest::header::HeaderMap) -> Result<(), String> {
        let Some(op) = headers
            .get("azure-asyncoperation")
            .and_then(|o| o.to_str().ok())
        else {
            return Ok(());
        };
        let (status, _) = self.fake.poll(op).await;
        if status["status"] == "Succeeded" {
            Ok(())
        } else {
            Err(format!("operation ended {status}"))
        }
    }
}

impl Writes for OverHttps {
    fn put(&self, id: &str, body: Value) -> Result<Value, String> {
        self.rt.block_on(async {
            let (status, headers, reply) = self.fake.put_raw(id, api_of(id), body).await;
            if !(200..300).contains(&status) {
                return Err(format!("{status} {reply}"));
            }
            self.settle(&headers).await?;
            let (status, now) = self.fake.get(id, api_of(id)).await;
            assert_eq!(status, 200, "GET after a successful PUT: {now}");
            Ok(now)
        })
    }

    fn delete(&self, id: &str) -> Result<(), String> {
        self.rt.block_on(async {
            let (status, headers, reply) = self
                .fake
                .send(
                    reqwest::Method::DELETE,
                    &format!("{id}?{}", api_of(id)),
                    None,
                    &[],
                )
                .await;
            if !(200..300).contains(&status) {
                return Err(format!("{status} {reply}"));
            }
            self.settle(&headers).await
        })
    }
}

/// The resource group and VNet every sequence starts from.
fn seed(state: &ArmState) {
    state
        .put(&Fake::rg_path("rg"), json!({"location":"eastus"}))
        .unwrap();
    state.put(&Fake::net("rg", "virtualNetworks/vnet"), json!({"location":"eastus","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"subnets":[{"name":"nodes","properties":{"addressPrefix":"10.0.0.0/24"}},
        {"name":"pls","properties":{"addressPrefix":"10.0.1.0/24","privateLinkServiceNetworkPolicies":"Disabled"}}]}})).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
    #[test]
    fn random_sequences_over_https_keep_references_intact(ops in proptest::collection::vec(op(), 1..30)) {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let fake = rt.block_on(Fake::start(ArmConfig::default()));
        seed(&fake.state);
        let arm = OverHttps { rt, fake };
        let mut model = Model::default();
        for op in &ops {
            apply(&arm, &arm.fake.state, &mut model, op);
            every_reference_resolves(&arm.fake.state);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn random_sequences_keep_references_intact(ops in proptest::collection::vec(op(), 1..30)) {
        let state = ArmState::new(ArmConfig::default());
        seed(&state);
        let mut model = Model::default();
        for op in &ops {
            apply(&state, &state, &mut model, op);
            every_reference_resolves(&state);
        }
        // Snapshot round trip keeps everything.
        let before = state.export();
        let copy = ArmState::new(ArmConfig::default());
        copy.import(before.clone()).unwrap();
        prop_assert_eq!(copy.export(), before);
    }
}
