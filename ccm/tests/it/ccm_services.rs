//! The production `cloud-controller-manager` serving `type: LoadBalancer` Services end to end:
//! the Service gets its finalizer and the public IP Azure allocated, the fake's ARM holds the
//! PIP, frontend and NSG rule, and deleting the Service removes them before the object goes.

use k8s_openapi::api::core::v1::{Node, Service};
use kube::Api;
use kube::api::{DeleteParams, PostParams};

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::processes::{
    ApiServer, FakeAzure, agent_nodes, example, has_ingress, load_balancer_service,
    small_azure_json, tcp_port,
};

const FINALIZER: &str = "service.kubernetes.io/load-balancer-cleanup";

/// Deletes the Service and waits until the object is gone (the finalizer removed after cleanup).
pub(crate) async fn delete_until_gone(services: &Api<Service>, name: &str, managers: &[&Manager]) {
    services
        .delete(name, &DeleteParams::default())
        .await
        .expect("delete service");
    wait_for("the Service is gone", managers, || async {
        services
            .get_opt(name)
            .await
            .ok()
            .and_then(|s| s.is_none().then_some(()))
    })
    .await;
}

pub(crate) fn web() -> Service {
    load_balancer_service("web", vec![tcp_port("http", 80, 30080)])
}

/// Creates [`web`] and waits until the managers gave it an ingress IP; the Service as served then.
pub(crate) async fn create_web_until_served(
    services: &Api<Service>,
    managers: &[&Manager],
) -> Service {
    services
        .create(&PostParams::default(), &web())
        .await
        .expect("service");
    wait_for("the Service gets an ingress IP", managers, || async {
        services.get("web").await.ok().filter(has_ingress)
    })
    .await
}

/// ARM write paths (PUT / DELETE) in the fake's journal.
async fn arm_writes(fake: &FakeAzure) -> Vec<String> {
    fake.journal().await["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["surface"] == "arm" && e["method"] != "GET")
        .map(|e| {
            format!(
                "{} {}",
                e["method"].as_str().unwrap_or_default(),
                e["path"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_balancer_service_gets_its_azure_ip_and_leaves_nothing_behind() {
    // Operations finish at their first poll: the binary polls as production does (Retry-After,
    // else 1 s doubling to 30 s), and the order of calls, not their pace, is under test.
    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = small_azure_json(&fake, dir.path(), None);
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    for node in agent_nodes(&fake).await {
        nodes
            .create(&PostParams::default(), &node)
            .await
            .expect("node");
    }
    let manager = Manager::start(
        &fake,
        &api,
        &config,
        &["--leader-elect=false", "--controllers=service"],
    );
    let services: Api<Service> = Api::namespaced(client, "default");
    let ready = create_web_until_served(&services, &[&manager]).await;
    assert!(
        ready
            .metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == FINALIZER),
        "{ready:?}"
    );
    let ingress = ready
        .status
        .unwrap()
        .load_balancer
        .unwrap()
        .ingress
        .unwrap();
    assert!(ingress[0].ip.is_some() && ingress[0].hostname.is_none());
    let writes = arm_writes(&fake).await;
    for kind in [
        "publicIPAddresses/kubernetes-a",
        "loadBalancers/kubernetes",
        "networkSecurityGroups/k8s-nsg",
    ] {
        assert!(
            writes
                .iter()
                .any(|w| w.starts_with("PUT") && w.contains(kind)),
            "{kind}: {writes:#?}"
        );
    }

    delete_until_gone(&services, "web", &[&manager]).await;
    let writes = arm_writes(&fake).await;
    assert!(
        writes
            .iter()
            .any(|w| w.starts_with("DELETE") && w.contains("publicIPAddresses/kubernetes-a")),
        "{writes:#?}"
    );
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}
