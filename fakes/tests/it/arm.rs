//! ARM protocol end to end through the binary: LRO polling, ETags, paging, and two validations.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{Fake, NET_API, header};

#[tokio::test]
async fn put_and_delete_are_long_running_operations() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let pip = fake.rg_path("Microsoft.Network/publicIPAddresses/svc-pip");
    let body = json!({"location": "eastus", "sku": {"name": "Standard"}, "properties": {"publicIPAllocationMethod": "Static"}});
    let created = fake
        .arm(&token, Method::PUT, &format!("{pip}?{NET_API}"), Some(body))
        .await;
    assert_eq!(created.status(), 201);
    let operation = header(&created, "azure-asyncoperation");
    assert!(operation.starts_with(&fake.base), "{operation}");
    let doc: Value = created.json().await.unwrap();
    assert_eq!(doc["properties"]["provisioningState"], "Updating");
    assert_eq!(fake.poll(&token, &operation).await["status"], "Succeeded");
    let done: Value = fake
        .arm(&token, Method::GET, &format!("{pip}?{NET_API}"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(done["properties"]["provisioningState"], "Succeeded");
    assert!(done["properties"]["ipAddress"].is_string());

    let deleted = fake
        .arm(&token, Method::DELETE, &format!("{pip}?{NET_API}"), None)
        .await;
    assert_eq!(deleted.status(), 202);
    let location = header(&deleted, "location");
    let mut final_status = 202;
    for _ in 0..50 {
        final_status = fake
            .arm(&token, Method::GET, &location, None)
            .await
            .status()
            .as_u16();
        if final_status != 202 {
            break;
        }
    }
    assert!(matches!(final_status, 200 | 204), "{final_status}");
    let gone = fake
        .arm(&token, Method::GET, &format!("{pip}?{NET_API}"), None)
        .await;
    assert_eq!(gone.status(), 404);
}

#[tokio::test]
async fn stale_if_match_is_412() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let nsg = format!(
        "{}?{NET_API}",
        fake.rg_path("Microsoft.Network/networkSecurityGroups/k8s-nsg")
    );
    let current = fake.arm(&token, Method::GET, &nsg, None).await;
    let etag = header(&current, "etag");
    let doc: Value = current.json().await.unwrap();
    assert_eq!(doc["etag"], etag.as_str());
    let stale = fake
        .arm_with(
            &token,
            Method::PUT,
            &nsg,
            Some(doc.clone()),
            &[("if-match", "W/\"stale\"")],
        )
        .await;
    assert_eq!(stale.status(), 412);
    let body: Value = stale.json().await.unwrap();
    assert_eq!(body["error"]["code"], "PreconditionFailed");
    let fresh = fake
        .arm_with(&token, Method::PUT, &nsg, Some(doc), &[("if-match", &etag)])
        .await;
    assert_eq!(fresh.status(), 200);
}

#[tokio::test]
async fn lists_page_with_next_link() {
    let fake = Fake::start(&["--page-size", "2"]);
    let token = fake.token().await;
    let mut url = format!(
        "{}?{NET_API}",
        fake.rg_path("Microsoft.Network/networkInterfaces")
    );
    let mut names = Vec::new();
    let mut pages = 0;
    loop {
        let page: Value = fake
            .arm(&token, Method::GET, &url, None)
            .await
            .json()
            .await
            .unwrap();
        pages += 1;
        names.extend(
            page["value"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["name"].as_str().unwrap().to_string()),
        );
        match page.get("nextLink").and_then(Value::as_str) {
            Some(next) => url = next.to_string(),
            None => break,
        }
    }
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(pages, 2);
}

#[tokio::test]
async fn validations_reach_the_client() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let in_use = fake
        .arm(
            &token,
            Method::DELETE,
            &format!(
                "{}?{NET_API}",
                fake.rg_path("Microsoft.Network/publicIPAddresses/k8s-outbound-pip")
            ),
            None,
        )
        .await;
    assert_eq!(in_use.status(), 400);
    let body: Value = in_use.json().await.unwrap();
    assert_eq!(body["error"]["code"], "PublicIPAddressCannotBeDeleted");

    let nsg = format!(
        "{}?{NET_API}",
        fake.rg_path("Microsoft.Network/networkSecurityGroups/bad-nsg")
    );
    let rule = json!({"name": "r", "properties": {"priority": 5000, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
        "sourceAddressPrefix": "*", "sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": "80"}});
    let refused = fake
        .arm(
            &token,
            Method::PUT,
            &nsg,
            Some(json!({"location": "eastus", "properties": {"securityRules": [rule]}})),
        )
        .await;
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "SecurityRuleInvalidPriority");
    assert_eq!(
        fake.arm(&token, Method::GET, &nsg, None).await.status(),
        404,
        "nothing created"
    );
}

#[tokio::test]
async fn retry_after_flag_sets_or_omits_the_header_on_operations() {
    let body = json!({"location": "eastus", "sku": {"name": "Standard"}, "properties": {"publicIPAllocationMethod": "Static"}});
    for (flag, expected) in [("0", Some("0")), ("none", None), ("3", Some("3"))] {
        let fake = Fake::start(&["--retry-after", flag]);
        let token = fake.token().await;
        let pip = fake.rg_path("Microsoft.Network/publicIPAddresses/retry-after-pip");
        let created = fake
            .arm(
                &token,
                Method::PUT,
                &format!("{pip}?{NET_API}"),
                Some(body.clone()),
            )
            .await;
        assert_eq!(created.status(), 201, "--retry-after {flag}");
        let sent = created
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok());
        assert_eq!(sent, expected, "--retry-after {flag}");
    }
}
