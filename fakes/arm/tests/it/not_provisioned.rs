//! Writes referencing a public IP that is not in Succeeded state (`ReferencedResourceNotProvisioned`): 400 when the
//! public IP's last operation failed, 429 `RetryableError` while it is still being written; nothing is stored.

use crate::{Fake, NET};
use serde_json::{Value, json};

fn pip() -> Value {
    json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Static"}})
}

fn lb(frontends: &[(&str, &str)]) -> Value {
    let fes: Vec<Value> = frontends
        .iter()
        .map(|(name, pip)| json!({"name":name,"properties":{"publicIPAddress":{"id":pip}}}))
        .collect();
    json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"frontendIPConfigurations":fes}})
}

fn sentence(pip: &str, user: &str, state: &str, op: &str) -> String {
    format!(
        "Cannot proceed with operation because resource {pip} used by resource {user} is not in Succeeded state. Resource is in {state} state and the last operation that updated/is updating the resource is {op}."
    )
}

/// A public IP whose create operation ended Failed (like the `lroFailed` fault leaves it).
async fn failed_pip(f: &Fake, name: &str) -> String {
    let id = Fake::net("rg", &format!("publicIPAddresses/{name}"));
    let (s, op) = f.put_forcing_failure(&id, NET, pip()).await;
    assert_eq!(s, 201);
    let (_, _, status) = f.send(reqwest::Method::GET, &op, None, &[]).await;
    assert_eq!(status["status"], "Failed");
    assert_eq!(
        f.get(&id, NET).await.1["properties"]["provisioningState"],
        "Failed"
    );
    id
}

#[tokio::test]
async fn lb_create_referencing_a_failed_public_ip_is_refused_with_400() {
    let f = Fake::seeded(0).await;
    let pip_id = failed_pip(&f, "pip").await;
    let lb_id = Fake::net("rg", "loadBalancers/lb");
    let (s, h, v) = f.put(&lb_id, NET, lb(&[("fe", &pip_id)])).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(h["x-ms-error-code"], "ReferencedResourceNotProvisioned");
    assert_eq!(
        v,
        json!({"error":{"code":"ReferencedResourceNotProvisioned",
            "message":sentence(&pip_id, &lb_id, "Failed", "PutPublicIpAddressOperation"),"details":[]}})
    );
    assert_eq!(f.get(&lb_id, NET).await.0, 404, "nothing created");
    let (_, p) = f.get(&pip_id, NET).await;
    assert!(p["properties"].get("ipConfiguration").is_none(), "{p}");
    assert_eq!(p["properties"]["provisioningState"], "Failed");

    // A PUT of the public IP (what upstream's CreateOrUpdateLB does) restores Succeeded; the LB is accepted then.
    let (s, _, _) = f.put(&pip_id, NET, pip()).await;
    assert_eq!(s, 200);
    assert_eq!(
        f.get(&pip_id, NET).await.1["properties"]["provisioningState"],
        "Succeeded"
    );
    let (s, _, v) = f.put(&lb_id, NET, lb(&[("fe", &pip_id)])).await;
    assert_eq!(s, 201, "{v}");
    let (_, p) = f.get(&pip_id, NET).await;
    assert_eq!(
        p["properties"]["ipConfiguration"]["id"],
        format!("{lb_id}/frontendIPConfigurations/fe")
    );
}

#[tokio::test]
async fn lb_update_adding_a_failed_public_ip_changes_nothing() {
    let f = Fake::seeded(0).await;
    let good = Fake::net("rg", "publicIPAddresses/good");
    assert_eq!(f.put(&good, NET, pip()).await.0, 201);
    let lb_id = Fake::net("rg", "loadBalancers/lb");
    assert_eq!(f.put(&lb_id, NET, lb(&[("a", &good)])).await.0, 201);
    let (_, before) = f.get(&lb_id, NET).await;
    let bad = failed_pip(&f, "bad").await;
    let (s, _, v) = f.put(&lb_id, NET, lb(&[("a", &good), ("b", &bad)])).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["error"]["code"], "ReferencedResourceNotProvisioned");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("resource {bad} used by resource {lb_id} ")),
        "{message}"
    );
    assert_eq!(
        f.get(&lb_id, NET).await.1,
        before,
        "LB unchanged, etag included"
    );
    assert!(
        f.get(&bad, NET).await.1["properties"]
            .get("ipConfiguration")
            .is_none()
    );
}

#[tokio::test]
async fn lb_referencing_a_public_ip_being_written_gets_429_retryable() {
    // One InProgress poll: the public IP stays Updating until its operation is polled twice.
    let f = Fake::seeded(1).await;
    let pip_id = Fake::net("rg", "publicIPAddresses/pip");
    let (s, h, v) = f.put_raw(&pip_id, NET, pip()).await;
    assert_eq!(s, 201);
    assert_eq!(v["properties"]["provisioningState"], "Updating");
    let lb_id = Fake::net("rg", "loadBalancers/lb");
    let (s, headers, e) = f.put_raw(&lb_id, NET, lb(&[("fe", &pip_id)])).await;
    assert_eq!(s, 429, "{e}");
    assert_eq!(headers["retry-after"], "1");
    assert_eq!(
        e,
        json!({"error":{"code":"RetryableError","message":"A retryable error occurred.","details":[{
            "code":"ReferencedResourceNotProvisioned",
            "message":sentence(&pip_id, &lb_id, "Updating", "PutPublicIpAddressOperation")}]}})
    );
    assert_eq!(f.get(&lb_id, NET).await.0, 404, "nothing created");
    f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    assert_eq!(f.put(&lb_id, NET, lb(&[("fe", &pip_id)])).await.0, 201);
}

#[tokio::test]
async fn nic_referencing_a_failed_public_ip_is_refused() {
    let f = Fake::seeded(0).await;
    let pip_id = failed_pip(&f, "pip").await;
    let nic_id = Fake::net("rg", "networkInterfaces/nic");
    let subnet = Fake::net("rg", "virtualNetworks/vnet/subnets/nodes");
    let body = json!({"location":"eastus","properties":{"ipConfigurations":[{"name":"ipc","properties":{
        "subnet":{"id":subnet},"publicIPAddress":{"id":pip_id}}}]}});
    let e = f.state.put(&nic_id, body.clone()).expect_err("refused");
    assert_eq!(e.status().as_u16(), 400);
    assert_eq!(e.code(), "ReferencedResourceNotProvisioned");
    assert_eq!(
        e.message(),
        sentence(&pip_id, &nic_id, "Failed", "PutPublicIpAddressOperation")
    );
    assert_eq!(e.details(), Some(&[][..]));
    assert_eq!(f.get(&nic_id, NET).await.0, 404, "nothing created");
    // The same NIC without the public IP is fine.
    let mut plain = body;
    plain["properties"]["ipConfigurations"][0]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("publicIPAddress");
    f.state.put(&nic_id, plain).unwrap();
}
