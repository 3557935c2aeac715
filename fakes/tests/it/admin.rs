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
