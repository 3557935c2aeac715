//! Snapshots of the node updates computed for VMAS- and VMSS-like metadata, provided-node-ip
//! cases and dual-stack nodes, and of the merge patches that write them; reviewed by hand (see
//! the `.snap` files).

use std::collections::BTreeMap;

use ccm_cloud::InstanceMetadata;
use ccm_names::labels::{BETA_ZONE, SUB_FAULT_DOMAIN, TOPOLOGY_ZONE};
use ccm_names::node_annotations::PROVIDED_NODE_IP;
use ccm_names::taints::UNINITIALIZED;
use k8s_openapi::api::core::v1::{Node, NodeAddress, NodeSpec, NodeStatus, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::labels::BetaLabels;
use super::patch::merge_patch;
use super::update::{address_refresh, initialisation, label_reconciliation};

fn addr(type_: &str, address: &str) -> NodeAddress {
    NodeAddress {
        type_: type_.into(),
        address: address.into(),
    }
}

/// A kubelet-registered node: uninitialized taint, kubelet Hostname and InternalIP.
fn kubelet_node(name: &str, provided_ip: Option<&str>) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            resource_version: Some("4711".into()),
            labels: Some(BTreeMap::from([(
                "kubernetes.io/hostname".to_owned(),
                name.to_owned(),
            )])),
            annotations: provided_ip
                .map(|ip| BTreeMap::from([(PROVIDED_NODE_IP.to_owned(), ip.to_owned())])),
            ..ObjectMeta::default()
        },
        spec: Some(NodeSpec {
            taints: Some(vec![
                Taint {
                    key: UNINITIALIZED.into(),
                    value: Some("true".into()),
                    effect: "NoSchedule".into(),
                    ..Taint::default()
                },
                Taint {
                    key: "dedicated".into(),
                    effect: "NoSchedule".into(),
                    ..Taint::default()
                },
            ]),
            ..NodeSpec::default()
        }),
        status: Some(NodeStatus {
            addresses: Some(vec![
                addr("Hostname", name),
                addr("InternalIP", "10.0.0.99"),
            ]),
            ..NodeStatus::default()
        }),
    }
}

fn vmas_metadata() -> InstanceMetadata {
    InstanceMetadata {
        provider_id: "azure:///subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vmas-0".into(),
        instance_type: "Standard_D2s_v3".into(),
        node_addresses: vec![
            addr("InternalIP", "10.240.0.4"),
            addr("Hostname", "vmas-0"),
            addr("ExternalIP", "20.1.2.3"),
        ],
        zone: "1".into(),
        region: "eastus".into(),
        additional_labels: BTreeMap::new(),
    }
}

fn vmss_metadata() -> InstanceMetadata {
    InstanceMetadata {
        provider_id: "azure:///subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/3".into(),
        instance_type: "Standard_D4s_v5".into(),
        node_addresses: vec![
            addr("Hostname", "pool000003"),
            addr("InternalIP", "10.240.0.7"),
            addr("InternalIP", "fd00::7"),
        ],
        zone: "eastus-2".into(),
        region: "eastus".into(),
        additional_labels: BTreeMap::from([
            (SUB_FAULT_DOMAIN.to_owned(), "0".to_owned()),
            ("node.kubernetes.io/reserved".to_owned(), "dropped".to_owned()),
        ]),
    }
}

#[test]
fn vmas_node_initialisation() {
    let update = initialisation(
        &kubelet_node("vmas-0", None),
        &vmas_metadata(),
        BetaLabels::Write,
    )
    .unwrap();
    insta::assert_yaml_snapshot!(update);
}

#[test]
fn vmss_dual_stack_node_initialisation() {
    let update = initialisation(
        &kubelet_node("pool000003", None),
        &vmss_metadata(),
        BetaLabels::Write,
    )
    .unwrap();
    insta::assert_yaml_snapshot!(update);
}

#[test]
fn existing_provider_id_is_kept() {
    let mut node = kubelet_node("vmas-0", None);
    node.spec.as_mut().unwrap().provider_id = Some("azure:///kept".into());
    let update = initialisation(&node, &vmas_metadata(), BetaLabels::Write).unwrap();
    assert_eq!(update.provider_id, None);
    let mut applied = node.clone();
    update.apply_to(&mut applied);
    assert_eq!(
        applied.spec.as_ref().unwrap().provider_id.as_deref(),
        Some("azure:///kept")
    );
    let taints = applied.spec.unwrap().taints.unwrap();
    assert_eq!(taints.len(), 1, "only the uninitialized taint goes");
    assert_eq!(taints[0].key, "dedicated");
}

#[test]
fn cloud_without_hostname_keeps_the_kubelet_one() {
    let mut meta = vmas_metadata();
    meta.node_addresses.retain(|a| a.type_ != "Hostname");
    let update = initialisation(&kubelet_node("vmas-0", None), &meta, BetaLabels::Write).unwrap();
    insta::assert_yaml_snapshot!(update.addresses);
}

#[test]
fn provided_node_ip_becomes_the_only_address_of_its_type() {
    let mut meta = vmas_metadata();
    meta.node_addresses
        .insert(1, addr("InternalIP", "10.240.0.5"));
    let node = kubelet_node("vmas-0", Some("10.240.0.5"));
    let update = initialisation(&node, &meta, BetaLabels::Write).unwrap();
    insta::assert_yaml_snapshot!(update.addresses);
}

#[test]
fn provided_dual_stack_ips_both_enforced() {
    let mut meta = vmss_metadata();
    meta.node_addresses.push(addr("InternalIP", "10.240.0.8"));
    let node = kubelet_node("pool000003", Some("10.240.0.8,fd00::7"));
    let update = initialisation(&node, &meta, BetaLabels::Write).unwrap();
    insta::assert_yaml_snapshot!(update.addresses);
}

#[test]
fn provided_node_ip_missing_from_the_cloud_refuses_init() {
    let node = kubelet_node("vmas-0", Some("10.9.9.9"));
    let err = initialisation(&node, &vmas_metadata(), BetaLabels::Write).unwrap_err();
    assert_eq!(
        err.to_string(),
        "failed to get node address from cloud provider that matches ip: 10.9.9.9"
    );
}

#[test]
fn refresh_skips_tainted_nodes_and_unchanged_addresses() {
    let meta = vmas_metadata();
    let node = kubelet_node("vmas-0", None);
    assert_eq!(address_refresh(&node, &meta).unwrap(), None, "tainted");
    let mut initialised = node.clone();
    initialisation(&node, &meta, BetaLabels::Write)
        .unwrap()
        .apply_to(&mut initialised);
    let addresses = address_refresh(&initialised, &meta)
        .unwrap()
        .expect("changed");
    initialised.status.as_mut().unwrap().addresses = Some(addresses);
    assert_eq!(
        address_refresh(&initialised, &meta).unwrap(),
        None,
        "unchanged"
    );
    let mut empty = meta.clone();
    empty.node_addresses.clear();
    initialised.status.as_mut().unwrap().addresses = None;
    assert_eq!(
        address_refresh(&initialised, &empty).unwrap(),
        None,
        "cloud had none"
    );
}

#[test]
fn labels_already_right_are_not_rewritten_and_twins_reconcile() {
    let meta = vmas_metadata();
    let mut node = kubelet_node("vmas-0", None);
    initialisation(&node, &meta, BetaLabels::Write)
        .unwrap()
        .apply_to(&mut node);
    assert!(
        initialisation(&node, &meta, BetaLabels::Write)
            .unwrap()
            .labels
            .is_empty()
    );
    assert!(!label_reconciliation(&node, BetaLabels::Write).changes_object());
    node.metadata
        .labels
        .as_mut()
        .unwrap()
        .insert(BETA_ZONE.into(), "2".into());
    let fix = label_reconciliation(&node, BetaLabels::Write);
    assert_eq!(fix.labels.get(TOPOLOGY_ZONE).map(String::as_str), Some("2"));
}

#[test]
fn without_beta_labels_only_ga_labels_are_written_and_nothing_is_reconciled() {
    let update = initialisation(
        &kubelet_node("vmas-0", None),
        &vmas_metadata(),
        BetaLabels::Skip,
    )
    .unwrap();
    assert!(update.labels.contains_key(TOPOLOGY_ZONE));
    assert!(
        update.labels.keys().all(
            |k| !k.starts_with("failure-domain.beta.") && !k.starts_with("beta.kubernetes.io/")
        ),
        "{:?}",
        update.labels
    );
    let mut node = kubelet_node("vmas-0", None);
    node.metadata
        .labels
        .get_or_insert_with(BTreeMap::new)
        .insert(BETA_ZONE.into(), "2".into());
    assert!(!label_reconciliation(&node, BetaLabels::Skip).changes_object());
}

#[test]
fn init_patch_sets_labels_provider_id_and_drops_only_the_uninitialized_taint() {
    let node = kubelet_node("vmas-0", None);
    let update = initialisation(&node, &vmas_metadata(), BetaLabels::Write).unwrap();
    let patch = merge_patch(&node, &update).expect("a write");
    // resourceVersion of the cached Node, the labels set (not kubernetes.io/hostname), the
    // providerID and the taints without the uninitialized one; no status.
    insta::assert_json_snapshot!(patch);
}

#[test]
fn init_patch_keeps_a_set_provider_id_and_removes_the_last_taint() {
    let mut node = kubelet_node("pool000003", None);
    let spec = node.spec.as_mut().unwrap();
    spec.provider_id = Some("azure:///kept".into());
    spec.taints
        .as_mut()
        .unwrap()
        .retain(|t| t.key == UNINITIALIZED);
    let update = initialisation(&node, &vmss_metadata(), BetaLabels::Skip).unwrap();
    let patch = merge_patch(&node, &update).expect("a write");
    insta::assert_json_snapshot!(patch);
}

#[test]
fn label_reconciliation_patch_sets_only_the_ga_twin() {
    let mut node = kubelet_node("vmas-0", None);
    initialisation(&node, &vmas_metadata(), BetaLabels::Write)
        .unwrap()
        .apply_to(&mut node);
    node.metadata.resource_version = Some("4800".into());
    node.metadata
        .labels
        .as_mut()
        .unwrap()
        .insert(BETA_ZONE.into(), "2".into());
    let update = label_reconciliation(&node, BetaLabels::Write);
    let patch = merge_patch(&node, &update).expect("a write");
    insta::assert_json_snapshot!(patch);
}

#[test]
fn nothing_to_write_makes_no_patch() {
    let mut node = kubelet_node("vmas-0", None);
    initialisation(&node, &vmas_metadata(), BetaLabels::Write)
        .unwrap()
        .apply_to(&mut node);
    let again = initialisation(&node, &vmas_metadata(), BetaLabels::Write).unwrap();
    assert_eq!(merge_patch(&node, &again), None);
    assert_eq!(
        merge_patch(&node, &label_reconciliation(&node, BetaLabels::Write)),
        None
    );
}
