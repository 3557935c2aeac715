//! Pure derivations from IMDS documents: address order (insta), public IPs from the LB document,
//! providerID, zone, and the composed node metadata.

use serde_json::json;

use super::document::{Compute, InstanceMetadata, LoadBalancerMetadata, Network};
use super::*;

fn network(v: serde_json::Value) -> Network {
    serde_json::from_value(v).unwrap()
}

/// Addresses as `Type: address` lines, the way a Node's `status.addresses` reads.
fn lines(network: &Network) -> Vec<String> {
    node_addresses(network, "node-0")
        .unwrap()
        .into_iter()
        .map(|a| format!("{}: {}", a.type_, a.address))
        .collect()
}

fn lb(entries: serde_json::Value) -> LoadBalancerMetadata {
    serde_json::from_value(json!({ "loadbalancer": { "publicIpAddresses": entries } })).unwrap()
}

/// Upstream's whole derivation: fill from the LB document when no public IP, then order.
fn with_lb(mut net: Network, doc: &LoadBalancerMetadata) -> Vec<String> {
    let nic = &mut net.interface[0];
    if !has_public_ip(nic)
        && let Some(profile) = &doc.loadbalancer
    {
        fill_public_ips(nic, &profile.public_ip_addresses);
    }
    lines(&net)
}

fn single_stack(public: &str) -> Network {
    network(json!({"interface": [
        {"ipv4": {"ipAddress": [{"privateIpAddress": "10.224.0.4", "publicIpAddress": public},
                                {"privateIpAddress": "10.224.0.5", "publicIpAddress": ""}],
                  "subnet": [{"address": "10.224.0.0", "prefix": "16"}]},
         "ipv6": {"ipAddress": []}, "macAddress": "000D3AF806EC"},
        {"ipv4": {"ipAddress": [{"privateIpAddress": "10.9.9.9", "publicIpAddress": "1.1.1.1"}]},
         "ipv6": {"ipAddress": []}, "macAddress": "000D3AF806ED"}
    ]}))
}

fn dual_stack() -> Network {
    network(json!({"interface": [
        {"ipv4": {"ipAddress": [{"privateIpAddress": "10.224.0.4", "publicIpAddress": ""}]},
         "ipv6": {"ipAddress": [{"privateIpAddress": "fd00::4", "publicIpAddress": ""}],
                  "subnet": [{"address": "fd00::", "prefix": "64"}]},
         "macAddress": "000D3AF806EC"}
    ]}))
}

#[test]
fn single_stack_without_public_ip() {
    insta::assert_yaml_snapshot!(lines(&single_stack("")));
}

#[test]
fn single_stack_with_instance_level_public_ip() {
    insta::assert_yaml_snapshot!(lines(&single_stack("20.1.2.3")));
}

#[test]
fn single_stack_with_public_ip_from_the_load_balancer_document() {
    let doc = lb(json!([
        {"frontendIpAddress": "20.9.9.9", "privateIpAddress": "10.224.0.99"},
        {"frontendIpAddress": "20.50.0.10", "privateIpAddress": "10.224.0.4"}
    ]));
    insta::assert_yaml_snapshot!(with_lb(single_stack(""), &doc));
}

#[test]
fn dual_stack_without_public_ips() {
    insta::assert_yaml_snapshot!(lines(&dual_stack()));
}

#[test]
fn dual_stack_with_public_ips_from_the_load_balancer_document() {
    let doc = lb(json!([
        {"frontendIpAddress": "[2603:1030::1]", "privateIpAddress": "[fd00::4]"},
        {"frontendIpAddress": "20.50.0.10", "privateIpAddress": "10.224.0.4"}
    ]));
    insta::assert_yaml_snapshot!(with_lb(dual_stack(), &doc));
}

#[test]
fn an_instance_level_public_ip_means_the_lb_document_is_not_used() {
    let net = single_stack("20.1.2.3");
    assert!(has_public_ip(&net.interface[0]));
    let doc = lb(json!([{"frontendIpAddress": "20.50.0.10", "privateIpAddress": "10.224.0.4"}]));
    assert_eq!(with_lb(net, &doc)[2], "ExternalIP: 20.1.2.3");
}

#[test]
fn no_nic_or_no_private_ip_is_an_error_that_purges_the_cache() {
    let none = node_addresses(&network(json!({"interface": []})), "n").unwrap_err();
    assert!(none.purges_cache(), "{none}");
    let empty =
        network(json!({"interface": [{"ipv4": {"ipAddress": [{"privateIpAddress": ""}]}}]}));
    let err = node_addresses(&empty, "n").unwrap_err();
    assert!(err.purges_cache());
    assert_eq!(err.to_string(), "instance metadata has no IP address");
}

fn compute(v: serde_json::Value) -> Compute {
    serde_json::from_value(v).unwrap()
}

#[test]
fn provider_id_lower_cases_subscription_and_resource_group_everywhere() {
    let c = compute(json!({
        "resourceId": "/subscriptions/0B1F6471-AAAA/resourceGroups/MC_Zonal/providers/Microsoft.Compute/virtualMachineScaleSets/aks-NP1-vmss/virtualMachines/3",
        "subscriptionId": "0B1F6471-AAAA",
        "resourceGroupName": "MC_Zonal"
    }));
    assert_eq!(
        provider_id(&c).unwrap(),
        "azure:///subscriptions/0b1f6471-aaaa/resourceGroups/mc_zonal/providers/Microsoft.Compute/virtualMachineScaleSets/aks-NP1-vmss/virtualMachines/3"
    );
    // strings.ReplaceAll parity: the group name inside the VM name is lower-cased too.
    let quirk = compute(json!({
        "resourceId": "/subscriptions/s/resourceGroups/K8S/providers/Microsoft.Compute/virtualMachines/K8S-master-0",
        "subscriptionId": "s",
        "resourceGroupName": "K8S"
    }));
    assert_eq!(
        provider_id(&quirk).unwrap(),
        "azure:///subscriptions/s/resourceGroups/k8s/providers/Microsoft.Compute/virtualMachines/k8s-master-0"
    );
    let err = provider_id(&compute(json!({}))).unwrap_err();
    assert!(err.purges_cache());
}

#[test]
fn zone_is_location_and_number_or_the_fault_domain() {
    let z = |v| zone(&compute(v)).unwrap();
    let zonal = z(json!({"location": "WestEurope", "zone": "02", "platformFaultDomain": "0"}));
    assert_eq!(zonal.failure_domain, "westeurope-2");
    assert_eq!(zonal.region, "westeurope");
    let fd = z(json!({"location": "eastus", "zone": "", "platformFaultDomain": "1"}));
    assert_eq!(fd.failure_domain, "1");
    assert_eq!(fd.region, "eastus");
    let bad = zone(&compute(json!({"location": "eastus", "zone": "one"}))).unwrap_err();
    assert_eq!(
        bad.to_string(),
        "instance metadata zone \"one\" is not a number"
    );
}

#[test]
fn local_node_metadata_composes_every_field() {
    let doc: InstanceMetadata = serde_json::from_value(json!({
        "compute": {
            "name": "k8s-agentpool-0", "location": "eastus", "zone": "", "platformFaultDomain": "1",
            "vmSize": "Standard_D4s_v3", "subscriptionId": "SUB", "resourceGroupName": "K8s-Small-RG",
            "resourceId": "/subscriptions/SUB/resourceGroups/K8s-Small-RG/providers/Microsoft.Compute/virtualMachines/k8s-agentpool-0",
            "osProfile": {"computerName": "k8s-agentpool-0"}, "tagsList": [{"name": "a", "value": "b"}],
            "unknownField": {"nested": "ignored"}
        },
        "network": {"interface": [{"ipv4": {"ipAddress": [{"privateIpAddress": "10.224.0.5", "publicIpAddress": ""}]}}]}
    }))
    .unwrap();
    let m = local_node_metadata(&doc, "k8s-agentpool-0").unwrap();
    assert_eq!(
        m.provider_id,
        "azure:///subscriptions/sub/resourceGroups/k8s-small-rg/providers/Microsoft.Compute/virtualMachines/k8s-agentpool-0"
    );
    assert_eq!(m.instance_type, "Standard_D4s_v3");
    assert_eq!((m.zone.as_str(), m.region.as_str()), ("1", "eastus"));
    assert_eq!(m.node_addresses.len(), 2);
    let no_compute = local_node_metadata(&InstanceMetadata::default(), "n").unwrap_err();
    assert_eq!(
        no_compute.to_string(),
        "instance metadata has no compute section"
    );
}

proptest::proptest! {
    /// Any compute section derives without panicking; zone and region come out lower-case.
    #[test]
    fn arbitrary_compute_sections_never_panic(
        location in "\\PC{0,12}", zone_text in "\\PC{0,4}", fd in "[0-9]{0,2}",
        resource_id in "\\PC{0,40}", sub in "\\PC{0,8}", rg in "\\PC{0,8}",
    ) {
        let c = Compute {
            location, zone: zone_text, platform_fault_domain: fd, resource_id,
            subscription_id: sub, resource_group_name: rg, ..Compute::default()
        };
        if let Ok(z) = zone(&c) {
            proptest::prop_assert_eq!(z.failure_domain.to_lowercase(), z.failure_domain);
            proptest::prop_assert_eq!(z.region, c.location.to_lowercase());
        }
        if let Ok(id) = provider_id(&c) {
            proptest::prop_assert!(id.starts_with("azure://"));
        }
    }

    /// For ARM-shaped IDs whose other segments do not contain the group name (upstream replaces
    /// every occurrence), only the subscription and resource-group segments change case.
    #[test]
    fn provider_id_lower_cases_exactly_the_scope_segments(
        sub in "[0-9A-F]{8}-[0-9A-F]{4}", rg in "RG_[A-Za-z_]{2,10}", vm in "vm-[0-9]{1,3}",
    ) {
        let id = format!("/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachines/{vm}");
        let c = Compute {
            resource_id: id, subscription_id: sub.clone(), resource_group_name: rg.clone(),
            ..Compute::default()
        };
        let want = format!(
            "azure:///subscriptions/{}/resourceGroups/{}/providers/Microsoft.Compute/virtualMachines/{vm}",
            sub.to_lowercase(), rg.to_lowercase()
        );
        proptest::prop_assert_eq!(provider_id(&c).unwrap(), want);
    }
}
