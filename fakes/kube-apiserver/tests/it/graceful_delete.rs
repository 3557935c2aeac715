//! Graceful deletion: a Pod bound to a node stays Terminating for its grace period until a delete
//! with grace 0 (the kubelet's) removes it, through kube-rs and `kubectl delete --grace-period`;
//! propagationPolicy is validated.

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::json;

use super::fixture::Fixture;

fn pod(name: &str, node: Option<&str>) -> Pod {
    let mut p = json!({"metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}});
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
    }
    serde_json::from_value(p).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_rs_graceful_pod_deletion() {
    let f = Fixture::start().await;
    let pods: Api<Pod> = Api::namespaced(f.client().await, "default");
    pods.create(&PostParams::default(), &pod("bound", Some("node-1")))
        .await
        .unwrap();
    let terminating = pods
        .delete("bound", &DeleteParams::default())
        .await
        .unwrap()
        .left()
        .expect("a terminating Pod is returned");
    assert_eq!(terminating.metadata.deletion_grace_period_seconds, Some(30));
    assert!(terminating.metadata.deletion_timestamp.is_some());
    // Still there: nothing but a zero-grace delete (or its grace period's kubelet) removes it.
    let live = pods.get("bound").await.unwrap();
    assert!(live.metadata.deletion_timestamp.is_some());
    let shorter = pods
        .delete("bound", &DeleteParams::default().grace_period(10))
        .await
        .unwrap()
        .left()
        .unwrap();
    assert_eq!(shorter.metadata.deletion_grace_period_seconds, Some(10));
    assert!(pods.get_opt("bound").await.unwrap().is_some());
    pods.delete("bound", &DeleteParams::default().grace_period(0))
        .await
        .unwrap();
    assert!(pods.get_opt("bound").await.unwrap().is_none());

    // A Pod no node runs is removed at once whatever the grace period.
    pods.create(&PostParams::default(), &pod("pending", None))
        .await
        .unwrap();
    pods.delete("pending", &DeleteParams::default().grace_period(30))
        .await
        .unwrap();
    assert!(pods.get_opt("pending").await.unwrap().is_none());

    // Other kinds have no grace period; every propagation policy deletes them.
    let cms: Api<ConfigMap> = Api::namespaced(f.client().await, "default");
    for (i, dp) in [
        DeleteParams::background(),
        DeleteParams::foreground(),
        DeleteParams::orphan(),
    ]
    .iter()
    .enumerate()
    {
        let name = format!("cm-{i}");
        let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
        cms.create(&PostParams::default(), &cm).await.unwrap();
        cms.delete(&name, &dp.clone().grace_period(30))
            .await
            .unwrap();
        assert!(cms.get_opt(&name).await.unwrap().is_none(), "{dp:?}");
    }
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "kept"}})).unwrap();
    cms.create(&PostParams::default(), &cm).await.unwrap();
    let bad = f
        .raw(
            "DELETE",
            "/api/v1/namespaces/default/configmaps/kept",
            "application/json",
            r#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Sideways"}"#,
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.body);
    assert_eq!(bad.body["reason"], "Invalid");
    assert_eq!(
        bad.body["message"],
        "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
    );
    assert!(cms.get_opt("kept").await.unwrap().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_delete_with_grace_period() {
    let f = Fixture::start().await;
    f.apply(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  nodeName: node-1\n  terminationGracePeriodSeconds: 45\n  containers: [{name: c, image: busybox:1.36}]\n",
        &[],
    )
    .await;
    let out = f
        .kubectl_ok(&["delete", "pod", "p", "--grace-period=20", "--wait=false"])
        .await;
    assert!(out.contains("pod \"p\" deleted"), "{out}");
    let live = f.get_json(&["pod", "p"]).await;
    assert_eq!(live["metadata"]["deletionGracePeriodSeconds"], 20);
    let table = f.kubectl_ok(&["get", "pod", "p", "--no-headers"]).await;
    assert!(table.contains("Terminating"), "{table}");

    // What the kubelet does once the containers stopped: delete with grace 0.
    f.kubectl_ok(&["delete", "pod", "p", "--grace-period=0", "--force"])
        .await;
    let out = f.kubectl(&["get", "pod", "p"]).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pods \"p\" not found"), "{err}");

    // Without --grace-period the Pod's own terminationGracePeriodSeconds applies.
    f.apply(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: default}\nspec:\n  nodeName: node-1\n  terminationGracePeriodSeconds: 45\n  containers: [{name: c, image: busybox:1.36}]\n",
        &[],
    )
    .await;
    f.kubectl_ok(&["delete", "pod", "q", "--wait=false"]).await;
    let grace = f
        .kubectl_ok(&[
            "get",
            "pod",
            "q",
            "-o",
            "jsonpath={.metadata.deletionGracePeriodSeconds}",
        ])
        .await;
    assert_eq!(grace, "45");
}
