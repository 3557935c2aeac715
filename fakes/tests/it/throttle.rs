//! ARM throttling with tiny buckets set on the command line.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{Fake, header};

#[tokio::test]
async fn exhausted_read_bucket_answers_429_with_retry_after() {
    let fake = Fake::start(&["--read-bucket", "3/0.2"]);
    let token = fake.token().await;
    let path = format!(
        "/subscriptions/{}/resourcegroups/k8s-small-rg?api-version=2021-04-01",
        fake.subscription
    );
    let mut remaining = Vec::new();
    for _ in 0..3 {
        let ok = fake.arm(&token, Method::GET, &path, None).await;
        assert_eq!(ok.status(), 200);
        remaining.push(header(&ok, "x-ms-ratelimit-remaining-subscription-reads"));
        assert!(!header(&ok, "x-ms-ratelimit-remaining-subscription-global-reads").is_empty());
    }
    assert_eq!(remaining, ["2", "1", "0"]);
    let throttled = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(throttled.status(), 429);
    assert_eq!(header(&throttled, "retry-after"), "5");
    let body: Value = throttled.json().await.unwrap();
    assert_eq!(body["error"]["code"], "SubscriptionRequestsThrottled");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("'read' requests")
    );
    // Writes have their own bucket.
    let write = fake
        .arm(
            &token,
            Method::PUT,
            &path,
            Some(json!({"location": "eastus"})),
        )
        .await;
    assert_eq!(write.status(), 200);
    assert_eq!(
        header(&write, "x-ms-ratelimit-remaining-subscription-writes"),
        "199"
    );

    let (_, journal) = fake.admin(Method::GET, "/admin/journal", None).await;
    let throttled: Vec<&Value> = journal["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["throttled"] == true)
        .collect();
    assert_eq!(throttled.len(), 1);
    assert_eq!(throttled[0]["status"], 429);
}

#[tokio::test]
async fn admin_can_turn_throttling_off() {
    let fake = Fake::start(&["--read-bucket", "1/0.01"]);
    let token = fake.token().await;
    let path = format!(
        "/subscriptions/{}/resourcegroups/k8s-small-rg?api-version=2021-04-01",
        fake.subscription
    );
    assert_eq!(
        fake.arm(&token, Method::GET, &path, None).await.status(),
        200
    );
    assert_eq!(
        fake.arm(&token, Method::GET, &path, None).await.status(),
        429
    );
    let (_, mut config) = fake.admin(Method::GET, "/admin/throttle", None).await;
    config["enabled"] = json!(false);
    let (status, _) = fake
        .admin(Method::PUT, "/admin/throttle", Some(config))
        .await;
    assert_eq!(status, 200);
    let free = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(free.status(), 200);
    assert_eq!(
        header(&free, "x-ms-ratelimit-remaining-subscription-reads"),
        ""
    );
}
