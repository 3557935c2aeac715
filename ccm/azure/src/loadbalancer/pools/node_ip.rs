//! `nodeIP` backend pools: the pool lists node addresses (plus the VNet) instead of NIC ipconfigs,
//! so membership is part of the load-balancer document and costs no NIC or scale-set write.

use std::net::IpAddr;

use ccm_cloud::NodeView;

use crate::arm::resources::LoadBalancer;
use crate::arm::resources::envelope::Reference;
use crate::arm::resources::load_balancer::{
    BackendAddress, BackendAddressPool, BackendAddressPoolProperties, BackendAddressProperties,
};
use crate::config::Config;
use crate::loadbalancer::IpFamily;

/// The VNet id every nodeIP member carries (anchor-ccm.md §4.6):
/// `/subscriptions/<subscriptionId>/resourceGroups/<vnetResourceGroup>/providers/Microsoft.Network/virtualNetworks/<vnetName>`.
/// The main subscription even when `networkResourceSubscriptionID` is set (upstream
/// `backendPoolTypeNodeIP` formats it from `SubscriptionID`).
pub fn vnet_id(config: &Config) -> String {
    format!(
        "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Network/virtualNetworks/{}",
        config.identity.subscription_id,
        config.cluster.vnet_resource_group,
        config.cluster.vnet_name
    )
}

/// The node's first `InternalIP` of `family` from `status.addresses`, as upstream picks it.
pub fn internal_ip(node: &dyn NodeView, family: IpFamily) -> Option<IpAddr> {
    node.addresses()
        .filter(|(type_, _)| *type_ == "InternalIP")
        .filter_map(|(_, address)| address.parse::<IpAddr>().ok())
        .find(|ip| IpFamily::of(ip) == family)
}

/// Name of a node's member entry: the node name, `-ipv6` appended for the IPv6 pool.
pub fn member_name(node: &str, family: IpFamily) -> String {
    match family {
        IpFamily::V4 => node.to_string(),
        IpFamily::V6 => format!("{node}-ipv6"),
    }
}

fn entry_ip(entry: &BackendAddress) -> Option<IpAddr> {
    entry
        .properties
        .as_ref()?
        .ip_address
        .as_deref()?
        .parse()
        .ok()
}

/// nodeIP pools (pure): sets `loadBalancerBackendAddresses` of pool `pool_name` (created when
/// missing) to one entry per node with an InternalIP of `family`. Entries whose address is still
/// a node's stay exactly as they are and where they are; entries of addresses no node has any more
/// are dropped; new ones are appended in node order as `{name, properties{ipAddress,
/// virtualNetwork{id}}}`. Nothing changes when the members are already right.
pub fn set_node_ip_members(
    lb: &mut LoadBalancer,
    pool_name: &str,
    family: IpFamily,
    nodes: &[&dyn NodeView],
    vnet_id: &str,
) {
    let wanted: Vec<(String, IpAddr)> = nodes
        .iter()
        .filter_map(|n| {
            let name = Some(n.name()).filter(|name| !name.is_empty())?;
            Some((member_name(name, family), internal_ip(*n, family)?))
        })
        .collect();
    let pools = lb
        .properties
        .get_or_insert_with(Default::default)
        .backend_address_pools
        .get_or_insert_with(Vec::new);
    let index = match pools.iter().position(|p| {
        p.name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(pool_name))
    }) {
        Some(i) => i,
        None => {
            pools.push(BackendAddressPool {
                name: Some(pool_name.to_string()),
                ..Default::default()
            });
            pools.len() - 1
        }
    };
    let props = pools[index]
        .properties
        .get_or_insert_with(BackendAddressPoolProperties::default);
    let current = props
        .load_balancer_backend_addresses
        .take()
        .unwrap_or_default();
    let mut members: Vec<BackendAddress> = Vec::with_capacity(wanted.len());
    for entry in current {
        let Some(ip) = entry_ip(&entry) else { continue };
        let wanted_ip = wanted.iter().any(|(_, w)| *w == ip);
        let duplicate = members.iter().any(|kept| entry_ip(kept) == Some(ip));
        if wanted_ip && !duplicate {
            members.push(entry);
        }
    }
    for (name, ip) in &wanted {
        if !members.iter().any(|m| entry_ip(m) == Some(*ip)) {
            members.push(BackendAddress {
                name: Some(name.clone()),
                properties: Some(BackendAddressProperties {
                    ip_address: Some(ip.to_string()),
                    virtual_network: Some(Reference::to(vnet_id)),
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
    }
    props.load_balancer_backend_addresses = Some(members);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loadbalancer::pools::test_support::node;
    use serde_json::json;

    const VNET: &str =
        "/subscriptions/s/resourceGroups/net-rg/providers/Microsoft.Network/virtualNetworks/vnet";

    fn lb(pool: serde_json::Value) -> LoadBalancer {
        serde_json::from_value(json!({
            "name": "kubernetes",
            "properties": { "backendAddressPools": [
                { "name": "outbound", "properties": { "loadBalancerBackendAddresses": [] } },
                pool
            ] }
        }))
        .unwrap()
    }

    fn pool_json(lb: &LoadBalancer, index: usize) -> serde_json::Value {
        serde_json::to_value(
            &lb.properties
                .as_ref()
                .unwrap()
                .backend_address_pools
                .as_ref()
                .unwrap()[index],
        )
        .unwrap()
    }

    #[test]
    fn vnet_id_from_the_config() {
        let config = crate::loadbalancer::pools::test_support::config(
            r#", "vnetName": "vnet", "vnetResourceGroup": "net-rg""#,
        );
        assert_eq!(
            vnet_id(&config),
            "/subscriptions/s/resourceGroups/net-rg/providers/Microsoft.Network/virtualNetworks/vnet"
        );
    }

    #[test]
    fn members_per_node_with_the_vnet() {
        let a = node("node-a", &[], &["10.0.0.4", "fd00::4"]);
        let b = node("node-b", &[], &["10.0.0.5"]);
        let mut doc = lb(json!({ "name": "kubernetes" }));
        set_node_ip_members(&mut doc, "kubernetes", IpFamily::V4, &[&a, &b], VNET);
        insta::assert_json_snapshot!("node_ip_v4_pool", pool_json(&doc, 1));
        set_node_ip_members(&mut doc, "kubernetes-IPv6", IpFamily::V6, &[&a, &b], VNET);
        insta::assert_json_snapshot!("node_ip_v6_pool", pool_json(&doc, 2));
    }

    #[test]
    fn unchanged_members_keep_their_entries_and_order() {
        let existing = json!({ "name": "kubernetes", "id": "/pool/id", "properties": {
            "loadBalancerBackendAddresses": [
                { "name": "node-b", "properties": { "ipAddress": "10.0.0.5",
                  "virtualNetwork": { "id": VNET }, "adminState": "None" } },
                { "name": "gone", "properties": { "ipAddress": "10.0.0.9", "virtualNetwork": { "id": VNET } } },
                { "name": "node-a", "properties": { "ipAddress": "10.0.0.4", "virtualNetwork": { "id": VNET } } }
            ] } });
        let a = node("node-a", &[], &["10.0.0.4"]);
        let b = node("node-b", &[], &["10.0.0.5"]);
        let c = node("node-c", &[], &["10.0.0.6"]);
        let mut doc = lb(existing.clone());
        set_node_ip_members(&mut doc, "kubernetes", IpFamily::V4, &[&a, &b, &c], VNET);
        let pool = pool_json(&doc, 1);
        let names: Vec<&str> = pool["properties"]["loadBalancerBackendAddresses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["node-b", "node-a", "node-c"]);
        assert_eq!(
            pool["properties"]["loadBalancerBackendAddresses"][0]["properties"]["adminState"],
            "None",
            "kept entries are untouched"
        );

        // Same nodes again: the document compares equal (no write).
        let before = doc.clone();
        set_node_ip_members(&mut doc, "kubernetes", IpFamily::V4, &[&a, &b, &c], VNET);
        assert_eq!(doc, before);
        // The untouched pool and the pool of the right name only.
        assert_eq!(
            pool_json(&doc, 0),
            json!({ "name": "outbound", "properties": { "loadBalancerBackendAddresses": [] } })
        );
    }

    #[test]
    fn nodes_without_an_address_of_the_family_are_left_out() {
        let v4_only = node("node-a", &[], &["10.0.0.4"]);
        let mut doc = lb(json!({ "name": "kubernetes-IPv6" }));
        set_node_ip_members(&mut doc, "kubernetes-IPv6", IpFamily::V6, &[&v4_only], VNET);
        assert_eq!(
            pool_json(&doc, 1)["properties"]["loadBalancerBackendAddresses"],
            json!([])
        );
    }
}
