//! Compute RP fidelity through the real binary over HTTPS: the CCM's sparse scale-set PUT is an update that keeps
//! every instance, and write-only secrets never leave the fake (ARM answers or `/admin/state`).

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{Session, topology_preamble};

const RG: &str = "crp-rg";
const VMSS: &str = "Microsoft.Compute/virtualMachineScaleSets/pool-vmss";

/// A zonal uniform scale set with tags and a system identity behind the cluster LB, plus an internal LB whose
/// pool the CCM adds to the scale-set model (the first internal Service of a cluster).
fn topology() -> String {
    format!(
        "{}network:
  vnet:
    name: crp-vnet
    addressSpace: [10.224.0.0/12]
    subnets:
      - name: crp-subnet
        cidr: 10.224.0.0/16
loadBalancers:
  - name: kubernetes
    frontends:
      - name: outbound
        publicIp: {{}}
    backendPools: [kubernetes]
  - name: kubernetes-internal
    frontends:
      - name: internal
        subnet: crp-subnet
    backendPools: [kubernetes]
scaleSets:
  - name: pool-vmss
    instances: 3
    zones: [1, 2]
    backendPools: [kubernetes/kubernetes]
    tags:
      aks-managed-poolName: pool
    identity:
      systemAssigned: true
",
        topology_preamble(RG)
    )
}

async fn instances(s: &Session, vmss: &str) -> Vec<Value> {
    let list = s.get(&format!("{vmss}/virtualMachines")).await;
    assert_eq!(list.status, 200, "{}", list.body);
    list.body["value"].as_array().expect("value").clone()
}

/// The production CCM's backend-pool update: `PUT` with `If-Match` and only location, etag and the network
/// profile. Capacity, zones, tags, identity and the rest of the model stay; every instance and its NIC survive.
#[tokio::test]
async fn sparse_scale_set_put_adds_the_pool_and_keeps_every_instance() {
    let s = Session::with_topology(&topology(), RG, &[]).await;
    let vmss = s.id(VMSS);
    let before = s.get(&vmss).await.body;
    let instances_before = instances(&s, &vmss).await;
    assert_eq!(instances_before.len(), 3);
    let internal_pool =
        s.id("Microsoft.Network/loadBalancers/kubernetes-internal/backendAddressPools/kubernetes");
    let mut network = before["properties"]["virtualMachineProfile"]["networkProfile"].clone();
    network["networkInterfaceConfigurations"][0]["properties"]["ipConfigurations"][0]["properties"]
        ["loadBalancerBackendAddressPools"]
        .as_array_mut()
        .expect("pools")
        .push(json!({"id": internal_pool}));
    let etag = before["etag"].as_str().expect("etag").to_string();
    let sparse = json!({"location": before["location"], "etag": etag,
        "properties": {"virtualMachineProfile": {"networkProfile": network}}});
    let response = s
        .fake
        .arm_with(
            &s.token,
            Method::PUT,
            &format!("{vmss}?api-version=2025-04-01"),
            Some(sparse),
            &[("If-Match", &etag)],
        )
        .await;
    assert_eq!(response.status(), 200);
    let operation = crate::support::header(&response, "azure-asyncoperation");
    assert_eq!(
        s.fake.poll(&s.token, &operation).await["status"],
        "Succeeded"
    );

    let after = s.get(&vmss).await.body;
    for field in ["sku", "zones", "tags", "identity"] {
        assert_eq!(after[field], before[field], "{field}");
    }
    assert_eq!(after["sku"]["capacity"], 3);
    for part in ["osProfile", "storageProfile"] {
        assert_eq!(
            after["properties"]["virtualMachineProfile"][part],
            before["properties"]["virtualMachineProfile"][part],
            "{part}"
        );
    }
    let pools = &after["properties"]["virtualMachineProfile"]["networkProfile"]["networkInterfaceConfigurations"]
        [0]["properties"]["ipConfigurations"][0]["properties"]["loadBalancerBackendAddressPools"];
    assert!(
        pools
            .as_array()
            .expect("pools")
            .iter()
            .any(|p| p["id"] == internal_pool.as_str()),
        "{pools}"
    );
    let instances_after = instances(&s, &vmss).await;
    assert_eq!(instances_after.len(), 3);
    for (b, a) in instances_before.iter().zip(&instances_after) {
        assert_eq!(a["properties"]["vmId"], b["properties"]["vmId"]);
        let nic = format!(
            "{}/networkInterfaces/pool-vmss-nic?api-version=2018-10-01",
            a["id"].as_str().expect("id")
        );
        let reply = s.fake.arm(&s.token, Method::GET, &nic, None).await;
        assert_eq!(reply.status(), 200, "{nic}");
    }
}

fn assert_secret_free(what: &str, v: &Value) {
    let text = v.to_string();
    for secret in [
        "adminPassword",
        "S3cret!pass",
        "customData",
        "protectedSettings",
        "echo secret",
    ] {
        assert!(!text.contains(secret), "{what}: {secret} leaked");
    }
}

/// A scale set created with a password, custom data and a protected extension setting: no ARM answer and no
/// `/admin/state` snapshot holds them, and the snapshot still restores.
#[tokio::test]
async fn write_only_secrets_never_leave_the_binary() {
    let s = Session::with_topology(&topology(), RG, &[]).await;
    let vmss = s.id("Microsoft.Compute/virtualMachineScaleSets/secret-vmss");
    let subnet = s.id("Microsoft.Network/virtualNetworks/crp-vnet/subnets/crp-subnet");
    let body = json!({"location": "westeurope", "sku": {"name": "Standard_D2s_v3", "capacity": 1},
        "identity": {"type": "None"},
        "properties": {"orchestrationMode": "Uniform", "virtualMachineProfile": {
            "osProfile": {"computerNamePrefix": "secret", "adminUsername": "azureuser", "adminPassword": "S3cret!pass", "customData": "ZWNobw=="},
            "extensionProfile": {"extensions": [{"name": "cse", "properties": {"publisher": "Microsoft.Azure.Extensions",
                "type": "CustomScript", "typeHandlerVersion": "2.0", "protectedSettings": {"commandToExecute": "echo secret"}}}]},
            "networkProfile": {"networkInterfaceConfigurations": [{"name": "nic", "properties": {"primary": true,
                "ipConfigurations": [{"name": "ipc", "properties": {"subnet": {"id": subnet}}}]}}]}}}});
    let created = s.send(Method::PUT, &vmss, Some(body)).await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_secret_free("PUT answer", &created.body);
    assert!(created.body.get("identity").is_none(), "{}", created.body);
    s.settle(&created).await;
    assert_secret_free("GET", &s.get(&vmss).await.body);
    let collection = s.id("Microsoft.Compute/virtualMachineScaleSets");
    assert_secret_free("list", &s.get(&collection).await.body);
    for inst in instances(&s, &vmss).await {
        assert_secret_free("instance", &inst);
    }
    let (status, state) = s.fake.admin(Method::GET, "/admin/state", None).await;
    assert_eq!(status, 200);
    assert_secret_free("/admin/state", &state);
    let (status, _) = s.fake.admin(Method::PUT, "/admin/state", Some(state)).await;
    assert_eq!(status, 204);
    let restored = s.get(&vmss).await;
    assert_eq!(restored.status, 200);
    assert_eq!(
        restored.body["properties"]["virtualMachineProfile"]["osProfile"]["adminUsername"],
        "azureuser"
    );
}
