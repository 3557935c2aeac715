//! Heap held per cached Node: N kubelet-sized Nodes of one pool (17 labels, 3 annotations, 2
//! addresses, 4 conditions, managedFields and 25 images in the JSON) decoded one by one as the
//! watch decodes them and kept as the store keeps them (`Arc`s), three ways: the whole `Node`,
//! the slimmed `Node` the cache kept before it was compact (`slim()` of the whole decode), and
//! [`SlimNode`]. A counting global allocator measures the live bytes after decoding (the
//! interner's set and shared texts included). Prints figures only; run with
//! `cargo bench -p ccm-controllers --bench slim_nodes` (`SLIM_NODES`, default 5000).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ccm_controllers::node_cache::{SlimNode, interned_count, slim};
use k8s_openapi::api::core::v1::Node;
use serde_json::{Value, json};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same layout the caller gave.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: allocated by `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The JSON of pool Node `i` as a kubelet and the API server leave it.
fn kubelet_node(i: usize) -> String {
    let name = format!("aks-nodepool1-12345678-vmss{i:06}");
    let zone = i % 3 + 1;
    let images: Vec<Value> = (0..25)
        .map(|k| {
            json!({"names": [format!("mcr.microsoft.com/oss/kubernetes/image-{k}@sha256:{k:064x}"),
                             format!("mcr.microsoft.com/oss/kubernetes/image-{k}:v1.{k}.0")],
                   "sizeBytes": 10_000_000 + k})
        })
        .collect();
    let conditions: Vec<Value> = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
        .iter()
        .map(|t| {
            json!({"type": t, "status": if *t == "Ready" { "True" } else { "False" },
                   "lastHeartbeatTime": "2026-11-25T06:00:00Z",
                   "lastTransitionTime": "2026-11-24T06:00:00Z",
                   "reason": format!("Kubelet{t}"), "message": format!("kubelet reports {t}")})
        })
        .collect();
    json!({
        "kind": "Node", "apiVersion": "v1",
        "metadata": {
            "name": name,
            "uid": format!("5a3e7c1e-2f0b-4d1e-9c1b-{i:012}"),
            "resourceVersion": format!("{}", 1_000_000 + i),
            "creationTimestamp": "2026-11-24T06:00:00Z",
            "labels": {
                "agentpool": "nodepool1",
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/instance-type": "Standard_D4s_v5",
                "beta.kubernetes.io/os": "linux",
                "failure-domain.beta.kubernetes.io/region": "westeurope",
                "failure-domain.beta.kubernetes.io/zone": format!("westeurope-{zone}"),
                "kubernetes.azure.com/agentpool": "nodepool1",
                "kubernetes.azure.com/cluster": "MC_rg_cluster_westeurope",
                "kubernetes.azure.com/mode": "system",
                "kubernetes.azure.com/node-image-version": "AKSUbuntu-2204gen2containerd-202511.01.0",
                "kubernetes.azure.com/role": "agent",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "Standard_D4s_v5",
                "topology.kubernetes.io/region": "westeurope",
                "topology.kubernetes.io/zone": format!("westeurope-{zone}"),
            },
            "annotations": {
                "csi.volume.kubernetes.io/nodeid": format!(r#"{{"disk.csi.azure.com":"{name}","file.csi.azure.com":"{name}"}}"#),
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "managedFields": [{"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
                "time": "2026-11-25T06:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/os": {}}}}}],
        },
        "spec": {
            "providerID": format!("azure:///subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/mc_rg_cluster_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-12345678-vmss/virtualMachines/{i}"),
            "podCIDR": format!("10.{}.{}.0/24", 200 + i / 65536, (i / 256) % 256),
            "podCIDRs": [format!("10.{}.{}.0/24", 200 + i / 65536, (i / 256) % 256)],
        },
        "status": {
            "capacity": {"cpu": "4", "memory": "16386152Ki", "pods": "110"},
            "allocatable": {"cpu": "3860m", "memory": "12880488Ki", "pods": "110"},
            "conditions": conditions,
            "addresses": [{"type": "InternalIP", "address": format!("10.224.{}.{}", i / 250, i % 250 + 4)},
                          {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "5.15.0",
                "osImage": "Ubuntu 22.04.5 LTS", "containerRuntimeVersion": "containerd://1.7.25",
                "kubeletVersion": "v1.33.0", "kubeProxyVersion": "", "operatingSystem": "linux",
                "architecture": "amd64"},
            "images": images,
        },
    })
    .to_string()
}

/// Live bytes per Node after decoding `texts` with `decode`, kept as `Arc`s.
fn per_node<T>(texts: &[String], decode: impl Fn(&str) -> T) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    let kept: Vec<Arc<T>> = texts.iter().map(|t| Arc::new(decode(t))).collect();
    let live = LIVE.load(Ordering::Relaxed).saturating_sub(before);
    let per = live / texts.len().max(1);
    drop(kept);
    per
}

fn main() {
    let n: usize = std::env::var("SLIM_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let texts: Vec<String> = (0..n).map(kubelet_node).collect();
    println!(
        "{n} Nodes of one pool, {} bytes of JSON each; size_of: Node {} B, SlimNode {} B",
        texts[0].len(),
        size_of::<Node>(),
        size_of::<SlimNode>()
    );
    let whole = per_node(&texts, |t| {
        serde_json::from_str::<Node>(t).expect("a whole Node")
    });
    let slimmed = per_node(&texts, |t| {
        let mut node = serde_json::from_str::<Node>(t).expect("a whole Node");
        slim(&mut node);
        node
    });
    let compact = per_node(&texts, |t| {
        serde_json::from_str::<SlimNode>(t).expect("a SlimNode")
    });
    println!("heap per cached Node (Arc included):");
    println!("  whole Node:                      {whole:>6} B");
    println!("  slimmed Node (the cache before): {slimmed:>6} B");
    println!("  SlimNode (compact, interned):    {compact:>6} B");
    let (texts, pairs) = interned_count();
    println!(
        "  at {n} Nodes: {:.1} MiB before, {:.1} MiB now ({texts} interned texts, {pairs} pairs)",
        (slimmed * n) as f64 / 1048576.0,
        (compact * n) as f64 / 1048576.0,
    );
}
