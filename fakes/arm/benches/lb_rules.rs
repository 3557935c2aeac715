//! Cost of a load balancer PUT at the per-LB rule limit (1500 load-balancing + inbound NAT rules): the CCM's LB
//! for a cluster with many Service ports gets rewritten whole on every reconcile, so validation and back-reference
//! work must stay near linear in the rule count. Also times a NIC joining a pool that 1500 rules send to (the
//! per-ipconfig backend-port checks). Prints milliseconds per PUT for growing rule counts, so a quadratic step shows
//! up as time growing four-fold when the count doubles.
//!
//! `cargo bench -p fake-arm --bench lb_rules` (or `cargo test -p fake-arm --bench lb_rules` for a debug build).

use fake_arm::{ArmConfig, ArmError, ArmState};
use serde_json::{Value, json};
use std::time::Instant;

const SUB: &str = "/subscriptions/00000000-0000-0000-0000-000000000001";

fn rg() -> String {
    format!("{SUB}/resourceGroups/bench")
}

fn net(path: &str) -> String {
    format!("{}/providers/Microsoft.Network/{path}", rg())
}

fn fixtures(arm: &ArmState) -> Result<(), ArmError> {
    arm.put(&rg(), json!({"location": "eastus"}))?;
    arm.put(
        &net("virtualNetworks/vnet"),
        json!({"location": "eastus", "properties": {
        "addressSpace": {"addressPrefixes": ["10.0.0.0/8"]},
        "subnets": [{"name": "nodes", "properties": {"addressPrefix": "10.1.0.0/16"}}]}}),
    )?;
    arm.put(
        &net("publicIPAddresses/lb-pip"),
        json!({"location": "eastus", "sku": {"name": "Standard"},
               "properties": {"publicIPAllocationMethod": "Static"}}),
    )?;
    Ok(())
}

/// A Standard public LB named `name` with `lb_rules` Tcp rules (distinct ports, one pool, one probe) and
/// `nat_rules` inbound NAT rules.
fn lb_body(name: &str, lb_rules: usize, nat_rules: usize) -> Value {
    let lb = net(&format!("loadBalancers/{name}"));
    let rules: Vec<Value> = (0..lb_rules)
        .map(|i| {
            json!({"name": format!("r{i}"), "properties": {
            "frontendIPConfiguration": {"id": format!("{lb}/frontendIPConfigurations/fe")},
            "backendAddressPool": {"id": format!("{lb}/backendAddressPools/pool")},
            "probe": {"id": format!("{lb}/probes/probe")},
            "protocol": "Tcp", "frontendPort": 1000 + i, "backendPort": 1000 + i}})
        })
        .collect();
    let nats: Vec<Value> = (0..nat_rules)
        .map(|i| {
            json!({"name": format!("nat{i}"), "properties": {
            "frontendIPConfiguration": {"id": format!("{lb}/frontendIPConfigurations/fe")},
            "protocol": "Tcp", "frontendPort": 20000 + i, "backendPort": 22}})
        })
        .collect();
    json!({"location": "eastus", "sku": {"name": "Standard"}, "properties": {
        "frontendIPConfigurations": [{"name": "fe", "properties": {"publicIPAddress": {"id": net("publicIPAddresses/lb-pip")}}}],
        "backendAddressPools": [{"name": "pool"}],
        "probes": [{"name": "probe", "properties": {"protocol": "Tcp", "port": 10256}}],
        "loadBalancingRules": rules,
        "inboundNatRules": nats}})
}

fn time_ms(f: impl FnOnce() -> Result<(), ArmError>) -> Result<f64, ArmError> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64() * 1000.0)
}

fn main() -> Result<(), ArmError> {
    let arm = ArmState::new(ArmConfig::default());
    fixtures(&arm)?;
    for (n, (lb_rules, nat_rules)) in [(375, 0), (750, 0), (1500, 0), (1, 1499)]
        .iter()
        .enumerate()
    {
        let name = format!("lb{n}");
        let body = lb_body(&name, *lb_rules, *nat_rules);
        let ms = time_ms(|| {
            arm.put(&net(&format!("loadBalancers/{name}")), body)
                .map(drop)
        })?;
        println!("LB PUT with {lb_rules:>4} LB rules + {nat_rules:>4} NAT rules: {ms:>8.1} ms");
        arm.delete(&net(&format!("loadBalancers/{name}")))?;
    }
    let lb = net("loadBalancers/big");
    arm.put(&lb, lb_body("big", 1500, 0))?;
    let nic = json!({"location": "eastus", "properties": {"ipConfigurations": [{"name": "ipconfig1", "properties": {
        "subnet": {"id": net("virtualNetworks/vnet/subnets/nodes")},
        "loadBalancerBackendAddressPools": [{"id": format!("{lb}/backendAddressPools/pool")}]}}]}});
    let ms = time_ms(|| arm.put(&net("networkInterfaces/nic"), nic).map(drop))?;
    println!("NIC PUT joining a pool that 1500 rules send to: {ms:>8.1} ms");
    Ok(())
}
