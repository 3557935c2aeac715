//! The Deployment `/scale` subresource: discovery advertises it, `kubectl scale` uses it, and
//! raw GET/PUT/PATCH answer autoscaling/v1 Scale objects with the real update rules.

use serde_json::Value;

use super::fixture::Fixture;

const WEB: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1}]
";

const SCALE: &str = "/apis/apps/v1/namespaces/default/deployments/web/scale";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_scale_and_raw_scale_requests() {
    let f = Fixture::start().await;
    let discovery = f.raw("GET", "/apis/apps/v1", "application/json", "").await;
    let scale_res = discovery.body["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "deployments/scale")
        .cloned()
        .expect("deployments/scale advertised");
    assert_eq!(
        (
            &scale_res["group"],
            &scale_res["version"],
            &scale_res["kind"]
        ),
        (
            &Value::from("autoscaling"),
            &Value::from("v1"),
            &Value::from("Scale")
        )
    );

    f.apply(WEB, &[]).await;
    let out = f
        .kubectl_ok(&["scale", "deployment/web", "--replicas=3"])
        .await;
    assert_eq!(out.trim(), "deployment.apps/web scaled");
    let d: Value = serde_json::from_str(
        &f.kubectl_ok(&[
            "get",
            "deployment",
            "web",
            "-o",
            "json",
            "--show-managed-fields",
        ])
        .await,
    )
    .unwrap();
    assert_eq!(d["spec"]["replicas"], 3);
    assert_eq!(d["metadata"]["generation"], 2);
    let entries = d["metadata"]["managedFields"].as_array().unwrap();
    assert!(
        entries.iter().any(|e| e["subresource"] == "scale"),
        "{entries:?}"
    );

    let got = f.raw("GET", SCALE, "application/json", "").await;
    assert_eq!(got.status, 200);
    assert_eq!(got.body["apiVersion"], "autoscaling/v1");
    assert_eq!(got.body["kind"], "Scale");
    assert_eq!(got.body["spec"]["replicas"], 3);
    assert_eq!(got.body["status"]["selector"], "app=web");

    let mut put = got.body.clone();
    put["spec"]["replicas"] = 5.into();
    let r = f
        .raw("PUT", SCALE, "application/json", &put.to_string())
        .await;
    assert_eq!(
        (r.status, &r.body["spec"]["replicas"]),
        (200, &Value::from(5))
    );
    // The same resourceVersion again is stale now.
    let r = f
        .raw("PUT", SCALE, "application/json", &put.to_string())
        .await;
    assert_eq!(r.status, 409, "{}", r.body);

    let r = f
        .raw(
            "PATCH",
            SCALE,
            "application/merge-patch+json",
            r#"{"spec": {"replicas": -1}}"#,
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(
        r.body["message"],
        "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    );
    let r = f
        .raw(
            "PATCH",
            &format!("{SCALE}?fieldValidation=Strict"),
            "application/merge-patch+json",
            r#"{"spec": {"replicaz": 2}}"#,
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let r = f
        .raw(
            "PATCH",
            &format!("{SCALE}?dryRun=All"),
            "application/merge-patch+json",
            r#"{"spec": {"replicas": 9}}"#,
        )
        .await;
    assert_eq!(r.body["spec"]["replicas"], 9);
    let missing = f
        .raw(
            "GET",
            "/apis/apps/v1/namespaces/default/deployments/none/scale",
            "application/json",
            "",
        )
        .await;
    assert_eq!(missing.status, 404);
    let d = f
        .kubectl_ok(&[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.replicas}",
        ])
        .await;
    assert_eq!(d, "5");
    f.server.shutdown().await.unwrap();
}
