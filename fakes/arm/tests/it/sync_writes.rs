//! Writes that real NRP/CRP complete before answering: NIC PUTs, and VM PUTs that leave the model unchanged.

use crate::{CMP, Fake, NET};
use serde_json::json;

/// Operations stay InProgress for two polls, so an asynchronous answer would be visible.
const POLLS_IN_PROGRESS: u32 = 2;

fn no_operation_headers(h: &reqwest::header::HeaderMap) -> bool {
    ["azure-asyncoperation", "location", "retry-after"]
        .iter()
        .all(|n| h.get(*n).is_none())
}

#[tokio::test]
async fn nic_put_is_synchronous() {
    let f = Fake::seeded(POLLS_IN_PROGRESS).await;
    let nic = Fake::net("rg", "networkInterfaces/nic");
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let body = json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet}}}]}});
    let (s, h, v) = f.put_raw(&nic, NET, body.clone()).await;
    assert_eq!(s, 201);
    assert_eq!(v["properties"]["provisioningState"], "Succeeded");
    assert!(no_operation_headers(&h), "{h:?}");
    let (_, v) = f.get(&nic, NET).await;
    assert_eq!(v["properties"]["provisioningState"], "Succeeded");
    let (s, h, v) = f.put_raw(&nic, NET, body).await;
    assert_eq!(
        (s, v["properties"]["provisioningState"].as_str()),
        (200, Some("Succeeded"))
    );
    assert!(no_operation_headers(&h), "{h:?}");
    // A load balancer PUT still runs as an operation.
    let (s, h, v) = f
        .put_raw(
            &Fake::net("rg", "loadBalancers/lb"),
            NET,
            json!({"location":"eastus","properties":{}}),
        )
        .await;
    assert_eq!(
        (s, v["properties"]["provisioningState"].as_str()),
        (201, Some("Updating"))
    );
    assert!(h.get("azure-asyncoperation").is_some());
}

#[tokio::test]
async fn vm_put_leaving_the_model_unchanged_is_synchronous() {
    let f = Fake::seeded(POLLS_IN_PROGRESS).await;
    let nic = Fake::net("rg", "networkInterfaces/nic");
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    f.state
        .put(&nic, json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{"subnet":{"id":subnet}}}]}}))
        .unwrap();
    let vm = Fake::cmp("rg", "virtualMachines/vm");
    let body = |size: &str| json!({"location":"eastus","properties":{"hardwareProfile":{"vmSize":size},"networkProfile":{"networkInterfaces":[{"id":nic}]}}});
    let (s, h, created) = f.put(&vm, CMP, body("Standard_D2s_v3")).await;
    assert_eq!(s, 201);
    assert!(h.get("azure-asyncoperation").is_some());
    let (_, stored) = f.get(&vm, CMP).await;
    // The same model again: 200 Succeeded, no operation, same etag.
    let (s, h, v) = f.put_raw(&vm, CMP, body("Standard_D2s_v3")).await;
    assert_eq!(
        (s, v["properties"]["provisioningState"].as_str()),
        (200, Some("Succeeded"))
    );
    assert!(no_operation_headers(&h), "{h:?}");
    assert_eq!(v["etag"], stored["etag"]);
    assert_ne!(created["properties"]["provisioningState"], "Succeeded");
    // A real change is an operation.
    let (s, h, v) = f.put_raw(&vm, CMP, body("Standard_D4s_v3")).await;
    assert_eq!(
        (s, v["properties"]["provisioningState"].as_str()),
        (200, Some("Updating"))
    );
    assert!(h.get("azure-asyncoperation").is_some());
}
