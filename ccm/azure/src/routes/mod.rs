//! Pod CIDR routes (`ccm_cloud::Routes`) in the cluster's route table: [`AzureRoutes`] resolves
//! each route's next hop ([`next_hop`]), queues the change on the batcher ([`batcher`]) that
//! applies whole batches to the table ([`apply`]) through one cached read and one `If-Match` PUT
//! ([`table`]); unmanaged nodes' routes live only in memory ([`nodes`]).
//!
//! # Verified behaviour
//! Sources: anchor-ccm.md §5 and upstream `pkg/provider/azure_routes.go`
//! (kubernetes-sigs/cloud-provider-azure, read for facts only).
//! - Table `routeTableName` in `routeTableResourceGroup`, in the network subscription; a missing
//!   table is created with the config location and empty properties.
//! - Route name `<node>____<cidr without '.', ':' and '/'>` whatever the stack; body
//!   `addressPrefix` = pod CIDR, `nextHopType` `VirtualAppliance`, `nextHopIpAddress` = the first
//!   private address of the CIDR's family among the primary NIC's ipconfigs; one route per family.
//! - ListRoutes returns every route of the table with target node = the name before `____`, and
//!   the in-memory routes of unmanaged (`kubernetes.azure.com/managed=false`) nodes; an absent
//!   table lists as empty. When the table is in the cluster resource group and tags are
//!   configured, ListRoutes queues a tags update (added/updated case-insensitively; with
//!   `systemTags`, unknown keys not prefixed by one of them are removed) and waits for it.
//! - Batches: operations wait for the next `routeUpdateIntervalInSeconds` tick; the batch reads
//!   the table through the `routeTableCacheTTLInSeconds` cache, drops legacy routes named exactly
//!   after a known node, matches adds by name case-insensitively (unchanged when prefix and next
//!   hop are equal case-insensitively), removes on delete the named route and every route whose
//!   name starts with it, PUTs once when anything changed, then sleeps
//!   `routeUpdateWaitingInSeconds` before every waiter gets the batch's result; a failed batch
//!   fails all its waiters with the same error.
//!
//! # Deliberately different from upstream
//! - A delete also drops the node's legacy `<node>` route in the same batch, by exact name;
//!   upstream queues a second delete named `<node>` whose prefix match would also remove the
//!   node's routes of the other family and those of any node whose name starts with it.
//! - A missing table is created by the batch's own PUT (carrying the batch's routes and, in the
//!   cluster resource group, the configured tags) instead of an empty create, a re-read and a
//!   second PUT.
//! - An add whose route exists with another body replaces it in place, and an unchanged route
//!   keeps its position, so the PUT keeps the table's order.
//! - A 412 on the PUT re-reads the table (bypassing the cache) and retries once; upstream fails
//!   the batch and lets the controller retry.
//! - Unmanaged nodes keep one in-memory route per CIDR (dual-stack keeps both families; upstream
//!   keeps the last CIDR per node), each named after the node as upstream does.
//!
//! # Inferred
//! - [infer] Known nodes (for the legacy-route cleanup) are the nodes reported through
//!   [`AzureRoutes::node_updated`] plus the target nodes of the batch's own operations.
//! - [infer] A node never reported through [`AzureRoutes::node_updated`] is managed and is
//!   resolved by name in the config's resource group.
//! - [infer] A table route whose `addressPrefix` is not a CIDR (a service tag such as
//!   `Internet`) is left out of ListRoutes (the controller could not use it) and logged.
//! - [infer] A node without an address of the CIDR's family, and a batch that failed on a 412
//!   twice, are retried with backoff.

pub mod apply;
pub mod batcher;
pub mod error;
pub mod next_hop;
pub mod nodes;
pub mod table;

use std::collections::BTreeSet;
use std::sync::Arc;

use ccm_cloud::{CloudError, NodeView, Route, Routes};
use ipnet::IpNet;

use crate::arm::ArmClient;
use crate::arm::api_versions::CloudFlavor;
use crate::arm::resources::route_table::RouteTable;
use crate::cache::ReadMode;
use crate::config::Config;
use crate::instances::{AzureInstances, InstanceError};
use crate::loadbalancer::names::route_target_node;
use crate::provider::AzureError;

pub use apply::{RouteOp, TagPolicy};
pub use batcher::BatchTiming;
pub use error::RouteError;
pub use table::TableSpec;

use batcher::Batcher;
use nodes::NodeRegistry;
use table::TableAccess;

/// The Azure `Routes`: cheap to clone; the batch task stops when the last clone is dropped.
#[derive(Debug, Clone)]
pub struct AzureRoutes {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    instances: AzureInstances,
    nodes: Arc<NodeRegistry>,
    table: Arc<TableAccess>,
    batcher: Batcher,
}

fn instance_failure(e: InstanceError) -> CloudError<AzureError> {
    match e {
        InstanceError::Route(e) => e.into_cloud(),
        e => e.into_cloud(),
    }
}

impl AzureRoutes {
    /// The routes of `config`'s route table, batched with `routes.update_interval` /
    /// `routes.update_waiting`, resolving nodes through `instances`.
    pub fn new(
        config: &Config,
        arm: ArmClient,
        flavor: CloudFlavor,
        instances: AzureInstances,
    ) -> AzureRoutes {
        let timing = BatchTiming {
            interval: config.routes.update_interval,
            waiting: config.routes.update_waiting,
        };
        let table = Arc::new(TableAccess::new(
            arm,
            TableSpec::from_config(config),
            flavor,
            config,
        ));
        let nodes = Arc::new(NodeRegistry::default());
        AzureRoutes {
            inner: Arc::new(Inner {
                batcher: Batcher::new(Arc::clone(&table), Arc::clone(&nodes), timing),
                instances,
                nodes,
                table,
            }),
        }
    }

    /// Records a node the informer added or updated: how to resolve it, whether it is
    /// unmanaged, and that its legacy `<node>` route may be cleaned up.
    pub fn node_updated(&self, node: &dyn NodeView) {
        self.inner.nodes.upsert(self.inner.instances.node_ref(node));
    }

    /// Forgets a node the informer deleted (and its in-memory routes if it was unmanaged).
    pub fn node_deleted(&self, name: &str) {
        self.inner.nodes.remove(name);
    }

    /// The names of the nodes it was told about (and not told were deleted).
    pub fn node_names(&self) -> BTreeSet<String> {
        self.inner.nodes.names()
    }

    /// Where the route table is.
    pub fn table(&self) -> &TableSpec {
        self.inner.table.spec()
    }
}

/// The routes of `table` as the route controller sees them.
pub fn listed_routes(table: &RouteTable) -> Vec<Route> {
    let routes = table
        .properties
        .as_ref()
        .and_then(|p| p.routes.as_deref())
        .unwrap_or_default();
    routes
        .iter()
        .filter_map(|r| {
            let name = r.name.clone().unwrap_or_default();
            let prefix = r.properties.as_ref()?.address_prefix.as_deref()?;
            match prefix.parse::<IpNet>() {
                Ok(cidr) => Some(Route {
                    target_node: route_target_node(&name).to_string(),
                    name,
                    target_node_addresses: Vec::new(),
                    destination_cidr: cidr,
                    blackhole: false,
                }),
                Err(_) => {
                    tracing::debug!(route = %name, prefix, "route prefix is not a CIDR; not listed");
                    None
                }
            }
        })
        .collect()
}

impl Routes for AzureRoutes {
    type Error = AzureError;

    async fn list_routes(&self, _cluster_name: &str) -> Result<Vec<Route>, CloudError<AzureError>> {
        let inner = &self.inner;
        let table = inner
            .table
            .read(ReadMode::Default)
            .await
            .map_err(|e| InstanceError::Arm(e).into_cloud())?;
        let mut routes = table.as_ref().map(listed_routes).unwrap_or_default();
        routes.extend(
            inner
                .nodes
                .unmanaged_routes()
                .into_iter()
                .map(|(node, cidr)| Route {
                    name: node.clone(),
                    target_node: node,
                    target_node_addresses: Vec::new(),
                    destination_cidr: cidr,
                    blackhole: false,
                }),
        );
        let policy = inner.table.spec().tags.as_ref();
        if let (Some(table), Some(policy)) = (&table, policy)
            && policy.needs_update(table.tags.as_ref())
        {
            inner
                .batcher
                .submit(RouteOp::Tags)
                .await
                .map_err(RouteError::into_cloud)?;
        }
        Ok(routes)
    }

    async fn create_route(
        &self,
        _cluster_name: &str,
        _name_hint: &str,
        route: &Route,
    ) -> Result<(), CloudError<AzureError>> {
        let inner = &self.inner;
        let node = route.target_node.as_str();
        let cidr = route.destination_cidr;
        if inner.nodes.is_unmanaged(node) {
            tracing::debug!(node, %cidr, "unmanaged node: route kept in memory");
            inner.nodes.add_unmanaged_route(node, cidr);
            return Ok(());
        }
        let node_ref = inner
            .nodes
            .get(node)
            .unwrap_or_else(|| inner.instances.named(node));
        let hop = next_hop::next_hop(&inner.instances, &node_ref, &cidr)
            .await
            .map_err(instance_failure)?;
        inner
            .batcher
            .submit(RouteOp::add(node, &cidr.to_string(), &hop))
            .await
            .map_err(RouteError::into_cloud)
    }

    async fn delete_route(
        &self,
        _cluster_name: &str,
        route: &Route,
    ) -> Result<(), CloudError<AzureError>> {
        let inner = &self.inner;
        let node = route.target_node.as_str();
        if inner.nodes.is_unmanaged(node) {
            inner
                .nodes
                .remove_unmanaged_route(node, &route.destination_cidr);
            return Ok(());
        }
        inner
            .batcher
            .submit(RouteOp::delete(node, &route.destination_cidr.to_string()))
            .await
            .map_err(RouteError::into_cloud)
    }
}
