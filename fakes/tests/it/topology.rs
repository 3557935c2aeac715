//! Example topologies under `fakes/examples/` load, seed into a fresh fake ARM, and produce the node
//! names, providerIDs, zones, fault domains, addresses and power states the plan promised.

use azure_fakes::topology::{self, NodeKind, SeededCloud};
use fake_arm::{ArmConfig, ArmState};
use serde_json::Value;
use std::collections::HashSet;
use std::path::PathBuf;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

pub(crate) fn seed_example(name: &str) -> (ArmState, SeededCloud) {
    let plan = topology::load(&example(name)).unwrap_or_else(|e| panic!("{e}"));
    let arm = ArmState::new(ArmConfig::default());
    let cloud = topology::seed(&plan, &arm).unwrap_or_else(|e| panic!("{e}"));
    (arm, cloud)
}

fn power(arm: &ArmState, id: &str) -> String {
    let iv = arm.instance_view(id).unwrap();
    iv["statuses"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|s| {
            s["code"]
                .as_str()
                .and_then(|c| c.strip_prefix("PowerState/"))
                .map(str::to_string)
        })
        .unwrap()
}

/// Every node exists in ARM with the name, computer name, zone and fault domain the seed reported.
fn check_consistent(arm: &ArmState, cloud: &SeededCloud) {
    let mut names = HashSet::new();
    let mut ips = HashSet::new();
    for n in &cloud.nodes {
        assert!(
            names.insert(n.node_name.clone()),
            "duplicate node {}",
            n.node_name
        );
        for ip in &n.private_ips {
            assert!(ips.insert(*ip), "duplicate ip {ip}");
        }
        assert!(
            !n.private_ips.is_empty(),
            "{} has no private IP",
            n.node_name
        );
        let vm = arm.get(&n.resource_id).unwrap();
        assert_eq!(
            vm.pointer("/properties/osProfile/computerName")
                .and_then(Value::as_str),
            Some(n.computer_name.as_str())
        );
        assert_eq!(
            format!(
                "azure://{}",
                n.resource_id.replace(
                    &format!("resourceGroups/{}", cloud.resource_group),
                    &format!(
                        "resourceGroups/{}",
                        cloud.resource_group.to_ascii_lowercase()
                    )
                )
            ),
            n.provider_id
        );
        assert_eq!(
            vm.pointer("/zones/0")
                .and_then(Value::as_str)
                .map(str::to_string),
            n.zone.map(|z| z.to_string())
        );
        let iv = arm.instance_view(&n.resource_id).unwrap();
        assert_eq!(
            iv["platformFaultDomain"].as_u64(),
            Some(u64::from(n.fault_domain))
        );
        assert_eq!(power(arm, &n.resource_id), n.power_state);
    }
}

#[test]
fn small_example_seeds_an_availability_set_cluster() {
    let (arm, cloud) = seed_example("small.yaml");
    check_consistent(&arm, &cloud);
    let names: Vec<&str> = cloud.nodes.iter().map(|n| n.node_name.as_str()).collect();
    assert_eq!(
        names,
        ["k8s-master-0", "k8s-agentpool-0-0", "k8s-agentpool-0-1"]
    );
    let master = cloud.node("k8s-master-0").unwrap();
    assert_eq!(master.kind, NodeKind::Standalone);
    assert_eq!(
        master.private_ips,
        ["10.224.0.4".parse::<std::net::IpAddr>().unwrap()]
    );
    assert_eq!(
        master.provider_id,
        "azure:///subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/k8s-small-rg/providers/Microsoft.Compute/virtualMachines/k8s-master-0"
    );
    let fds: Vec<u32> = cloud.nodes[1..].iter().map(|n| n.fault_domain).collect();
    assert_eq!(
        fds,
        [0, 1],
        "availability-set members spread over fault domains"
    );
    assert!(
        cloud.nodes[1..]
            .iter()
            .all(|n| n.availability_set.as_deref() == Some("agentpool-availabilitySet"))
    );
    let tenant = cloud.registry.tenant(&cloud.tenant_id).unwrap();
    let app = tenant.app("6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11").unwrap();
    assert!(app.secrets[0].matches("fake-secret-not-for-production"));
    assert_eq!(cloud.managed_identities.len(), 1);
    let nsg = arm.get(&format!("/subscriptions/{}/resourceGroups/k8s-small-rg/providers/Microsoft.Network/networkSecurityGroups/k8s-nsg", cloud.subscription_id)).unwrap();
    assert_eq!(
        nsg["properties"]["defaultSecurityRules"]
            .as_array()
            .map(Vec::len),
        Some(6)
    );
}

#[test]
fn zonal_example_spreads_uniform_instances_over_zones() {
    let (arm, cloud) = seed_example("zonal-vmss.yaml");
    check_consistent(&arm, &cloud);
    assert_eq!(cloud.nodes.len(), 6);
    let zones: Vec<Option<u32>> = cloud.nodes.iter().map(|n| n.zone).collect();
    assert_eq!(
        zones,
        [Some(1), Some(2), Some(3), Some(1), Some(2), Some(3)]
    );
    let n5 = &cloud.nodes[5];
    assert_eq!(n5.node_name, "aks-nodepool1-12345678-vmss000005");
    assert_eq!(n5.kind, NodeKind::VmssUniform);
    assert_eq!(
        n5.provider_id,
        "azure:///subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/mc_zonal_cluster_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-12345678-vmss/virtualMachines/5"
    );
    assert_eq!(
        cloud.managed_identities.len(),
        1,
        "one system identity for the scale set"
    );
    assert!(cloud.managed_identities[0].system_assigned);
}

#[test]
fn mixed_example_has_every_node_model() {
    let (arm, cloud) = seed_example("mixed.yaml");
    check_consistent(&arm, &cloud);
    let kinds: HashSet<NodeKind> = cloud.nodes.iter().map(|n| n.kind).collect();
    assert_eq!(kinds.len(), 3);
    assert_eq!(cloud.nodes.len(), 1 + 3 + 1 + 3 + 3);
    let stopped = cloud.node("stopped-agent").unwrap();
    assert_eq!(stopped.power_state, "deallocated");
    let flex: Vec<_> = cloud
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::VmssFlex)
        .collect();
    assert_eq!(
        flex.iter()
            .map(|n| n.node_name.as_str())
            .collect::<Vec<_>>(),
        ["flexpool000000", "flexpool000001", "flexpool000002"]
    );
    assert!(flex.iter().all(|n| {
        n.vm_name.starts_with("flexpool_")
            && n.provider_id
                .ends_with(&format!("/virtualMachines/{}", n.vm_name))
    }));
    assert_eq!(cloud.vnet_resource_group, "mixed-network-rg");
    let master = cloud.node("mixed-master-0").unwrap();
    assert!(
        master.public_ip.is_some(),
        "instance-level public IP seeded"
    );
    let ilb = arm.get(&format!("/subscriptions/{}/resourceGroups/mixed-nodes-rg/providers/Microsoft.Network/loadBalancers/kubernetes-internal", cloud.subscription_id)).unwrap();
    assert_eq!(
        ilb.pointer("/properties/frontendIPConfigurations/0/properties/privateIPAddress")
            .and_then(Value::as_str),
        Some("10.241.0.10")
    );
    let tenant = cloud.registry.tenant(&cloud.tenant_id).unwrap();
    assert_eq!(
        tenant.apps[0].federated_credentials[0].subject,
        "system:serviceaccount:kube-system:cloud-controller-manager"
    );
    // system identities of the flexible scale set and its three VMs + the shared user-assigned identity
    assert_eq!(
        cloud
            .managed_identities
            .iter()
            .filter(|i| i.system_assigned)
            .count(),
        4
    );
    assert_eq!(
        cloud
            .managed_identities
            .iter()
            .filter(|i| !i.system_assigned)
            .count(),
        1
    );
}

#[test]
fn thousand_node_example_plans_a_thousand_unique_nodes() {
    let plan = topology::load(&example("1000-nodes.yaml")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.node_count(), 1000);
    let prefixes: HashSet<&str> = plan
        .scale_sets
        .iter()
        .map(|s| s.computer_name_prefix.as_str())
        .collect();
    assert_eq!(prefixes.len(), plan.scale_sets.len());
}

/// The large-cluster example seeds in full (fake ARM commits cost the changed references, not the size of the
/// VNet and load balancer they join, so this takes about a second in a debug build).
#[test]
fn thousand_node_example_seeds() {
    let (arm, cloud) = seed_example("1000-nodes.yaml");
    assert_eq!(cloud.nodes.len(), 1000);
    check_consistent(&arm, &cloud);
}

/// A dual-stack subnet: VM NICs get their planned IPv6 address as a static second ipconfig, uniform scale-set
/// instances get one allocated by fake ARM from the subnet's IPv6 prefix, and every address is unique.
#[test]
fn dual_stack_topology_seeds_ipv6_ipconfigs() {
    let yaml = r#"
tenantId: 72f988bf-86f1-41af-91ab-2d7cd011db47
subscriptionId: 0b1f6471-1bf0-4dda-aec3-111122223333
location: eastus
resourceGroups:
  node:
    name: dual-rg
network:
  vnet:
    name: dual-vnet
    addressSpace: [10.224.0.0/12, "fd00:db8::/48"]
    subnets:
      - name: nodes
        cidr: 10.224.0.0/16
        ipv6Cidr: "fd00:db8:0:1::/64"
vms:
  - name: master
    size: Standard_D2s_v3
    privateIpv6: "fd00:db8:0:1::10"
  - name: agent
    count: 2
    size: Standard_D2s_v3
scaleSets:
  - name: pool
    computerNamePrefix: pool
    instances: 3
    subnet: nodes
    size: Standard_D2s_v3
"#;
    let plan = topology::load_str(yaml, "dual-stack.yaml").unwrap_or_else(|e| panic!("{e}"));
    let arm = ArmState::new(ArmConfig::default());
    let cloud = topology::seed(&plan, &arm).unwrap_or_else(|e| panic!("{e}"));
    check_consistent(&arm, &cloud);
    assert_eq!(cloud.nodes.len(), 6);
    let master = cloud.node("master").unwrap();
    assert_eq!(
        master.private_ips,
        [
            "10.224.0.4".parse::<std::net::IpAddr>().unwrap(),
            "fd00:db8:0:1::10".parse().unwrap()
        ]
    );
    for n in &cloud.nodes {
        let families: Vec<bool> = n.private_ips.iter().map(|ip| ip.is_ipv6()).collect();
        assert_eq!(
            families,
            [false, true],
            "{}: {:?}",
            n.node_name,
            n.private_ips
        );
    }
    // The agents got the planner's ::4 and ::5; the uniform instances' IPv6 addresses come from NRP's dynamic
    // allocation, which skips every address already held.
    let mut v6: Vec<String> = cloud
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::VmssUniform)
        .map(|n| n.private_ips[1].to_string())
        .collect();
    v6.sort();
    assert_eq!(
        v6,
        ["fd00:db8:0:1::6", "fd00:db8:0:1::7", "fd00:db8:0:1::8"]
    );
}

#[test]
fn standalone_public_ips_are_seeded_unattached_and_need_a_unique_name() {
    let base = r#"
tenantId: 72f988bf-86f1-41af-91ab-2d7cd011db47
subscriptionId: 0b1f6471-1bf0-4dda-aec3-111122223333
location: eastus
resourceGroups:
  node:
    name: pip-rg
network:
  vnet:
    name: pip-vnet
    addressSpace: [10.224.0.0/12]
    subnets:
      - name: nodes
        cidr: 10.224.0.0/16
vms:
  - name: master
    size: Standard_D2s_v3
    publicIp: {name: master-pip}
"#;
    let yaml = format!("{base}publicIps:\n  - name: web-static-pip\n    address: 20.9.9.9\n");
    let plan = topology::load_str(&yaml, "pips.yaml").unwrap_or_else(|e| panic!("{e}"));
    let arm = ArmState::new(ArmConfig::default());
    let cloud = topology::seed(&plan, &arm).unwrap_or_else(|e| panic!("{e}"));
    let id = format!(
        "/subscriptions/{}/resourceGroups/pip-rg/providers/Microsoft.Network/publicIPAddresses/web-static-pip",
        cloud.subscription_id
    );
    let pip = arm.get(&id).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(pip["sku"]["name"], "Standard");
    assert_eq!(pip["properties"]["ipAddress"], "20.9.9.9");
    assert!(pip["properties"]["ipConfiguration"].is_null(), "{pip}");
    for (extra, problem) in [
        ("publicIps:\n  - sku: Standard\n", "needs a name"),
        (
            "publicIps:\n  - name: master-pip\n",
            "duplicate public IP name",
        ),
    ] {
        let err = topology::load_str(&format!("{base}{extra}"), "pips.yaml")
            .map(|_| ())
            .expect_err("refused");
        assert!(err.to_string().contains(problem), "{err}");
    }
}
