//! `fieldValidation`: unknown and duplicate fields are refused (Strict), warned about (Warn, the
//! default) or dropped silently (Ignore) on create, update, every patch type and server-side
//! apply, with the real server's messages, through raw HTTP and the real kubectl.

use super::fixture::{Fixture, assert_ok};

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";
const JSON: &str = "application/json";

/// A Deployment with an unknown field, a duplicate field and an unknown nested field.
fn bad_deployment(name: &str) -> String {
    format!(
        r#"{{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {{"name": "{name}"}},
        "spec": {{"replicaz": 2, "paused": true, "paused": false,
          "selector": {{"matchLabels": {{"app": "web"}}}},
          "template": {{"metadata": {{"labels": {{"app": "web"}}}},
            "spec": {{"containers": [{{"name": "web", "image": "nginx:1", "bogus": "x"}}]}}}}}}}}"#
    )
}

const FINDINGS: [&str; 3] = [
    r#"unknown field "spec.replicaz""#,
    r#"duplicate field "spec.paused""#,
    r#"unknown field "spec.template.spec.containers[0].bogus""#,
];

fn quoted(text: &str) -> String {
    format!("299 - \"{}\"", text.replace('"', "\\\""))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_and_update_follow_the_directive() {
    let f = Fixture::start().await;
    let strict = f
        .raw(
            "POST",
            &format!("{DEPLOYMENTS}?fieldValidation=Strict"),
            JSON,
            &bad_deployment("s"),
        )
        .await;
    assert_eq!(strict.status, 400, "{}", strict.body);
    assert_eq!(strict.body["reason"], "BadRequest");
    assert_eq!(
        strict.body["message"],
        format!(
            "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: {}",
            FINDINGS.join(", ")
        )
    );

    for (query, name, warned) in [
        ("?fieldValidation=Warn", "w", true),
        ("", "d", true),
        ("?fieldValidation=Ignore", "i", false),
    ] {
        let r = f
            .raw(
                "POST",
                &format!("{DEPLOYMENTS}{query}"),
                JSON,
                &bad_deployment(name),
            )
            .await;
        assert_eq!(r.status, 201, "{query}: {}", r.body);
        let want: Vec<String> = if warned {
            FINDINGS.iter().map(|t| quoted(t)).collect()
        } else {
            Vec::new()
        };
        assert_eq!(r.warnings, want, "{query}");
        // The unknown fields were dropped, the known ones kept.
        assert!(r.body["spec"].get("replicaz").is_none());
        assert!(
            r.body["spec"]["template"]["spec"]["containers"][0]
                .get("bogus")
                .is_none()
        );
        // The last of the duplicate `paused` wins: false, which a Go bool held by value cannot
        // tell from unset, so the typed round trip leaves it out.
        assert!(r.body["spec"].get("paused").is_none(), "{}", r.body);
    }

    let put = f
        .raw(
            "PUT",
            &format!("{DEPLOYMENTS}/w?fieldValidation=Strict"),
            JSON,
            &bad_deployment("w"),
        )
        .await;
    assert_eq!(put.status, 400, "{}", put.body);
    assert!(put.body["message"].as_str().unwrap().ends_with(FINDINGS[2]));
    let bad_mode = f
        .raw(
            "POST",
            &format!("{DEPLOYMENTS}?fieldValidation=Loose"),
            JSON,
            &bad_deployment("x"),
        )
        .await;
    assert_eq!(bad_mode.status, 400);

    // Free-form maps (labels, ConfigMap data) have no unknown keys.
    let cm = r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"any": "x"}}, "data": {"whatever": "v"}}"#;
    let r = f
        .raw(
            "POST",
            "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
            JSON,
            cm,
        )
        .await;
    assert_eq!((r.status, r.warnings.len()), (201, 0), "{}", r.body);
    // A type error fails whatever the directive, as the real decoder does.
    let typed =
        r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "t"}, "data": {"n": 1}}"#;
    let r = f
        .raw(
            "POST",
            "/api/v1/namespaces/default/configmaps?fieldValidation=Ignore",
            JSON,
            typed,
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    f.server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patches_and_apply_follow_the_directive() {
    let f = Fixture::start().await;
    let good = bad_deployment("web")
        .replace(r#""replicaz": 2, "paused": true, "#, "")
        .replace(r#", "bogus": "x""#, "");
    assert_eq!(f.raw("POST", DEPLOYMENTS, JSON, &good).await.status, 201);
    let web = format!("{DEPLOYMENTS}/web");

    let merge = r#"{"spec": {"replicaz": 3, "paused": true, "paused": false}}"#;
    let r = f
        .raw(
            "PATCH",
            &format!("{web}?fieldValidation=Strict"),
            "application/merge-patch+json",
            merge,
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let msg = r.body["message"].as_str().unwrap();
    assert!(
        msg.starts_with(r#" "" is invalid: patch: Invalid value: "{\"apiVersion\":\"apps/v1\","#),
        "{msg}"
    );
    assert!(
        msg.ends_with(
            r#"strict decoding error: duplicate field "spec.paused", unknown field "spec.replicaz""#
        ),
        "{msg}"
    );
    assert_eq!(r.body["details"]["causes"][0]["field"], "patch");

    let r = f
        .raw(
            "PATCH",
            &format!("{web}?fieldValidation=Strict"),
            "application/strategic-merge-patch+json",
            r#"{"spec": {"replicaz": 3}}"#,
        )
        .await;
    assert_eq!(r.status, 422);
    assert_eq!(
        r.body["message"],
        r#" "" is invalid: patch: Invalid value: "map[spec:map[replicaz:3]]": strict decoding error: unknown field "spec.replicaz""#
    );

    let ops = r#"[{"op": "add", "path": "/spec/replicaz", "value": 3, "foo": 1}, {"op": "replace", "path": "/spec/replicas", "value": 4}]"#;
    let r = f
        .raw("PATCH", &web, "application/json-patch+json", ops)
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.warnings,
        vec![
            quoted(r#"json patch unknown field "[0].foo""#),
            quoted(r#"unknown field "spec.replicaz""#)
        ]
    );
    assert_eq!(r.body["spec"]["replicas"], 4);
    assert!(r.body["spec"].get("replicaz").is_none());

    // Server-side apply refuses fields outside the schema whatever fieldValidation says.
    let applied = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicaz: 5\n  template:\n    spec:\n      containers: [{name: web, extra: 1}]\n";
    for mode in ["Strict", "Ignore"] {
        let r = f
            .raw(
                "PATCH",
                &format!("{web}?fieldManager=me&fieldValidation={mode}"),
                "application/apply-patch+yaml",
                applied,
            )
            .await;
        assert_eq!(r.status, 500, "{}", r.body);
        assert!(r.body.get("reason").is_none());
        assert_eq!(
            r.body["message"],
            "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): errors:\n  .spec.replicaz: field not declared in schema\n  .spec.template.spec.containers[name=\"web\"].extra: field not declared in schema"
        );
    }
    f.server.shutdown().await.unwrap();
}

const MISSPELLED: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicaz: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1}]
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_validates_strictly_unless_told_otherwise() {
    let f = Fixture::start().await;
    let out = f
        .kubectl_stdin(&["apply", "-f", "-"], Some(MISSPELLED))
        .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(r#"Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicaz""#),
        "{stderr}"
    );

    let out = f
        .kubectl_stdin(&["apply", "--validate=warn", "-f", "-"], Some(MISSPELLED))
        .await;
    assert_ok(&["apply", "--validate=warn"], &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(r#"Warning: unknown field "spec.replicaz""#),
        "{stderr}"
    );

    // The object now exists: kubectl's apply becomes a strategic merge patch.
    let out = f
        .kubectl_stdin(
            &["apply", "-f", "-"],
            Some(&MISSPELLED.replace("image: nginx:1", "image: nginx:2")),
        )
        .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(r#"strict decoding error: unknown field "spec.replicaz""#),
        "{stderr}"
    );

    let out = f
        .kubectl_stdin(
            &["apply", "--validate=false", "-f", "-"],
            Some(&MISSPELLED.replace("image: nginx:1", "image: nginx:2")),
        )
        .await;
    assert_ok(&["apply", "--validate=false"], &out);
    assert!(String::from_utf8_lossy(&out.stderr).trim().is_empty());
    let stored = f.get_json(&["deployment", "web"]).await;
    assert_eq!(
        stored["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:2"
    );
    assert!(stored["spec"].get("replicaz").is_none());

    let out = f
        .kubectl_stdin(&["apply", "--server-side", "-f", "-"], Some(MISSPELLED))
        .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("Error from server: failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.replicaz: field not declared in schema"),
        "{stderr}"
    );
    f.server.shutdown().await.unwrap();
}
