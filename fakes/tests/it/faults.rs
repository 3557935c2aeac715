//! Every fault kind, scheduled through the admin API or a faults file, observed by a client.

use std::time::{Duration, Instant};

use fake_tls::{Http2Reason, TransportCause, transport_cause};
use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{Fake, NET_API, header};

fn rg_glob() -> &'static str {
    "/subscriptions/*/resourcegroups/k8s-small-rg"
}

async fn schedule(fake: &Fake, rule: Value) {
    let (status, body) = fake.admin(Method::POST, "/admin/faults", Some(rule)).await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test]
async fn status_faults_answer_instead_of_arm_for_their_count() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let path = fake.rg_url();
    schedule(&fake, json!({"method": "GET", "path": rg_glob(), "fault": {"kind": "throttle", "retryAfterSecs": 7}, "count": 1})).await;
    let throttled = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(throttled.status(), 429);
    assert_eq!(header(&throttled, "retry-after"), "7");
    let body: Value = throttled.json().await.unwrap();
    assert_eq!(body["error"]["code"], "SubscriptionRequestsThrottled");

    schedule(
        &fake,
        json!({"path": rg_glob(), "fault": {"kind": "status", "status": 500}, "count": 1}),
    )
    .await;
    let internal = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(internal.status(), 500);
    assert_eq!(
        internal.json::<Value>().await.unwrap()["error"]["code"],
        "InternalServerError"
    );

    schedule(&fake, json!({"path": rg_glob(), "fault": {"kind": "status", "status": 503, "retryAfterSecs": 2}, "count": 1})).await;
    let unavailable = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(unavailable.status(), 503);
    assert_eq!(header(&unavailable, "retry-after"), "2");

    schedule(&fake, json!({"method": "PUT", "pathRegex": "/subscriptions/[^/]+/resourcegroups/k8s-small-rg", "fault": {"kind": "preconditionFailed"}, "count": 1})).await;
    let precondition = fake
        .arm(
            &token,
            Method::PUT,
            &path,
            Some(json!({"location": "eastus"})),
        )
        .await;
    assert_eq!(precondition.status(), 412);
    assert_eq!(
        precondition.json::<Value>().await.unwrap()["error"]["details"][0]["code"],
        "PreconditionFailedEtagMismatch"
    );

    // Every count is used up: ARM answers again.
    assert_eq!(
        fake.arm(&token, Method::GET, &path, None).await.status(),
        200
    );
    let (_, listing) = fake.admin(Method::GET, "/admin/faults", None).await;
    assert!(
        listing["rules"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["applied"] == 1),
        "{listing}"
    );
}

#[tokio::test]
async fn latency_delays_the_answer() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let path = fake.rg_url();
    schedule(
        &fake,
        json!({"path": rg_glob(), "fault": {"kind": "latency", "ms": 300}, "count": 1}),
    )
    .await;
    let started = Instant::now();
    let response = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(response.status(), 200);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "injected delay is a lower bound"
    );
}

#[tokio::test]
async fn lro_failed_ends_the_operation_failed() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let pip = format!(
        "{}?{NET_API}",
        fake.rg_path("Microsoft.Network/publicIPAddresses/doomed")
    );
    schedule(&fake, json!({"method": "PUT", "path": "/subscriptions/**/publicIPAddresses/doomed", "fault": {"kind": "lroFailed", "code": "AllocationFailed", "message": "no capacity"}, "count": 1})).await;
    let body = json!({"location": "eastus", "sku": {"name": "Standard"}, "properties": {"publicIPAllocationMethod": "Static"}});
    let created = fake.arm(&token, Method::PUT, &pip, Some(body)).await;
    assert_eq!(created.status(), 201);
    let status = fake
        .poll(&token, &header(&created, "azure-asyncoperation"))
        .await;
    assert_eq!(status["status"], "Failed");
    assert_eq!(status["error"]["code"], "AllocationFailed");
}

#[tokio::test]
async fn reset_drops_the_connection() {
    let fake = Fake::start(&[]);
    let token = fake.token().await;
    let path = fake.rg_url();
    schedule(
        &fake,
        json!({"path": rg_glob(), "fault": {"kind": "reset"}, "count": 1}),
    )
    .await;
    let result = fake
        .http
        .get(fake.url(&path))
        .bearer_auth(&token)
        .send()
        .await;
    let error = result.expect_err("a reset connection yields no response");
    assert_eq!(
        transport_cause(&error),
        Some(TransportCause::Http2Reset(Http2Reason::INTERNAL_ERROR)),
        "{error:?}"
    );
    assert_eq!(
        fake.arm(&token, Method::GET, &path, None).await.status(),
        200
    );
    let faults: Vec<Value> = fake
        .journal()
        .await
        .into_iter()
        .filter(|e| e.get("faults").is_some())
        .collect();
    assert_eq!(faults.len(), 1);
    assert!(faults[0]["faults"][0].as_str().unwrap().ends_with(":reset"));
}

#[tokio::test]
async fn faults_file_with_seed_is_loaded_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("faults.yaml");
    std::fs::write(
        &file,
        "seed: 11\nrules:\n- id: flaky-rg\n  method: GET\n  path: /subscriptions/*/resourcegroups/*\n  fault: {kind: status, status: 503}\n  probability: 0.5\n",
    )
    .unwrap();
    let fake = Fake::start_in(
        dir,
        &crate::support::small_topology(),
        &["--faults", file.to_str().unwrap()],
    );
    let token = fake.token().await;
    let path = fake.rg_url();
    let mut statuses = Vec::new();
    for _ in 0..20 {
        statuses.push(
            fake.arm(&token, Method::GET, &path, None)
                .await
                .status()
                .as_u16(),
        );
    }
    assert!(
        statuses.contains(&503) && statuses.contains(&200),
        "{statuses:?}"
    );
    let (_, listing) = fake.admin(Method::GET, "/admin/faults", None).await;
    assert_eq!(listing["seed"], 11);
    assert_eq!(listing["rules"][0]["id"], "flaky-rg");
    assert_eq!(listing["rules"][0]["matched"], 20);
    let applied = statuses.iter().filter(|s| **s == 503).count();
    assert_eq!(listing["rules"][0]["applied"], applied);

    // Same seed, same request sequence, same faults: a second process reproduces the run.
    let dir2 = tempfile::tempdir().unwrap();
    let file2 = dir2.path().join("faults.yaml");
    std::fs::copy(fake.dir.path().join("faults.yaml"), &file2).unwrap();
    let again = Fake::start_in(
        dir2,
        &crate::support::small_topology(),
        &["--faults", file2.to_str().unwrap()],
    );
    let token = again.token().await;
    let mut replay = Vec::new();
    for _ in 0..20 {
        replay.push(
            again
                .arm(
                    &token,
                    Method::GET,
                    &path.replace(&fake.subscription, &again.subscription),
                    None,
                )
                .await
                .status()
                .as_u16(),
        );
    }
    assert_eq!(replay, statuses);
}

#[tokio::test]
async fn invalid_rules_are_refused_with_the_field() {
    let fake = Fake::start(&[]);
    let message = fake
        .admin_refused(
            Method::POST,
            "/admin/faults",
            Some(json!({"path": "/x", "fault": {"kind": "reset"}, "probability": 3.0})),
        )
        .await;
    assert!(message.contains("probability"), "{message}");
    let (status, _) = fake.admin(Method::DELETE, "/admin/faults/nope", None).await;
    assert_eq!(status, 404);
}
