//! Entra ID token acquisition and the ARM bearer check, end to end.

use reqwest::Method;
use serde_json::Value;

use crate::support::{Fake, header};

#[tokio::test]
async fn secret_grant_token_opens_arm() {
    let fake = Fake::start(&[]);
    let response = fake.secret_grant(crate::support::CLIENT_SECRET).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 3599);
    let token = body["access_token"].as_str().unwrap();
    let rg = fake.arm(token, Method::GET, &fake.rg_url(), None).await;
    assert_eq!(rg.status(), 200);
    assert!(!header(&rg, "x-ms-request-id").is_empty());
}

#[tokio::test]
async fn wrong_secret_gets_aadsts7000215() {
    let fake = Fake::start(&[]);
    let response = fake.secret_grant("not-the-secret").await;
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_client");
    assert_eq!(body["error_codes"][0], 7000215);
}

#[tokio::test]
async fn arm_without_a_valid_token_is_401_with_www_authenticate() {
    let fake = Fake::start(&[]);
    let path = fake.rg_url();
    let missing = fake.http.get(fake.url(&path)).send().await.unwrap();
    assert_eq!(missing.status(), 401);
    assert!(header(&missing, "www-authenticate").starts_with("Bearer "));
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["code"], "AuthenticationFailed");
    let forged = fake
        .arm(
            "eyJhbGciOiJIUzI1NiJ9.eyJ4IjoxfQ.c2ln",
            Method::GET,
            &path,
            None,
        )
        .await;
    assert_eq!(forged.status(), 401);
    let body: Value = forged.json().await.unwrap();
    assert_eq!(body["error"]["code"], "InvalidAuthenticationToken");
}

#[tokio::test]
async fn expired_tokens_are_refused() {
    let fake = Fake::start(&["--token-lifetime", "1"]);
    let token = fake.token().await;
    let path = fake.rg_url();
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let response = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(response.status(), 401);
    assert!(header(&response, "www-authenticate").contains("invalid_token"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "ExpiredAuthenticationToken");
}
