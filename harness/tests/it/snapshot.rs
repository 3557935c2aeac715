//! Snapshots and the sampler against a real embedded cluster (small.yaml through the `azure-fakes`
//! binary and the embedded API server): what a snapshot holds for a Node, a LoadBalancer Service,
//! a Lease and an Event created here plus the fake's ARM state and journal; the sampler's ticks.

use std::collections::BTreeMap;
use std::time::Duration;

use harness::cluster::ClusterProvider;
use harness::roster::{ManagedProcess, ManagerKind, Roster};
use harness::snapshot::{Sampler, Snapshot, capture};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, Node, Service};
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::json;

use crate::cluster::small;
use crate::scratch::Scratch;

const NODE: &str = "k8s-agentpool-0-0";

async fn create_objects(client: &kube::Client) {
    let nodes: Api<Node> = Api::all(client.clone());
    let node: Node = serde_json::from_value(json!({
        "metadata": {"name": NODE, "labels": {"topology.kubernetes.io/region": "eastus"}},
        "spec": {
            "providerID": "azure:///subscriptions/s/resourceGroups/k8s-small-rg/providers/Microsoft.Compute/virtualMachines/k8s-agentpool-0-0",
            "taints": [{"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true", "effect": "NoSchedule"}]
        }
    }))
    .expect("node JSON");
    nodes
        .create(&PostParams::default(), &node)
        .await
        .expect("create node");
    let status = json!({"status": {
        "addresses": [{"type": "Hostname", "address": NODE}, {"type": "InternalIP", "address": "10.240.0.4"}],
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                        "lastHeartbeatTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}]
    }});
    nodes
        .patch_status(NODE, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("node status");

    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    let service: Service = serde_json::from_value(json!({
        "metadata": {"name": "web", "finalizers": ["service.kubernetes.io/load-balancer-cleanup"]},
        "spec": {"type": "LoadBalancer", "ports": [{"port": 80, "protocol": "TCP", "appProtocol": "http"}]}
    }))
    .expect("service JSON");
    services
        .create(&PostParams::default(), &service)
        .await
        .expect("create service");
    let ingress = json!({"status": {"loadBalancer": {"ingress": [{"ip": "20.1.2.3"}]}}});
    services
        .patch_status("web", &PatchParams::default(), &Patch::Merge(&ingress))
        .await
        .expect("service status");
    let plain: Service = serde_json::from_value(json!({
        "metadata": {"name": "internal-only"}, "spec": {"ports": [{"port": 81}]}
    }))
    .expect("service JSON");
    services
        .create(&PostParams::default(), &plain)
        .await
        .expect("create ClusterIP service");

    let leases: Api<Lease> = Api::namespaced(client.clone(), "kube-system");
    let lease: Lease = serde_json::from_value(json!({
        "metadata": {"name": "kube-controller-manager"},
        "spec": {"holderIdentity": "kcm-a", "leaseDurationSeconds": 15, "leaseTransitions": 2,
                 "renewTime": "2026-01-01T00:00:00.000000Z"}
    }))
    .expect("lease JSON");
    leases
        .create(&PostParams::default(), &lease)
        .await
        .expect("create lease");

    let events: Api<Event> = Api::namespaced(client.clone(), "default");
    let event: Event = serde_json::from_value(json!({
        "metadata": {"name": "web.1"},
        "involvedObject": {"kind": "Service", "namespace": "default", "name": "web"},
        "reason": "EnsuredLoadBalancer", "type": "Normal", "message": "Ensured load balancer",
        "source": {"component": "service-controller"}, "count": 1
    }))
    .expect("event JSON");
    events
        .create(&PostParams::default(), &event)
        .await
        .expect("create event");
}

fn check_content(s: &Snapshot) {
    assert_eq!(s.label, "baseline");
    let node = s.node(NODE).expect("our node");
    assert!(!node.uid.is_empty());
    assert_eq!(
        node.provider_id.as_deref(),
        Some(
            "azure:///subscriptions/s/resourceGroups/k8s-small-rg/providers/Microsoft.Compute/virtualMachines/k8s-agentpool-0-0"
        )
    );
    assert_eq!(node.labels["topology.kubernetes.io/region"], "eastus");
    assert!(node.has_taint("node.cloudprovider.kubernetes.io/uninitialized"));
    // Address order is kept as posted.
    let addresses: Vec<(&str, &str)> = node
        .addresses
        .iter()
        .map(|a| (a.type_.as_str(), a.address.as_str()))
        .collect();
    assert_eq!(
        addresses,
        [("Hostname", NODE), ("InternalIP", "10.240.0.4")]
    );
    assert!(node.ready());

    assert_eq!(
        s.services.len(),
        1,
        "only LoadBalancer Services: {:?}",
        s.services
    );
    let web = s.service("default/web").expect("web");
    assert_eq!(web.ingress, ["20.1.2.3"]);
    assert_eq!(
        web.finalizers,
        ["service.kubernetes.io/load-balancer-cleanup"]
    );
    assert_eq!(web.ports[0].app_protocol.as_deref(), Some("http"));
    assert!(web.base_name().starts_with('a') && web.base_name().len() == 32);

    let lease = s.lease("kube-controller-manager").expect("lease");
    assert_eq!(
        (
            lease.holder.as_str(),
            lease.duration_seconds,
            lease.transitions
        ),
        ("kcm-a", Some(15), Some(2))
    );
    assert!(lease.renew_ms.is_some());
    let event = s
        .events
        .iter()
        .find(|e| e.reason == "EnsuredLoadBalancer")
        .expect("event");
    assert_eq!(
        (event.involved_kind.as_str(), event.involved_name.as_str()),
        ("Service", "web")
    );
    assert_eq!(event.source_component, "service-controller");

    // ARM from the fake's state: small.yaml's NSG, its load balancer and its VMs.
    assert!(
        s.arm.security_groups.iter().any(|n| n.name == "k8s-nsg"),
        "{:#?}",
        s.arm.security_groups
    );
    let lb = s
        .arm
        .load_balancers
        .iter()
        .find(|l| l.name == "kubernetes")
        .expect("LB kubernetes");
    assert_eq!(lb.id, lb.id.to_ascii_lowercase());
    assert!(
        lb.frontends
            .iter()
            .any(|f| f.name == "outbound" && f.public_ip_id.is_some())
    );
    assert!(
        s.arm
            .public_ips
            .iter()
            .any(|p| p.name == "k8s-outbound-pip")
    );
    assert!(
        s.arm
            .machines
            .iter()
            .any(|m| m.computer_name.as_deref() == Some(NODE)),
        "{:#?}",
        s.arm.machines
    );
    assert!(!s.arm.ip_configurations.is_empty());
    // The journal holds the fake's entries, in sequence order.
    assert!(!s.journal.is_empty());
    assert!(s.journal.windows(2).all(|w| w[0].seq < w[1].seq));
}

#[tokio::test]
async fn a_snapshot_holds_the_objects_and_arm_and_the_sampler_ticks() {
    let dir = Scratch::new("snapshot");
    let mut cluster = small(&dir).await;
    let client = cluster.kube_client().await.expect("client");
    let admin = cluster.fake_admin().expect("admin").clone();
    create_objects(&client).await;

    let snap = capture(&client, &admin, "baseline").await.expect("capture");
    check_content(&snap);
    let json = serde_json::to_string(&snap).expect("serialize");
    let back: Snapshot = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, snap);

    let roster = Roster::new();
    roster.started(ManagedProcess {
        name: "kube-controller-manager-0".into(),
        kind: ManagerKind::KubeControllerManager,
        cloud_loops: BTreeMap::from([(
            "service-lb-controller".into(),
            "kube-controller-manager".into(),
        )]),
        started_ms: 0,
        stopped_ms: None,
        hostname: "kcm-a".into(),
        pid: None,
        usage: None,
    });
    let sampler = Sampler::start(
        client.clone(),
        admin.clone(),
        roster,
        Duration::from_millis(200),
    );
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let samples = sampler.stop().await;
    assert!(samples.len() >= 2, "{} samples", samples.len());
    assert!(samples.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    let last = samples.last().expect("a sample");
    let node = last
        .nodes
        .as_ref()
        .expect("nodes listed")
        .iter()
        .find(|n| n.name == NODE)
        .expect("node");
    assert!(node.ready && node.uninitialized && node.provider_id_set);
    let web = last.services.as_ref().expect("services listed");
    assert_eq!(web.len(), 1);
    assert_eq!(
        (web[0].ingress.clone(), web[0].finalizer),
        (vec!["20.1.2.3".to_owned()], true)
    );
    assert_eq!(
        last.lease("kube-controller-manager")
            .map(|l| l.holder.as_str()),
        Some("kcm-a")
    );
    assert_eq!(last.processes.len(), 1);
    // No LB rule is named after the Service: the frontend is down in the fake's LB state.
    let lb = last.lb.as_ref().expect("ARM read");
    assert_eq!(
        (lb[0].service.as_str(), lb[0].has_rule),
        ("default/web", false)
    );
    serde_json::to_string(&samples).expect("samples serialize");
    cluster.teardown().await.expect("teardown");
}
