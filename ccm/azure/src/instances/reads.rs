//! The cached ARM reads node metadata needs: list calls only (one per resource group or scale
//! set), each behind a [`TtlCache`] keyed like upstream's caches, so resolving every node of a
//! cluster costs a number of calls that grows with scale sets and resource groups, not nodes.
//! The per-node lists hold the compact projections of [`super::cached`] (decoded straight from
//! the pages); the NIC lists of resource groups and the scale-set lists stay whole (see there).

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use crate::arm::api_versions::{CloudFlavor, ResourceType};
use crate::arm::resources::{NetworkInterface, ResourceProvider, VirtualMachineScaleSet};
use crate::arm::{ArmClient, ArmError, ClientKind, Target};
use crate::cache::{CacheKind, CachePolicy, ReadMode, TtlCache};
use crate::config::CacheSettings;

use super::cached::{CachedNic, CachedPublicIp, CachedScaleSetVm, CachedVm};

/// How often the region's zone list is read again (upstream refreshes it every 30 minutes).
pub const ZONES_REFRESH: Duration = Duration::from_secs(30 * 60);

/// A shared list as cached.
pub type Shared<T> = Arc<Vec<T>>;

/// Cache key of a scale set: `<rg>/<scale set>`, lower-cased (upstream's VMSS VM cache key).
pub fn scale_set_key(resource_group: &str, scale_set: &str) -> String {
    format!("{resource_group}/{scale_set}").to_lowercase()
}

/// Puts each of `written` in place of the listed item with the same id in the cached list under
/// `key`, so the cache shows the caller's own writes without a re-read; the list is copied once
/// for all of them (a scale set's instances are written hundreds at a time). A list without one
/// of them is dropped instead (the next reader lists again). The patched list counts as freshly
/// loaded.
fn replace_listed<T: Clone>(
    cache: &TtlCache<String, Shared<T>>,
    key: String,
    written: Vec<T>,
    id: impl Fn(&T) -> Option<&str>,
) {
    let Some(list) = cache.peek(&key) else {
        return;
    };
    let mut items = (*list).clone();
    drop(list);
    for item in written {
        let Some(wanted) = id(&item).map(str::to_string) else {
            cache.invalidate(&key);
            return;
        };
        match items
            .iter_mut()
            .find(|i| id(i).is_some_and(|i| i.eq_ignore_ascii_case(&wanted)))
        {
            Some(slot) => *slot = item,
            None => {
                cache.invalidate(&key);
                return;
            }
        }
    }
    cache.insert(key, Arc::new(items));
}

/// The cached list reads of one subscription.
pub struct NodeReads {
    arm: ArmClient,
    subscription: String,
    flavor: CloudFlavor,
    /// VMs per resource group, with instance view (VMAS, standalone and flex nodes).
    vms: TtlCache<String, Shared<CachedVm>>,
    /// Scale sets per resource group.
    scale_sets: TtlCache<String, Shared<VirtualMachineScaleSet>>,
    /// Instances of one uniform scale set, with instance view, keyed `<rg>/<ss>`.
    scale_set_vms: TtlCache<String, Shared<CachedScaleSetVm>>,
    /// NICs per resource group (VMAS / flex addresses), whole: pool membership PUTs them back.
    nics: TtlCache<String, Shared<NetworkInterface>>,
    /// NICs of every instance of one uniform scale set, keyed `<rg>/<ss>`.
    scale_set_nics: TtlCache<String, Shared<CachedNic>>,
    /// Public IPs per resource group.
    public_ips: TtlCache<String, Shared<CachedPublicIp>>,
    /// Instance public IPs of one uniform scale set, keyed `<rg>/<ss>`.
    scale_set_public_ips: TtlCache<String, Shared<CachedPublicIp>>,
    /// The Compute provider metadata (region zones); one fixed key.
    compute_provider: TtlCache<(), Arc<ResourceProvider>>,
}

impl std::fmt::Debug for NodeReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeReads")
            .field("subscription", &self.subscription)
            .field("flavor", &self.flavor)
            .finish_non_exhaustive()
    }
}

impl NodeReads {
    /// Caches for `subscription` with the TTLs of `settings`.
    pub fn new(
        arm: ArmClient,
        subscription: &str,
        flavor: CloudFlavor,
        settings: &CacheSettings,
    ) -> NodeReads {
        let policy = |kind| CachePolicy::for_kind(kind, settings);
        NodeReads {
            arm,
            subscription: subscription.to_string(),
            flavor,
            vms: TtlCache::new(policy(CacheKind::Vm)),
            scale_sets: TtlCache::new(policy(CacheKind::Vmss)),
            scale_set_vms: TtlCache::new(policy(CacheKind::VmssVirtualMachines)),
            nics: TtlCache::new(policy(CacheKind::Vm)),
            scale_set_nics: TtlCache::new(policy(CacheKind::VmssVirtualMachines)),
            public_ips: TtlCache::new(policy(CacheKind::PublicIp)),
            scale_set_public_ips: TtlCache::new(policy(CacheKind::PublicIp)),
            compute_provider: TtlCache::new(CachePolicy::with_ttl(ZONES_REFRESH)),
        }
    }

    /// The ARM client the reads go through (writers next to these reads share it).
    pub fn arm(&self) -> &ArmClient {
        &self.arm
    }

    /// Public or Azure Stack api-versions (zones are disabled on Azure Stack).
    pub fn flavor(&self) -> CloudFlavor {
        self.flavor
    }

    /// The subscription the reads are in.
    pub fn subscription(&self) -> &str {
        &self.subscription
    }

    fn rg_path(&self, resource_group: &str, collection: &str) -> String {
        format!(
            "/subscriptions/{}/resourceGroups/{resource_group}/providers/{collection}",
            self.subscription
        )
    }

    async fn list<T: DeserializeOwned>(
        &self,
        client: ClientKind,
        path: &str,
        api: ResourceType,
        query: &[(&str, &str)],
    ) -> Result<Shared<T>, ArmError> {
        let api_version = api.api_version(self.flavor);
        let target = Target::new(client, path, api_version).with_query(query);
        match self.arm.list::<T>(target).await {
            // Pages were appended one by one: the cached list keeps no spare capacity.
            Ok(mut items) => {
                items.shrink_to_fit();
                Ok(Arc::new(items))
            }
            // A missing resource group or scale set lists as empty: its nodes are gone.
            Err(e) if e.is_not_found() => Ok(Arc::new(Vec::new())),
            Err(e) => Err(e),
        }
    }

    /// VMs of `resource_group` with `$expand=instanceView` (power state and fault domain).
    pub async fn vms(
        &self,
        resource_group: &str,
        mode: ReadMode,
    ) -> Result<Shared<CachedVm>, ArmError> {
        let key = resource_group.to_lowercase();
        let path = self.rg_path(resource_group, "Microsoft.Compute/virtualMachines");
        self.vms
            .get(&key, mode, || {
                self.list(
                    ClientKind::VirtualMachine,
                    &path,
                    ResourceType::VirtualMachines,
                    &[("$expand", "instanceView")],
                )
            })
            .await
    }

    /// Scale sets of `resource_group`.
    pub async fn scale_sets(
        &self,
        resource_group: &str,
        mode: ReadMode,
    ) -> Result<Shared<VirtualMachineScaleSet>, ArmError> {
        let key = resource_group.to_lowercase();
        let path = self.rg_path(resource_group, "Microsoft.Compute/virtualMachineScaleSets");
        self.scale_sets
            .get(&key, mode, || {
                self.list(
                    ClientKind::VirtualMachineScaleSet,
                    &path,
                    ResourceType::VirtualMachineScaleSets,
                    &[],
                )
            })
            .await
    }

    fn scale_set_path(&self, resource_group: &str, scale_set: &str, child: &str) -> String {
        self.rg_path(
            resource_group,
            &format!("Microsoft.Compute/virtualMachineScaleSets/{scale_set}/{child}"),
        )
    }

    /// Instances of one uniform scale set with `$expand=instanceView`: one list serves every node.
    pub async fn scale_set_vms(
        &self,
        resource_group: &str,
        scale_set: &str,
        mode: ReadMode,
    ) -> Result<Shared<CachedScaleSetVm>, ArmError> {
        let key = scale_set_key(resource_group, scale_set);
        let path = self.scale_set_path(resource_group, scale_set, "virtualMachines");
        self.scale_set_vms
            .get(&key, mode, || {
                self.list(
                    ClientKind::VirtualMachineScaleSetVm,
                    &path,
                    ResourceType::ScaleSetVms,
                    &[("$expand", "instanceView")],
                )
            })
            .await
    }

    /// NICs of `resource_group`.
    pub async fn nics(
        &self,
        resource_group: &str,
        mode: ReadMode,
    ) -> Result<Shared<NetworkInterface>, ArmError> {
        let key = resource_group.to_lowercase();
        let path = self.rg_path(resource_group, "Microsoft.Network/networkInterfaces");
        self.nics
            .get(&key, mode, || {
                self.list(
                    ClientKind::Interface,
                    &path,
                    ResourceType::NetworkInterfaces,
                    &[],
                )
            })
            .await
    }

    /// NICs of every instance of a uniform scale set (the scale-set-wide NRP view).
    pub async fn scale_set_nics(
        &self,
        resource_group: &str,
        scale_set: &str,
        mode: ReadMode,
    ) -> Result<Shared<CachedNic>, ArmError> {
        let key = scale_set_key(resource_group, scale_set);
        let path = self.scale_set_path(resource_group, scale_set, "networkInterfaces");
        self.scale_set_nics
            .get(&key, mode, || {
                self.list(
                    ClientKind::Interface,
                    &path,
                    ResourceType::ScaleSetVmNetwork,
                    &[],
                )
            })
            .await
    }

    /// Public IPs of `resource_group`.
    pub async fn public_ips(
        &self,
        resource_group: &str,
        mode: ReadMode,
    ) -> Result<Shared<CachedPublicIp>, ArmError> {
        let key = resource_group.to_lowercase();
        let path = self.rg_path(resource_group, "Microsoft.Network/publicIPAddresses");
        self.public_ips
            .get(&key, mode, || {
                self.list(
                    ClientKind::PublicIpAddress,
                    &path,
                    ResourceType::PublicIpAddresses,
                    &[],
                )
            })
            .await
    }

    /// Instance public IPs of a uniform scale set.
    pub async fn scale_set_public_ips(
        &self,
        resource_group: &str,
        scale_set: &str,
        mode: ReadMode,
    ) -> Result<Shared<CachedPublicIp>, ArmError> {
        let key = scale_set_key(resource_group, scale_set);
        let path = self.scale_set_path(resource_group, scale_set, "publicIPAddresses");
        self.scale_set_public_ips
            .get(&key, mode, || {
                self.list(
                    ClientKind::PublicIpAddress,
                    &path,
                    ResourceType::ScaleSetVmNetwork,
                    &[],
                )
            })
            .await
    }

    /// The Compute resource provider's metadata (zones per region), read at most every 30 min.
    pub async fn compute_provider(&self) -> Result<Arc<ResourceProvider>, ArmError> {
        let path = format!(
            "/subscriptions/{}/providers/Microsoft.Compute",
            self.subscription
        );
        let api_version = ResourceType::ProviderMetadata.api_version(self.flavor);
        self.compute_provider
            .get(&(), ReadMode::Default, || async {
                let target = Target::new(ClientKind::Resources, &path, api_version);
                self.arm.get(target).await.map(Arc::new)
            })
            .await
    }

    /// Drops what a node's deletion makes stale: its resource group's VM and NIC lists, and the
    /// lists of its scale set when it is a uniform instance.
    pub fn invalidate_node(&self, resource_group: &str, scale_set: Option<&str>) {
        let rg = resource_group.to_lowercase();
        self.vms.invalidate(&rg);
        self.nics.invalidate(&rg);
        if let Some(ss) = scale_set {
            let key = scale_set_key(resource_group, ss);
            self.scale_set_vms.invalidate(&key);
            self.scale_set_nics.invalidate(&key);
            self.scale_set_public_ips.invalidate(&key);
        }
    }

    /// After the caller's own writes of NICs of `resource_group`: the cached NIC list holds the
    /// written documents (no re-read), copied once for all of them.
    pub fn wrote_nics(&self, resource_group: &str, nics: Vec<NetworkInterface>) {
        if nics.is_empty() {
            return;
        }
        replace_listed(&self.nics, resource_group.to_lowercase(), nics, |n| {
            n.id.as_deref()
        });
    }

    /// After the caller's own write of a scale set of `resource_group`: the cached scale-set list
    /// holds the written document.
    pub fn wrote_scale_set(&self, resource_group: &str, scale_set: VirtualMachineScaleSet) {
        replace_listed(
            &self.scale_sets,
            resource_group.to_lowercase(),
            vec![scale_set],
            |s| s.id.as_deref(),
        );
    }

    /// After the caller's own writes of uniform instances of one scale set: its cached instance
    /// list holds `vms` (which the caller keeps with their power states), copied once for all.
    pub fn wrote_scale_set_vms(
        &self,
        resource_group: &str,
        scale_set: &str,
        vms: Vec<CachedScaleSetVm>,
    ) {
        if vms.is_empty() {
            return;
        }
        replace_listed(
            &self.scale_set_vms,
            scale_set_key(resource_group, scale_set),
            vms,
            |v| v.id.as_deref(),
        );
    }

    /// After a failed write of ours (e.g. a 412 on a stale ETag): the NIC and scale-set lists of
    /// `resource_group`, and the instance list of `scale_set`, are read again by the next caller.
    pub fn forget_written(&self, resource_group: &str, scale_set: Option<&str>) {
        let rg = resource_group.to_lowercase();
        self.nics.invalidate(&rg);
        self.scale_sets.invalidate(&rg);
        if let Some(ss) = scale_set {
            self.scale_set_vms
                .invalidate(&scale_set_key(resource_group, ss));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct Doc {
        id: &'static str,
        version: u32,
    }

    fn cache_with(key: &str, docs: &[Doc]) -> TtlCache<String, Shared<Doc>> {
        let cache = TtlCache::new(CachePolicy::with_ttl(Duration::from_secs(60)));
        cache.insert(key.to_string(), Arc::new(docs.to_vec()));
        cache
    }

    fn doc(id: &'static str, version: u32) -> Doc {
        Doc { id, version }
    }

    #[test]
    fn a_batch_of_own_writes_replaces_each_listed_item() {
        let cache = cache_with("rg/ss", &[doc("A", 1), doc("b", 1), doc("c", 1)]);
        replace_listed(
            &cache,
            "rg/ss".into(),
            vec![doc("a", 2), doc("c", 2)],
            |d| Some(d.id),
        );
        let list = cache.peek(&"rg/ss".to_string()).expect("list kept");
        assert_eq!(*list, vec![doc("a", 2), doc("b", 1), doc("c", 2)]);
    }

    #[test]
    fn a_batch_with_an_unlisted_item_drops_the_list() {
        let cache = cache_with("rg/ss", &[doc("a", 1), doc("b", 1)]);
        replace_listed(
            &cache,
            "rg/ss".into(),
            vec![doc("a", 2), doc("z", 2)],
            |d| Some(d.id),
        );
        assert_eq!(cache.peek(&"rg/ss".to_string()), None);
    }
}
