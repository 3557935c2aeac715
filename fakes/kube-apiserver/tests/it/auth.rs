//! Authentication over real sockets: the kubeconfig's bearer-token context works with kubectl,
//! and requests without (or with wrong) credentials get a 401 `metav1.Status`.

use std::time::Duration;

use fake_kube_apiserver::TOKEN_CONTEXT;
use serde_json::Value;

use super::fixture::Fixture;

fn https_client(ca_pem: &str) -> reqwest::Client {
    fake_tls::install_crypto_provider();
    reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca_pem.as_bytes()).unwrap()])
        .no_proxy()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_context_works_and_anonymous_requests_get_401() {
    let f = Fixture::start().await;
    let context = format!("--context={TOKEN_CONTEXT}");
    let names = f
        .kubectl_ok(&[&context, "get", "namespaces", "-o", "name"])
        .await;
    assert!(
        names.lines().any(|l| l == "namespace/kube-system"),
        "{names}"
    );
    f.kubectl_ok(&[&context, "create", "configmap", "by-token"])
        .await;

    let client = https_client(f.server.ca_pem());
    let url = format!("{}/api/v1/namespaces", f.server.url());
    let anonymous = client.get(&url).send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
    let body: Value = anonymous.json().await.unwrap();
    assert_eq!(body["kind"], "Status");
    assert_eq!(body["apiVersion"], "v1");
    assert_eq!(body["status"], "Failure");
    assert_eq!(body["reason"], "Unauthorized");
    assert_eq!(body["code"], 401);

    let wrong = client
        .get(&url)
        .bearer_auth("not-the-token")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);

    let token = &f.server.credentials().token;
    let allowed = client.get(&url).bearer_auth(token).send().await.unwrap();
    assert_eq!(allowed.status().as_u16(), 200);
    let list: Value = allowed.json().await.unwrap();
    assert_eq!(list["kind"], "NamespaceList");
}
