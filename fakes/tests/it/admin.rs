//! The admin API surface: info document and the nested compute admin routes.

use reqwest::Method;
use serde_json::json;

use crate::support::Fake;

#[tokio::test]
async fn info_lists_the_endpoints_and_compute_admin_is_nested() {
    let fake = Fake::start(&[]);
    let (status, info) = fake.admin(Method::GET, "/admin/info", None).await;
    assert_eq!(status, 200);
    assert_eq!(info["arm"], format!("{}/", fake.base));
    assert_eq!(info["subscriptionId"], fake.subscription.as_str());
    assert_eq!(info["imds"].as_array().unwrap().len(), 3);
    assert!(
        info["imds"][0]["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/imds/", fake.base))
    );

    let (status, node) = fake
        .admin(Method::GET, "/admin/compute/nodes/k8s-master-0", None)
        .await;
    assert_eq!(status, 200, "{node}");
    let (status, _) = fake
        .admin(
            Method::POST,
            "/admin/compute/nodes/k8s-master-0/power-state",
            Some(json!({"state": "deallocated"})),
        )
        .await;
    assert_eq!(status, 200);
    let imds = fake
        .http
        .get(fake.url("/imds/k8s-master-0/metadata/instance?api-version=2021-10-01"))
        .header("Metadata", "true")
        .send()
        .await
        .unwrap();
    assert_eq!(
        imds.status(),
        503,
        "a deallocated VM's IMDS does not answer"
    );
}

fn info_nodes(info: &serde_json::Value) -> Vec<String> {
    info["imds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["node"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn info_lists_nodes_from_arm_after_churn_and_a_state_restore() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let state_arg = state.to_str().unwrap().to_string();
    let fake = Fake::start_in(
        dir,
        &crate::support::small_topology(),
        &["--state", &state_arg],
    );
    let (_, info) = fake.admin(Method::GET, "/admin/info", None).await;
    let seeded = info_nodes(&info);
    assert_eq!(seeded.len(), 3);
    let (status, added) = fake
        .admin(
            Method::POST,
            "/admin/compute/vms",
            Some(json!({"name": "k8s-extra-0"})),
        )
        .await;
    assert_eq!(status, 201, "{added}");
    let (_, info) = fake.admin(Method::GET, "/admin/info", None).await;
    let mut expected = seeded.clone();
    expected.push("k8s-extra-0".to_string());
    expected.sort();
    assert_eq!(info_nodes(&info), expected);

    let (exit, dir) = fake.terminate();
    assert!(exit.success());
    let again = Fake::start_in(
        dir,
        &crate::support::small_topology(),
        &["--state", &state_arg],
    );
    let (_, info) = again.admin(Method::GET, "/admin/info", None).await;
    assert_eq!(info_nodes(&info), expected, "the restored VM is listed");
    let extra = info["imds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node"] == "k8s-extra-0")
        .unwrap();
    assert!(
        extra["providerId"]
            .as_str()
            .unwrap()
            .ends_with("/providers/Microsoft.Compute/virtualMachines/k8s-extra-0")
    );
    assert!(
        again
            .printed
            .iter()
            .any(|l| l.starts_with("imds k8s-extra-0: ")),
        "{:?}",
        again.printed
    );
    let imds = again
        .http
        .get(again.url("/imds/k8s-extra-0/metadata/instance?api-version=2021-10-01"))
        .header("Metadata", "true")
        .send()
        .await
        .unwrap();
    assert_eq!(imds.status(), 200);

    let (status, _) = again
        .admin(Method::DELETE, "/admin/compute/nodes/k8s-extra-0", None)
        .await;
    assert!(status == 200 || status == 204, "{status}");
    let (_, info) = again.admin(Method::GET, "/admin/info", None).await;
    assert_eq!(info_nodes(&info), seeded);
}
