//! Computed defaults real NRP fills in (issue 9 item 8, network part).

use crate::{CMP, Fake, NET};
use serde_json::json;

#[tokio::test]
async fn lb_vnet_and_subnet_defaults() {
    let f = Fake::seeded(0).await;
    let pip = Fake::net("rg", "publicIPAddresses/pip");
    f.state
        .put(&pip, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Static"}}))
        .unwrap();
    let lb = Fake::net("rg", "loadBalancers/lb");
    let (s, _, _) = f
        .put(
            &lb,
            NET,
            json!({"location":"eastus","sku":{"name":"Standard"},"properties":{
                "frontendIPConfigurations":[{"name":"fe","properties":{"publicIPAddress":{"id":pip}}}],
                "backendAddressPools":[{"name":"pool"}]}}),
        )
        .await;
    assert_eq!(s, 201);
    let (_, v) = f.get(&lb, NET).await;
    assert_eq!(v["sku"], json!({"name":"Standard","tier":"Regional"}));
    assert_eq!(
        v["properties"]["frontendIPConfigurations"][0]["properties"]["privateIPAllocationMethod"],
        "Dynamic"
    );
    assert_eq!(
        v["properties"]["backendAddressPools"][0]["properties"]["loadBalancerBackendAddresses"],
        json!([])
    );
    let (_, vnet) = f.get(&Fake::net("rg", "virtualNetworks/vnet"), NET).await;
    assert_eq!(
        vnet["properties"]["privateEndpointVNetPolicies"],
        "Disabled"
    );
    let (_, subnet) = f
        .get(&Fake::net("rg", "virtualNetworks/vnet/subnets/nodes"), NET)
        .await;
    assert_eq!(subnet["properties"]["delegations"], json!([]));
}

#[tokio::test]
async fn nic_has_no_mac_until_a_vm_uses_it() {
    let f = Fake::seeded(0).await;
    let nic = Fake::net("rg", "networkInterfaces/nic");
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let (s, _, v) = f
        .put(
            &nic,
            NET,
            json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet}}}]}}),
        )
        .await;
    assert_eq!(s, 201);
    assert!(v["properties"].get("macAddress").is_none(), "{v}");
    assert!(
        f.get(&nic, NET).await.1["properties"]
            .get("macAddress")
            .is_none()
    );
    let vm = Fake::cmp("rg", "virtualMachines/vm");
    let (s, _, _) = f
        .put(
            &vm,
            CMP,
            json!({"location":"eastus","properties":{"hardwareProfile":{"vmSize":"Standard_D2s_v3"},"networkProfile":{"networkInterfaces":[{"id":nic}]}}}),
        )
        .await;
    assert_eq!(s, 201);
    let (_, v) = f.get(&nic, NET).await;
    let mac = v["properties"]["macAddress"].as_str().unwrap().to_string();
    assert!(mac.starts_with("00-0D-3A-"), "{mac}");
    // A later NIC PUT keeps it.
    let (_, _, v) = f
        .put(
            &nic,
            NET,
            json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet}}}]}}),
        )
        .await;
    assert_eq!(v["properties"]["macAddress"], mac);
}
