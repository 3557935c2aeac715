//! The pure half of a route batch: the table as read plus the batch's operations → the table to
//! PUT, or `None` when nothing differs (no write when unchanged).

use std::collections::{BTreeMap, BTreeSet};

use crate::arm::resources::route_table::{
    Route, RouteProperties, RouteTable, RouteTableProperties,
};
use crate::config::tags::reconcile_tags;
use crate::loadbalancer::names::route_name;

/// The `nextHopType` of every node route.
pub const NEXT_HOP_VIRTUAL_APPLIANCE: &str = "VirtualAppliance";

/// What the batch does to the table.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteOp {
    /// Ensure this route (matched by name, case-insensitively) exists with this body.
    Add(Box<Route>),
    /// Remove the route of `node` named `name`, every route whose name starts with `name`, and
    /// the node's legacy route named exactly `node`.
    Delete {
        /// The route name (`<node>____<cidr digits>`).
        name: String,
        /// The target node.
        node: String,
    },
    /// Reconcile the table's tags with the configured ones.
    Tags,
}

impl RouteOp {
    /// The add operation sending `cidr` to `next_hop` on `node`.
    pub fn add(node: &str, cidr: &str, next_hop: &str) -> RouteOp {
        RouteOp::Add(Box::new(Route {
            name: Some(route_name(node, cidr)),
            properties: Some(RouteProperties {
                address_prefix: Some(cidr.to_string()),
                next_hop_type: Some(NEXT_HOP_VIRTUAL_APPLIANCE.to_string()),
                next_hop_ip_address: Some(next_hop.to_string()),
                ..Default::default()
            }),
            ..Default::default()
        }))
    }

    /// The delete operation of `node`'s route for `cidr`.
    pub fn delete(node: &str, cidr: &str) -> RouteOp {
        RouteOp::Delete {
            name: route_name(node, cidr),
            node: node.to_string(),
        }
    }

    /// The node the operation targets, if any.
    pub fn node(&self) -> Option<&str> {
        match self {
            RouteOp::Add(route) => route
                .name
                .as_deref()
                .map(crate::loadbalancer::names::route_target_node),
            RouteOp::Delete { node, .. } => Some(node),
            RouteOp::Tags => None,
        }
    }
}

/// The tags the table should carry: `None` when the table is not the CCM's to tag (its resource
/// group is not the cluster's) or no tags are configured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TagPolicy {
    /// `tags` / `tagsMap`.
    pub tags: BTreeMap<String, String>,
    /// `systemTags`: key prefixes kept when other unknown tags are removed.
    pub system_tags: Vec<String>,
}

impl TagPolicy {
    /// `current` reconciled with the configured tags: each configured key added or its value
    /// updated (keys and values compared case-insensitively); with system tags set, unknown keys
    /// that start with none of them are removed.
    pub fn reconcile(
        &self,
        current: Option<&BTreeMap<String, String>>,
    ) -> Option<BTreeMap<String, String>> {
        let mut tags = current.cloned().unwrap_or_default();
        reconcile_tags(&mut tags, &self.tags, &self.system_tags);
        if current.is_none() && tags.is_empty() {
            return None;
        }
        Some(tags)
    }

    /// True when [`TagPolicy::reconcile`] would change `current`.
    pub fn needs_update(&self, current: Option<&BTreeMap<String, String>>) -> bool {
        self.reconcile(current).as_ref() != current
    }
}

/// The empty table the batch creates when it is missing: name, location, empty properties and,
/// when the CCM tags it, the configured tags.
pub fn new_table(name: &str, location: &str, tags: Option<&TagPolicy>) -> RouteTable {
    RouteTable {
        name: Some(name.to_string()),
        location: Some(location.to_string()),
        tags: tags.map(|t| t.tags.clone()).filter(|t| !t.is_empty()),
        properties: Some(RouteTableProperties::default()),
        ..Default::default()
    }
}

fn name_of(route: &Route) -> &str {
    route.name.as_deref().unwrap_or_default()
}

fn same_body(a: &Route, b: &Route) -> bool {
    let field = |r: &Route, f: fn(&RouteProperties) -> Option<&String>| {
        r.properties
            .as_ref()
            .and_then(f)
            .map(|s| s.to_ascii_lowercase())
    };
    field(a, |p| p.address_prefix.as_ref()) == field(b, |p| p.address_prefix.as_ref())
        && field(a, |p| p.next_hop_ip_address.as_ref())
            == field(b, |p| p.next_hop_ip_address.as_ref())
}

/// Applies `ops` in order to `current`: legacy routes named exactly after a node of
/// `known_nodes` are dropped first, then each add replaces (in place) or appends its route,
/// each delete removes its routes, and a [`RouteOp::Tags`] reconciles the tags with `tags`.
/// Returns the table to PUT, `None` when it would equal `current`.
pub fn apply(
    current: &RouteTable,
    ops: &[RouteOp],
    known_nodes: &BTreeSet<String>,
    tags: Option<&TagPolicy>,
) -> Option<RouteTable> {
    let original: Vec<Route> = current
        .properties
        .as_ref()
        .and_then(|p| p.routes.clone())
        .unwrap_or_default();
    let mut routes: Vec<Route> = original
        .iter()
        .filter(|r| {
            let name = name_of(r);
            name.contains("____") || !known_nodes.contains(name)
        })
        .cloned()
        .collect();
    let mut desired = current.clone();
    for op in ops {
        match op {
            RouteOp::Add(route) => {
                let existing = routes
                    .iter()
                    .position(|r| name_of(r).eq_ignore_ascii_case(name_of(route)));
                match existing {
                    Some(i) if same_body(&routes[i], route) => {}
                    Some(i) => routes[i] = Route::clone(route),
                    None => routes.push(Route::clone(route)),
                }
            }
            RouteOp::Delete { name, node } => {
                if let Some(i) = routes
                    .iter()
                    .position(|r| name_of(r).eq_ignore_ascii_case(name))
                {
                    routes.remove(i);
                }
                routes.retain(|r| !name_of(r).starts_with(name.as_str()) && name_of(r) != node);
            }
            RouteOp::Tags => {
                if let Some(policy) = tags {
                    desired.tags = policy.reconcile(desired.tags.as_ref());
                }
            }
        }
    }
    if routes != original {
        desired
            .properties
            .get_or_insert_with(RouteTableProperties::default)
            .routes = Some(routes);
    }
    (desired != *current).then_some(desired)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table() -> RouteTable {
        serde_json::from_value(json!({
            "id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/routeTables/rt",
            "name": "rt",
            "location": "eastus",
            "etag": "W/\"1\"",
            "tags": {"owner": "team"},
            "properties": {
                "provisioningState": "Succeeded",
                "disableBgpRoutePropagation": false,
                "routes": [
                    {"name": "user-default", "id": "/r/user-default", "etag": "W/\"1\"",
                     "properties": {"addressPrefix": "0.0.0.0/0", "nextHopType": "Internet",
                                    "provisioningState": "Succeeded"}},
                    {"name": "node-a", "id": "/r/node-a",
                     "properties": {"addressPrefix": "10.244.0.0/24",
                                    "nextHopType": "VirtualAppliance",
                                    "nextHopIpAddress": "10.224.0.5"}},
                    {"name": "node-b____102441024", "id": "/r/node-b",
                     "properties": {"addressPrefix": "10.244.1.0/24",
                                    "nextHopType": "VirtualAppliance",
                                    "nextHopIpAddress": "10.224.0.6"}},
                    {"name": "node-c____102442024", "id": "/r/node-c",
                     "properties": {"addressPrefix": "10.244.2.0/24",
                                    "nextHopType": "VirtualAppliance",
                                    "nextHopIpAddress": "10.224.0.7"}}
                ]
            }
        }))
        .unwrap()
    }

    fn known(nodes: &[&str]) -> BTreeSet<String> {
        nodes.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn adds_deletes_legacy_and_dual_stack_in_one_body() {
        let ops = [
            RouteOp::add("node-a", "10.244.0.0/24", "10.224.0.5"),
            RouteOp::add("node-a", "fd00:10:244::/64", "fd00:10:224::5"),
            RouteOp::delete("node-c", "10.244.2.0/24"),
            RouteOp::add("node-b", "10.244.1.0/24", "10.224.0.6"),
        ];
        let desired = apply(&table(), &ops, &known(&["node-a", "node-b"]), None).expect("changed");
        insta::assert_json_snapshot!(desired);
    }

    #[test]
    fn unchanged_routes_and_absent_deletes_write_nothing() {
        let ops = [
            RouteOp::add("NODE-B", "10.244.1.0/24", "10.224.0.6"),
            RouteOp::delete("node-x", "10.244.9.0/24"),
        ];
        // node-a is not a known node, so its legacy route is someone else's and stays.
        assert_eq!(apply(&table(), &ops, &known(&["node-b"]), None), None);
    }

    #[test]
    fn a_changed_next_hop_replaces_the_route_in_place() {
        let ops = [RouteOp::add("node-b", "10.244.1.0/24", "10.224.0.66")];
        let desired = apply(&table(), &ops, &known(&[]), None).expect("changed");
        let routes = desired.properties.unwrap().routes.unwrap();
        assert_eq!(routes.len(), 4);
        assert_eq!(routes[2].name.as_deref(), Some("node-b____102441024"));
        assert_eq!(
            routes[2]
                .properties
                .as_ref()
                .unwrap()
                .next_hop_ip_address
                .as_deref(),
            Some("10.224.0.66")
        );
    }

    #[test]
    fn a_delete_removes_every_route_with_the_name_as_prefix_and_the_legacy_route() {
        let mut current = table();
        let routes = current
            .properties
            .as_mut()
            .unwrap()
            .routes
            .as_mut()
            .unwrap();
        let mut extra = routes[3].clone();
        extra.name = Some("node-c____102442024-old".into());
        routes.push(extra);
        let mut legacy = routes[1].clone();
        legacy.name = Some("node-c".into());
        routes.push(legacy);
        let ops = [RouteOp::delete("node-c", "10.244.2.0/24")];
        let desired = apply(&current, &ops, &known(&[]), None).expect("changed");
        let names: Vec<_> = desired
            .properties
            .unwrap()
            .routes
            .unwrap()
            .into_iter()
            .map(|r| r.name.unwrap())
            .collect();
        assert_eq!(names, ["user-default", "node-a", "node-b____102441024"]);
    }

    #[test]
    fn tags_are_merged_case_insensitively_and_system_tags_prune_unknown_keys() {
        let policy = TagPolicy {
            tags: BTreeMap::from([
                ("Owner".into(), "TEAM".into()),
                ("env".into(), "prod".into()),
            ]),
            system_tags: vec![],
        };
        let current = BTreeMap::from([
            ("owner".to_string(), "team".to_string()),
            ("x".into(), "1".into()),
        ]);
        let merged = policy.reconcile(Some(&current)).unwrap();
        assert_eq!(
            merged,
            BTreeMap::from([
                ("env".into(), "prod".into()),
                ("owner".into(), "team".into()),
                ("x".into(), "1".into())
            ])
        );
        let pruning = TagPolicy {
            system_tags: vec!["aks-".into()],
            ..policy.clone()
        };
        let current = BTreeMap::from([
            ("aks-managed".to_string(), "1".to_string()),
            ("x".into(), "1".into()),
        ]);
        assert_eq!(
            pruning
                .reconcile(Some(&current))
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["Owner", "aks-managed", "env"]
        );
        let ops = [RouteOp::Tags];
        let desired = apply(&table(), &ops, &known(&[]), Some(&policy)).expect("tags changed");
        assert_eq!(desired.tags.unwrap()["env"], "prod");
        assert!(!policy.needs_update(Some(&merged)));
    }

    #[test]
    fn a_missing_table_starts_empty_with_location_and_tags() {
        let policy = TagPolicy {
            tags: BTreeMap::from([("env".into(), "prod".into())]),
            system_tags: vec![],
        };
        let fresh = new_table("rt", "eastus", Some(&policy));
        let ops = [RouteOp::add("n1", "10.244.0.0/24", "10.224.0.4")];
        let desired = apply(&fresh, &ops, &known(&[]), Some(&policy)).expect("changed");
        insta::assert_json_snapshot!(desired);
    }
}
