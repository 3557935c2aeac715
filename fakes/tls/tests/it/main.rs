//! HTTPS round trips through the real accept loop with a real client.

use std::time::Duration;

use axum::Router;
use axum::extract::Extension;
use axum::response::IntoResponse;
use axum::routing::get;
use fake_tls::{
    AbortConnection, ClientAuth, ClientIdentity, Http2Reason, HttpsServer, Pki, TransportCause,
    server_config, transport_cause,
};

async fn whoami(identity: Option<Extension<ClientIdentity>>) -> String {
    match identity {
        Some(Extension(id)) => format!("{} {:?}", id.user, id.groups),
        None => "anonymous".to_string(),
    }
}

async fn reset() -> impl IntoResponse {
    let mut response = "never sent".into_response();
    response.extensions_mut().insert(AbortConnection);
    response
}

fn router() -> Router {
    Router::new()
        .route("/whoami", get(whoami))
        .route("/reset", get(reset))
}

fn client(pki: &Pki, identity: Option<&fake_tls::IssuedCert>) -> reqwest::Client {
    fake_tls::install_crypto_provider();
    let mut builder = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(pki.ca_pem().as_bytes()).unwrap())
        .timeout(Duration::from_secs(10));
    if let Some(leaf) = identity {
        let pem = format!("{}{}", leaf.cert_pem, leaf.key_pem);
        builder = builder.identity(reqwest::Identity::from_pem(pem.as_bytes()).unwrap());
    }
    builder.build().unwrap()
}

async fn start(pki: &Pki) -> HttpsServer {
    let leaf = pki.issue_server(&[]).unwrap();
    let tls = server_config(pki, &leaf, ClientAuth::Optional).unwrap();
    HttpsServer::start("127.0.0.1:0".parse().unwrap(), tls, router())
        .await
        .unwrap()
}

#[tokio::test]
async fn serves_https_to_a_client_trusting_the_generated_ca() {
    let pki = Pki::generate("it-ca").unwrap();
    let server = start(&pki).await;
    let body = client(&pki, None)
        .get(format!("{}/whoami", server.base_url()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(body, "anonymous");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn client_certificate_identity_reaches_the_handler() {
    let pki = Pki::generate("it-ca").unwrap();
    let server = start(&pki).await;
    let cert = pki.issue_client("admin", Some("system:masters")).unwrap();
    let body = client(&pki, Some(&cert))
        .get(format!("{}/whoami", server.base_url()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(body, "admin [\"system:masters\"]");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn client_not_trusting_the_ca_is_refused() {
    let pki = Pki::generate("it-ca").unwrap();
    let other = Pki::generate("other-ca").unwrap();
    let server = start(&pki).await;
    let result = client(&other, None)
        .get(format!("{}/whoami", server.base_url()))
        .send()
        .await;
    let error = result.expect_err("a client trusting another CA must fail the handshake");
    assert_eq!(
        transport_cause(&error),
        Some(TransportCause::Tls(rustls::Error::InvalidCertificate(
            rustls::CertificateError::UnknownIssuer
        ))),
        "{error:?}"
    );
    server.shutdown().await.unwrap();
}

/// What a client sees of an aborted answer: HTTP/2 (negotiated by ALPN) resets the stream with
/// `INTERNAL_ERROR`; HTTP/1.1 closes the connection without TLS `close_notify`, an unexpected EOF.
/// Neither is a TCP reset (`ConnectionReset`).
#[tokio::test]
async fn abort_marker_cuts_the_answer_instead_of_answering() {
    let pki = Pki::generate("it-ca").unwrap();
    let server = start(&pki).await;
    let url = format!("{}/reset", server.base_url());
    let error = client(&pki, None)
        .get(&url)
        .send()
        .await
        .expect_err("the request must fail without a response over HTTP/2");
    assert_eq!(
        transport_cause(&error),
        Some(TransportCause::Http2Reset(Http2Reason::INTERNAL_ERROR)),
        "{error:?}"
    );
    let http1 = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(pki.ca_pem().as_bytes()).unwrap())
        .http1_only()
        .build()
        .unwrap();
    let error = http1
        .get(&url)
        .send()
        .await
        .expect_err("the request must fail without a response over HTTP/1.1");
    assert_eq!(
        transport_cause(&error),
        Some(TransportCause::Io(std::io::ErrorKind::UnexpectedEof)),
        "{error:?}"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn shutdown_stops_serving() {
    let pki = Pki::generate("it-ca").unwrap();
    let server = start(&pki).await;
    let url = format!("{}/whoami", server.base_url());
    server.shutdown().await.unwrap();
    let error = client(&pki, None)
        .get(url)
        .send()
        .await
        .expect_err("nothing listens after shutdown");
    assert_eq!(
        transport_cause(&error),
        Some(TransportCause::Io(std::io::ErrorKind::ConnectionRefused)),
        "{error:?}"
    );
}
