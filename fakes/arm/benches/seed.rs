//! Seeding throughput of the fake ARM through its programmatic API (the path `azure-fakes` topology seeding
//! takes): one VNet, one load balancer with a backend pool, then standalone NICs that join the subnet, the pool
//! and an NSG, then a uniform scale set whose instance NICs do the same. Prints NICs/s per batch, so a cost that
//! grows with the number of NICs already in the subnet or pool shows up as falling rates.
//!
//! `cargo bench -p fake-arm --bench seed` (set `SEED_NICS` to change the NIC count, default 1000).

use fake_arm::{ArmConfig, ArmState};
use serde_json::json;
use std::time::Instant;

const SUB: &str = "/subscriptions/00000000-0000-0000-0000-000000000001";

fn rg() -> String {
    format!("{SUB}/resourceGroups/bench")
}

fn net(path: &str) -> String {
    format!("{}/providers/Microsoft.Network/{path}", rg())
}

fn fixtures(arm: &ArmState) -> Result<(), fake_arm::ArmError> {
    arm.put(&rg(), json!({"location": "eastus"}))?;
    arm.put(
        &net("networkSecurityGroups/nsg"),
        json!({"location": "eastus"}),
    )?;
    arm.put(
        &net("virtualNetworks/vnet"),
        json!({"location": "eastus", "properties": {
        "addressSpace": {"addressPrefixes": ["10.0.0.0/8"]},
        "subnets": [
            {"name": "nics", "properties": {"addressPrefix": "10.1.0.0/16"}},
            {"name": "vmss", "properties": {"addressPrefix": "10.2.0.0/16"}}
        ]}}),
    )?;
    arm.put(
        &net("publicIPAddresses/lb-pip"),
        json!({"location": "eastus", "sku": {"name": "Standard"},
               "properties": {"publicIPAllocationMethod": "Static"}}),
    )?;
    arm.put(
        &net("loadBalancers/kubernetes"),
        json!({"location": "eastus", "sku": {"name": "Standard"}, "properties": {
            "frontendIPConfigurations": [{"name": "fe", "properties": {"publicIPAddress": {"id": net("publicIPAddresses/lb-pip")}}}],
            "backendAddressPools": [{"name": "kubernetes"}]}}),
    )?;
    Ok(())
}

fn nic_body(subnet: &str) -> serde_json::Value {
    json!({"location": "eastus", "properties": {
    "networkSecurityGroup": {"id": net("networkSecurityGroups/nsg")},
    "ipConfigurations": [{"name": "ipconfig1", "properties": {
        "primary": true,
        "subnet": {"id": subnet},
        "loadBalancerBackendAddressPools": [{"id": net("loadBalancers/kubernetes/backendAddressPools/kubernetes")}]
    }}]}})
}

fn scale_set_body(capacity: usize) -> serde_json::Value {
    json!({"location": "eastus", "sku": {"name": "Standard_D2s_v3", "capacity": capacity}, "properties": {
    "orchestrationMode": "Uniform", "upgradePolicy": {"mode": "Manual"},
    "virtualMachineProfile": {"networkProfile": {"networkInterfaceConfigurations": [{"name": "nic", "properties": {
        "primary": true,
        "networkSecurityGroup": {"id": net("networkSecurityGroups/nsg")},
        "ipConfigurations": [{"name": "ipc", "properties": {
            "primary": true,
            "subnet": {"id": net("virtualNetworks/vnet/subnets/vmss")},
            "loadBalancerBackendAddressPools": [{"id": net("loadBalancers/kubernetes/backendAddressPools/kubernetes")}]
        }}]}}]}}}})
}

fn main() -> Result<(), fake_arm::ArmError> {
    let total: usize = std::env::var("SEED_NICS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let batch = (total / 4).max(1);
    let arm = ArmState::new(ArmConfig::default());
    fixtures(&arm)?;
    let subnet = net("virtualNetworks/vnet/subnets/nics");
    let body = nic_body(&subnet);
    let start = Instant::now();
    let mut done = 0;
    while done < total {
        let n = batch.min(total - done);
        let t = Instant::now();
        for i in done..done + n {
            arm.put(&net(&format!("networkInterfaces/nic-{i}")), body.clone())?;
        }
        done += n;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "standalone NICs {:>5}..{:<5} {:>9.0} NICs/s",
            done - n,
            done,
            n as f64 / secs
        );
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "standalone NICs: {total} in {secs:.3} s ({:.0} NICs/s)",
        total as f64 / secs
    );

    let vmss = format!(
        "{}/providers/Microsoft.Compute/virtualMachineScaleSets/ss",
        rg()
    );
    let start = Instant::now();
    for step in 1..=4 {
        let t = Instant::now();
        arm.put(&vmss, scale_set_body(batch * step))?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "scale set instances {:>5}..{:<5} {:>9.0} instances/s",
            batch * (step - 1),
            batch * step,
            batch as f64 / secs
        );
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "scale set: {} instances in {secs:.3} s ({:.0} instances/s)",
        batch * 4,
        (batch * 4) as f64 / secs
    );
    let pool = arm.get(&net(
        "loadBalancers/kubernetes/backendAddressPools/kubernetes",
    ))?;
    let members = pool["properties"]["backendIPConfigurations"]
        .as_array()
        .map_or(0, Vec::len);
    println!("backend pool members: {members}");
    Ok(())
}
