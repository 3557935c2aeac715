//! The node Lease (`kube-node-lease/<node>`) a kubelet renews as its heartbeat
//! (kubernetes `pkg/kubelet/nodelease` / `component-helpers/apimachinery/lease`: holder = node
//! name, 40 s duration, owned by the Node, renewed every quarter of the duration).

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, OwnerReference};
use k8s_openapi::jiff::Timestamp;
use kube::api::{ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Api, Client};

/// Namespace of node Leases.
pub const NAMESPACE: &str = "kube-node-lease";
/// The kubelet's default `nodeLeaseDurationSeconds`.
pub const DURATION_SECONDS: i32 = 40;

/// The Lease a kubelet creates for `node` (owner reference to the Node when its UID is known).
pub fn new_lease(node: &Node, now: Timestamp) -> Lease {
    let name = node.metadata.name.clone().unwrap_or_default();
    let owner = node.metadata.uid.clone().map(|uid| {
        vec![OwnerReference {
            api_version: "v1".to_owned(),
            kind: "Node".to_owned(),
            name: name.clone(),
            uid,
            ..Default::default()
        }]
    });
    Lease {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            namespace: Some(NAMESPACE.to_owned()),
            owner_references: owner,
            ..Default::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(name),
            lease_duration_seconds: Some(DURATION_SECONDS),
            renew_time: Some(MicroTime(now)),
            ..Default::default()
        }),
    }
}

/// Renews `node`'s Lease (creating it when missing); returns the renew time written.
pub async fn renew(client: &Client, node: &Node) -> Result<Timestamp, kube::Error> {
    let leases: Api<Lease> = Api::namespaced(client.clone(), NAMESPACE);
    let name = node.metadata.name.clone().unwrap_or_default();
    let now = Timestamp::now();
    let patch = serde_json::json!({
        "spec": {
            "holderIdentity": name,
            "leaseDurationSeconds": DURATION_SECONDS,
            "renewTime": MicroTime(now),
        }
    });
    match leases
        .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
    {
        Ok(_) => Ok(now),
        Err(kube::Error::Api(e)) if e.code == 404 => {
            leases
                .create(&PostParams::default(), &new_lease(node, now))
                .await?;
            Ok(now)
        }
        Err(e) => Err(e),
    }
}
