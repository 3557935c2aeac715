//! Node metadata over ARM (the `InstancesV2` side of the provider): node name or providerID →
//! instance ([`vmas`], [`vmss`], [`vmss_flex`], [`computer_name`]), the facts read off it
//! ([`machine`], [`addresses`]), through cached list reads ([`reads`]) of compact projections
//! ([`cached`]).
//!
//! # Verified behaviour (anchor-ccm.md §3.1–3.6 and §7.1)
//! - providerIDs: `azure://` + the ARM id with the resource group lower-cased; uniform instances
//!   `.../virtualMachineScaleSets/<ss>/virtualMachines/<instanceId>`; flex members like VMs (§3.1).
//! - Names: VMAS / standalone node name = VM name; uniform = `<computerNamePrefix>` + 6 base-36
//!   characters, the scale set found by prefix (or its name) and the instance by computer name;
//!   flex = computer name, mapped to the VM through the VM list; `vmType: vmss` tries VMAS/flex
//!   nodes first, then uniform (§3.2). Node resource group from the label
//!   `kubernetes.azure.com/resource-group`, else `resourceGroup`; `kubernetes.azure.com/managed=false`
//!   nodes are never looked up in ARM and always exist (§3.4).
//! - `vmType: standard` knows standalone/availability-set VMs only: a scale-set instance's
//!   providerID resolves to no instance, so InstanceExists answers false (not an error) and a
//!   NotReady node of a scale set is deleted by cloud-node-lifecycle (migration.md P4, P18).
//!   Source: kubernetes-sigs/cloud-provider-azure `pkg/provider/azure_instances_v1.go`
//!   `InstanceExistsByProviderID` (`VMSet.GetNodeNameByProviderID`, then `InstanceID`, with
//!   `InstanceNotFound` ⇒ false) and `azure_standard.go` `availabilitySet.GetNodeNameByProviderID`
//!   (the last providerID segment is the VM name) and `GetInstanceIDByNodeName` (VM GET by name).
//! - Instance type = VM size (uniform: the instance's `sku.name`); region lower-case; zone
//!   `<region>-<n>` when zonal, else the fault domain, `"0"` when unknown (§3.4).
//! - InstanceExists false when the instance is absent or `Deleting`; reported as existing while the
//!   node is younger than `nodeInstanceNotFoundGracePeriodInSeconds`. InstanceShutdown =
//!   provisioning `Succeeded` and power `stopped`/`deallocated`/`deallocating` (§3.6).
//! - Caches and TTLs: VMSS list per resource group (`vmssCacheTTLInSeconds`), one VMSS VM list
//!   with instance view per `<rg>/<ss>` (`vmssVirtualMachinesCacheTTLInSeconds`) serving every node
//!   of the set, public IP lists per resource group (`publicIPCacheTTLInSeconds`) (§7.1).
//! - A node missing from a cached list is looked for again in a fresh one before it is "not
//!   found" (kubernetes-sigs/cloud-provider-azure `getVmssVMByNodeIdentity` in
//!   `pkg/provider/azure_vmss.go` and `getNodeVmssFlexID` in `azure_vmssflex_cache.go` force-refresh
//!   on a miss; its VMAS cache, `newVMCache` in `azure_wrap.go`, GETs each VM by name), so a new
//!   node is initialised, and never deleted as gone, while the lists read before its VM existed
//!   are still fresh. Likewise for its NIC.
//!
//! # Deliberately different from upstream
//! - VMAS shutdown detection (anchor-ccm.md §10 item 13): upstream's VM cache does a plain GET
//!   without the instance view, so VMAS nodes never read as shut down and their fault-domain zone
//!   reads `"0"`. We list each resource group's VMs once with `$expand=instanceView` (one call
//!   serves every VMAS, standalone and flex node of the group), so power state and fault domain
//!   are known for VMAS nodes too. The list is cached with `vmCacheTTLInSeconds` (60 s by default),
//!   the TTL upstream's per-VM cache uses.
//! - No per-node GETs: NICs are read from one list per resource group (VMs) or per scale set
//!   (the NRP scale-set-wide view), PIPs likewise, where upstream GETs a NIC (and PIP) per node.
//!   [infer] The NIC lists reuse the TTL of the VM lists they complement.
//! - Dual-stack on the ARM path: upstream returns one InternalIP; we add the first ipconfig of the
//!   other family as a second InternalIP right after the first, and its PIP as a second ExternalIP
//!   (order: InternalIP(s), Hostname, ExternalIP(s)). Single-stack nodes get upstream's exact list.
//! - [infer] Unmanaged nodes' metadata is the providerID already on the node (else the node name)
//!   and nothing else.
//! - A warm cache serves the instance as last listed until its TTL ends; [`AzureInstances::forget_node`]
//!   (called on node deletion) drops the lists the node was resolved from.

pub mod addresses;
pub mod cached;
pub mod computer_name;
pub mod error;
pub mod machine;
pub mod node;
pub mod reads;
pub mod vmas;
pub mod vmss;
pub mod vmss_flex;

use std::sync::Arc;
use std::time::Duration;

use ccm_cloud::{CloudError, InstanceMetadata, InstancesV2, NodeView};
use k8s_openapi::api::core::v1::Node;

use crate::arm::resource_id::{NodeIdKind, ProviderId};
use crate::cache::ReadMode;
use crate::config::VmType;
use crate::provider::AzureError;

pub use error::InstanceError;
pub use machine::{Machine, Placement};
pub use node::NodeRef;
pub use reads::NodeReads;

/// Node metadata over ARM: resolution by providerID or name, through the shared cached reads.
#[derive(Debug, Clone)]
pub struct AzureInstances {
    reads: Arc<NodeReads>,
    resource_group: String,
    vm_type: VmType,
    grace: Duration,
}

impl AzureInstances {
    /// Over `reads`, with the config's node resource group, `vmType` and not-found grace period.
    pub fn new(
        reads: Arc<NodeReads>,
        resource_group: &str,
        vm_type: VmType,
        grace: Duration,
    ) -> AzureInstances {
        AzureInstances {
            reads,
            resource_group: resource_group.to_string(),
            vm_type,
            grace,
        }
    }

    /// The cached reads (shared with zones).
    pub fn reads(&self) -> &Arc<NodeReads> {
        &self.reads
    }

    /// What the provider reads from `node`.
    pub fn node_ref(&self, node: &dyn NodeView) -> NodeRef {
        NodeRef::from_node(node, &self.resource_group)
    }

    /// A node known only by name, in the config's resource group.
    pub fn named(&self, name: &str) -> NodeRef {
        NodeRef {
            name: name.to_string(),
            resource_group: self.resource_group.clone(),
            managed: true,
            provider_id: None,
            age: None,
        }
    }

    /// The instance behind `node`: by its providerID when it parses, else by name. A node missing
    /// from cached lists in [`ReadMode::Default`] is looked for again in fresh ones, so a VM
    /// created since the lists were read is found (upstream force-refreshes its caches on a miss).
    pub async fn resolve(&self, node: &NodeRef, mode: ReadMode) -> Result<Machine, InstanceError> {
        match self.resolve_once(node, mode).await {
            Err(InstanceError::NotFound { .. }) if mode == ReadMode::Default => {
                self.resolve_once(node, ReadMode::ForceRefresh).await
            }
            other => other,
        }
    }

    async fn resolve_once(&self, node: &NodeRef, mode: ReadMode) -> Result<Machine, InstanceError> {
        if let Some(id) = node
            .provider_id
            .as_deref()
            .and_then(|p| p.parse::<ProviderId>().ok())
        {
            return self.by_provider_id(&id, &node.name, mode).await;
        }
        self.by_name(node, mode).await
    }

    /// The instance a providerID names.
    pub async fn by_provider_id(
        &self,
        id: &ProviderId,
        node: &str,
        mode: ReadMode,
    ) -> Result<Machine, InstanceError> {
        let not_found = || InstanceError::NotFound {
            node: node.to_string(),
        };
        match id.kind() {
            NodeIdKind::VirtualMachine => {
                let vms = self.reads.vms(id.resource_group(), mode).await?;
                let vm =
                    vmas::find(&vms, id.vm_name().unwrap_or_default()).ok_or_else(not_found)?;
                Machine::from_vm(vm, node)
            }
            // `vmType: standard` knows VMs only: upstream's availability-set VM set takes the
            // last providerID segment (the instance id) as a VM name, which no VM has.
            NodeIdKind::ScaleSetVm if self.vm_type == VmType::Standard => Err(not_found()),
            NodeIdKind::ScaleSetVm => {
                let (ss, instance) = id.scale_set_instance().ok_or_else(not_found)?;
                let vms = self
                    .reads
                    .scale_set_vms(id.resource_group(), ss, mode)
                    .await?;
                let vm = vmss::find_by_instance_id(&vms, instance).ok_or_else(not_found)?;
                Machine::from_scale_set_vm(vm, node)
            }
        }
    }

    async fn by_name(&self, node: &NodeRef, mode: ReadMode) -> Result<Machine, InstanceError> {
        let rg = node.resource_group.as_str();
        let name = node.name.as_str();
        let vms = self.reads.vms(rg, mode).await?;
        let vm = match self.vm_type {
            VmType::Standard => vmas::find(&vms, name),
            VmType::VmssFlex => vmss_flex::find(&vms, name),
            VmType::Vmss => vmas::find(&vms, name).or_else(|| vmss_flex::find(&vms, name)),
        };
        if let Some(vm) = vm {
            return Machine::from_vm(vm, name);
        }
        if self.vm_type == VmType::Vmss {
            let sets = self.reads.scale_sets(rg, mode).await?;
            if let Some(ss) = vmss::owning_scale_set(&sets, name) {
                let ss_name = ss.name.as_deref().unwrap_or_default();
                let instances = self.reads.scale_set_vms(rg, ss_name, mode).await?;
                if let Some(vm) = vmss::find(&instances, name) {
                    return Machine::from_scale_set_vm(vm, name);
                }
            }
        }
        Err(InstanceError::NotFound {
            node: name.to_string(),
        })
    }

    /// The metadata of a resolved instance.
    pub async fn metadata_of(
        &self,
        machine: &Machine,
        node: &str,
        mode: ReadMode,
    ) -> Result<InstanceMetadata, InstanceError> {
        Ok(InstanceMetadata {
            provider_id: machine.provider_id.clone(),
            instance_type: machine.instance_type.clone(),
            node_addresses: addresses::node_addresses(&self.reads, machine, node, mode).await?,
            zone: machine.zone.clone(),
            region: machine.region.clone(),
            additional_labels: Default::default(),
        })
    }

    /// Drops the cached lists `node` was (or would be) resolved from; call on node deletion.
    pub fn forget_node(&self, node: &Node) {
        let node = self.node_ref(node);
        let scale_set = node
            .provider_id
            .as_deref()
            .and_then(|p| p.parse::<ProviderId>().ok())
            .and_then(|id| id.scale_set_instance().map(|(ss, _)| ss.to_string()));
        self.reads
            .invalidate_node(&node.resource_group, scale_set.as_deref());
    }

    async fn exists(&self, node: &NodeRef) -> Result<bool, InstanceError> {
        if !node.managed {
            return Ok(true);
        }
        let found = match self.resolve(node, ReadMode::Default).await {
            Ok(machine) => !machine.is_deleting(),
            Err(InstanceError::NotFound { .. }) => false,
            Err(e) => return Err(e),
        };
        Ok(found || node.within_grace(self.grace))
    }
}

impl InstancesV2 for AzureInstances {
    type Error = AzureError;

    async fn instance_exists(&self, node: &Node) -> Result<bool, CloudError<AzureError>> {
        self.exists(&self.node_ref(node))
            .await
            .map_err(InstanceError::into_cloud)
    }

    async fn instance_shutdown(&self, node: &Node) -> Result<bool, CloudError<AzureError>> {
        let node = self.node_ref(node);
        if !node.managed {
            return Ok(false);
        }
        match self.resolve(&node, ReadMode::Default).await {
            Ok(machine) => Ok(machine.is_shutdown()),
            Err(InstanceError::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into_cloud()),
        }
    }

    async fn instance_metadata(
        &self,
        node: &Node,
    ) -> Result<InstanceMetadata, CloudError<AzureError>> {
        let node = self.node_ref(node);
        if !node.managed {
            return Ok(InstanceMetadata {
                provider_id: node.provider_id.clone().unwrap_or(node.name.clone()),
                ..Default::default()
            });
        }
        let result = async {
            let machine = self.resolve(&node, ReadMode::Default).await?;
            self.metadata_of(&machine, &node.name, ReadMode::Default)
                .await
        };
        result.await.map_err(InstanceError::into_cloud)
    }
}
