//! Node metadata over ARM against the real `azure-fakes serve` process: for every node of each
//! example topology the provider's metadata equals what the fake's ARM state says about the VM
//! (`GET /admin/compute/nodes/{node}`); lifecycle answers follow deletions and power changes made
//! through the fake's admin API; the journal counts the ARM calls (cold: per scale set and
//! resource group, not per node; warm: none).

use ccm_azure::metrics::ArmMetrics;
use ccm_azure::provider::AzureProvider;
use ccm_cloud::{InstancesV2, Provider, Zones};
use k8s_openapi::api::core::v1::NodeAddress;
use reqwest::Method;
use serde_json::{Value, json};

use crate::cluster::{Cluster, node};
use crate::resource_models::READER_SECRET;

fn addr(kind: &str, ip: &str) -> NodeAddress {
    NodeAddress {
        type_: kind.to_string(),
        address: ip.to_string(),
    }
}

/// Number of scale sets in the topology text.
fn scale_sets(cluster: &Cluster, nodes: &[Value]) -> usize {
    let _ = cluster;
    let mut sets: Vec<&str> = nodes
        .iter()
        .filter(|n| {
            n["kind"]
                .as_str()
                .is_some_and(|k| k.to_ascii_lowercase().contains("uniform"))
        })
        .filter_map(|n| n["scaleSet"].as_str())
        .collect();
    sets.sort_unstable();
    sets.dedup();
    sets.len()
}

async fn every_node_matches_arm(topology: &str) {
    let cluster = Cluster::start(topology);
    let provider = cluster.provider().await;
    let instances = provider.instances_v2().expect("instances");
    let zones = provider.zones().expect("zones");
    let names = cluster.node_names();
    assert!(!names.is_empty());
    let mut described = Vec::new();
    for name in &names {
        described.push(cluster.described(name).await);
    }
    cluster.clear_journal().await;
    for (name, want) in names.iter().zip(&described) {
        let meta = instances
            .instance_metadata(&node(name, &[]))
            .await
            .unwrap_or_else(|e| panic!("{topology} {name}: {e:?}"));
        let region = cluster.location.to_lowercase();
        assert_eq!(
            meta.provider_id,
            want["providerId"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(meta.region, region, "{name}");
        let zone = match want["zone"].as_u64() {
            Some(z) => format!("{region}-{z}"),
            None => want["faultDomain"].as_u64().unwrap().to_string(),
        };
        assert_eq!(meta.zone, zone, "{topology} {name}");
        assert_eq!(
            meta.instance_type,
            want["vmSize"].as_str().unwrap(),
            "{name}"
        );
        let mut expected: Vec<NodeAddress> = want["privateIps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|ip| addr("InternalIP", ip.as_str().unwrap()))
            .collect();
        expected.push(addr("Hostname", name));
        if let Some(pip) = want["publicIp"].as_str() {
            expected.push(addr("ExternalIP", pip));
        }
        assert_eq!(meta.node_addresses, expected, "{topology} {name}");
        let powered_off = matches!(
            want["powerState"].as_str(),
            Some("stopped" | "deallocated" | "deallocating")
        );
        assert!(
            instances.instance_exists(&node(name, &[])).await.unwrap(),
            "{name}"
        );
        assert_eq!(
            instances.instance_shutdown(&node(name, &[])).await.unwrap(),
            powered_off,
            "{topology} {name}"
        );
        let by_id = zones
            .get_zone_by_provider_id(&meta.provider_id)
            .await
            .unwrap();
        assert_eq!(
            (by_id.failure_domain, by_id.region),
            (zone.clone(), region.clone())
        );
    }
    let cold = cluster.arm_calls().await;
    let sets = scale_sets(&cluster, &described);
    // Per resource group: VM list, scale-set list, NIC list, PIP list; per scale set: instance
    // list and NIC list; plus the scale sets' PIP lists when instances have PIPs.
    let bound = 2 * sets + 4 + sets;
    assert!(
        cold.len() <= bound,
        "{topology}: {} cold ARM calls for {} nodes and {sets} scale sets (bound {bound}): {cold:#?}",
        cold.len(),
        names.len()
    );
    assert!(cold.iter().all(|(m, _)| m == "GET"), "{cold:?}");

    cluster.clear_journal().await;
    for name in &names {
        instances.instance_metadata(&node(name, &[])).await.unwrap();
        instances.instance_exists(&node(name, &[])).await.unwrap();
        instances.instance_shutdown(&node(name, &[])).await.unwrap();
    }
    assert_eq!(
        cluster.arm_calls().await,
        vec![],
        "{topology}: warm reads call ARM"
    );
}

#[tokio::test]
async fn small_every_node_matches_arm() {
    every_node_matches_arm("small.yaml").await;
}

#[tokio::test]
async fn zonal_vmss_every_node_matches_arm() {
    every_node_matches_arm("zonal-vmss.yaml").await;
}

#[tokio::test]
async fn mixed_every_node_matches_arm() {
    every_node_matches_arm("mixed.yaml").await;
}

#[tokio::test]
async fn region_zones_come_from_the_compute_provider_once() {
    let cluster = Cluster::start("zonal-vmss.yaml");
    let provider = cluster.provider().await;
    let zones = provider.zones().unwrap();
    cluster.clear_journal().await;
    let first = zones.region_zones().await.unwrap();
    let again = zones.region_zones().await.unwrap();
    assert_eq!(first, again);
    assert!(!first.is_empty(), "westeurope has zones");
    let calls = cluster.arm_calls().await;
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(
        calls[0].1.ends_with("/providers/Microsoft.Compute"),
        "{calls:?}"
    );
}

#[tokio::test]
async fn deleted_vm_is_gone_once_the_node_is_forgotten() {
    for (topology, pick) in [("small.yaml", "agentpool"), ("zonal-vmss.yaml", "vmss")] {
        let cluster = Cluster::start(topology);
        let provider = cluster.provider().await;
        let instances = provider.instances();
        let name = cluster
            .node_names()
            .into_iter()
            .find(|n| n.contains(pick))
            .expect("a node");
        let meta = instances
            .instance_metadata(&node(&name, &[]))
            .await
            .unwrap();
        let (status, body) = cluster
            .fake
            .admin(
                Method::DELETE,
                &format!("/admin/compute/nodes/{name}"),
                None,
            )
            .await;
        assert!(status < 300, "{body}");
        // Within the TTL the cached list still holds the VM; the deletion handler forgets it.
        let mut with_id = node(&name, &[]);
        with_id.spec = Some(k8s_openapi::api::core::v1::NodeSpec {
            provider_id: Some(meta.provider_id.clone()),
            ..Default::default()
        });
        instances.forget_node(&with_id);
        assert!(
            !instances.instance_exists(&with_id).await.unwrap(),
            "{topology} {name}"
        );
        assert!(!instances.instance_exists(&node(&name, &[])).await.unwrap());
        let error = instances
            .instance_metadata(&node(&name, &[]))
            .await
            .unwrap_err();
        assert!(error.is_instance_not_found(), "{error:?}");
        // A fresh provider (cold caches) agrees.
        let cold = cluster.provider().await;
        assert!(!cold.instances().instance_exists(&with_id).await.unwrap());
    }
}

/// P4 with a wrong `vmType`: a CCM configured `standard` on a scale-set cluster does not find
/// the scale-set instances (as upstream's availability-set VM set), so InstanceExists answers
/// false for a node whose VM runs; with `vmss` it is found.
#[tokio::test]
async fn vm_type_standard_finds_no_scale_set_instance() {
    let cluster = Cluster::start("zonal-vmss.yaml");
    let name = cluster
        .node_names()
        .into_iter()
        .find(|n| n.contains("vmss"))
        .expect("a scale-set node");
    let right = cluster.provider().await;
    let meta = right
        .instances()
        .instance_metadata(&node(&name, &[]))
        .await
        .unwrap();
    let mut with_id = node(&name, &[]);
    with_id.spec = Some(k8s_openapi::api::core::v1::NodeSpec {
        provider_id: Some(meta.provider_id.clone()),
        ..Default::default()
    });
    assert!(right.instances().instance_exists(&with_id).await.unwrap());
    let wrong = cluster.provider_with(r#", "vmType": "standard""#).await;
    assert!(
        !wrong.instances().instance_exists(&with_id).await.unwrap(),
        "{}",
        meta.provider_id
    );
    assert!(
        !wrong
            .instances()
            .instance_exists(&node(&name, &[]))
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn deallocated_vmas_vm_and_scale_set_instance_are_shut_down() {
    for (topology, pick) in [("small.yaml", "agentpool"), ("zonal-vmss.yaml", "vmss")] {
        let cluster = Cluster::start(topology);
        let name = cluster
            .node_names()
            .into_iter()
            .find(|n| n.contains(pick))
            .expect("a node");
        let provider = cluster.provider().await;
        assert!(
            !provider
                .instances()
                .instance_shutdown(&node(&name, &[]))
                .await
                .unwrap()
        );
        let (status, body) = cluster
            .fake
            .admin(
                Method::POST,
                &format!("/admin/compute/nodes/{name}/power-state"),
                Some(json!({ "state": "deallocated" })),
            )
            .await;
        assert!(status < 300, "{body}");
        let provider = cluster.provider().await;
        let instances = provider.instances();
        assert!(
            instances
                .instance_shutdown(&node(&name, &[]))
                .await
                .unwrap(),
            "{topology} {name}"
        );
        assert!(
            instances.instance_exists(&node(&name, &[])).await.unwrap(),
            "shut down, not gone"
        );
    }
}

#[tokio::test]
async fn unmanaged_nodes_cost_no_arm_call_and_exist() {
    let cluster = Cluster::start("small.yaml");
    let provider = cluster.provider().await;
    let instances = provider.instances();
    cluster.clear_journal().await;
    let unmanaged = node("on-prem-1", &[("kubernetes.azure.com/managed", "false")]);
    assert!(instances.instance_exists(&unmanaged).await.unwrap());
    assert!(!instances.instance_shutdown(&unmanaged).await.unwrap());
    let meta = instances.instance_metadata(&unmanaged).await.unwrap();
    assert_eq!(meta.provider_id, "on-prem-1");
    assert!(meta.node_addresses.is_empty());
    assert_eq!(cluster.arm_calls().await, vec![]);
    // A managed node ARM does not know is gone (not an error).
    assert!(
        !instances
            .instance_exists(&node("no-such-vm", &[]))
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn cross_resource_group_nodes_resolve_in_their_labelled_group() {
    // mixed.yaml's second resource group (its VNet's) holds the extra VM.
    let cluster = Cluster::start("mixed.yaml");
    let (status, body) = cluster
        .fake
        .admin(
            Method::POST,
            "/admin/compute/vms",
            Some(json!({ "name": "other-rg-vm", "resourceGroup": "Mixed-Network-RG" })),
        )
        .await;
    assert!(status < 300, "{body}");
    let provider = cluster.provider().await;
    let instances = provider.instances();
    let labelled = node(
        "other-rg-vm",
        &[("kubernetes.azure.com/resource-group", "Mixed-Network-RG")],
    );
    let meta = instances.instance_metadata(&labelled).await.unwrap();
    assert!(
        meta.provider_id.contains("/resourceGroups/mixed-network-rg/providers/Microsoft.Compute/virtualMachines/other-rg-vm"),
        "{}",
        meta.provider_id
    );
    assert!(
        !instances
            .instance_exists(&node("other-rg-vm", &[]))
            .await
            .unwrap(),
        "not in the config's group"
    );
}

#[tokio::test]
async fn thousand_nodes_cost_calls_per_scale_set_not_per_node() {
    let cluster = Cluster::start("1000-nodes.yaml");
    let provider = cluster.provider().await;
    let instances = provider.instances();
    let names = cluster.node_names();
    assert_eq!(names.len(), 1000);
    cluster.clear_journal().await;
    for name in &names {
        let meta = instances.instance_metadata(&node(name, &[])).await.unwrap();
        assert!(
            meta.provider_id.contains("/virtualMachineScaleSets/"),
            "{name}"
        );
    }
    let cold = cluster.arm_calls().await;
    // 4 scale sets: per set its instance list and NIC list; per group the VM and scale-set lists.
    let mut lists: Vec<&str> = cold.iter().map(|(_, p)| p.as_str()).collect();
    lists.sort_unstable();
    lists.dedup();
    assert_eq!(lists.len(), 2 * 4 + 2, "{lists:#?}");
    // The fake pages lists by 100: the 100-instance set is one page, each 300-instance set three.
    assert!(
        cold.len() <= 2 + 2 * (1 + 3 * 3),
        "{} cold calls: {cold:#?}",
        cold.len()
    );
    cluster.clear_journal().await;
    for name in &names {
        instances.instance_metadata(&node(name, &[])).await.unwrap();
    }
    assert_eq!(cluster.arm_calls().await, vec![]);
}

#[tokio::test]
async fn no_secret_or_token_in_the_logs_of_a_full_resolution() {
    use ccm_azure::arm::{ArmClient, ArmClientOptions};
    use ccm_azure::credential::Credentials;

    let captured = crate::credentials::capture();
    let cluster = Cluster::start("mixed.yaml");
    let config = cluster.config("");
    let options = cluster.credential_options();
    let credentials = Credentials::from_config(&config.identity, &options)
        .await
        .expect("credentials");
    let arm_options = ArmClientOptions::from_config(
        &config,
        credentials.cloud.resource_manager.clone(),
        credentials.arm_scope(),
    )
    .expect("ARM options");
    let mut registry = prometheus_client::registry::Registry::default();
    let arm = ArmClient::new(
        arm_options,
        credentials.credential.clone(),
        options.http.clone(),
        ArmMetrics::register(&mut registry),
    );
    let provider = AzureProvider::with_arm(&config, arm);
    let instances = provider.instances();
    let mut shown = String::new();
    for name in cluster
        .node_names()
        .iter()
        .map(String::as_str)
        .chain(["missing-node"])
    {
        let n = node(name, &[]);
        shown.push_str(&format!("{:?}\n", instances.instance_metadata(&n).await));
        shown.push_str(&format!("{:?}\n", instances.instance_exists(&n).await));
        shown.push_str(&format!("{:?}\n", instances.instance_shutdown(&n).await));
    }
    shown.push_str(&format!(
        "{:?}\n",
        provider.zones().unwrap().region_zones().await
    ));
    shown.push_str(&format!("{provider:?}\n{config:?}\n"));
    let token = credentials
        .credential
        .get_token(&[&credentials.arm_scope()], None)
        .await
        .expect("token");
    let token = token.token.secret().to_string();
    let logs = String::from_utf8(captured.0.lock().expect("buffer").clone()).expect("UTF-8");
    assert!(
        logs.contains("building Azure credential"),
        "the capture works"
    );
    let all = format!("{logs}\n{shown}");
    for secret in [READER_SECRET, token.as_str()] {
        assert!(!all.contains(secret), "'{secret}' leaked:\n{all}");
    }
}

#[tokio::test]
async fn cold_calls_of_a_zonal_scale_set_are_these_lists() {
    let cluster = Cluster::start("zonal-vmss.yaml");
    let provider = cluster.provider().await;
    cluster.clear_journal().await;
    for name in cluster.node_names() {
        provider
            .instances()
            .instance_metadata(&node(&name, &[]))
            .await
            .unwrap();
    }
    let journal = cluster.fake.journal().await;
    let calls: Vec<String> = journal["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| {
            e["surface"]
                .as_str()
                .is_some_and(|s| s.eq_ignore_ascii_case("arm"))
        })
        .map(|e| {
            format!(
                "{} {} api-version={}",
                e["method"].as_str().unwrap_or_default(),
                e["path"].as_str().unwrap_or_default(),
                e["apiVersion"].as_str().unwrap_or_default()
            )
        })
        .collect();
    insta::assert_yaml_snapshot!(calls);
}

#[tokio::test]
async fn a_young_node_exists_within_the_grace_period() {
    let cluster = Cluster::start("small.yaml");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut young = node("no-such-vm", &[]);
    young.metadata.creation_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
        k8s_openapi::jiff::Timestamp::from_second(now as i64).unwrap(),
    ));
    let strict = cluster.provider().await;
    assert!(!strict.instances().instance_exists(&young).await.unwrap());
    let lenient = cluster
        .provider_with(r#", "nodeInstanceNotFoundGracePeriodInSeconds": 3600"#)
        .await;
    assert!(lenient.instances().instance_exists(&young).await.unwrap());
    let mut old = young.clone();
    old.metadata.creation_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
        k8s_openapi::jiff::Timestamp::from_second(now as i64 - 7200).unwrap(),
    ));
    assert!(!lenient.instances().instance_exists(&old).await.unwrap());
}

#[tokio::test]
async fn azure_stack_has_no_region_zones_and_asks_nothing() {
    let cluster = Cluster::start("zonal-vmss.yaml");
    // `config()` sets `disableAzureStackCloud: true`; a later duplicate key wins in the decoder.
    let provider = cluster
        .provider_with(r#", "disableAzureStackCloud": false"#)
        .await;
    cluster.clear_journal().await;
    assert_eq!(
        provider.zones().unwrap().region_zones().await.unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(cluster.arm_calls().await, vec![]);
}
