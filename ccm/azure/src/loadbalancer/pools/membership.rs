//! [`PoolMembership`]: makes exactly the eligible nodes' NIC ipconfigs reference the pools
//! (`nodeIPConfiguration` pools), writing only what differs from the cached documents.

use ccm_cloud::NodeView;

use crate::arm::ClientKind;
use crate::arm::api_versions::ResourceType;
use crate::arm::resources::network_interface::NetworkInterface;
use crate::arm::resources::scale_set::{ScaleSetProperties, ScaleSetVmProfile};
use crate::arm::resources::scale_set_network::ScaleSetNetworkProfile;
use crate::arm::resources::scale_set_vm::ScaleSetVmProperties;
use crate::arm::resources::{ScaleSetVm, VirtualMachineScaleSet};
use crate::cache::ReadMode;
use crate::config::{BackendPoolType, Config, LoadBalancerSku, PreconfiguredPools};
use crate::instances::AzureInstances;
use crate::instances::cached::{CachedScaleSetVm, Packed};

use super::batch::{self, Put};
use super::desired::{self, Desired, instance_key};
use super::eligibility::eligible_refs;
use super::error::PoolError;
use super::ipconfig_edit::{edit_nic, edit_profile};
use super::pool_ref::PoolRef;

/// NIC PUTs in flight at once. [infer] Upstream sends every NIC PUT of a call concurrently; we
/// bound it so a large first sync does not burst past the client's write limiter.
pub const NIC_CONCURRENCY: usize = 16;

/// The writes one call sent (tests and the bench count them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolWrites {
    /// NIC PUTs (availability-set, standalone and flexible-member NICs).
    pub nics: usize,
    /// Scale-set model PUTs.
    pub scale_sets: usize,
    /// Uniform instance PUTs.
    pub instances: usize,
}

impl PoolWrites {
    /// Total writes.
    pub fn total(&self) -> usize {
        self.nics + self.scale_sets + self.instances
    }
}

/// nodeIPConfiguration pool membership over the shared cached reads: each list is read at most
/// once per call (through the caches) and patched in the cache after our own writes.
#[derive(Debug, Clone)]
pub struct PoolMembership {
    instances: AzureInstances,
    config: Config,
}

fn is_state(state: Option<&str>, wanted: &str) -> bool {
    state.is_some_and(|s| s.eq_ignore_ascii_case(wanted))
}

/// Upstream's `IsNotActiveVMState`: a uniform instance being deleted, in an unknown state, or not
/// running (stopped, deallocated, or no power state in its instance view) is left as it is.
fn inactive(vm: &CachedScaleSetVm) -> bool {
    let provisioning = vm.provisioning_state.as_deref();
    if is_state(provisioning, "Deleting") || is_state(provisioning, "Unknown") {
        return true;
    }
    match vm.power_state.as_deref() {
        None => true,
        Some(power) => [
            "unknown",
            "stopped",
            "stopping",
            "deallocated",
            "deallocating",
        ]
        .iter()
        .any(|s| power.eq_ignore_ascii_case(s)),
    }
}

fn lower(id: Option<&str>) -> String {
    id.unwrap_or_default().to_ascii_lowercase()
}

impl PoolMembership {
    /// Membership over `instances` (node resolution and the cached lists) with `config`'s node
    /// resource group, SKU, pool type, preconfigured pools and `putVMSSVMBatchSize`.
    pub fn new(instances: AzureInstances, config: &Config) -> PoolMembership {
        PoolMembership {
            instances,
            config: config.clone(),
        }
    }

    fn standard(&self) -> bool {
        self.config.load_balancer.sku == LoadBalancerSku::Standard
    }

    fn api(&self, t: ResourceType) -> &'static str {
        t.api_version(self.instances.reads().flavor())
    }

    /// The pools we manage among `pool_ids`: those of load balancers whose kind
    /// `preConfiguredBackendPoolLoadBalancerTypes` names are dropped (someone else manages them).
    fn managed_pools(&self, pool_ids: &[String]) -> Result<Vec<PoolRef>, PoolError> {
        let preconfigured = self.config.load_balancer.preconfigured_backend_pools;
        let mut pools = Vec::with_capacity(pool_ids.len());
        for id in pool_ids {
            let pool = PoolRef::parse(id).ok_or_else(|| PoolError::NotAPool(id.clone()))?;
            let theirs = match preconfigured {
                None => false,
                Some(PreconfiguredPools::All) => true,
                Some(PreconfiguredPools::Internal) => pool.internal,
                Some(PreconfiguredPools::External) => !pool.internal,
            };
            if !theirs {
                pools.push(pool);
            }
        }
        Ok(pools)
    }

    /// Makes exactly the eligible ones among `nodes` reference `pool_ids` (filtered with
    /// [`super::eligible_nodes`]' rules): a node that joins costs its NIC PUT, or its instance PUT
    /// plus at most one model PUT for its scale set; nodes that left lose their references; a
    /// second call with the same nodes writes nothing. A no-op for `nodeIP` / `podIP` pools and
    /// for pools of preconfigured load-balancer kinds.
    pub async fn ensure(
        &self,
        pool_ids: &[String],
        nodes: &[&dyn NodeView],
    ) -> Result<PoolWrites, PoolError> {
        if self.config.load_balancer.backend_pool_type != BackendPoolType::NodeIpConfiguration {
            return Ok(PoolWrites::default());
        }
        let pools = self.managed_pools(pool_ids)?;
        if pools.is_empty() {
            return Ok(PoolWrites::default());
        }
        let eligible = eligible_refs(nodes, &self.config);
        let mut errors = Vec::new();
        let desired = desired::resolve(
            &self.instances,
            &self.config.cluster.resource_group,
            &eligible,
            &mut errors,
        )
        .await;
        self.apply(&pools, &desired, errors).await
    }

    /// Removes every reference to `pool_ids` from the NICs, scale-set models and instances of the
    /// node resource group (before the load balancer is deleted). Pools of preconfigured kinds are
    /// left alone.
    pub async fn detach_all(&self, pool_ids: &[String]) -> Result<PoolWrites, PoolError> {
        let pools = self.managed_pools(pool_ids)?;
        if pools.is_empty() {
            return Ok(PoolWrites::default());
        }
        let mut nobody = Desired::default();
        nobody
            .nic_groups
            .insert(self.config.cluster.resource_group.to_ascii_lowercase());
        self.apply(&pools, &nobody, Vec::new()).await
    }

    async fn apply(
        &self,
        pools: &[PoolRef],
        desired: &Desired,
        mut errors: Vec<PoolError>,
    ) -> Result<PoolWrites, PoolError> {
        let mut writes = PoolWrites::default();
        // A node that could not be resolved is missing from `desired`: removing references now
        // could detach a healthy node, so a call with resolution errors only adds.
        let leave = errors.is_empty();
        let rg = self.config.cluster.resource_group.clone();
        match self
            .instances
            .reads()
            .scale_sets(&rg, ReadMode::Default)
            .await
        {
            Ok(sets) => {
                for set in sets.iter() {
                    writes.scale_sets += self
                        .model(&rg, set, pools, desired, leave, &mut errors)
                        .await;
                }
                for set in sets.iter().filter(|s| !s.is_flexible()) {
                    writes.instances += self
                        .scale_set_instances(&rg, set, pools, desired, leave, &mut errors)
                        .await;
                }
            }
            Err(e) => errors.push(e.into()),
        }
        for group in &desired.nic_groups {
            writes.nics += self.nics(group, pools, desired, leave, &mut errors).await;
        }
        if errors.is_empty() {
            Ok(writes)
        } else {
            Err(PoolError::Incomplete {
                done: writes,
                errors,
            })
        }
    }

    /// The scale set's model joins when it hosts an eligible node and leaves otherwise; one PUT
    /// (`location`, `etag`, the network profile only, as upstream sends) when that changes it.
    async fn model(
        &self,
        rg: &str,
        set: &VirtualMachineScaleSet,
        pools: &[PoolRef],
        desired: &Desired,
        leave: bool,
        errors: &mut Vec<PoolError>,
    ) -> usize {
        let props = set.properties.as_ref();
        if is_state(
            props.and_then(|p| p.provisioning_state.as_deref()),
            "Deleting",
        ) {
            return 0;
        }
        let Some(profile) = props
            .and_then(|p| p.virtual_machine_profile.as_ref())
            .and_then(|v| v.network_profile.as_ref())
            .filter(|n| n.network_interface_configurations.is_some())
        else {
            return 0;
        };
        let name = set.name.as_deref().unwrap_or_default();
        let member = desired.scale_sets.contains(&lower(set.id.as_deref()));
        if !member && !leave {
            return 0;
        }
        let mut edited = profile.clone();
        match edit_profile(&mut edited, pools, member, self.standard(), name) {
            Ok(true) => {}
            Ok(false) => return 0,
            Err(e) => {
                errors.push(e.into());
                return 0;
            }
        }
        let body = VirtualMachineScaleSet {
            location: set.location.clone(),
            properties: Some(ScaleSetProperties {
                virtual_machine_profile: Some(ScaleSetVmProfile {
                    network_profile: Some(edited),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        let put = Put {
            path: set.id.clone().unwrap_or_default(),
            body,
            etag: set.etag.clone(),
            context: (),
        };
        let api = self.api(ResourceType::VirtualMachineScaleSets);
        let arm = self.instances.reads().arm();
        let answers = batch::run::<_, VirtualMachineScaleSet, _>(
            arm,
            ClientKind::VirtualMachineScaleSet,
            api,
            vec![put],
            1,
            errors,
        )
        .await;
        let mut written = 0;
        for ((), answer) in answers {
            match answer {
                Ok(doc) => {
                    self.instances.reads().wrote_scale_set(rg, doc);
                    written += 1;
                }
                Err(e) => {
                    self.instances.reads().forget_written(rg, None);
                    errors.push(e);
                }
            }
        }
        written
    }

    /// Each uniform instance joins when it is an eligible node and leaves otherwise; changed
    /// instances are PUT `putVMSSVMBatchSize` at a time (0: one at a time).
    async fn scale_set_instances(
        &self,
        rg: &str,
        set: &VirtualMachineScaleSet,
        pools: &[PoolRef],
        desired: &Desired,
        leave: bool,
        errors: &mut Vec<PoolError>,
    ) -> usize {
        let props = set.properties.as_ref();
        if is_state(
            props.and_then(|p| p.provisioning_state.as_deref()),
            "Deleting",
        ) {
            return 0;
        }
        let name = set.name.as_deref().unwrap_or_default();
        let reads = self.instances.reads();
        let vms = match reads.scale_set_vms(rg, name, ReadMode::Default).await {
            Ok(vms) => vms,
            Err(e) => {
                errors.push(e.into());
                return 0;
            }
        };
        let mut puts = Vec::new();
        for (index, vm) in vms.iter().enumerate() {
            if inactive(vm) {
                continue;
            }
            let Some(packed) = vm.network_profile_configuration.as_ref() else {
                continue;
            };
            let key = instance_key(rg, name, vm.instance_id.as_deref().unwrap_or_default());
            let member = desired.instances.contains(&key);
            if !member && !leave {
                continue;
            }
            let vm_name = vm.name.as_deref().unwrap_or(name);
            let mut edited = match packed.unpack() {
                Ok(profile) => profile,
                Err(source) => {
                    errors.push(json_error(vm_name, source));
                    continue;
                }
            };
            match edit_profile(&mut edited, pools, member, self.standard(), vm_name) {
                Ok(true) => match instance_put(index, vm, &edited) {
                    Ok(put) => puts.push(put),
                    Err(source) => errors.push(json_error(vm_name, source)),
                },
                Ok(false) => {}
                Err(e) => errors.push(e.into()),
            }
        }
        if puts.is_empty() {
            return 0;
        }
        let batch = usize::try_from(self.config.cluster.put_vmss_vm_batch_size).unwrap_or(1);
        // The answer is decoded as the compact projection: only its ETag is kept.
        let answers = batch::run::<_, CachedScaleSetVm, _>(
            reads.arm(),
            ClientKind::VirtualMachineScaleSetVm,
            self.api(ResourceType::ScaleSetVms),
            puts,
            batch,
            errors,
        )
        .await;
        let mut written = Vec::new();
        for ((index, edited), answer) in answers {
            match answer {
                Ok(doc) => {
                    // Keep the listed instance (with its power state); take the new model and ETag.
                    let Some(listed) = vms.get(index) else {
                        continue;
                    };
                    let mut cached = listed.clone();
                    cached.etag = doc.etag;
                    cached.network_profile_configuration = Some(edited);
                    written.push(cached);
                }
                Err(e) => {
                    reads.forget_written(rg, Some(name));
                    errors.push(e);
                }
            }
        }
        let count = written.len();
        reads.wrote_scale_set_vms(rg, name, written);
        count
    }

    /// NICs of `group`: a wanted NIC joins, any other NIC referencing the pools leaves.
    async fn nics(
        &self,
        group: &str,
        pools: &[PoolRef],
        desired: &Desired,
        leave: bool,
        errors: &mut Vec<PoolError>,
    ) -> usize {
        let reads = self.instances.reads();
        let nics = match reads.nics(group, ReadMode::Default).await {
            Ok(nics) => nics,
            Err(e) => {
                errors.push(e.into());
                return 0;
            }
        };
        let mut puts = Vec::new();
        for nic in nics.iter() {
            let member = desired.nics.contains(&lower(nic.id.as_deref()));
            if !member && !leave {
                continue;
            }
            let state = nic
                .properties
                .as_ref()
                .and_then(|p| p.provisioning_state.as_deref());
            if member && is_state(state, "Failed") {
                tracing::warn!(
                    nic = nic.name.as_deref().unwrap_or_default(),
                    "NIC in Failed state: not joined"
                );
                continue;
            }
            match edit_nic(nic, pools, member, self.standard()) {
                Ok(Some(edited)) => match batch::body(&edited) {
                    Ok(body) => puts.push(Put {
                        path: nic.id.clone().unwrap_or_default(),
                        etag: nic.etag.clone(),
                        body,
                        context: (),
                    }),
                    Err(source) => {
                        errors.push(json_error(nic.name.as_deref().unwrap_or_default(), source))
                    }
                },
                Ok(None) => {}
                Err(e) => errors.push(e.into()),
            }
        }
        if puts.is_empty() {
            return 0;
        }
        let answers = batch::run::<_, NetworkInterface, _>(
            reads.arm(),
            ClientKind::Interface,
            self.api(ResourceType::NetworkInterfaces),
            puts,
            NIC_CONCURRENCY,
            errors,
        )
        .await;
        let mut written = Vec::new();
        for ((), answer) in answers {
            match answer {
                Ok(doc) => written.push(doc),
                Err(e) => {
                    reads.forget_written(group, None);
                    errors.push(e);
                }
            }
        }
        let count = written.len();
        reads.wrote_nics(group, written);
        count
    }
}

fn json_error(resource: &str, source: serde_json::Error) -> PoolError {
    PoolError::Json {
        resource: resource.to_string(),
        source,
    }
}

/// The sparse instance PUT upstream sends (`location`, `hardwareProfile`, the edited
/// `networkProfileConfiguration`, with the listed ETag as `If-Match`), its body serialized now;
/// the context carries the listed instance's index and the edited profile, packed, for the cache.
fn instance_put(
    index: usize,
    vm: &CachedScaleSetVm,
    edited: &ScaleSetNetworkProfile,
) -> Result<Put<batch::Body, (usize, Packed<ScaleSetNetworkProfile>)>, serde_json::Error> {
    let document = ScaleSetVm {
        location: vm.location.clone(),
        properties: Some(ScaleSetVmProperties {
            hardware_profile: vm.hardware_profile.clone(),
            network_profile_configuration: Some(edited.clone()),
            ..Default::default()
        }),
        ..Default::default()
    };
    Ok(Put {
        path: vm.id.clone().unwrap_or_default(),
        body: batch::body(&document)?,
        etag: vm.etag.clone(),
        context: (index, Packed::pack(edited)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arm::resources::Reference;

    fn listed() -> (ScaleSetVm, CachedScaleSetVm) {
        let text = include_str!("../../arm/resources/testdata/scale_set_vm.json");
        let whole = serde_json::from_str(text).expect("whole");
        let compact = serde_json::from_str(text).expect("compact");
        (whole, compact)
    }

    fn edited_profile(vm: &ScaleSetVm) -> ScaleSetNetworkProfile {
        let mut profile = vm
            .properties
            .as_ref()
            .and_then(|p| p.network_profile_configuration.clone())
            .expect("profile");
        let config = profile
            .network_interface_configurations
            .as_mut()
            .and_then(|c| c.first_mut())
            .and_then(|c| c.properties.as_mut())
            .and_then(|p| p.ip_configurations.as_mut())
            .and_then(|c| c.first_mut())
            .and_then(|c| c.properties.as_mut())
            .expect("ipconfig");
        config
            .load_balancer_backend_address_pools
            .get_or_insert_with(Vec::new)
            .push(Reference::to(
                "/lb/kubernetes-internal/backendAddressPools/kubernetes",
            ));
        profile
    }

    #[test]
    fn the_instance_put_from_the_cached_projection_is_the_one_from_the_whole_document() {
        let (whole, compact) = listed();
        let edited = edited_profile(&whole);
        // The body as it was built from the whole listed document.
        let from_whole = ScaleSetVm {
            location: whole.location.clone(),
            properties: Some(ScaleSetVmProperties {
                hardware_profile: whole
                    .properties
                    .as_ref()
                    .and_then(|p| p.hardware_profile.clone()),
                network_profile_configuration: Some(edited.clone()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let put = instance_put(7, &compact, &edited).expect("put");
        let sent = serde_json::to_vec(&put.body).expect("body");
        assert_eq!(
            sent,
            serde_json::to_vec(&from_whole).expect("body"),
            "byte-identical"
        );
        assert_eq!(put.context, (7, Packed::pack(&edited).expect("packs")));
        let value: serde_json::Value = serde_json::from_slice(&sent).expect("json");
        let body = serde_json::to_string_pretty(&value).expect("pretty");
        assert_eq!(put.etag, whole.etag);
        assert_eq!(Some(put.path), whole.id);
        insta::assert_snapshot!(body);
    }

    #[test]
    fn inactive_instances_are_decided_on_the_projection() {
        let (_, compact) = listed();
        assert!(!inactive(&compact));
        let mut vm = compact.clone();
        vm.power_state = Some("deallocated".into());
        assert!(inactive(&vm));
        vm = compact.clone();
        vm.power_state = None;
        assert!(inactive(&vm), "no instance view: left alone");
        vm = compact;
        vm.provisioning_state = Some("deleting".into());
        assert!(inactive(&vm));
    }
}
