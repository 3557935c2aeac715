//! What the node-metadata caches hold after every node of `mixed.yaml` (availability-set VMs, a
//! uniform and a flexible scale set) was resolved against the real fake: compact projections,
//! not the whole documents the fake served (no storage or OS profiles, status texts, MAC
//! addresses), served again from memory without an ARM call.

use ccm_azure::cache::ReadMode;
use ccm_cloud::{InstancesV2, Provider};

use crate::cluster::{Cluster, node};

/// Members of the served documents no reader uses: none may be cached.
const NEVER_CACHED: [&str; 8] = [
    "storageProfile",
    "adminUsername",
    "displayStatus",
    "timeCreated",
    "macAddress",
    "resourceGuid",
    "idleTimeoutInMinutes",
    "vmId",
];

#[tokio::test]
async fn resolved_nodes_leave_compact_lists_in_the_caches() {
    let cluster = Cluster::start("mixed.yaml");
    let provider = cluster.provider().await;
    let instances = provider.instances_v2().expect("instances");
    for name in cluster.node_names() {
        instances
            .instance_metadata(&node(&name, &[]))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
    cluster.clear_journal().await;
    let reads = provider.instances().reads();
    let rg = cluster.resource_group.as_str();
    let cached = [
        format!("{:?}", reads.vms(rg, ReadMode::Default).await.expect("vms")),
        format!(
            "{:?}",
            reads
                .scale_set_vms(rg, "uniformpool", ReadMode::Default)
                .await
                .expect("instances")
        ),
        format!(
            "{:?}",
            reads
                .scale_set_nics(rg, "uniformpool", ReadMode::Default)
                .await
                .expect("scale-set NICs")
        ),
        format!(
            "{:?}",
            reads.public_ips(rg, ReadMode::Default).await.expect("PIPs")
        ),
    ];
    assert_eq!(cluster.arm_calls().await, vec![], "served from the caches");
    for (list, text) in ["vms", "scale_set_vms", "scale_set_nics", "public_ips"]
        .iter()
        .zip(&cached)
    {
        assert!(text.len() > 100, "{list} is cached: {text}");
        for member in NEVER_CACHED {
            assert!(!text.contains(member), "{list} keeps {member}: {text}");
        }
    }
    assert!(
        cached[1].contains("uniformpool000000")
            && cached[1].contains("networkInterfaceConfigurations"),
        "computer names and the instance model the membership PUT sends back: {}",
        cached[1]
    );
}
