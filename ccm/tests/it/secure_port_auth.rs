//! Delegated authentication and authorization of the secure port, through the real binaries and
//! the embedded API server's TokenReview and SubjectAccessReview (decided by its stored RBAC):
//! the always-allowed paths are anonymous, anything else needs a caller the API server
//! authorises; anonymous callers get 403 and unknown tokens 401 (k8s.io/apiserver's delegating
//! authenticator: anonymous last, a failed token is an error).

use std::path::{Path, PathBuf};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::Api;
use kube::api::{DeleteParams, PostParams};
use serde_json::{Value, json};

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::cloud_node_manager::{agent_node, run_until_initialised};
use crate::processes::{
    ApiServer, FakeAzure, cloud_controller_manager, example, small_azure_json, tainted_node,
};

/// The token file of the API server: alice and bob, no RBAC of their own.
fn token_file(dir: &Path) -> PathBuf {
    let path = dir.join("tokens.csv");
    std::fs::write(
        &path,
        "alice-token,alice,1001\nbob-token,bob,1002,\"team-b\"\n",
    )
    .expect("token file");
    path
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// An HTTPS client of the self-signed secure port, optionally with a client certificate.
fn client(identity: Option<reqwest::Identity>) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder().danger_accept_invalid_certs(true);
    if let Some(identity) = identity {
        builder = builder.identity(identity);
    }
    builder.build().expect("client")
}

/// Status and body of `GET path` on `port`, with `token` as bearer when given.
async fn get(
    client: &reqwest::Client,
    port: u16,
    path: &str,
    token: Option<&str>,
) -> Option<(u16, String)> {
    let mut request = client.get(format!("https://127.0.0.1:{port}{path}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.ok()?;
    let status = response.status().as_u16();
    Some((status, response.text().await.ok()?))
}

fn status_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: not a Status: {body}"))
}

async fn grant(api: &ApiServer, name: &str, urls: &[&str], subject: Value) {
    let client = api.client().await;
    let role: ClusterRole = serde_json::from_value(json!({
        "metadata": {"name": name},
        "rules": [{"nonResourceURLs": urls, "verbs": ["get"]}],
    }))
    .expect("role");
    let binding: ClusterRoleBinding = serde_json::from_value(json!({
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": [subject],
    }))
    .expect("binding");
    Api::<ClusterRole>::all(client.clone())
        .create(&PostParams::default(), &role)
        .await
        .expect("create ClusterRole");
    Api::<ClusterRoleBinding>::all(client)
        .create(&PostParams::default(), &binding)
        .await
        .expect("create ClusterRoleBinding");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_and_configz_need_an_authorised_caller() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = token_file(dir.path());
    let api = ApiServer::start_with(&["--token-auth-file", tokens.to_str().expect("utf-8")]);
    let config = small_azure_json(&fake, dir.path(), None);
    // Client certificates of the API server's CA (the file next to a kubeconfig_for user).
    let carol_kubeconfig = api.kubeconfig_for("carol", Some("team-c")).await;
    let carol_dir = carol_kubeconfig.parent().expect("dir");
    let ca = carol_dir.join("carol.ca.crt");
    let mut carol_pem = std::fs::read(carol_dir.join("carol.crt")).expect("cert");
    carol_pem.extend(std::fs::read(carol_dir.join("carol.key")).expect("key"));
    let kubeconfig = api.kubeconfig();
    let authn = format!("--authentication-kubeconfig={}", kubeconfig.display());
    let authz = format!("--authorization-kubeconfig={}", kubeconfig.display());
    let client_ca = format!("--client-ca-file={}", ca.display());
    // Denials are not cached (the test grants right after one); allowed answers are kept an hour.
    let manager = Manager::start(
        &fake,
        &api,
        &config,
        &[
            &authn,
            &authz,
            &client_ca,
            "--authorization-webhook-cache-unauthorized-ttl=0s",
            "--authorization-webhook-cache-authorized-ttl=1h",
        ],
    );
    let port = manager.port();
    let http = client(None);

    let (code, body) = wait_for("/healthz answers", &[&manager], || {
        get(&http, port, "/healthz", None)
    })
    .await;
    assert_eq!((code, body.as_str()), (200, "ok"), "{}", manager.logs());
    for path in ["/readyz", "/livez"] {
        assert_eq!(
            get(&http, port, path, None).await.map(|a| a.0),
            Some(200),
            "{path}"
        );
    }

    // Anonymous: authenticated as system:anonymous, then denied.
    let (code, body) = get(&http, port, "/metrics", None).await.expect("/metrics");
    assert_eq!(code, 403, "{body}");
    let status = status_of(&body);
    assert_eq!(status["reason"], "Forbidden");
    assert_eq!(
        status["message"],
        "forbidden: User \"system:anonymous\" cannot get path \"/metrics\""
    );
    // A token the API server does not know: 401, never anonymous.
    let (code, body) = get(&http, port, "/metrics", Some("no-such-token"))
        .await
        .expect("/metrics");
    assert_eq!(code, 401, "{body}");
    assert_eq!(status_of(&body)["reason"], "Unauthorized");
    // A known user without RBAC: 403 naming them.
    for path in ["/metrics", "/configz", "/healthz/leaderElection"] {
        let (code, body) = get(&http, port, path, Some("alice-token"))
            .await
            .expect(path);
        assert_eq!(code, 403, "{path}: {body}");
        assert!(
            body.contains("User \\\"alice\\\" cannot get path"),
            "{body}"
        );
    }

    grant(
        &api,
        "metrics-reader",
        &["/metrics", "/metrics/*", "/configz"],
        json!({"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}),
    )
    .await;
    let (code, metrics) = get(&http, port, "/metrics", Some("alice-token"))
        .await
        .expect("/metrics");
    assert_eq!(code, 200, "{metrics}");
    assert!(metrics.contains("running_managed_controllers"), "{metrics}");
    let (code, configz) = get(&http, port, "/configz", Some("alice-token"))
        .await
        .expect("/configz");
    assert_eq!(code, 200, "{configz}");
    assert!(
        configz.contains("cloudcontrollermanager.config.k8s.io"),
        "{configz}"
    );
    // The grant is by user: bob still gets 403.
    let (code, _) = get(&http, port, "/metrics", Some("bob-token"))
        .await
        .expect("/metrics");
    assert_eq!(code, 403);

    // A client certificate of the client CA: CN carol, O team-c; a Group grant lets it in.
    let carol = client(Some(
        reqwest::Identity::from_pem(&carol_pem).expect("identity"),
    ));
    let (code, body) = get(&carol, port, "/metrics", None).await.expect("/metrics");
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("User \\\"carol\\\""), "{body}");
    grant(
        &api,
        "team-c-metrics",
        &["/metrics"],
        json!({"kind": "Group", "name": "team-c", "apiGroup": "rbac.authorization.k8s.io"}),
    )
    .await;
    assert_eq!(
        get(&carol, port, "/metrics", None).await.map(|a| a.0),
        Some(200)
    );

    // Allowed answers are cached (1h here): removing the binding does not revoke /metrics at
    // once, while a path never asked before is reviewed again and denied.
    Api::<ClusterRoleBinding>::all(api.client().await)
        .delete("metrics-reader", &DeleteParams::default())
        .await
        .expect("delete binding");
    assert_eq!(
        get(&http, port, "/metrics", Some("alice-token"))
            .await
            .map(|a| a.0),
        Some(200),
        "cached"
    );
    assert_eq!(
        get(&http, port, "/metrics/v2", Some("alice-token"))
            .await
            .map(|a| a.0),
        Some(403),
        "reviewed"
    );
    let logs = manager.logs();
    for secret in ["alice-token", "bob-token", "no-such-token"] {
        assert!(!logs.contains(secret), "a token is logged:\n{logs}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_paths_are_anonymous_without_any_reviewer() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = small_azure_json(&fake, dir.path(), None);
    // No delegation kubeconfig and no cluster around: only the listed paths are served.
    let manager = Manager::start(
        &fake,
        &api,
        &config,
        &["--authorization-always-allow-paths=/healthz,/metrics"],
    );
    let port = manager.port();
    let http = client(None);
    let (code, _) = wait_for("/healthz answers", &[&manager], || {
        get(&http, port, "/healthz", None)
    })
    .await;
    assert_eq!(code, 200);
    let (code, metrics) = get(&http, port, "/metrics", None).await.expect("/metrics");
    assert_eq!(code, 200, "{metrics}");
    assert!(metrics.contains("running_managed_controllers"), "{metrics}");
    for path in ["/configz", "/readyz"] {
        assert_eq!(
            get(&http, port, path, None).await.map(|a| a.0),
            Some(403),
            "{path}"
        );
    }
    // Without a TokenReview client a bearer token is not looked at: still anonymous.
    let (code, body) = get(&http, port, "/configz", Some("whatever"))
        .await
        .expect("/configz");
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("system:anonymous"), "{body}");
    assert!(
        manager
            .logs()
            .contains("no --authorization-kubeconfig and no in-cluster configuration"),
        "{}",
        manager.logs()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_node_manager_delegates_too() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = token_file(dir.path());
    let api = ApiServer::start_with(&["--token-auth-file", tokens.to_str().expect("utf-8")]);
    let (node_name, imds_url) = agent_node(&fake);
    Api::all(api.client().await)
        .create(&PostParams::default(), &tainted_node(&node_name))
        .await
        .expect("create node");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let kubeconfig = api.kubeconfig();
    let authn = format!("--authentication-kubeconfig={}", kubeconfig.display());
    let authz = format!("--authorization-kubeconfig={}", kubeconfig.display());
    let port_arg = format!("--secure-port={port}");
    let (mut cnm, _log, _) = run_until_initialised(
        &fake,
        &api,
        &node_name,
        &imds_url,
        &[
            &port_arg,
            "--bind-address=127.0.0.1",
            &authn,
            &authz,
            "--authorization-webhook-cache-unauthorized-ttl=0s",
        ],
    )
    .await;
    let http = client(None);
    let healthz = get(&http, port, "/healthz", None).await;
    assert_eq!(healthz.map(|a| a.0), Some(200));
    let (code, body) = get(&http, port, "/metrics", None).await.expect("/metrics");
    assert_eq!(code, 403, "{body}");
    let (code, _) = get(&http, port, "/metrics", Some("alice-token"))
        .await
        .expect("/metrics");
    assert_eq!(code, 403);
    grant(
        &api,
        "cnm-metrics",
        &["/metrics"],
        json!({"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}),
    )
    .await;
    let (code, metrics) = get(&http, port, "/metrics", Some("alice-token"))
        .await
        .expect("/metrics");
    assert_eq!(code, 200, "{metrics}");
    assert!(
        metrics.contains("cloud_provider_taint_removal_delay_seconds"),
        "{metrics}"
    );
    let _ = cnm.kill();
    let _ = cnm.wait();
}

/// The kubeconfig of `api` with its server replaced by a closed port.
async fn unreachable_kubeconfig(api: &ApiServer, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(api.kubeconfig()).expect("kubeconfig");
    let addr = api.addr().await;
    let dead = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let dead_addr = dead.local_addr().expect("addr");
    drop(dead);
    let text = text.replace(&addr.to_string(), &dead_addr.to_string());
    assert!(text.contains(&dead_addr.to_string()), "{text}");
    let path = dir.join("dead-kubeconfig");
    std::fs::write(&path, text).expect("write");
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_ca_comes_from_the_cluster_configmap_unless_skipped() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = small_azure_json(&fake, dir.path(), None);
    let carol_kubeconfig = api.kubeconfig_for("carol", Some("team-c")).await;
    let carol_dir = carol_kubeconfig.parent().expect("dir");
    let ca = std::fs::read_to_string(carol_dir.join("carol.ca.crt")).expect("ca");
    let mut carol_pem = std::fs::read(carol_dir.join("carol.crt")).expect("cert");
    carol_pem.extend(std::fs::read(carol_dir.join("carol.key")).expect("key"));
    let map: ConfigMap = serde_json::from_value(json!({
        "metadata": {"name": "extension-apiserver-authentication", "namespace": "kube-system"},
        "data": {"client-ca-file": ca},
    }))
    .expect("configmap");
    Api::<ConfigMap>::namespaced(api.client().await, "kube-system")
        .create(&PostParams::default(), &map)
        .await
        .expect("create configmap");
    let kubeconfig = api.kubeconfig();
    let authn = format!("--authentication-kubeconfig={}", kubeconfig.display());
    let authz = format!("--authorization-kubeconfig={}", kubeconfig.display());
    let carol = client(Some(
        reqwest::Identity::from_pem(&carol_pem).expect("identity"),
    ));
    for (extra, user) in [
        (None, "carol"),
        (Some("--authentication-skip-lookup"), "system:anonymous"),
    ] {
        let mut args = vec![authn.as_str(), authz.as_str()];
        args.extend(extra);
        let manager = Manager::start(&fake, &api, &config, &args);
        let port = manager.port();
        let (code, body) = wait_for("/metrics answers", &[&manager], || {
            get(&carol, port, "/metrics", None)
        })
        .await;
        assert_eq!(code, 403, "{body}");
        assert!(
            body.contains(&format!("User \\\"{user}\\\"")),
            "{extra:?}: {body}"
        );
        manager.terminate();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_client_ca_lookup_stops_the_start_unless_tolerated() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = small_azure_json(&fake, dir.path(), None);
    let dead = unreachable_kubeconfig(&api, dir.path()).await;
    let authn = format!("--authentication-kubeconfig={}", dead.display());
    let output = cloud_controller_manager()
        .arg(format!("--kubeconfig={}", api.kubeconfig().display()))
        .arg(format!("--cloud-config={}", config.display()))
        .args(["--configure-cloud-routes=false", "--bind-address=127.0.0.1"])
        .arg(format!("--secure-port={}", free_port()))
        .arg(&authn)
        .env("SSL_CERT_FILE", &fake.ca_file)
        .output()
        .expect("run cloud-controller-manager");
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{message}");
    assert!(
        message.contains("extension-apiserver-authentication"),
        "{message}"
    );
    let leases: Api<Lease> = Api::namespaced(api.client().await, "kube-system");
    assert!(
        leases
            .get_opt("cloud-controller-manager")
            .await
            .expect("get")
            .is_none(),
        "a Lease was taken"
    );

    // Tolerated: the port serves; a bearer token cannot be reviewed, so it is refused (401).
    let manager = Manager::start(
        &fake,
        &api,
        &config,
        &[&authn, "--authentication-tolerate-lookup-failure"],
    );
    let port = manager.port();
    let http = client(None);
    let (code, _) = wait_for("/healthz answers", &[&manager], || {
        get(&http, port, "/healthz", None)
    })
    .await;
    assert_eq!(code, 200);
    let (code, body) = get(&http, port, "/metrics", Some("any-token"))
        .await
        .expect("/metrics");
    assert_eq!(code, 401, "{body}");
}
