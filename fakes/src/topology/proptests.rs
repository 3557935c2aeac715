//! Property tests: arbitrary YAML never panics the loader, and every valid generated topology seeds into
//! fake ARM with no dangling reference and no orphaned NIC or public IP.

use super::{load_str, seed};
use fake_arm::{ArmConfig, ArmState};
use proptest::prelude::*;
use serde_json::Value;

/// Field names and values the loader knows, mixed with junk, so random files hit deep validation paths.
fn fragment() -> impl Strategy<Value = String> {
    let keys = prop::sample::select(vec![
        "name",
        "cidr",
        "zones",
        "zone",
        "instances",
        "count",
        "privateIp",
        "subnet",
        "mode",
        "powerState",
        "faultDomain",
        "availabilitySet",
        "backendPools",
        "bogus",
        "size",
        "tags",
    ]);
    let values = prop::sample::select(vec![
        "a",
        "0",
        "4",
        "-1",
        "10.0.0.5",
        "10.0.0.0/33",
        "[1, 2]",
        "Flexible",
        "deallocated",
        "{}",
        "[]",
        "~",
        "\"x y\"",
        "Standard_D2s_v3",
        "1001",
    ]);
    prop::collection::vec((keys, values), 0..6).prop_map(|kv| {
        kv.into_iter()
            .map(|(k, v)| format!("    {k}: {v}\n"))
            .collect()
    })
}

fn base(subnet: &str) -> String {
    format!(
        "tenantId: 72f988bf-86f1-41af-91ab-2d7cd011db47\nsubscriptionId: 0b1f6471-1bf0-4dda-aec3-111122223333\nlocation: eastus\nresourceGroups:\n  node:\n    name: rg\nnetwork:\n  vnet:\n    name: vnet\n    addressSpace: [10.0.0.0/16]\n    subnets:\n      - name: nodes\n        cidr: {subnet}\n  securityGroup: nsg\n  routeTable: rt\n"
    )
}

/// A valid topology: availability-set VMs, standalone VMs, uniform and flexible pools, LB pools.
fn valid_topology() -> impl Strategy<Value = String> {
    (0u32..3, 0u32..3, 0u32..4, 0u32..4, prop::sample::subsequence(vec![1u32, 2, 3], 0..=3), any::<bool>(), any::<bool>()).prop_map(|(avset_vms, solo, uniform, flex, zones, stopped, lb)| {
        let mut y = base("10.0.0.0/24");
        if lb {
            y.push_str("loadBalancers:\n  - name: kubernetes\n    frontends:\n      - name: outbound\n        publicIp: {}\n    backendPools: [kubernetes]\n");
        }
        let pools = if lb { "    backendPools: [kubernetes/kubernetes]\n" } else { "" };
        y.push_str("availabilitySets:\n  - name: as1\n    faultDomains: 3\n");
        y.push_str(if avset_vms + solo == 0 { "vms: []\n" } else { "vms:\n" });
        if avset_vms > 0 {
            y.push_str(&format!("  - name: as-vm\n    count: {avset_vms}\n    availabilitySet: as1\n{pools}"));
        }
        if solo > 0 {
            let state = if stopped { "deallocated" } else { "running" };
            y.push_str(&format!("  - name: solo\n    count: {solo}\n    powerState: {state}\n    publicIp:\n      sku: Basic\n"));
        }
        let zones = format!("[{}]", zones.iter().map(u32::to_string).collect::<Vec<_>>().join(", "));
        y.push_str(&format!("scaleSets:\n  - name: uni\n    instances: {uniform}\n    zones: {zones}\n{pools}  - name: flex\n    mode: Flexible\n    instances: {flex}\n    zones: {zones}\n{pools}"));
        y
    })
}

/// Every `{"id": ...}` reference inside `properties` of `doc`.
fn references(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if m.len() == 1
                && let Some(Value::String(id)) = m.get("id")
            {
                out.push(id.clone());
            }
            m.values().for_each(|x| references(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| references(x, out)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_files_never_panic(vm in fragment(), set in fragment(), subnet in prop::sample::select(vec!["10.0.0.0/24", "10.0.0.0/30", "x", "10.1.0.0/24"]), junk in "[ -~\n]{0,40}") {
        let text = format!("{}vms:\n  - name: v\n{vm}scaleSets:\n  - name: s\n    instances: 1\n{set}", base(subnet));
        let _ = load_str(&text, "random.yaml");
        let _ = load_str(&junk, "junk.yaml");
        let _ = load_str(&format!("{}{junk}", base("10.0.0.0/24")), "tail.yaml");
    }

    #[test]
    fn valid_topologies_seed_without_dangling_references(text in valid_topology()) {
        let plan = load_str(&text, "generated.yaml").map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let arm = ArmState::new(ArmConfig::default());
        let cloud = seed(&plan, &arm).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(cloud.nodes.len(), plan.node_count());
        let export = arm.export();
        let docs: Vec<&Value> = export["entries"].as_array().into_iter().flatten().map(|e| &e["doc"]).collect();
        for d in &docs {
            let mut refs = Vec::new();
            references(&d["properties"], &mut refs);
            for r in refs {
                // Managed identities are not modelled as ARM resources by the fake.
                if r.to_ascii_lowercase().contains("/microsoft.managedidentity/") { continue; }
                prop_assert!(arm.get(&r).is_ok(), "{} references missing {}", d["id"], r);
            }
        }
        let users: Vec<String> = docs.iter().flat_map(|d| { let mut r = Vec::new(); references(d, &mut r); r }).map(|r| r.to_ascii_lowercase()).collect();
        for d in docs.iter().filter(|d| matches!(d["type"].as_str(), Some("Microsoft.Network/networkInterfaces" | "Microsoft.Network/publicIPAddresses"))) {
            let id = d["id"].as_str().unwrap_or_default().to_ascii_lowercase();
            prop_assert!(users.iter().any(|u| u == &id || u.starts_with(&format!("{id}/"))), "orphan {}", id);
        }
    }
}
