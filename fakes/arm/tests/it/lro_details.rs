//! LRO and verb details against the RPC / recorded behaviour: Retry-After on 201/202 and on Location polls
//! (and its absence when disabled), the Location poll answering 202 then 204 for a delete, the operation status
//! body shape, DELETE of a missing resource, PATCH tags replacing the map, a PATCH during a running PUT
//! refused with 409 (it is no PUT, so it cannot supersede), a client-sent provisioningState being ignored, and the
//! provider registration endpoint.

use crate::{Fake, NET, SUB};
use fake_arm::ArmConfig;
use serde_json::json;

fn nsg_body() -> serde_json::Value {
    json!({"location":"eastus","tags":{"a":"1","b":"2"}})
}

#[tokio::test]
async fn retry_after_location_poll_and_status_bodies() {
    let f = Fake::seeded(1).await;
    let nsg = Fake::net("rg", "networkSecurityGroups/nsg");
    let (s, h, v) = f.put_raw(&nsg, NET, nsg_body()).await;
    assert_eq!(s, 201);
    assert_eq!(v["properties"]["provisioningState"], "Updating");
    assert_eq!(h["retry-after"], "1");
    let op = h["azure-asyncoperation"].to_str().unwrap().to_string();
    assert!(op.contains("/providers/Microsoft.Network/locations/eastus/operations/"));
    let first = f.get_url(&op).await;
    assert_eq!(first, json!({"status":"InProgress"}));
    let (done, _) = f.poll(&op).await;
    assert_eq!(done, json!({"status":"Succeeded"}));

    // DELETE: 202 with Location (+ Retry-After); the Location poll answers 202 while running, then 204.
    let (s, h) = f.delete(&nsg, NET).await;
    assert_eq!(s, 202);
    assert_eq!(h["retry-after"], "1");
    let loc = h["location"].to_str().unwrap().to_string();
    assert!(loc.contains("/operationResults/"));
    let r = f.client.get(&loc).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 202);
    assert_eq!(r.headers()["retry-after"], "1");
    let r = f.client.get(&loc).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 204);
    assert_eq!(f.get(&nsg, NET).await.0, 404);
    // DELETE of a resource that does not exist: 204, no operation.
    let (s, h) = f.delete(&nsg, NET).await;
    assert_eq!(s, 204);
    assert!(h.get("location").is_none());

    // Without Retry-After (like the recorded NRP/CRP writes) clients fall back to their default interval.
    f.state.set_retry_after(None);
    let (s, h, _) = f.put_raw(&nsg, NET, nsg_body()).await;
    assert_eq!(s, 201);
    assert!(h.get("retry-after").is_none());
    assert!(h.get("azure-asyncoperation").is_some());
}

#[tokio::test]
async fn failed_operation_status_carries_the_error() {
    let f = Fake::seeded(0).await;
    let nsg = Fake::net("rg", "networkSecurityGroups/nsg");
    let (s, path) = f.put_forcing_failure(&nsg, NET, nsg_body()).await;
    assert_eq!(s, 201);
    let (status, _, body) = f.send(reqwest::Method::GET, &path, None, &[]).await;
    assert_eq!(status, 200, "a failed operation still reads with 200");
    assert_eq!(body["status"], "Failed");
    assert_eq!(body["error"]["code"], "InternalServerError");
    assert_eq!(body["error"]["message"], "boom");
}

#[tokio::test]
async fn patch_tags_replaces_the_map_and_client_provisioning_state_is_ignored() {
    let f = Fake::seeded(0).await;
    let nsg = Fake::net("rg", "networkSecurityGroups/nsg");
    // provisioningState is read-only: the Go SDK echoes it back from a GET, and NRP ignores it [infer].
    let mut body = nsg_body();
    body["properties"] = json!({"provisioningState":"Failed"});
    let (s, _, v) = f.put(&nsg, NET, body).await;
    assert_eq!(s, 201);
    assert_eq!(v["properties"]["provisioningState"], "Updating");
    let (s, v) = f.patch(&nsg, NET, json!({"tags":{"c":"3"}})).await;
    assert_eq!(s, 200);
    assert_eq!(
        v["tags"],
        json!({"c":"3"}),
        "PATCH replaces the whole tag map"
    );
    let (s, _, v) = f
        .send(
            reqwest::Method::PATCH,
            &format!("{}?{NET}", Fake::net("rg", "networkSecurityGroups/none")),
            Some(json!({"tags":{}})),
            &[("if-match", "*")],
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (404, Some("ResourceNotFound"))
    );
}

#[tokio::test]
async fn patch_during_a_running_put_is_refused_and_leaves_the_operation_alone() {
    let f = Fake::seeded(2).await;
    let pip = Fake::net("rg", "publicIPAddresses/busy-pip");
    let body = json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Static"}});
    let (s, h, _) = f.put_raw(&pip, NET, body).await;
    assert_eq!(s, 201);
    let op = h["azure-asyncoperation"].to_str().unwrap().to_string();
    let (s, v) = f.patch(&pip, NET, json!({"tags":{"a":"b"}})).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (409, Some("AnotherOperationInProgress")),
        "{v}"
    );
    assert!(
        v["error"]["message"].as_str().unwrap().contains(&op),
        "names the running operation: {v}"
    );
    let (_, during) = f.get(&pip, NET).await;
    assert_eq!(during["properties"]["provisioningState"], "Updating");
    assert!(during.get("tags").is_none(), "{during}");
    let (status, polls) = f.poll(&op).await;
    assert_eq!((status["status"].as_str(), polls), (Some("Succeeded"), 3));
    let (s, v) = f.patch(&pip, NET, json!({"tags":{"a":"b"}})).await;
    assert_eq!((s, &v["tags"]), (200, &json!({"a":"b"})), "{v}");
}

#[tokio::test]
async fn provider_registrations_are_served() {
    let f = Fake::start(ArmConfig::default()).await;
    let (s, v) = f
        .get(
            &format!("/subscriptions/{SUB}/providers/Microsoft.Compute"),
            "api-version=2021-04-01",
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(v["registrationState"], "Registered");
    assert!(
        v["resourceTypes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["resourceType"] == "virtualMachines" && t["zoneMappings"].is_array())
    );
    let (s, v) = f
        .get(
            &format!("/subscriptions/{SUB}/providers"),
            "api-version=2021-04-01",
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(v["value"].as_array().unwrap().len(), 3);
    f.seed_network("rg");
    let (s, v) = f
        .get(
            &format!("/subscriptions/{SUB}/resourcegroups"),
            "api-version=2021-04-01",
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(v["value"][0]["name"], "rg");
}

/// A client that never polls must not wedge a resource: once an operation is older than the
/// configured age, the next request completes it, oldest first, and younger ones keep running.
#[tokio::test]
async fn unpolled_operations_complete_by_age_in_start_order() {
    let f = Fake::seeded(100).await;
    f.state
        .set_lro_max_age(std::time::Duration::from_millis(300));
    let old = Fake::net("rg", "networkSecurityGroups/old");
    let (s, _, v) = f.put_raw(&old, NET, nsg_body()).await;
    assert_eq!(s, 201);
    assert_eq!(v["properties"]["provisioningState"], "Updating");
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let young = Fake::net("rg", "networkSecurityGroups/young");
    let (s, _, _) = f.put_raw(&young, NET, nsg_body()).await;
    assert_eq!(s, 201);

    let (_, v) = f.get(&old, NET).await;
    assert_eq!(v["properties"]["provisioningState"], "Succeeded");
    let (_, v) = f.get(&young, NET).await;
    assert_eq!(v["properties"]["provisioningState"], "Updating");

    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let (_, v) = f.get(&young, NET).await;
    assert_eq!(v["properties"]["provisioningState"], "Succeeded");
}

/// A client that died after its PUT (a killed CCM leader) leaves an operation nobody polls; real
/// operations finish on the server in seconds, so the fake's default age does not hold the resource
/// in `Updating` for half a minute (which kept the next leader retrying its LB PUT).
#[tokio::test]
async fn an_unpolled_operation_finishes_within_the_default_age() {
    let f = Fake::seeded(100).await;
    assert!(fake_arm::DEFAULT_LRO_MAX_AGE <= std::time::Duration::from_secs(5));
    let id = Fake::net("rg", "networkSecurityGroups/orphaned");
    let (s, _, v) = f.put_raw(&id, NET, nsg_body()).await;
    assert_eq!(s, 201);
    assert_eq!(v["properties"]["provisioningState"], "Updating");
    tokio::time::sleep(fake_arm::DEFAULT_LRO_MAX_AGE + std::time::Duration::from_millis(200)).await;
    let (_, v) = f.get(&id, NET).await;
    assert_eq!(v["properties"]["provisioningState"], "Succeeded");
}
