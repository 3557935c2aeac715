//! The request journal and per-operation counters, exported through the admin API.

use reqwest::Method;
use serde_json::Value;

use crate::support::{CLIENT_ID, Fake, NET_API};

#[tokio::test]
async fn every_request_is_journaled_and_counted() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let lbs = format!(
        "{}?{NET_API}",
        fake.rg_path("Microsoft.Network/loadBalancers")
    );
    let response = fake
        .arm_with(
            &token,
            Method::GET,
            &lbs,
            None,
            &[
                ("x-ms-client-request-id", "client-1"),
                ("user-agent", "parity-test/1.0"),
            ],
        )
        .await;
    assert_eq!(response.status(), 200);
    let lb = format!(
        "{}?{NET_API}",
        fake.rg_path("Microsoft.Network/loadBalancers/kubernetes")
    );
    assert_eq!(fake.arm(&token, Method::GET, &lb, None).await.status(), 200);
    let node = fake
        .printed
        .iter()
        .find_map(|l| l.strip_prefix("imds "))
        .and_then(|l| l.split_once(": "))
        .map(|(_, url)| url.to_string())
        .unwrap();
    let imds = fake
        .http
        .get(format!("{node}/metadata/instance?api-version=2021-10-01"))
        .header("Metadata", "true")
        .send()
        .await
        .unwrap();
    assert_eq!(imds.status(), 200);

    let (status, journal) = fake.admin(Method::GET, "/admin/journal", None).await;
    assert_eq!(status, 200);
    let entries = journal["entries"].as_array().unwrap();
    let list = entries
        .iter()
        .find(|e| e["clientRequestId"] == "client-1")
        .expect("list entry");
    assert_eq!(list["surface"], "arm");
    assert_eq!(list["method"], "GET");
    assert_eq!(list["operation"], "GET Microsoft.Network/loadBalancers");
    assert_eq!(list["apiVersion"], "2025-05-01");
    assert_eq!(list["status"], 200);
    assert_eq!(list["userAgent"], "parity-test/1.0");
    assert_eq!(list["clientId"], CLIENT_ID);
    assert_eq!(list["throttled"], false);
    assert!(list["durationMs"].as_f64().unwrap() >= 0.0);
    assert!(list["requestId"].as_str().is_some_and(|id| id.len() == 36));
    assert!(
        entries
            .iter()
            .any(|e| e["surface"] == "entra" && e["operation"] == "POST entra/oauth2/v2.0/token")
    );
    assert!(
        entries
            .iter()
            .any(|e| e["surface"] == "imds" && e["status"] == 200)
    );
    let text = serde_json::to_string(&journal).unwrap();
    assert!(!text.contains(&token), "tokens never reach the journal");

    let (_, counters) = fake.admin(Method::GET, "/admin/counters", None).await;
    assert_eq!(counters["GET Microsoft.Network/loadBalancers"]["count"], 2);
    assert_eq!(
        counters["GET Microsoft.Network/loadBalancers"]["byStatus"]["200"],
        2
    );

    let next: u64 = journal["nextSeq"].as_u64().unwrap();
    let (_, newer) = fake
        .admin(Method::GET, &format!("/admin/journal?since={next}"), None)
        .await;
    assert_eq!(newer["entries"], Value::Array(Vec::new()));
    let (status, _) = fake.admin(Method::DELETE, "/admin/journal", None).await;
    assert_eq!(status, 204);
    let (_, counters) = fake.admin(Method::GET, "/admin/counters", None).await;
    assert_eq!(counters, serde_json::json!({}));
    let message = fake
        .admin_refused(Method::GET, "/admin/journal?since=x", None)
        .await;
    assert!(message.contains("since"), "{message}");
}
