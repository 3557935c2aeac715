//! The route table on ARM: its path in the network subscription, a cached read that tells a
//! missing table from a failure, and the `If-Match` PUT whose answer refreshes the cache.

use crate::arm::api_versions::{CloudFlavor, ResourceType};
use crate::arm::resources::route_table::RouteTable;
use crate::arm::{ArmClient, ArmError, ClientKind, Target};
use crate::cache::{CacheKind, CachePolicy, ReadMode, TtlCache};
use crate::config::Config;

use super::apply::TagPolicy;

/// Where the table is and what a created one carries.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSpec {
    /// `routeTableName`.
    pub name: String,
    /// `/subscriptions/<network subscription>/resourceGroups/<routeTableResourceGroup>/providers/
    /// Microsoft.Network/routeTables/<name>`.
    pub path: String,
    /// `location`, for a table the batch creates.
    pub location: String,
    /// The tags the CCM keeps on the table (`None` outside the cluster resource group).
    pub tags: Option<TagPolicy>,
}

impl TableSpec {
    /// From azure.json: the network subscription (`networkResourceSubscriptionID`, else
    /// `subscriptionId`), `routeTableResourceGroup` and `routeTableName`; tags only when the
    /// table's resource group is the cluster's and tags are configured.
    pub fn from_config(config: &Config) -> TableSpec {
        let identity = &config.identity;
        let cluster = &config.cluster;
        let subscription = identity
            .network_resource_subscription_id
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or(&identity.subscription_id);
        let tags = (cluster
            .route_table_resource_group
            .eq_ignore_ascii_case(&cluster.resource_group)
            && !cluster.tags.is_empty())
        .then(|| TagPolicy {
            tags: cluster.tags.clone(),
            system_tags: cluster.system_tags.clone(),
        });
        TableSpec {
            name: cluster.route_table_name.clone(),
            path: format!(
                "/subscriptions/{subscription}/resourceGroups/{}/providers/Microsoft.Network/routeTables/{}",
                cluster.route_table_resource_group, cluster.route_table_name
            ),
            location: cluster.location.clone(),
            tags,
        }
    }
}

/// Cached access to the one route table.
pub struct TableAccess {
    arm: ArmClient,
    spec: TableSpec,
    api_version: &'static str,
    cache: TtlCache<String, RouteTable>,
}

impl std::fmt::Debug for TableAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableAccess")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

impl TableAccess {
    /// Over `arm`, cached with `routeTableCacheTTLInSeconds` (or not at all with
    /// `disableAPICallCache`).
    pub fn new(arm: ArmClient, spec: TableSpec, flavor: CloudFlavor, config: &Config) -> Self {
        TableAccess {
            arm,
            spec,
            api_version: ResourceType::RouteTables.api_version(flavor),
            cache: TtlCache::new(CachePolicy::for_kind(CacheKind::RouteTable, &config.cache)),
        }
    }

    /// Where the table is.
    pub fn spec(&self) -> &TableSpec {
        &self.spec
    }

    fn key(&self) -> String {
        self.spec.path.to_ascii_lowercase()
    }

    fn target(&self) -> Target<'_> {
        Target::new(ClientKind::RouteTable, &self.spec.path, self.api_version)
    }

    /// The table, `None` when ARM says it does not exist (a missing table is not cached).
    pub async fn read(&self, mode: ReadMode) -> Result<Option<RouteTable>, ArmError> {
        let key = self.key();
        match self
            .cache
            .get(&key, mode, || self.arm.get::<RouteTable>(self.target()))
            .await
        {
            Ok(table) => Ok(Some(table)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// PUTs `table` with `If-Match: etag` (none when creating) and caches the answer; any
    /// failure drops the cached copy so the next read goes to ARM.
    pub async fn write(&self, table: &RouteTable, etag: Option<&str>) -> Result<(), ArmError> {
        match self
            .arm
            .put::<_, RouteTable>(self.target(), table, etag)
            .await
        {
            Ok(written) => {
                self.cache.insert(self.key(), written);
                Ok(())
            }
            Err(e) => {
                self.cache.invalidate(&self.key());
                Err(e)
            }
        }
    }
}
