//! Compute behaviour over HTTPS: uniform scale-set instances, scale-set VM merge PUT, instance views.

use crate::{CMP, Fake, NET};
use fake_arm::{ArmConfig, PowerState};
use serde_json::json;

#[tokio::test]
async fn uniform_scale_set_instances_nics_and_pool_updates() {
    let f = Fake::seeded_with(ArmConfig {
        lro_polls_in_progress: 0,
        page_size: 2,
        ..ArmConfig::default()
    })
    .await;
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let lb = Fake::net("rg", "loadBalancers/lb");
    f.state.put(&lb, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"frontendIPConfigurations":[{"name":"fe","properties":{"subnet":{"id":subnet}}}],"backendAddressPools":[{"name":"pool"}]}})).unwrap();
    let vmss = Fake::cmp("rg", "virtualMachineScaleSets/ss");
    let nic_cfg = |pools: serde_json::Value| json!([{"name":"nic","properties":{"primary":true,"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet},"loadBalancerBackendAddressPools":pools}}]}}]);
    let (s, _, v) = f.put(&vmss, CMP, json!({"location":"eastus","sku":{"name":"Standard_D2s_v3","capacity":3},"properties":{"orchestrationMode":"Uniform","virtualMachineProfile":{"networkProfile":{"networkInterfaceConfigurations":nic_cfg(json!([]))}}}})).await;
    assert_eq!(s, 201);
    assert_eq!(v["etag"], "\"1\"");
    let url = format!("{vmss}/virtualMachines?$expand=instanceView&{CMP}");
    let (s, _, list) = f.send(reqwest::Method::GET, &url, None, &[]).await;
    assert_eq!(s, 200);
    assert_eq!(list["value"].as_array().unwrap().len(), 2);
    assert!(list["nextLink"].is_string());
    assert_eq!(list["value"][0]["name"], "ss_0");
    assert_eq!(
        list["value"][0]["properties"]["instanceView"]["statuses"][1]["code"],
        "PowerState/running"
    );
    let vm0 = format!("{vmss}/virtualMachines/0");
    let nic0 = format!("{vm0}/networkInterfaces/nic");
    let (s, v) = f.get(&nic0, "api-version=2018-10-01").await;
    assert_eq!(s, 200);
    assert_eq!(
        v["properties"]["ipConfigurations"][0]["properties"]["privateIPAddress"],
        "10.0.0.5"
    );
    // CRP merges the VMSS VM PUT: only the network profile is sent, the rest is kept.
    let pool = format!("{lb}/backendAddressPools/pool");
    let (s, h, v) = f.put_raw(&vm0, CMP, json!({"location":"eastus","properties":{"networkProfileConfiguration":{"networkInterfaceConfigurations":nic_cfg(json!([{"id":pool}]))}}})).await;
    assert_eq!(s, 200);
    assert_eq!(v["properties"]["provisioningState"], "Updating");
    assert_eq!(
        v["properties"]["hardwareProfile"]["vmSize"],
        "Standard_D2s_v3"
    );
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    let (_, lbv) = f.get(&lb, NET).await;
    assert_eq!(
        lbv["properties"]["backendAddressPools"][0]["properties"]["backendIPConfigurations"][0]["id"],
        format!("{nic0}/ipConfigurations/ipc")
    );
    // Power state via the admin path shows in instanceView.
    f.state
        .set_power_state(&vm0, PowerState::Deallocated)
        .unwrap();
    let (_, iv) = f.get(&format!("{vm0}/instanceView"), CMP).await;
    assert!(
        iv["statuses"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["code"] == "PowerState/deallocated")
    );
    // Deleting an instance shrinks capacity and frees the pool.
    let (s, _) = f.delete(&vm0, CMP).await;
    assert_eq!(s, 202);
    f.state.delete(&vmss).ok();
    assert_eq!(f.get(&vm0, CMP).await.0, 404);
}

#[tokio::test]
async fn vm_with_nic_blocks_nic_delete_and_missing_parent() {
    let f = Fake::seeded(0).await;
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let nic = Fake::net("rg", "networkInterfaces/nic");
    f.state.put(&nic, json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet}}}]}})).unwrap();
    let vm = Fake::cmp("rg", "virtualMachines/vm");
    f.state.put(&vm, json!({"location":"eastus","properties":{"hardwareProfile":{"vmSize":"Standard_D2s_v3"},"networkProfile":{"networkInterfaces":[{"id":nic}]}}})).unwrap();
    let (_, v) = f.get(&nic, NET).await;
    assert_eq!(v["properties"]["virtualMachine"]["id"], vm);
    let (_, _, v) = f
        .send(reqwest::Method::DELETE, &format!("{nic}?{NET}"), None, &[])
        .await;
    assert_eq!(v["error"]["code"], "NicInUse");
    let (s, v) = f
        .get(
            &Fake::cmp("rg", "virtualMachineScaleSets/none/virtualMachines/0"),
            CMP,
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (404, Some("ParentResourceNotFound"))
    );
    let (_, _, v) = f
        .send(
            reqwest::Method::GET,
            &format!("{vm}?$expand=instanceView&{CMP}"),
            None,
            &[],
        )
        .await;
    assert_eq!(
        v["properties"]["instanceView"]["statuses"][0]["code"],
        "ProvisioningState/succeeded"
    );
}
