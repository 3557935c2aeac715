//! The leader Lease survives a burst of controller requests: the leases have their own client
//! and rate limit (as client-go's leader-election clientset), so initialising many nodes at a low
//! `--kube-api-qps` never delays a renewal past the renew deadline. With one shared rate limit the
//! process lost its Lease seconds into initialising 1000 nodes (found by the `ccm_scale` bench).

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::{ListParams, PostParams};

use crate::cloud_controller_manager::{Manager, wait_for};
use crate::processes::{ApiServer, UNINITIALIZED, tainted_node};
use crate::topology::Cloud;

const NODES: usize = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_controller_requests_does_not_starve_the_lease_renewals() {
    let cloud = Cloud::start("1000-nodes.yaml", &[]).await;
    let api = ApiServer::start();
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    for (name, _) in cloud.fake.imds.iter().take(NODES) {
        nodes
            .create(&PostParams::default(), &tainted_node(name))
            .await
            .expect("node");
    }
    let config = cloud.azure_json("");
    let manager = Manager::start(
        &cloud.fake,
        &api,
        &config,
        &[
            "--controllers=cloud-node",
            "--kube-api-qps=5",
            "--kube-api-burst=5",
            "--leader-elect-lease-duration=4s",
            "--leader-elect-renew-deadline=3s",
            "--leader-elect-retry-period=1s",
        ],
    );
    wait_for("every node initialised", &[&manager], || async {
        let list = nodes.list(&ListParams::default()).await.ok()?;
        list.items
            .iter()
            .all(|n| {
                n.spec.as_ref().is_some_and(|s| {
                    s.provider_id.is_some()
                        && !s.taints.iter().flatten().any(|t| t.key == UNINITIALIZED)
                })
            })
            .then_some(())
    })
    .await;
    let leases: Api<Lease> = Api::namespaced(client, "kube-system");
    let lease = leases
        .get("cloud-controller-manager")
        .await
        .expect("lease")
        .spec
        .expect("spec");
    assert!(lease.holder_identity.is_some_and(|h| !h.is_empty()));
    assert_eq!(
        lease.lease_transitions.unwrap_or(0),
        0,
        "the Lease changed hands:\n{}",
        manager.logs()
    );
}
