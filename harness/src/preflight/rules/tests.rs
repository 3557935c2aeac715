//! The rules on hand-built facts: a clean plan, one of every finding, and the allow-list's verdict
//! on planned writes. The rendered reports are insta snapshots (reviewed: each finding names its
//! object and a fix).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use super::*;
use crate::checks::builders::{SUB, node, service, snapshot};
use crate::preflight::finding::PreflightReport;
use crate::preflight::target::{ManagerFlags, Target};

const UID: &str = "1a2b3c4d-0000-0000-0000-000000000001";

fn target(cluster_name: Option<&str>) -> Target {
    Target {
        dir: Path::new("/target").into(),
        ccm: vec![ManagerFlags {
            location: "/target/cloud-controller-manager.manifest: Deployment kube-system/cloud-controller-manager container cloud-controller-manager".into(),
            cluster_name: cluster_name.map(str::to_owned),
            leader_elect: true,
            ..Default::default()
        }],
        kcm: vec![ManagerFlags {
            location: "/target/kube-controller-manager.manifest: Pod kube-system/kube-controller-manager container kube-controller-manager".into(),
            cluster_name: Some("k8s".into()),
            leader_elect: true,
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn settings() -> TargetSettings {
    TargetSettings {
        vm_type: "standard".into(),
        resource_group: "rg".into(),
        load_balancer_name: None,
    }
}

fn exists(name: &str) -> NodeResolution {
    let id = node(name, "10.0.0.4").provider_id;
    NodeResolution {
        node: name.into(),
        provider_id: id.clone(),
        resolution: Resolution::Exists { provider_id: id },
    }
}

fn report(facts: &Facts<'_>) -> PreflightReport {
    PreflightReport {
        context: vec!["hand-built facts".into()],
        findings: findings(facts),
        writes: planned_writes(facts),
    }
}

#[test]
fn a_matching_plan_has_nothing_to_say_and_exits_zero() {
    let s = snapshot(
        "baseline",
        vec![node("node-0", "10.0.0.4"), node("node-1", "10.0.0.5")],
        vec![service("web", UID, "20.1.2.3")],
    );
    let target = target(Some("k8s"));
    let resolutions = vec![exists("node-0"), exists("node-1")];
    let dry_runs = vec![DryRun {
        service: "default/web".into(),
        writes: Ok(vec![]),
        notes: vec![],
    }];
    let facts = Facts {
        target: &target,
        settings: &settings(),
        nodes: &s.nodes,
        services: &s.services,
        arm: &s.arm,
        resolutions: &resolutions,
        dry_runs: &dry_runs,
        beta_uses: &[],
        lint: &[],
        minor: 29,
        live_kcm: &[],
    };
    let report = report(&facts);
    assert_eq!(report.exit_code(), 0);
    insta::assert_snapshot!(report.render());
}

#[test]
fn every_blocking_rule_names_the_object_and_the_fix() {
    let mut s = snapshot(
        "baseline",
        vec![
            node("node-0", "10.0.0.4"),
            node("node-1", "10.0.0.5"),
            node("node-2", "10.0.0.6"),
        ],
        vec![service("web", UID, "20.1.2.3")],
    );
    s.nodes[0].pod_cidrs = vec!["10.244.0.0/24".into()];
    let mut target = target(None);
    target.ccm[0].allocate_node_cidrs = true;
    target.ccm[0].configure_cloud_routes = Some(true);
    target.ccm[0].leader_migration = true;
    target.ccm[0].leader_elect = false;
    target.kcm[0].allocate_node_cidrs = true;
    target.kcm[0].leader_migration_config = Some("/etc/kubernetes/leader-migration.yaml".into());
    let resolutions = vec![
        NodeResolution {
            node: "node-0".into(),
            provider_id: Some(
                "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool/virtualMachines/0".into(),
            ),
            resolution: Resolution::Missing,
        },
        NodeResolution {
            node: "node-1".into(),
            provider_id: node("node-1", "").provider_id,
            resolution: Resolution::Failed("AuthorizationFailed on virtualMachines list".into()),
        },
        NodeResolution {
            node: "node-2".into(),
            provider_id: node("node-2", "").provider_id,
            resolution: Resolution::Exists {
                provider_id: Some(
                    "azure:///subscriptions/s/resourceGroups/other/providers/Microsoft.Compute/virtualMachines/node-2".into(),
                ),
            },
        },
    ];
    let base = s.services[0].base_name();
    let dry_runs = vec![
        DryRun {
            service: "default/web".into(),
            writes: Ok(vec![
                Planned {
                    method: "PUT".into(),
                    resource: format!(
                        "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/kubernetes-{base}"
                    ),
                    body: Some(json!({"sku": {"name": "Standard"}})),
                },
                Planned {
                    method: "DELETE".into(),
                    resource: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/k8s".into(),
                    body: None,
                },
            ]),
            notes: vec!["NSG rules follow once the new frontend has an IP address".into()],
        },
        DryRun {
            service: "default/api".into(),
            writes: Err("service.beta.kubernetes.io/azure-load-balancer-sku: unknown value".into()),
            notes: vec![],
        },
    ];
    let beta_uses = vec![
        BetaLabelUse {
            object: "Deployment default/zonal".into(),
            label: ccm_names::labels::BETA_ZONE.into(),
        },
        BetaLabelUse {
            object: "PersistentVolume pv-disk-0".into(),
            label: ccm_names::labels::BETA_REGION.into(),
        },
    ];
    let lint = vec![(
        "/target/kubelet.manifest: flags file".into(),
        "removed-flag --azure-container-registry-config: removed in 1.30".into(),
    )];
    let facts = Facts {
        target: &target,
        settings: &settings(),
        nodes: &s.nodes,
        services: &s.services,
        arm: &s.arm,
        resolutions: &resolutions,
        dry_runs: &dry_runs,
        beta_uses: &beta_uses,
        lint: &lint,
        minor: 29,
        live_kcm: &[],
    };
    let report = report(&facts);
    assert_eq!(report.exit_code(), 1);
    insta::assert_snapshot!(report.render());
}

/// The PUT body of `web`'s public IP as the CCM would send it, with `tags`.
fn pip_body(base: &str, tags: serde_json::Value, sku: &str) -> serde_json::Value {
    json!({
        "name": format!("k8s-{base}"),
        "sku": {"name": sku},
        "tags": tags,
        "properties": {
            "ipAddress": "20.1.2.3",
            "ipConfiguration": {"id": format!("{SUB}/microsoft.network/loadbalancers/k8s/frontendipconfigurations/{base}")}
        }
    })
}

#[test]
fn a_planned_tag_addition_is_allow_listed_and_a_sku_change_is_not() {
    let mut s = snapshot(
        "baseline",
        vec![node("node-0", "10.0.0.4")],
        vec![service("web", UID, "20.1.2.3")],
    );
    // The in-tree provider left the PIP without the cluster-name tag.
    s.arm.public_ips[0]
        .tags
        .remove(ccm_names::resource_tags::CLUSTER_NAME);
    let base = s.services[0].base_name();
    let resource = format!(
        "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/k8s-{base}"
    );
    let tags = json!({"k8s-azure-service": "default/web", "k8s-azure-cluster-name": "k8s"});
    let target = target(Some("k8s"));
    let run = |body| {
        let dry_runs = vec![DryRun {
            service: "default/web".into(),
            writes: Ok(vec![Planned {
                method: "PUT".into(),
                resource: resource.clone(),
                body: Some(body),
            }]),
            notes: vec![],
        }];
        let facts = Facts {
            target: &target,
            settings: &settings(),
            nodes: &s.nodes,
            services: &s.services,
            arm: &s.arm,
            resolutions: &[],
            dry_runs: &dry_runs,
            beta_uses: &[],
            lint: &[],
            minor: 29,
            live_kcm: &[],
        };
        report(&facts)
    };
    let allowed = run(pip_body(&base, tags.clone(), "Standard"));
    assert_eq!(allowed.writes.len(), 1);
    assert!(allowed.writes[0].allowed, "{:#?}", allowed.writes);
    assert_eq!(allowed.exit_code(), 0, "{}", allowed.render());
    let changed = run(pip_body(&base, tags, "Basic"));
    assert!(!changed.writes[0].allowed, "{:#?}", changed.writes);
    assert_eq!(changed.exit_code(), 1, "{}", changed.render());
    insta::assert_snapshot!(changed.render());
}

#[test]
fn a_user_named_public_ip_is_not_judged_by_the_cluster_name() {
    let mut s = snapshot(
        "baseline",
        vec![node("node-0", "10.0.0.4")],
        vec![service("web", UID, "20.1.2.3")],
    );
    s.services[0].annotations = BTreeMap::from([(
        ccm_names::service_annotations::PIP_NAME.to_owned(),
        s.arm.public_ips[0].name.clone(),
    )]);
    s.arm.public_ips[0].tags.clear();
    s.arm.load_balancers[0].name = "other".into();
    let target = target(Some("k8s"));
    let mut settings = settings();
    settings.load_balancer_name = Some("other".into());
    let facts = Facts {
        target: &target,
        settings: &settings,
        nodes: &s.nodes,
        services: &s.services,
        arm: &s.arm,
        resolutions: &[],
        dry_runs: &[],
        beta_uses: &[],
        lint: &[],
        minor: 29,
        live_kcm: &[],
    };
    assert!(findings(&facts).is_empty(), "{:#?}", findings(&facts));
}

#[test]
fn beta_labels_are_found_in_selectors_affinity_and_topology_keys() {
    let spec = json!({
        "nodeSelector": {"failure-domain.beta.kubernetes.io/zone": "eastus-1"},
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "beta.kubernetes.io/instance-type", "operator": "In", "values": ["x"]}]}]}}},
        "topologySpreadConstraints": [{"topologyKey": "topology.kubernetes.io/zone"}]
    });
    let uses = beta_label_uses("Deployment default/a", &spec);
    let labels: Vec<&str> = uses.iter().map(|u| u.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            ccm_names::labels::BETA_INSTANCE_TYPE,
            ccm_names::labels::BETA_ZONE
        ]
    );
    assert!(
        beta_label_uses(
            "x",
            &json!({"nodeSelector": {"topology.kubernetes.io/zone": "1"}})
        )
        .is_empty()
    );
}

#[test]
fn a_running_in_tree_kcm_with_another_cluster_name_blocks() {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "kube-controller-manager-cp-0", "namespace": "kube-system"},
        "spec": {"containers": [{"name": "kube-controller-manager",
            "image": "registry.k8s.io/kube-controller-manager:v1.29.0",
            "command": ["kube-controller-manager", "--cloud-provider=azure",
                        "--cluster-name=prod-east", "--leader-elect=true"]}]}
    });
    let live = crate::preflight::target::live_kcm(&[(
        "Pod kube-system/kube-controller-manager-cp-0".into(),
        pod.to_string(),
    )]);
    assert_eq!(live.len(), 1, "{live:?}");
    assert_eq!(live[0].cluster_name.as_deref(), Some("prod-east"));
    let target = target(Some("k8s"));
    let facts = Facts {
        target: &target,
        settings: &settings(),
        nodes: &[],
        services: &[],
        arm: &crate::snapshot::ArmResources::default(),
        resolutions: &[],
        dry_runs: &[],
        beta_uses: &[],
        lint: &[],
        minor: 29,
        live_kcm: &live,
    };
    let found = findings(&facts);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!((found[0].severity, found[0].pitfall), (S::Block, "P1"));
    assert!(
        found[0].fix.contains("--cluster-name=prod-east"),
        "{}",
        found[0].fix
    );
    // The same flags on an out-of-tree kube-controller-manager say nothing about cloud resources.
    let mut external = live.clone();
    external[0].cloud_provider = Some("external".into());
    let facts = Facts {
        live_kcm: &external,
        ..facts
    };
    assert!(findings(&facts).is_empty());
}
