//! The ARM half of a snapshot: load balancers, public IPs, NSG rules, route tables, NIC IP
//! configurations and VMs reduced from the fake's `GET /admin/state` export
//! (`{"arm": {"entries": [{"kind", "doc"}]}}`, fakes/arm `ArmState::export`). Every id is
//! lower-cased (ARM ids are case-insensitive) and every list sorted, so two snapshots compare
//! without noise.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The ARM resources the parity checks read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArmResources {
    /// Load balancers, by id.
    pub load_balancers: Vec<LoadBalancer>,
    /// Public IPs, by id.
    pub public_ips: Vec<PublicIp>,
    /// Network security groups, by id.
    pub security_groups: Vec<SecurityGroup>,
    /// Route tables, by id.
    pub route_tables: Vec<RouteTable>,
    /// NIC IP configurations (VM and scale-set NICs), by id: how pool members map to node IPs.
    pub ip_configurations: Vec<IpConfiguration>,
    /// VMs and scale-set instances, by id.
    pub machines: Vec<Machine>,
}

/// A load balancer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancer {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// SKU name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sku: Option<String>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// Frontend IP configurations.
    pub frontends: Vec<Frontend>,
    /// Backend pools.
    pub pools: Vec<BackendPool>,
    /// Load-balancing rules.
    pub rules: Vec<LbRule>,
    /// Health probes.
    pub probes: Vec<Probe>,
}

/// A frontend IP configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frontend {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// Public IP id (public frontends), lower-cased.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_ip_id: Option<String>,
    /// Private IP (internal frontends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_ip: Option<String>,
    /// Subnet id (internal frontends), lower-cased.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnet_id: Option<String>,
}

/// A backend pool and its members.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackendPool {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// Members, sorted: NIC IP configuration ids (lower-cased) for `nodeIPConfiguration` pools,
    /// IP addresses for `nodeIP` pools.
    pub members: Vec<String>,
}

/// A load-balancing rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LbRule {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// `Tcp`, `Udp`, `All`.
    pub protocol: String,
    /// Frontend port.
    pub frontend_port: i64,
    /// Backend port.
    pub backend_port: i64,
    /// Frontend id, lower-cased.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontend_id: Option<String>,
    /// Backend pool id, lower-cased.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool_id: Option<String>,
    /// Probe id, lower-cased.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_id: Option<String>,
}

/// A health probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// `Tcp`, `Http`, `Https`.
    pub protocol: String,
    /// Port.
    pub port: i64,
    /// `requestPath` (HTTP(S) probes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A public IP address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicIp {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// Allocated address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// SKU name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sku: Option<String>,
    /// DNS label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_label: Option<String>,
    /// The IP configuration (LB frontend or NIC) using it, lower-cased.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_configuration: Option<String>,
}

/// A network security group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityGroup {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// Security rules, by name.
    pub rules: Vec<SecurityRule>,
}

/// An NSG security rule (single and plural prefix/port fields merged, sorted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityRule {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// Priority.
    pub priority: i64,
    /// `Allow` / `Deny`.
    pub access: String,
    /// `Inbound` / `Outbound`.
    pub direction: String,
    /// `Tcp`, `Udp`, `*`.
    pub protocol: String,
    /// Destination port ranges.
    pub destination_ports: Vec<String>,
    /// Source address prefixes (or service tags).
    pub sources: Vec<String>,
    /// Destination address prefixes.
    pub destinations: Vec<String>,
}

/// A route table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteTable {
    /// Id, lower-cased.
    pub id: String,
    /// Name.
    pub name: String,
    /// Routes, by name.
    pub routes: Vec<Route>,
}

/// A route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Route {
    /// Id, lower-cased.
    pub id: String,
    /// Name (`<node>` or `<node>____<cidr digits>`, anchor-ccm.md §5).
    pub name: String,
    /// Address prefix.
    pub prefix: String,
    /// Next hop type.
    pub next_hop_type: String,
    /// Next hop IP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_hop_ip: Option<String>,
}

/// A NIC IP configuration and its private IP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpConfiguration {
    /// Id, lower-cased.
    pub id: String,
    /// Private IP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_ip: Option<String>,
}

/// A VM or scale-set instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Machine {
    /// Id, lower-cased.
    pub id: String,
    /// Resource name.
    pub name: String,
    /// `osProfile.computerName` (the node name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer_name: Option<String>,
    /// Availability set id, lower-cased (standalone VMs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_set: Option<String>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
}

impl ArmResources {
    /// Reads the fake's `GET /admin/state` answer; unknown kinds are skipped.
    pub fn from_admin_state(state: &Value) -> Self {
        let mut out = Self::default();
        let entries = state
            .pointer("/arm/entries")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for entry in &entries {
            let doc = &entry["doc"];
            match entry["kind"].as_str().unwrap_or_default() {
                "LoadBalancer" => out.load_balancers.push(load_balancer(doc)),
                "PublicIp" | "VmssPip" => out.public_ips.push(public_ip(doc)),
                "Nsg" => out.security_groups.push(security_group(doc)),
                "RouteTable" => out.route_tables.push(route_table(doc)),
                "Nic" | "VmssNic" => out.ip_configurations.extend(ip_configurations(doc)),
                "Vm" | "VmssVm" => out.machines.push(machine(doc)),
                _ => {}
            }
        }
        out.sort();
        out
    }

    /// Sorts every list by its key (ids, names, member values).
    pub fn sort(&mut self) {
        for lb in &mut self.load_balancers {
            lb.frontends.sort_by(|a, b| a.id.cmp(&b.id));
            for pool in &mut lb.pools {
                pool.members.sort();
                pool.members.dedup();
            }
            lb.pools.sort_by(|a, b| a.id.cmp(&b.id));
            lb.rules.sort_by(|a, b| a.id.cmp(&b.id));
            lb.probes.sort_by(|a, b| a.id.cmp(&b.id));
        }
        self.load_balancers.sort_by(|a, b| a.id.cmp(&b.id));
        self.public_ips.sort_by(|a, b| a.id.cmp(&b.id));
        for nsg in &mut self.security_groups {
            for rule in &mut nsg.rules {
                rule.destination_ports.sort();
                rule.sources.sort();
                rule.destinations.sort();
            }
            nsg.rules.sort_by(|a, b| a.id.cmp(&b.id));
        }
        self.security_groups.sort_by(|a, b| a.id.cmp(&b.id));
        for table in &mut self.route_tables {
            table.routes.sort_by(|a, b| a.id.cmp(&b.id));
        }
        self.route_tables.sort_by(|a, b| a.id.cmp(&b.id));
        self.ip_configurations.sort_by(|a, b| a.id.cmp(&b.id));
        self.machines.sort_by(|a, b| a.id.cmp(&b.id));
    }

    /// The public IP with `address`.
    pub fn pip_by_address(&self, address: &str) -> Option<&PublicIp> {
        self.public_ips
            .iter()
            .find(|p| p.address.as_deref() == Some(address))
    }

    /// Private IP of each NIC IP configuration id.
    pub fn ip_of_configuration(&self) -> BTreeMap<&str, &str> {
        self.ip_configurations
            .iter()
            .filter_map(|c| Some((c.id.as_str(), c.private_ip.as_deref()?)))
            .collect()
    }
}

fn text(value: &Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn id_of(value: &Value, pointer: &str) -> Option<String> {
    text(value, pointer).map(|s| s.to_ascii_lowercase())
}

fn number(value: &Value, pointer: &str) -> i64 {
    value.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

fn tags(doc: &Value) -> BTreeMap<String, String> {
    doc.get("tags")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn children<'a>(doc: &'a Value, collection: &str) -> impl Iterator<Item = &'a Value> {
    doc.pointer(&format!("/properties/{collection}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn strings(value: &Value, single: &str, plural: &str) -> Vec<String> {
    let mut out: Vec<String> = value
        .pointer(plural)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    if let Some(one) = text(value, single) {
        out.push(one);
    }
    out
}

fn load_balancer(doc: &Value) -> LoadBalancer {
    LoadBalancer {
        id: id_of(doc, "/id").unwrap_or_default(),
        name: text(doc, "/name").unwrap_or_default(),
        sku: text(doc, "/sku/name"),
        tags: tags(doc),
        frontends: children(doc, "frontendIPConfigurations")
            .map(|f| Frontend {
                id: id_of(f, "/id").unwrap_or_default(),
                name: text(f, "/name").unwrap_or_default(),
                public_ip_id: id_of(f, "/properties/publicIPAddress/id"),
                private_ip: text(f, "/properties/privateIPAddress"),
                subnet_id: id_of(f, "/properties/subnet/id"),
            })
            .collect(),
        pools: children(doc, "backendAddressPools")
            .map(|p| {
                let by_config = p
                    .pointer("/properties/backendIPConfigurations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|c| id_of(c, "/id"));
                let by_ip = p
                    .pointer("/properties/loadBalancerBackendAddresses")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|a| text(a, "/properties/ipAddress"));
                BackendPool {
                    id: id_of(p, "/id").unwrap_or_default(),
                    name: text(p, "/name").unwrap_or_default(),
                    members: by_config.chain(by_ip).collect(),
                }
            })
            .collect(),
        rules: children(doc, "loadBalancingRules")
            .map(|r| LbRule {
                id: id_of(r, "/id").unwrap_or_default(),
                name: text(r, "/name").unwrap_or_default(),
                protocol: text(r, "/properties/protocol").unwrap_or_default(),
                frontend_port: number(r, "/properties/frontendPort"),
                backend_port: number(r, "/properties/backendPort"),
                frontend_id: id_of(r, "/properties/frontendIPConfiguration/id"),
                pool_id: id_of(r, "/properties/backendAddressPool/id")
                    .or_else(|| id_of(r, "/properties/backendAddressPools/0/id")),
                probe_id: id_of(r, "/properties/probe/id"),
            })
            .collect(),
        probes: children(doc, "probes")
            .map(|p| Probe {
                id: id_of(p, "/id").unwrap_or_default(),
                name: text(p, "/name").unwrap_or_default(),
                protocol: text(p, "/properties/protocol").unwrap_or_default(),
                port: number(p, "/properties/port"),
                path: text(p, "/properties/requestPath"),
            })
            .collect(),
    }
}

fn public_ip(doc: &Value) -> PublicIp {
    PublicIp {
        id: id_of(doc, "/id").unwrap_or_default(),
        name: text(doc, "/name").unwrap_or_default(),
        address: text(doc, "/properties/ipAddress"),
        tags: tags(doc),
        sku: text(doc, "/sku/name"),
        dns_label: text(doc, "/properties/dnsSettings/domainNameLabel"),
        ip_configuration: id_of(doc, "/properties/ipConfiguration/id"),
    }
}

fn security_group(doc: &Value) -> SecurityGroup {
    SecurityGroup {
        id: id_of(doc, "/id").unwrap_or_default(),
        name: text(doc, "/name").unwrap_or_default(),
        rules: children(doc, "securityRules")
            .map(|r| SecurityRule {
                id: id_of(r, "/id").unwrap_or_default(),
                name: text(r, "/name").unwrap_or_default(),
                priority: number(r, "/properties/priority"),
                access: text(r, "/properties/access").unwrap_or_default(),
                direction: text(r, "/properties/direction").unwrap_or_default(),
                protocol: text(r, "/properties/protocol").unwrap_or_default(),
                destination_ports: strings(
                    r,
                    "/properties/destinationPortRange",
                    "/properties/destinationPortRanges",
                ),
                sources: strings(
                    r,
                    "/properties/sourceAddressPrefix",
                    "/properties/sourceAddressPrefixes",
                ),
                destinations: strings(
                    r,
                    "/properties/destinationAddressPrefix",
                    "/properties/destinationAddressPrefixes",
                ),
            })
            .collect(),
    }
}

fn route_table(doc: &Value) -> RouteTable {
    RouteTable {
        id: id_of(doc, "/id").unwrap_or_default(),
        name: text(doc, "/name").unwrap_or_default(),
        routes: children(doc, "routes")
            .map(|r| Route {
                id: id_of(r, "/id").unwrap_or_default(),
                name: text(r, "/name").unwrap_or_default(),
                prefix: text(r, "/properties/addressPrefix").unwrap_or_default(),
                next_hop_type: text(r, "/properties/nextHopType").unwrap_or_default(),
                next_hop_ip: text(r, "/properties/nextHopIpAddress"),
            })
            .collect(),
    }
}

fn ip_configurations(doc: &Value) -> Vec<IpConfiguration> {
    children(doc, "ipConfigurations")
        .map(|c| IpConfiguration {
            id: id_of(c, "/id").unwrap_or_default(),
            private_ip: text(c, "/properties/privateIPAddress"),
        })
        .collect()
}

fn machine(doc: &Value) -> Machine {
    Machine {
        id: id_of(doc, "/id").unwrap_or_default(),
        name: text(doc, "/name").unwrap_or_default(),
        computer_name: text(doc, "/properties/osProfile/computerName"),
        availability_set: id_of(doc, "/properties/availabilitySet/id"),
        tags: tags(doc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_lbs_pips_nsgs_and_routes_from_the_admin_export() {
        let lb_id =
            "/subscriptions/S/resourceGroups/RG/providers/Microsoft.Network/loadBalancers/k8s";
        let state = json!({"arm": {"entries": [
            {"kind": "LoadBalancer", "doc": {"id": lb_id, "name": "k8s", "sku": {"name": "Standard"},
              "properties": {
                "frontendIPConfigurations": [{"id": format!("{lb_id}/frontendIPConfigurations/aX"), "name": "aX",
                  "properties": {"publicIPAddress": {"id": "/S/PIP"}}}],
                "backendAddressPools": [{"id": format!("{lb_id}/backendAddressPools/k8s"), "name": "k8s",
                  "properties": {"backendIPConfigurations": [{"id": "/NIC/B"}, {"id": "/NIC/A"}]}}],
                "loadBalancingRules": [{"id": format!("{lb_id}/loadBalancingRules/aX-TCP-80"), "name": "aX-TCP-80",
                  "properties": {"protocol": "Tcp", "frontendPort": 80, "backendPort": 80}}],
                "probes": [{"id": format!("{lb_id}/probes/aX-TCP-80"), "name": "aX-TCP-80",
                  "properties": {"protocol": "Http", "port": 30080, "requestPath": "/"}}]}}},
            {"kind": "PublicIp", "doc": {"id": "/S/PIP", "name": "k8s-aX", "tags": {"k8s-azure-service": "default/web"},
              "properties": {"ipAddress": "20.1.2.3"}}},
            {"kind": "Nsg", "doc": {"id": "/S/NSG", "name": "nsg", "properties": {"securityRules": [
              {"id": "/S/NSG/r", "name": "r", "properties": {"priority": 500, "access": "Allow", "direction": "Inbound",
                "protocol": "Tcp", "destinationPortRange": "80", "sourceAddressPrefix": "Internet",
                "destinationAddressPrefixes": ["20.1.2.4", "20.1.2.3"]}}]}}},
            {"kind": "Vnet", "doc": {"id": "/S/VNET"}}
        ]}});
        let arm = ArmResources::from_admin_state(&state);
        let lb = &arm.load_balancers[0];
        assert_eq!(lb.id, lb_id.to_ascii_lowercase());
        assert_eq!(lb.frontends[0].public_ip_id.as_deref(), Some("/s/pip"));
        assert_eq!(lb.pools[0].members, ["/nic/a", "/nic/b"]);
        assert_eq!(lb.probes[0].path.as_deref(), Some("/"));
        assert_eq!(
            arm.pip_by_address("20.1.2.3").map(|p| p.name.as_str()),
            Some("k8s-aX")
        );
        let rule = &arm.security_groups[0].rules[0];
        assert_eq!(rule.destinations, ["20.1.2.3", "20.1.2.4"]);
        assert_eq!(rule.destination_ports, ["80"]);
        assert!(arm.route_tables.is_empty());
    }
}
