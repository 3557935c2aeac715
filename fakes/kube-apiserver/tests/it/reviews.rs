//! TokenReview and SubjectAccessReview over real HTTPS: tokens checked by the server's own
//! authenticator (admin token and `--token-auth-file`), access decided by the stored RBAC
//! objects, and both listed by discovery.

use std::time::Duration;

use serde_json::{Value, json};

use super::fixture::Fixture;

struct Reviews {
    f: Fixture,
    client: reqwest::Client,
    _tokens: tempfile::TempDir,
}

impl Reviews {
    async fn start() -> Self {
        let tokens = tempfile::tempdir().unwrap();
        let file = tokens.path().join("tokens.csv");
        std::fs::write(&file, "alice-token,alice,1001,\"team-a,team-b\"\n").unwrap();
        let f = Fixture::start_with(|c| c.token_auth_file = Some(file)).await;
        fake_tls::install_crypto_provider();
        let client = reqwest::Client::builder()
            .tls_certs_only([reqwest::Certificate::from_pem(f.server.ca_pem().as_bytes()).unwrap()])
            .no_proxy()
            .timeout(Duration::from_secs(20))
            .build()
            .unwrap();
        Self {
            f,
            client,
            _tokens: tokens,
        }
    }

    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = self
            .client
            .post(format!("{}{path}", self.f.server.url()))
            .bearer_auth(&self.f.server.credentials().token)
            .json(body)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    async fn get(&self, path: &str) -> Value {
        let r = self
            .client
            .get(format!("{}{path}", self.f.server.url()))
            .bearer_auth(&self.f.server.credentials().token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "{path}");
        r.json().await.unwrap()
    }

    async fn token_review(&self, token: &str) -> Value {
        let (code, body) = self
            .post(
                "/apis/authentication.k8s.io/v1/tokenreviews",
                &json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}),
            )
            .await;
        assert_eq!(code, 201, "{body}");
        body["status"].clone()
    }

    async fn allowed(&self, spec: Value) -> bool {
        let (code, body) = self
            .post(
                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                &json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}),
            )
            .await;
        assert_eq!(code, 201, "{body}");
        assert_eq!(body["kind"], "SubjectAccessReview");
        body["status"]["allowed"].as_bool().unwrap_or(false)
    }

    async fn create(&self, path: &str, object: Value) {
        let (code, body) = self.post(path, &object).await;
        assert_eq!(code, 201, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_reviews_name_the_user_of_known_tokens_only() {
    let r = Reviews::start().await;
    let admin = r.token_review(&r.f.server.credentials().token).await;
    assert_eq!(admin["authenticated"], true);
    assert_eq!(admin["user"]["username"], "token-admin");
    assert_eq!(
        admin["user"]["groups"],
        json!(["system:masters", "system:authenticated"])
    );
    let alice = r.token_review("alice-token").await;
    assert_eq!(alice["user"]["username"], "alice");
    assert_eq!(
        alice["user"]["groups"],
        json!(["team-a", "team-b", "system:authenticated"])
    );
    let unknown = r.token_review("nobody").await;
    assert_ne!(unknown["authenticated"], true, "{unknown}");
    assert_eq!(unknown["user"], json!({}));
    // The token file's users authenticate against the server itself too.
    let url = format!("{}/api/v1/namespaces", r.f.server.url());
    let as_alice = r
        .client
        .get(&url)
        .bearer_auth("alice-token")
        .send()
        .await
        .unwrap();
    assert_eq!(as_alice.status().as_u16(), 200);
    let (code, body) = r
        .post(
            "/apis/authentication.k8s.io/v1/tokenreviews",
            &json!({"spec": {}}),
        )
        .await;
    assert_eq!((code, body["reason"].as_str()), (400, Some("BadRequest")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subject_access_reviews_follow_the_stored_rbac() {
    let r = Reviews::start().await;
    let metrics = json!({"user": "alice", "groups": ["team-a", "system:authenticated"],
        "nonResourceAttributes": {"path": "/metrics", "verb": "get"}});
    assert!(!r.allowed(metrics.clone()).await, "no binding yet");
    // Built in: every authenticated user may read discovery and health.
    assert!(
        r.allowed(json!({"user": "alice", "groups": ["system:authenticated"],
            "nonResourceAttributes": {"path": "/apis/apps/v1", "verb": "get"}}))
            .await
    );
    assert!(
        r.allowed(json!({"user": "x", "groups": ["system:masters"],
            "resourceAttributes": {"verb": "delete", "resource": "nodes"}}))
            .await
    );

    r.create(
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        json!({"metadata": {"name": "metrics-reader"},
            "rules": [{"nonResourceURLs": ["/metrics", "/configz"], "verbs": ["get"]}]}),
    )
    .await;
    r.create(
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        json!({"metadata": {"name": "team-a-metrics"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "metrics-reader"},
            "subjects": [{"kind": "Group", "name": "team-a", "apiGroup": "rbac.authorization.k8s.io"}]}),
    )
    .await;
    assert!(r.allowed(metrics.clone()).await, "bound through team-a");
    let post = json!({"user": "alice", "groups": ["team-a"],
        "nonResourceAttributes": {"path": "/metrics", "verb": "post"}});
    assert!(!r.allowed(post).await, "only get is granted");
    let other = json!({"user": "bob", "groups": ["team-c"],
        "nonResourceAttributes": {"path": "/metrics", "verb": "get"}});
    assert!(!r.allowed(other).await, "bob is not in team-a");

    // A RoleBinding grants in its namespace only.
    r.create(
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
        json!({"metadata": {"name": "cm-reader"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]}),
    )
    .await;
    r.create(
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
        json!({"metadata": {"name": "alice-cm"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]}),
    )
    .await;
    let cm = |ns: &str| {
        json!({"user": "alice", "resourceAttributes":
            {"namespace": ns, "verb": "get", "resource": "configmaps", "name": "x"}})
    };
    assert!(r.allowed(cm("default")).await);
    assert!(!r.allowed(cm("kube-system")).await);

    let (code, _) = r
        .post(
            "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            &json!({"spec": {"nonResourceAttributes": {"path": "/metrics", "verb": "get"}}}),
        )
        .await;
    assert_eq!(code, 422, "a review without user or groups is invalid");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_lists_the_review_resources() {
    let r = Reviews::start().await;
    let groups = r.get("/apis").await;
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    for (group, resource) in [
        ("authentication.k8s.io", "tokenreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
    ] {
        assert!(names.contains(&group), "{names:?}");
        let group_doc = r.get(&format!("/apis/{group}")).await;
        assert_eq!(
            group_doc["preferredVersion"]["groupVersion"],
            format!("{group}/v1")
        );
        let list = r.get(&format!("/apis/{group}/v1")).await;
        let entry = list["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == resource)
            .unwrap_or_else(|| panic!("{resource} in {list}"));
        assert_eq!(entry["verbs"], json!(["create"]));
        assert_eq!(entry["namespaced"], false);
    }
}
