//! Faults on IMDS and the Entra ID token endpoint (not only ARM), observed by a client of the real
//! binary, and recorded in the journal with their surface.

use fake_tls::{Http2Reason, TransportCause, transport_cause};
use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{CLIENT_SECRET, Fake, header};

const INSTANCE: &str = "/imds/k8s-master-0/metadata/instance?api-version=2021-10-01";

async fn schedule(fake: &Fake, rule: Value) {
    let (status, body) = fake.admin(Method::POST, "/admin/faults", Some(rule)).await;
    assert_eq!(status, 201, "{body}");
}

async fn imds(fake: &Fake) -> reqwest::Result<reqwest::Response> {
    fake.http
        .get(fake.url(INSTANCE))
        .header("Metadata", "true")
        .send()
        .await
}

#[tokio::test]
async fn imds_answers_503_then_recovers() {
    let fake = Fake::start(&[]);
    schedule(
        &fake,
        json!({"id": "imds-down", "path": "/imds/*/metadata/instance", "fault": {"kind": "status", "status": 503, "retryAfterSecs": 1}, "count": 1}),
    )
    .await;
    let down = imds(&fake).await.expect("answered");
    assert_eq!(down.status(), 503);
    assert_eq!(header(&down, "retry-after"), "1");
    assert_eq!(
        down.json::<Value>().await.unwrap(),
        json!({"error": "Service unavailable"})
    );
    let up = imds(&fake).await.expect("answered");
    assert_eq!(up.status(), 200);
    assert_eq!(
        up.json::<Value>().await.unwrap()["compute"]["name"],
        "k8s-master-0"
    );

    let (_, listing) = fake.admin(Method::GET, "/admin/faults", None).await;
    assert_eq!(
        listing["rules"][0]["surface"], "imds",
        "inferred from the path"
    );
    let entries = fake.journal().await;
    let imds: Vec<&Value> = entries.iter().filter(|e| e["surface"] == "imds").collect();
    assert_eq!(imds.len(), 2);
    assert_eq!(imds[0]["status"], 503);
    assert_eq!(imds[0]["faults"], json!(["imds-down:status-503"]));
    assert_eq!(imds[1]["status"], 200);
    assert!(imds[1].get("faults").is_none());
}

#[tokio::test]
async fn token_endpoint_throttles_with_retry_after() {
    let fake = Fake::start(&[]);
    schedule(
        &fake,
        json!({"method": "POST", "path": "/*/oauth2/v2.0/token", "fault": {"kind": "throttle", "retryAfterSecs": 3}, "count": 1}),
    )
    .await;
    let throttled = fake.secret_grant(CLIENT_SECRET).await;
    assert_eq!(throttled.status(), 429);
    assert_eq!(header(&throttled, "retry-after"), "3");
    let body: Value = throttled.json().await.unwrap();
    assert_eq!(body["error"], "temporarily_unavailable");
    assert_eq!(body["error_codes"], json!([90055]));
    assert!(
        body["error_description"]
            .as_str()
            .unwrap()
            .starts_with("AADSTS90055:")
    );
    // The count is used up: the next request gets a token.
    let token = fake.token().await;
    assert!(!token.is_empty());

    let entries = fake.journal().await;
    let entra: Vec<&Value> = entries.iter().filter(|e| e["surface"] == "entra").collect();
    assert_eq!(entra.len(), 2);
    assert_eq!(
        (
            entra[0]["status"].as_u64(),
            entra[0]["faults"].as_array().map(Vec::len)
        ),
        (Some(429), Some(1))
    );
    assert_eq!(entra[1]["status"], 200);
    let text = serde_json::to_string(&entries).unwrap();
    assert!(!text.contains(&token), "tokens never reach the journal");
    assert!(
        !text.contains(CLIENT_SECRET),
        "secrets never reach the journal"
    );
}

#[tokio::test]
async fn imds_connection_is_reset_then_served() {
    let fake = Fake::start(&[]);
    schedule(
        &fake,
        json!({"surface": "imds", "path": "/imds/**", "fault": {"kind": "reset"}, "count": 1}),
    )
    .await;
    let error = imds(&fake)
        .await
        .expect_err("the connection is cut before any answer");
    assert_eq!(
        transport_cause(&error),
        Some(TransportCause::Http2Reset(Http2Reason::INTERNAL_ERROR)),
        "{error:?}"
    );
    assert_eq!(imds(&fake).await.expect("answered").status(), 200);
    let entries = fake.journal().await;
    assert!(
        entries
            .iter()
            .any(|e| e["surface"] == "imds" && e["faults"] == json!(["fault-1:reset"]))
    );
}

#[tokio::test]
async fn arm_only_kinds_are_refused_on_imds_and_entra() {
    let fake = Fake::start(&[]);
    let message = fake
        .admin_refused(
            Method::POST,
            "/admin/faults",
            Some(json!({"path": "/imds/**", "fault": {"kind": "lroFailed"}})),
        )
        .await;
    assert!(
        message.contains("rules[0].fault.kind: 'lroFailed' only applies to ARM requests"),
        "{message}"
    );
    assert!(message.contains("accepted kinds for imds"), "{message}");
    let (status, body) = fake
        .admin(
            Method::POST,
            "/admin/faults",
            Some(
                json!({"surface": "entra", "path": "/**", "fault": {"kind": "preconditionFailed"}}),
            ),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let (_, listing) = fake.admin(Method::GET, "/admin/faults", None).await;
    assert_eq!(listing["rules"], json!([]), "nothing was scheduled");
}

#[tokio::test]
async fn admin_calls_are_journaled_but_journal_reads_are_not() {
    let fake = Fake::start(&[]);
    let (status, _) = fake.admin(Method::GET, "/admin/faults", None).await;
    assert_eq!(status, 200);
    let first = fake.journal().await;
    let second = fake.journal().await;
    assert_eq!(first, second, "reading the journal does not change it");
    let admin: Vec<&Value> = first.iter().filter(|e| e["surface"] == "admin").collect();
    assert_eq!(admin.len(), 1, "{first:?}");
    assert_eq!(admin[0]["operation"], "GET admin/faults");
}
