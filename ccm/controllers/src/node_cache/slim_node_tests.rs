//! [`SlimNode`] decodes what [`slim()`] keeps of a whole decode, from kubelet-sized JSON.

use ccm_cloud::NodeView;
use k8s_openapi::api::core::v1::Node;
use kube::Resource;
use kube::core::ObjectList;
use serde_json::{Value, json};

use super::SlimNode;
use crate::node_cache::slim;

/// A Node as a kubelet and the API server leave it: managedFields of three managers, 25
/// images, node info, capacity, allocatable, daemon endpoints, attached volumes and every
/// metadata field; `extra` adds unknown keys at each level.
fn kubelet_node(extra: bool) -> Value {
    let images: Vec<Value> = (0..25)
        .map(|i| {
            json!({
                "names": [
                    format!("mcr.microsoft.com/oss/kubernetes/image-{i}@sha256:{:064x}", i),
                    format!("mcr.microsoft.com/oss/kubernetes/image-{i}:v1.{i}.0"),
                ],
                "sizeBytes": 10_000_000 + i,
            })
        })
        .collect();
    let conditions: Vec<Value> = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
        .iter()
        .map(|t| {
            json!({
                "type": t, "status": if *t == "Ready" { "True" } else { "False" },
                "lastHeartbeatTime": "2026-11-25T06:00:00Z",
                "lastTransitionTime": "2026-11-24T06:00:00Z",
                "reason": format!("Kubelet{t}"), "message": format!("kubelet reports {t}"),
            })
        })
        .collect();
    let managed = |manager: &str, op: &str, sub: Option<&str>| {
        let mut entry = json!({
            "manager": manager, "operation": op, "apiVersion": "v1",
            "time": "2026-11-25T06:00:00Z", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/os": {}}},
                         "f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}}},
                                      "f:images": {}, "f:nodeInfo": {"f:kubeletVersion": {}}}},
        });
        if let Some(sub) = sub {
            entry["subresource"] = json!(sub);
        }
        entry
    };
    let mut node = json!({
        "kind": "Node",
        "apiVersion": "v1",
        "metadata": {
            "name": "aks-nodepool1-12345678-vmss000000",
            "uid": "5a3e7c1e-2f0b-4d1e-9c1b-0a2b3c4d5e6f",
            "resourceVersion": "123456",
            "generation": 3,
            "creationTimestamp": "2026-11-24T06:00:00Z",
            "deletionTimestamp": "2026-11-25T06:30:00Z",
            "deletionGracePeriodSeconds": 0,
            "generateName": "aks-",
            "selfLink": "/api/v1/nodes/aks-nodepool1-12345678-vmss000000",
            "labels": {"kubernetes.io/os": "linux", "kubernetes.io/hostname": "aks-nodepool1-12345678-vmss000000"},
            "annotations": {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
            "finalizers": ["example.com/keep"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "owner", "uid": "u-owner"}],
            "managedFields": [
                managed("kubelet", "Update", None),
                managed("kubelet", "Update", Some("status")),
                managed("cloud-controller-manager", "Update", None),
            ],
        },
        "spec": {
            "providerID": "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/0",
            "podCIDR": "10.244.0.0/24",
            "podCIDRs": ["10.244.0.0/24", "fd00::/64"],
            "taints": [{"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true", "effect": "NoSchedule"}],
            "unschedulable": false,
        },
        "status": {
            "capacity": {"cpu": "8", "memory": "32863332Ki", "pods": "110", "ephemeral-storage": "129886128Ki"},
            "allocatable": {"cpu": "7820m", "memory": "28472932Ki", "pods": "110"},
            "phase": "Running",
            "conditions": conditions,
            "addresses": [{"type": "InternalIP", "address": "10.224.0.4"}, {"type": "Hostname", "address": "aks-nodepool1-12345678-vmss000000"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "5.15.0",
                "osImage": "Ubuntu 22.04.5 LTS", "containerRuntimeVersion": "containerd://1.7.25",
                "kubeletVersion": "v1.33.0", "kubeProxyVersion": "", "operatingSystem": "linux",
                "architecture": "amd64",
            },
            "images": images,
            "volumesInUse": ["kubernetes.io/csi/disk.csi.azure.com^disk-1"],
            "volumesAttached": [{"name": "kubernetes.io/csi/disk.csi.azure.com^disk-1", "devicePath": ""}],
            "config": {},
            "features": {"supplementalGroupsPolicy": true},
            "runtimeHandlers": [{"name": "runc", "features": {"recursiveReadOnlyMounts": true, "userNamespaces": true}}],
        },
    });
    if extra {
        node["futureTopLevel"] = json!({"nested": [1, 2, {"deep": null}]});
        node["metadata"]["futureMetadata"] = json!("x");
        node["spec"]["futureSpec"] = json!(true);
        node["status"]["futureStatus"] = json!({"a": [1]});
        node["status"]["conditions"][0]["futureCondition"] = json!(1);
    }
    node
}

/// The whole Node decoded, then slimmed: what the cache kept before [`SlimNode`].
fn whole_then_slim(text: &str) -> Node {
    let mut whole: Node = serde_json::from_str(text).expect("a whole Node");
    assert!(
        whole.metadata.managed_fields.is_some()
            && whole
                .status
                .as_ref()
                .is_some_and(|s| s.images.is_some() && s.node_info.is_some()),
        "the fixture carries what is skipped"
    );
    slim(&mut whole);
    whole
}

#[test]
fn a_kubelet_node_decodes_equal_to_slim_of_the_whole_decode() {
    let text = kubelet_node(false).to_string();
    let decoded: SlimNode = serde_json::from_str(&text).expect("a slim Node");
    assert_eq!(decoded.to_node(), whole_then_slim(&text));
    let whole: Node = serde_json::from_str(&text).expect("a whole Node");
    assert_eq!(
        decoded,
        SlimNode::from(whole),
        "decoded as a whole Node is converted"
    );
    // Kept: what the controllers and the provider read.
    let node = &decoded.to_node();
    assert_eq!(
        node.metadata.uid.as_deref(),
        Some("5a3e7c1e-2f0b-4d1e-9c1b-0a2b3c4d5e6f")
    );
    assert!(node.metadata.creation_timestamp.is_some() && node.metadata.owner_references.is_some());
    assert_eq!(node.metadata.managed_fields, None);
    let status = node.status.as_ref().expect("status");
    assert_eq!(status.addresses.as_ref().map(Vec::len), Some(2));
    // Of the kubelet's four conditions, Ready alone is read (type and status).
    let conditions = status.conditions.as_ref().expect("conditions");
    assert_eq!(conditions.len(), 1);
    assert_eq!(
        (conditions[0].type_.as_str(), conditions[0].status.as_str()),
        ("Ready", "True")
    );
    assert_eq!(conditions[0].message, None);
    assert_eq!(status.images, None);
    assert_eq!(status.capacity, None);
}

#[test]
fn a_node_with_unknown_fields_decodes() {
    let text = kubelet_node(true).to_string();
    let decoded: SlimNode = serde_json::from_str(&text).expect("unknown fields are skipped");
    assert_eq!(decoded.to_node(), whole_then_slim(&text));
}

#[test]
fn a_list_page_decodes_and_a_bare_node_too() {
    let mut item = kubelet_node(false);
    // List items may come without kind and apiVersion.
    item.as_object_mut().map(|o| {
        o.remove("kind");
        o.remove("apiVersion")
    });
    let page = json!({
        "kind": "NodeList", "apiVersion": "v1",
        "metadata": {"resourceVersion": "9", "continue": "next"},
        "items": [item, {"metadata": {"name": "bare"}}],
    });
    let list: ObjectList<SlimNode> = serde_json::from_value(page).expect("a slim page");
    assert_eq!(list.items.len(), 2);
    assert_eq!(list.items[1].metadata.name.as_deref(), Some("bare"));
    assert_eq!(list.items[1].spec, None);
    assert_eq!(list.items[1].status, None);
    assert_eq!(list.items[1].to_node().metadata.labels, None);
}

#[test]
fn it_is_served_at_nodes_url() {
    assert_eq!(SlimNode::url_path(&(), None), "/api/v1/nodes");
    assert_eq!(SlimNode::kind(&()), "Node");
    assert_eq!(SlimNode::api_version(&()), "v1");
    let whole: Node = serde_json::from_value(kubelet_node(false)).expect("whole");
    let slim = SlimNode::from(whole);
    assert_eq!(slim.meta().name, slim.metadata.name);
}

#[test]
fn the_view_reads_the_cached_node_like_the_whole_one() {
    let text = kubelet_node(false).to_string();
    let cached: SlimNode = serde_json::from_str(&text).expect("a slim Node");
    let whole = whole_then_slim(&text);
    let views: [&dyn NodeView; 2] = [&cached, &whole];
    for view in views {
        assert_eq!(view.name(), "aks-nodepool1-12345678-vmss000000");
        assert_eq!(view.uid(), Some("5a3e7c1e-2f0b-4d1e-9c1b-0a2b3c4d5e6f"));
        assert_eq!(view.label("kubernetes.io/os"), Some("linux"));
        assert_eq!(view.label("kubernetes.io/arch"), None);
        assert!(
            view.provider_id()
                .is_some_and(|p| p.ends_with("virtualMachines/0"))
        );
        assert_eq!(
            view.addresses().collect::<Vec<_>>(),
            [
                ("InternalIP", "10.224.0.4"),
                ("Hostname", "aks-nodepool1-12345678-vmss000000")
            ]
        );
        assert!(view.has_taint("node.cloudprovider.kubernetes.io/uninitialized"));
        assert!(!view.unschedulable());
        assert_eq!(view.condition_status("Ready"), Some("True"));
        assert_eq!(view.condition_status("MemoryPressure"), None);
        assert!(view.creation_timestamp().is_some() && view.deletion_timestamp().is_some());
    }
    assert_eq!(cached.annotation("node.alpha.kubernetes.io/ttl"), Some("0"));
    assert_eq!(
        cached.pod_cidrs().collect::<Vec<_>>(),
        ["10.244.0.0/24", "fd00::/64"]
    );
    assert_eq!(cached.pod_cidr(), Some("10.244.0.0/24"));
    assert_eq!(cached.taints().len(), 1);
}

#[test]
fn two_nodes_of_a_pool_share_their_label_texts() {
    let a: SlimNode = serde_json::from_value(kubelet_node(false)).expect("a");
    let mut other = kubelet_node(false);
    other["metadata"]["name"] = json!("aks-nodepool1-12345678-vmss000001");
    let b: SlimNode = serde_json::from_value(other).expect("b");
    let (la, lb) = (a.labels(), b.labels());
    assert_eq!(la.len(), lb.len());
    // Only the name changed (the hostname label too is a's): every label is the same pair.
    for (a, b) in la.iter().zip(lb) {
        assert!(std::sync::Arc::ptr_eq(a, b), "label {a:?} shared");
    }
}

#[test]
fn a_whole_node_round_trips_to_what_slim_keeps() {
    let whole: Node = serde_json::from_value(kubelet_node(true)).expect("whole");
    let mut kept = whole.clone();
    slim(&mut kept);
    let cached = SlimNode::from(whole);
    assert_eq!(cached.to_node(), kept);
    // Serialised as the Node it stands for, and read back equal.
    let text = serde_json::to_string(&cached).expect("serialises");
    let back: SlimNode = serde_json::from_str(&text).expect("decodes");
    assert_eq!(back, cached);
    // Absent and empty maps stay apart.
    let mut bare = Node::default();
    bare.metadata.labels = Some(Default::default());
    assert_eq!(SlimNode::from(bare.clone()).to_node(), bare);
    assert_eq!(SlimNode::from(Node::default()).to_node(), Node::default());
}
