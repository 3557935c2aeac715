//! The CONNECT proxy mode (`--proxy-listen`) through the real binary: a client given the proxy and
//! the fake's CA reaches `login.microsoftonline.com` offline (instance discovery, the OpenID
//! configuration, a token that opens ARM), and a CONNECT to any other host is refused with 403 and
//! journalled.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{CLIENT_ID, CLIENT_SECRET, Fake, form};

const ENTRA: &str = "https://login.microsoftonline.com";

fn start() -> (Fake, String) {
    let fake = Fake::start(&["--proxy-listen", "127.0.0.1:0"]);
    let proxy = fake
        .printed
        .iter()
        .find_map(|l| l.strip_prefix("proxy: "))
        .unwrap_or_else(|| panic!("no 'proxy:' line in {:?}", fake.printed))
        .to_owned();
    (fake, proxy)
}

/// A client sending every HTTPS request through `proxy`, trusting only the fake's CA.
fn proxied(fake: &Fake, proxy: &str) -> reqwest::Client {
    let ca = fake
        .printed
        .iter()
        .find_map(|l| l.strip_prefix("ca: "))
        .expect("ca line");
    let pem = std::fs::read(ca).expect("CA file");
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&pem).expect("CA PEM"))
        .proxy(reqwest::Proxy::https(proxy).expect("proxy URL"))
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client")
}

#[tokio::test]
async fn msal_discovery_and_a_token_come_from_the_fake_through_the_proxy() {
    let (fake, proxy) = start();
    let client = proxied(&fake, &proxy);
    // What MSAL asks about the fake's own authority (an authority host it does not know).
    let authorize = format!("{}/{}/oauth2/v2.0/authorize", fake.base, fake.tenant);
    let discovery: Value = client
        .get(format!(
            "{ENTRA}/common/discovery/instance?{}",
            form(&[
                ("api-version", "1.1"),
                ("authorization_endpoint", &authorize)
            ])
        ))
        .send()
        .await
        .expect("discovery through the proxy")
        .error_for_status()
        .expect("discovery status")
        .json()
        .await
        .expect("discovery JSON");
    let openid = discovery["tenant_discovery_endpoint"]
        .as_str()
        .expect("tenant_discovery_endpoint");
    assert_eq!(
        openid,
        format!(
            "{}/{}/v2.0/.well-known/openid-configuration",
            fake.base, fake.tenant
        )
    );
    let public = &discovery["metadata"][0];
    assert_eq!(public["preferred_network"], "login.microsoftonline.com");
    assert_eq!(public["preferred_cache"], "login.windows.net");
    // The document it names is served (directly: the fake's authority is on 127.0.0.1).
    let config: Value = fake
        .http
        .get(openid)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        config["token_endpoint"],
        format!("{}/{}/oauth2/v2.0/token", fake.base, fake.tenant)
    );
    // The public authority's own document, through the proxy, points at the public host.
    let public_config: Value = client
        .get(format!(
            "{ENTRA}/{}/v2.0/.well-known/openid-configuration",
            fake.tenant
        ))
        .send()
        .await
        .expect("openid-configuration through the proxy")
        .json()
        .await
        .unwrap();
    assert_eq!(
        public_config["issuer"],
        format!("{ENTRA}/{}/v2.0", fake.tenant)
    );
    assert!(public_config["authorization_endpoint"].is_string());
    // A token from the public host opens the fake's ARM.
    let response = client
        .post(format!("{ENTRA}/{}/oauth2/v2.0/token", fake.tenant))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&[
            ("grant_type", "client_credentials"),
            ("client_id", CLIENT_ID),
            ("client_secret", CLIENT_SECRET),
            ("scope", "https://management.azure.com/.default"),
        ]))
        .send()
        .await
        .expect("token through the proxy");
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    let token = body["access_token"].as_str().expect("access_token");
    let arm = fake.arm(token, Method::GET, &fake.rg_url(), None).await;
    assert_eq!(arm.status(), 200);
    let journal = fake.journal().await;
    assert!(
        journal.iter().any(|e| e["surface"] == "proxy"
            && e["path"] == "login.microsoftonline.com:443"
            && e["status"] == 200),
        "the tunnel is journalled: {journal:?}"
    );
}

#[tokio::test]
async fn a_connect_to_another_host_is_refused_and_journalled() {
    let (fake, proxy) = start();
    let addr = proxy.strip_prefix("http://").expect("http proxy URL");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(
            b"CONNECT management.azure.com:443 HTTP/1.1\r\nHost: management.azure.com:443\r\n\r\n",
        )
        .await
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
    let journal = fake.journal().await;
    assert!(
        journal.iter().any(|e| e["surface"] == "proxy"
            && e["operation"] == "CONNECT management.azure.com:443"
            && e["status"] == 403),
        "the refusal is journalled: {journal:?}"
    );
    // And a client going through the proxy gets no answer from the outside world.
    let client = proxied(&fake, &proxy);
    assert!(client.get("https://example.com/").send().await.is_err());
}
