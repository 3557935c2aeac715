//! ARM calls and wall time to resolve the metadata of every node, cold then warm, against the
//! real `azure-fakes serve` process, with the ratio to the naive per-node count (upstream spends 3
//! ARM calls per availability-set node and 6 per VMSS node, measured against these fakes).
//! Prints figures only; run with `cargo bench -p ccm-azure --bench node_metadata`.

#[allow(dead_code, unused_imports)]
#[path = "../tests/it/cluster.rs"]
mod cluster;
#[allow(dead_code, unused_imports)]
#[path = "../tests/it/fake_azure.rs"]
mod fake_azure;
#[allow(dead_code, unused_imports)]
#[path = "../tests/it/resource_models.rs"]
mod resource_models;

use std::path::{Path, PathBuf};
use std::time::Instant;

use ccm_cloud::InstancesV2;

use crate::cluster::{Cluster, node};

/// Upstream's ARM calls to initialise one node (anchor measurement against the same fakes).
const NAIVE_PER_VMAS_NODE: usize = 3;
const NAIVE_PER_VMSS_NODE: usize = 6;

struct Pass {
    calls: usize,
    millis: f64,
}

async fn pass(
    cluster: &Cluster,
    instances: &ccm_azure::instances::AzureInstances,
    names: &[String],
) -> Pass {
    cluster.clear_journal().await;
    let started = Instant::now();
    for name in names {
        if let Err(e) = instances.instance_metadata(&node(name, &[])).await {
            eprintln!("{name}: {e}");
        }
    }
    let millis = started.elapsed().as_secs_f64() * 1e3;
    Pass {
        calls: cluster.arm_calls().await.len(),
        millis,
    }
}

async fn bench(label: &str, topology: &Path) {
    let cluster = Cluster::start_file(topology);
    let names = cluster.node_names();
    let mut vmss_nodes = 0;
    for name in &names {
        let described = cluster.described(name).await;
        if described["scaleSet"].is_string() {
            vmss_nodes += 1;
        }
    }
    let naive = vmss_nodes * NAIVE_PER_VMSS_NODE + (names.len() - vmss_nodes) * NAIVE_PER_VMAS_NODE;
    let provider = cluster.provider().await;
    let instances = provider.instances();
    let cold = pass(&cluster, instances, &names).await;
    let warm = pass(&cluster, instances, &names).await;
    println!(
        "{label:<28} nodes {:>5} | cold {:>4} ARM calls {:>9.1} ms | warm {:>4} ARM calls {:>8.1} ms | naive {:>5} calls, cold/naive {:.4}",
        names.len(),
        cold.calls,
        cold.millis,
        warm.calls,
        warm.millis,
        naive,
        cold.calls as f64 / naive.max(1) as f64,
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    runtime.block_on(async {
        bench("1000-nodes.yaml", &fake_azure::example("1000-nodes.yaml")).await;
        bench("vmss-4x250.yaml", &manifest.join("benches/vmss-4x250.yaml")).await;
        bench(
            "mixed.yaml (VMAS+flex+VMSS)",
            &fake_azure::example("mixed.yaml"),
        )
        .await;
    });
}
