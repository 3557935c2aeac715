//! ARM protocol conventions: 404 shapes, api-version errors, ETags, LRO polling, paging, casing.

use crate::{CMP, Fake, NET, SUB, redact};
use fake_arm::ArmConfig;
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn not_found_shapes_match_arm() {
    let f = Fake::start(ArmConfig::default()).await;
    let (s, v) = f.get(&Fake::net("nope", "loadBalancers/lb"), NET).await;
    assert_eq!(s, 404);
    insta::assert_json_snapshot!("rg_missing", v);
    f.seed_network("rg");
    let (s, v) = f.get(&Fake::net("rg", "loadBalancers/lb"), NET).await;
    assert_eq!(s, 404);
    insta::assert_json_snapshot!("top_level_missing", v);
    let (s, v) = f
        .get(
            &Fake::net("rg", "virtualNetworks/vnet/subnets/missing"),
            NET,
        )
        .await;
    assert_eq!(s, 404);
    insta::assert_json_snapshot!("child_missing", v);
    let (s, v) = f
        .get(
            &Fake::cmp("rg", "virtualMachineScaleSets/ss/virtualMachines/abc"),
            CMP,
        )
        .await;
    assert_eq!(s, 400);
    insta::assert_json_snapshot!("vmss_vm_instance_id", v);
}

#[tokio::test]
async fn api_version_is_required_and_checked() {
    let f = Fake::start(ArmConfig::default()).await;
    f.seed_network("rg");
    let path = Fake::net("rg", "virtualNetworks/vnet");
    let (s, _, v) = f.send(Method::GET, &path, None, &[]).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("MissingApiVersionParameter"))
    );
    let (s, v) = f.get(&path, "api-version=2099-01-01").await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("NoRegisteredProviderFound"))
    );
    let (s, v) = f.get(&path, "api-version=latest").await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("InvalidApiVersionParameter"))
    );
    let (s, _) = f.get(&path, NET).await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn ids_are_case_insensitive_and_keep_first_casing() {
    let f = Fake::start(ArmConfig::default()).await;
    f.seed_network("MyRG");
    let (s, v) = f.get(&format!("/SUBSCRIPTIONS/{SUB}/resourcegroups/myrg/providers/microsoft.network/VIRTUALNETWORKS/VNET"), NET).await;
    assert_eq!(s, 200);
    assert_eq!(
        v["id"],
        format!(
            "/subscriptions/{SUB}/resourceGroups/MyRG/providers/Microsoft.Network/virtualNetworks/vnet"
        )
    );
    assert_eq!(
        v["properties"]["subnets"][0]["id"],
        format!(
            "/subscriptions/{SUB}/resourceGroups/MyRG/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"
        )
    );
}

#[tokio::test]
async fn etag_preconditions() {
    let f = Fake::seeded(0).await;
    let path = Fake::net("rg", "networkSecurityGroups/nsg");
    let (s, h, v) = f.put_raw(&path, NET, json!({"location":"eastus"})).await;
    assert_eq!(s, 201);
    let etag = v["etag"].as_str().unwrap().to_string();
    assert!(etag.starts_with("W/\""));
    assert_eq!(h["etag"].to_str().unwrap(), etag);
    let op = h["azure-asyncoperation"].to_str().unwrap().to_string();
    f.poll(&op).await;
    let url = format!("{path}?{NET}");
    let (s, _, v) = f
        .send(
            Method::PUT,
            &url,
            Some(json!({"location":"eastus"})),
            &[("if-match", "W/\"stale\"")],
        )
        .await;
    assert_eq!(s, 412);
    insta::assert_json_snapshot!("nrp_if_match_stale", redact(&v));
    let (s, _, _) = f
        .send(
            Method::PUT,
            &url,
            Some(json!({"location":"eastus"})),
            &[("if-none-match", "*")],
        )
        .await;
    assert_eq!(s, 412);
    let (s, _, _) = f
        .send(
            Method::PUT,
            &url,
            Some(json!({"location":"eastus"})),
            &[("if-match", &etag)],
        )
        .await;
    assert_eq!(s, 200);
    let missing = format!("{}?{NET}", Fake::net("rg", "networkSecurityGroups/other"));
    let (s, _, _) = f
        .send(
            Method::PUT,
            &missing,
            Some(json!({"location":"eastus"})),
            &[("if-match", "*")],
        )
        .await;
    assert_eq!(s, 412);
}

#[tokio::test]
async fn delete_lro_polls_to_success_and_resource_is_gone() {
    let f = Fake::seeded(2).await;
    let path = Fake::net("rg", "routeTables/rt");
    f.state.put(&path, json!({"location":"eastus"})).unwrap();
    let (s, h) = f.delete(&path, NET).await;
    assert_eq!(s, 202);
    let op = h["azure-asyncoperation"].to_str().unwrap().to_string();
    let loc = h["location"].to_str().unwrap().to_string();
    assert!(loc.contains("/operationResults/"));
    let (_, v) = f.get(&path, NET).await;
    assert_eq!(v["properties"]["provisioningState"], "Deleting");
    let (s, _, v) = f
        .send(
            Method::PUT,
            &format!("{path}?{NET}"),
            Some(json!({"location":"eastus"})),
            &[],
        )
        .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (409, Some("AnotherOperationInProgress"))
    );
    let (status, polls) = f.poll(&op).await;
    assert_eq!(status, json!({"status":"Succeeded"}));
    assert_eq!(polls, 3);
    let r = f.client.get(&loc).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 204);
    assert_eq!(f.get(&path, NET).await.0, 404);
    assert_eq!(f.delete(&path, NET).await.0, 204);
}

#[tokio::test]
async fn put_lro_reports_updating_then_succeeded_and_forced_failure_rolls_back() {
    let f = Fake::seeded(1).await;
    let path = Fake::net("rg", "publicIPAddresses/pip");
    let (s, h, v) = f.put_raw(&path, NET, json!({"location":"eastus","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Static"}})).await;
    assert_eq!(s, 201);
    assert_eq!(v["properties"]["provisioningState"], "Updating");
    assert!(v["properties"].get("ipAddress").is_none());
    let (status, polls) = f.poll(h["azure-asyncoperation"].to_str().unwrap()).await;
    assert_eq!((status["status"].as_str(), polls), (Some("Succeeded"), 2));
    let (_, v) = f.get(&path, NET).await;
    assert_eq!(v["properties"]["provisioningState"], "Succeeded");
    assert!(v["properties"]["ipAddress"].is_string());
}

#[tokio::test]
async fn lists_page_through_next_link() {
    let f = Fake::start(ArmConfig {
        page_size: 2,
        ..ArmConfig::default()
    })
    .await;
    f.seed_network("rg");
    for i in 0..5 {
        f.state
            .put(
                &Fake::net("rg", &format!("routeTables/rt{i}")),
                json!({"location":"eastus"}),
            )
            .unwrap();
    }
    let mut url = f.url(&format!("{}?{NET}", Fake::net("rg", "routeTables")));
    let mut names = Vec::new();
    let mut pages = 0;
    loop {
        let v = f.get_url(&url).await;
        pages += 1;
        names.extend(
            v["value"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["name"].as_str().unwrap().to_string()),
        );
        match v.get("nextLink").and_then(|n| n.as_str()) {
            Some(next) => url = next.to_string(),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, vec!["rt0", "rt1", "rt2", "rt3", "rt4"]);
    let (s, v) = f.get(&Fake::net("missing", "routeTables"), NET).await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (404, Some("ResourceGroupNotFound"))
    );
}
