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

fn scaled_nodes(reply: &serde_json::Value) -> Vec<String> {
    reply["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["nodeName"].as_str().unwrap().to_string())
        .collect()
}

/// Scaling both scale-set modes through the binary: ARM lists the instances, `/admin/info` and IMDS follow, and a
/// scale-in removes exactly the newest instances.
#[tokio::test]
async fn scale_sets_scale_out_and_in_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let topology = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mixed.yaml");
    let fake = Fake::start_in(dir, &topology, &[]);
    let (_, info) = fake.admin(Method::GET, "/admin/info", None).await;
    let before = info_nodes(&info);

    let (status, out) = fake
        .admin(
            Method::POST,
            "/admin/compute/scale-sets/uniformpool/scale",
            Some(json!({"instances": 5})),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    let uniform = scaled_nodes(&out);
    assert_eq!(uniform.len(), 5, "{out}");
    // mixed.yaml's app has no secret: the nodes' managed identity signs in, as a kubelet would, through IMDS.
    let identity: serde_json::Value = fake
        .http
        .get(fake.url(&format!(
            "/imds/{}/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/",
            uniform[0]
        )))
        .header("Metadata", "true")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = identity["access_token"]
        .as_str()
        .expect("IMDS token")
        .to_string();
    let list = format!(
        "/subscriptions/{}/resourceGroups/mixed-nodes-rg/providers/Microsoft.Compute/virtualMachineScaleSets/uniformpool/virtualMachines?{}",
        fake.subscription,
        crate::support::COMPUTE_API
    );
    let listed: serde_json::Value = fake
        .arm(&token, Method::GET, &list, None)
        .await
        .json()
        .await
        .unwrap();
    let mut arm_names: Vec<String> = listed["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|vm| {
            vm["properties"]["osProfile"]["computerName"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    arm_names.sort();
    let mut sorted = uniform.clone();
    sorted.sort();
    assert_eq!(arm_names, sorted, "ARM and the admin answer agree");

    let newest = uniform.last().unwrap().clone();
    let imds_status = |node: String| {
        let fake = &fake;
        async move {
            fake.http
                .get(fake.url(&format!(
                    "/imds/{node}/metadata/instance/compute?api-version=2021-10-01"
                )))
                .header("Metadata", "true")
                .send()
                .await
                .unwrap()
        }
    };
    let compute: serde_json::Value = imds_status(newest.clone()).await.json().await.unwrap();
    assert_eq!(compute["vmScaleSetName"], "uniformpool", "{compute}");
    let (_, info) = fake.admin(Method::GET, "/admin/info", None).await;
    assert_eq!(info_nodes(&info).len(), before.len() + 2);

    let (status, out) = fake
        .admin(
            Method::POST,
            "/admin/compute/scale-sets/flexpool/scale",
            Some(json!({"instances": 1})),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(scaled_nodes(&out).len(), 1, "{out}");
    let (status, out) = fake
        .admin(
            Method::POST,
            "/admin/compute/scale-sets/uniformpool/scale",
            Some(json!({"instances": 3})),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(scaled_nodes(&out), uniform[..3].to_vec(), "the newest go");
    assert_eq!(imds_status(newest).await.status(), 404);
    let (_, info) = fake.admin(Method::GET, "/admin/info", None).await;
    assert_eq!(info_nodes(&info).len(), before.len() - 2);

    let (status, out) = fake
        .admin(
            Method::POST,
            "/admin/compute/scale-sets/no-such-set/scale",
            Some(json!({"instances": 1})),
        )
        .await;
    assert_eq!(status, 404, "{out}");
}
