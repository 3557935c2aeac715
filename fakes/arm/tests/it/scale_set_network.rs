//! Uniform scale-set network views over HTTPS: per-instance NICs and public IPs, the scale-set-wide NIC and
//! public IP lists (api-version 2018-10-01 under the Compute path), and cross-region reference rejection.

use crate::{CMP, Fake, NET};
use fake_arm::ArmConfig;
use serde_json::{Value, json};

const VMSS_NET: &str = "api-version=2018-10-01";

fn nic_cfg(subnet: &str, pip: Option<Value>) -> Value {
    let mut ipc = json!({"name":"ipc","properties":{"primary":true,"subnet":{"id":subnet}}});
    if let Some(p) = pip {
        ipc["properties"]["publicIPAddressConfiguration"] = p;
    }
    json!([{"name":"nic","properties":{"primary":true,"ipConfigurations":[ipc]}}])
}

#[tokio::test]
async fn instance_public_ips_and_scale_set_wide_lists() {
    let f = Fake::seeded_with(ArmConfig {
        lro_polls_in_progress: 0,
        page_size: 2,
        ..ArmConfig::default()
    })
    .await;
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let vmss = Fake::cmp("rg", "virtualMachineScaleSets/ss");
    let pip_cfg = json!({"name":"pub","properties":{"idleTimeoutInMinutes":15}});
    let body = |cap: u32, pip: Option<Value>| json!({"location":"eastus","sku":{"name":"Standard_D2s_v3","capacity":cap},"properties":{"orchestrationMode":"Uniform","upgradePolicy":{"mode":"Automatic"},"virtualMachineProfile":{"networkProfile":{"networkInterfaceConfigurations":nic_cfg(&subnet, pip)}}}});
    let (s, _, _) = f.put(&vmss, CMP, body(3, Some(pip_cfg))).await;
    assert_eq!(s, 201);

    // One public IP per instance ipconfig, at the Compute path, read with the pinned 2018-10-01 version.
    let ipc1 = format!("{vmss}/virtualMachines/1/networkInterfaces/nic/ipConfigurations/ipc");
    let pip1 = format!("{ipc1}/publicIPAddresses/pub");
    let (s, v) = f.get(&pip1, VMSS_NET).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["id"], pip1);
    assert_eq!(v["properties"]["ipConfiguration"]["id"], ipc1);
    assert_eq!(v["properties"]["idleTimeoutInMinutes"], 15);
    assert_eq!(v["properties"]["publicIPAllocationMethod"], "Dynamic");
    assert!(v["properties"]["ipAddress"].is_string());
    let (s, v) = f.get(&pip1, NET).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("NoRegisteredProviderFound"))
    );
    let (_, nic) = f
        .get(
            &format!("{vmss}/virtualMachines/1/networkInterfaces/nic"),
            VMSS_NET,
        )
        .await;
    assert_eq!(
        nic["properties"]["ipConfigurations"][0]["properties"]["publicIPAddress"]["id"],
        pip1
    );
    // Per-ipconfig public IP list.
    let (s, list) = f.get(&format!("{ipc1}/publicIPAddresses"), VMSS_NET).await;
    assert_eq!(s, 200);
    assert_eq!(list["value"][0]["id"], pip1);

    // Scale-set-wide lists page through every instance in instance order.
    let wide = |t: &str| format!("{vmss}/{t}?{VMSS_NET}");
    for (t, suffix) in [
        ("networkInterfaces", "networkInterfaces/nic"),
        (
            "publicIPAddresses",
            "ipConfigurations/ipc/publicIPAddresses/pub",
        ),
    ] {
        let mut ids = Vec::new();
        let (s, _, mut page) = f.send(reqwest::Method::GET, &wide(t), None, &[]).await;
        assert_eq!(s, 200, "{page}");
        loop {
            ids.extend(
                page["value"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v["id"].as_str().unwrap().to_string()),
            );
            let Some(next) = page["nextLink"].as_str().map(String::from) else {
                break;
            };
            page = f.get_url(&next).await;
        }
        assert_eq!(ids.len(), 3, "{t}: {ids:?}");
        assert!(ids.iter().all(|id| id.ends_with(suffix)), "{t}: {ids:?}");
        assert!(ids[0].contains("/virtualMachines/0/") && ids[2].contains("/virtualMachines/2/"));
    }

    // Dropping the public IP configuration from the model removes the instance public IPs.
    let (s, _, _) = f.put(&vmss, CMP, body(3, None)).await;
    assert_eq!(s, 200);
    assert_eq!(f.get(&pip1, VMSS_NET).await.0, 404);
    let (_, list) = f.get(&format!("{vmss}/publicIPAddresses"), VMSS_NET).await;
    assert_eq!(list["value"], json!([]));
    // Unknown scale set: CRP's missing-parent 404.
    let (s, v) = f
        .get(
            &Fake::cmp("rg", "virtualMachineScaleSets/none/networkInterfaces"),
            VMSS_NET,
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (404, Some("ResourceNotFound"))
    );
}

#[tokio::test]
async fn references_across_regions_are_rejected() {
    let f = Fake::seeded(0).await;
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let nic = Fake::net("rg", "networkInterfaces/nic");
    let (s, _, v) = f
        .put(&nic, NET, json!({"location":"westus","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet}}}]}}))
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("InvalidResourceReference")),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("both resources are in the same region")
    );
    let pip = Fake::net("rg", "publicIPAddresses/pip");
    f.state.put(&pip, json!({"location":"West US","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Static"}})).unwrap();
    let lb = Fake::net("rg", "loadBalancers/lb");
    let err = f.state.put(&lb, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"frontendIPConfigurations":[{"name":"fe","properties":{"publicIPAddress":{"id":pip}}}]}})).unwrap_err();
    assert_eq!(err.code(), "InvalidResourceReference");
    // Same region (display-cased location is normalised) is fine.
    let (s, _, _) = f
        .put(&nic, NET, json!({"location":"East US","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet}}}]}}))
        .await;
    assert_eq!(s, 201);
}
