//! Basic dynamic public IPs get their address when attached and lose it when detached (issue 9 item 7).

use crate::{CMP, Fake, NET};
use fake_arm::PowerState;
use serde_json::{Value, json};

fn basic_dynamic() -> Value {
    json!({"location":"eastus","sku":{"name":"Basic"},"properties":{"publicIPAllocationMethod":"Dynamic"}})
}

fn has_address(v: &Value) -> bool {
    v["properties"].get("ipAddress").is_some()
}

#[tokio::test]
async fn basic_dynamic_pip_follows_its_lb_frontend() {
    let f = Fake::seeded(0).await;
    let pip = Fake::net("rg", "publicIPAddresses/pip");
    let (s, _, _) = f.put(&pip, NET, basic_dynamic()).await;
    assert_eq!(s, 201);
    let (_, v) = f.get(&pip, NET).await;
    assert_eq!(v["properties"]["provisioningState"], "Succeeded");
    assert!(
        !has_address(&v) && v["properties"].get("ddosSettings").is_none(),
        "{v}"
    );
    let lb = Fake::net("rg", "loadBalancers/lb");
    let (s, _, _) = f
        .put(
            &lb,
            NET,
            json!({"location":"eastus","sku":{"name":"Basic"},"properties":{
                "frontendIPConfigurations":[{"name":"fe","properties":{"publicIPAddress":{"id":pip}}}]}}),
        )
        .await;
    assert_eq!(s, 201);
    let (_, v) = f.get(&pip, NET).await;
    assert!(has_address(&v), "{v}");
    assert_eq!(
        v["properties"]["ddosSettings"]["protectionMode"],
        "VirtualNetworkInherited"
    );
    // Detached: the address is released.
    let (s, h) = f.delete(&lb, NET).await;
    assert_eq!(s, 202);
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    let (_, v) = f.get(&pip, NET).await;
    assert!(!has_address(&v), "{v}");
    // Standard/Static and Basic/Static are allocated at once.
    for (sku, name) in [("Standard", "std"), ("Basic", "static")] {
        let id = Fake::net("rg", &format!("publicIPAddresses/{name}"));
        f.put(&id, NET, json!({"location":"eastus","sku":{"name":sku},"properties":{"publicIPAllocationMethod":"Static"}}))
            .await;
        assert!(has_address(&f.get(&id, NET).await.1), "{sku}");
    }
}

#[tokio::test]
async fn basic_dynamic_pip_on_a_nic_needs_a_vm() {
    let f = Fake::seeded(0).await;
    let pip = Fake::net("rg", "publicIPAddresses/pip");
    f.put(&pip, NET, basic_dynamic()).await;
    let nic = Fake::net("rg", "networkInterfaces/nic");
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    f.put(
        &nic,
        NET,
        json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{
            "subnet":{"id":subnet},"publicIPAddress":{"id":pip}}}]}}),
    )
    .await;
    assert!(!has_address(&f.get(&pip, NET).await.1));
    let vm = Fake::cmp("rg", "virtualMachines/vm");
    f.put(
        &vm,
        CMP,
        json!({"location":"eastus","properties":{"hardwareProfile":{"vmSize":"Standard_D2s_v3"},"networkProfile":{"networkInterfaces":[{"id":nic}]}}}),
    )
    .await;
    assert!(has_address(&f.get(&pip, NET).await.1));
    // Stopped (deallocated) releases the address; running again takes one.
    f.state
        .set_power_state(&vm, PowerState::Deallocated)
        .unwrap();
    assert!(!has_address(&f.get(&pip, NET).await.1));
    f.state.set_power_state(&vm, PowerState::Running).unwrap();
    assert!(has_address(&f.get(&pip, NET).await.1));
    let (s, h) = f.delete(&vm, CMP).await;
    assert_eq!(s, 202);
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    assert!(!has_address(&f.get(&pip, NET).await.1));
}
