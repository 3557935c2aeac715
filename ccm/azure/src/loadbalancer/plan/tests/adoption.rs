//! A document as the in-tree provider writes it (built by hand from anchor-ccm.md §4.3-4.5 and
//! ARM's GET shape: read-only fields, ARM-defaulted idle timeout, `numberOfProbes`, ids with
//! another resource-group casing) is adopted without a write.

use serde_json::json;

use crate::arm::resources::load_balancer::LoadBalancer;

use super::*;

fn in_tree_document(base: &str) -> LoadBalancer {
    let lb =
        "/subscriptions/sub/resourceGroups/RG/providers/Microsoft.Network/loadBalancers/kubernetes";
    serde_json::from_value(json!({
        "name": "kubernetes",
        "id": lb,
        "etag": "W/\"7\"",
        "type": "Microsoft.Network/loadBalancers",
        "location": "eastus2",
        "sku": {"name": "Standard", "tier": "Regional"},
        "properties": {
            "provisioningState": "Succeeded",
            "resourceGuid": "0b8a2f7e-0000-4000-8000-000000000000",
            "frontendIPConfigurations": [
                {
                    "name": "aksOutbound",
                    "id": format!("{lb}/frontendIPConfigurations/aksOutbound"),
                    "etag": "W/\"7\"",
                    "properties": {
                        "provisioningState": "Succeeded",
                        "privateIPAllocationMethod": "Dynamic",
                        "publicIPAddress": {"id": "/subscriptions/sub/resourceGroups/MC_rg/providers/Microsoft.Network/publicIPAddresses/outbound"},
                        "outboundRules": [{"id": format!("{lb}/outboundRules/aksOutboundRule")}]
                    }
                },
                {
                    "name": base,
                    "id": format!("{lb}/frontendIPConfigurations/{base}"),
                    "etag": "W/\"7\"",
                    "properties": {
                        "provisioningState": "Succeeded",
                        "privateIPAllocationMethod": "Dynamic",
                        "publicIPAddress": {"id": "/subscriptions/sub/resourceGroups/RG/providers/Microsoft.Network/publicIPAddresses/kubernetes-a1a2b3c4d"},
                        "loadBalancingRules": [{"id": format!("{lb}/loadBalancingRules/{base}-TCP-80")}]
                    }
                }
            ],
            "backendAddressPools": [
                {
                    "name": "kubernetes",
                    "id": format!("{lb}/backendAddressPools/kubernetes"),
                    "properties": {
                        "provisioningState": "Succeeded",
                        "backendIPConfigurations": [{"id": "/subscriptions/sub/resourceGroups/RG/providers/Microsoft.Network/networkInterfaces/node-0-nic/ipConfigurations/ipconfig1"}],
                        "loadBalancingRules": [{"id": format!("{lb}/loadBalancingRules/{base}-TCP-80")}]
                    }
                }
            ],
            "loadBalancingRules": [
                {
                    "name": format!("{base}-TCP-80"),
                    "id": format!("{lb}/loadBalancingRules/{base}-TCP-80"),
                    "etag": "W/\"7\"",
                    "type": "Microsoft.Network/loadBalancers/loadBalancingRules",
                    "properties": {
                        "provisioningState": "Succeeded",
                        "frontendIPConfiguration": {"id": format!("{lb}/frontendIPConfigurations/{base}")},
                        "backendAddressPool": {"id": format!("{lb}/backendAddressPools/kubernetes")},
                        "backendAddressPools": [{"id": format!("{lb}/backendAddressPools/kubernetes")}],
                        "probe": {"id": format!("{lb}/probes/{base}-TCP-80")},
                        "protocol": "Tcp",
                        "loadDistribution": "Default",
                        "frontendPort": 80,
                        "backendPort": 80,
                        "idleTimeoutInMinutes": 4,
                        "enableFloatingIP": true,
                        "enableTcpReset": true,
                        "disableOutboundSnat": false,
                        "enableDestinationServiceEndpoint": false
                    }
                }
            ],
            "probes": [
                {
                    "name": format!("{base}-TCP-80"),
                    "id": format!("{lb}/probes/{base}-TCP-80"),
                    "etag": "W/\"7\"",
                    "properties": {
                        "provisioningState": "Succeeded",
                        "protocol": "Tcp",
                        "port": 30080,
                        "intervalInSeconds": 5,
                        "numberOfProbes": 2,
                        "loadBalancingRules": [{"id": format!("{lb}/loadBalancingRules/{base}-TCP-80")}]
                    }
                }
            ],
            "inboundNatRules": [],
            "outboundRules": [
                {
                    "name": "aksOutboundRule",
                    "id": format!("{lb}/outboundRules/aksOutboundRule"),
                    "properties": {
                        "frontendIPConfigurations": [{"id": format!("{lb}/frontendIPConfigurations/aksOutbound")}],
                        "backendAddressPool": {"id": format!("{lb}/backendAddressPools/aksOutboundBackendPool")},
                        "protocol": "All",
                        "allocatedOutboundPorts": 0,
                        "idleTimeoutInMinutes": 30,
                        "enableTcpReset": true
                    }
                }
            ],
            "inboundNatPools": []
        }
    }))
    .expect("in-tree document")
}

#[test]
fn in_tree_document_is_adopted_unchanged() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let lb = in_tree_document(&svc.base_name);
    let sources = v4(FrontendSource::Public {
        pip_id: "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/kubernetes-a1a2b3c4d".into(),
    });
    assert_eq!(
        plan_ensure(Some(&lb), &target(), &svc, &sources).expect("plan"),
        LbChange::Unchanged
    );
}

#[test]
fn in_tree_document_with_a_changed_node_port_is_rewritten() {
    // The same document with a NodePort the Service no longer has must PUT (the test above is
    // not vacuous).
    let svc = service("web", UID_A, vec![tcp(80, 30099)]);
    let lb = in_tree_document(&svc.base_name);
    let sources = v4(pip("kubernetes-a1a2b3c4d"));
    assert!(matches!(
        plan_ensure(Some(&lb), &target(), &svc, &sources).expect("plan"),
        LbChange::Put(_)
    ));
}

#[test]
fn in_tree_document_keeps_the_outbound_frontend_on_removal() {
    let svc = service("web", UID_A, vec![tcp(80, 30080)]);
    let lb = in_tree_document(&svc.base_name);
    let after = put(plan_remove(&lb, &target(), &svc));
    assert_eq!(
        names(
            after
                .properties
                .as_ref()
                .and_then(|p| p.frontend_ip_configurations.as_ref())
        ),
        vec!["aksOutbound".to_string()]
    );
}

#[test]
fn rewritten_in_tree_rule_keeps_unknown_fields() {
    let mut svc = service("web", UID_A, vec![tcp(80, 30080)]);
    svc.rules.floating_ip = false;
    let lb = in_tree_document(&svc.base_name);
    let sources = v4(pip("kubernetes-a1a2b3c4d"));
    let after = put(plan_ensure(Some(&lb), &target(), &svc, &sources).expect("plan"));
    let rule = &after
        .properties
        .as_ref()
        .and_then(|p| p.load_balancing_rules.as_ref())
        .expect("rules")[0];
    let props = rule.properties.as_ref().expect("rule properties");
    assert_eq!(props.enable_floating_ip, Some(false));
    assert_eq!(props.backend_port, Some(30080));
    assert_eq!(
        props.backend_address_pools, None,
        "stale multi-pool copy dropped"
    );
    assert_eq!(
        props.extra.get("enableDestinationServiceEndpoint"),
        Some(&serde_json::Value::Bool(false)),
        "unknown rule fields survive the rewrite"
    );
    assert_eq!(rule.etag.as_deref(), Some("W/\"7\""));
}
