//! Exact requests the transport builds (headers that matter: If-Match, api-version, user agent,
//! auxiliary tenants), without sending them.

use std::sync::Arc;

use azure_core::credentials::{AccessToken, TokenCredential, TokenRequestOptions};
use prometheus_client::registry::Registry;
use reqwest::Method;

use super::client::Outgoing;
use super::*;
use crate::metrics::ArmMetrics;

#[derive(Debug)]
struct Static(&'static str);

#[async_trait::async_trait]
impl TokenCredential for Static {
    async fn get_token(
        &self,
        _: &[&str],
        _: Option<TokenRequestOptions<'_>>,
    ) -> azure_core::Result<AccessToken> {
        Ok(AccessToken::new(
            self.0.to_string(),
            time::OffsetDateTime::now_utc() + time::Duration::hours(1),
        ))
    }
}

fn client(tweak: impl FnOnce(&mut ArmClientOptions)) -> ArmClient {
    let mut options = ArmClientOptions::new(
        url::Url::parse("https://management.azure.com/").unwrap(),
        "https://management.azure.com/.default",
    )
    .unwrap();
    options.user_agent = "azure-ccm/test".into();
    tweak(&mut options);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut registry = Registry::default();
    ArmClient::new(
        options,
        Arc::new(Static("main-token")),
        reqwest::Client::new(),
        ArmMetrics::register(&mut registry),
    )
}

/// The request as text, tokens replaced by their credential's name and the request id masked.
async fn render(client: &ArmClient, out: Outgoing<'_>) -> String {
    let request = client.build(&out).await.unwrap().build().unwrap();
    let mut text = format!("{} {}\n", request.method(), request.url());
    let mut headers: Vec<_> = request.headers().iter().collect();
    headers.sort_by_key(|(name, _)| name.as_str());
    for (name, value) in headers {
        let value = if name == "x-ms-client-request-id" {
            assert!(uuid::Uuid::parse_str(value.to_str().unwrap()).is_ok());
            "<uuid>"
        } else {
            value.to_str().unwrap()
        };
        text.push_str(&format!("{name}: {value}\n"));
    }
    if let Some(body) = request.body().and_then(|b| b.as_bytes()) {
        text.push_str(&String::from_utf8_lossy(body));
    }
    text
}

#[tokio::test]
async fn put_with_if_match_and_auxiliary_tenant() {
    let client = client(|o| o.auxiliary = vec![Arc::new(Static("aux-token"))]);
    let path = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb";
    let url = client.url(path, "2025-05-01", &[]).unwrap();
    let body = br#"{"etag":"W/\"1\"","location":"eastus"}"#;
    let text = render(
        &client,
        Outgoing {
            client: ClientKind::LoadBalancer,
            method: Method::PUT,
            url: &url,
            body: Some(body),
            if_match: Some("W/\"1\""),
        },
    )
    .await;
    insta::assert_snapshot!(text);
}

#[tokio::test]
async fn get_with_query_and_config_user_agent() {
    let client = client(|_| {});
    let path = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines";
    let url = client
        .url(path, "2025-04-01", &[("$expand", "instanceView")])
        .unwrap();
    let text = render(
        &client,
        Outgoing {
            client: ClientKind::VirtualMachineScaleSetVm,
            method: Method::GET,
            url: &url,
            body: None,
            if_match: None,
        },
    )
    .await;
    insta::assert_snapshot!(text);
}

#[test]
fn tokens_go_only_to_the_arm_endpoint_over_https() {
    let client = client(|_| {});
    for bad in [
        "http://management.azure.com/subscriptions/s?api-version=1",
        "https://evil.example/subscriptions/s?api-version=1",
        "https://management.azure.com:8443/subscriptions/s",
    ] {
        let url = url::Url::parse(bad).unwrap();
        assert!(
            matches!(client.check_origin(&url), Err(ArmError::InvalidUrl { .. })),
            "{bad}"
        );
    }
    let ok =
        url::Url::parse("https://management.azure.com/subscriptions/s/providers/x?api-version=1")
            .unwrap();
    assert!(client.check_origin(&ok).is_ok());
    assert!(ArmClientOptions::new(url::Url::parse("http://localhost/").unwrap(), "s").is_err());
}
