//! What seeding produced: the node list (the names and providerIDs the CCM and kubelets will use) and the
//! identities the fake Entra ID must know, read back from ARM so they match what clients will see.

use crate::entra::Registry;
use serde::Serialize;
use std::net::IpAddr;

/// How a node's VM is modelled in ARM (decides its providerID shape and how the CCM finds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    /// A `Microsoft.Compute/virtualMachines` VM outside scale sets (alone or in an availability set).
    Standalone,
    /// An instance of a Uniform scale set (`.../virtualMachineScaleSets/{ss}/virtualMachines/{id}`).
    VmssUniform,
    /// A VM member of a Flexible scale set (an ordinary VM with `virtualMachineScaleSet.id`).
    VmssFlex,
}

/// One simulated node as a kubelet and the CCM will see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeededNode {
    /// Kubernetes node name (the lower-cased computer name).
    pub node_name: String,
    /// `osProfile.computerName`.
    pub computer_name: String,
    /// ARM VM name (`<vmss>_<instanceId>` for uniform instances).
    pub vm_name: String,
    /// Full ARM id of the VM or scale-set VM.
    pub resource_id: String,
    /// providerID in the upstream format (`azure://` + id, resource group lower-cased).
    pub provider_id: String,
    /// Modelling of the VM.
    pub kind: NodeKind,
    /// Scale set name (uniform and flexible).
    pub scale_set: Option<String>,
    /// Availability set name.
    pub availability_set: Option<String>,
    /// Availability zone number.
    pub zone: Option<u32>,
    /// Platform fault domain.
    pub fault_domain: u32,
    /// VM size.
    pub vm_size: String,
    /// Private addresses of the primary NIC (IPv4 first).
    pub private_ips: Vec<IpAddr>,
    /// Instance-level public address, when the NIC has one.
    pub public_ip: Option<IpAddr>,
    /// Power state the node was seeded in (`running`, `stopped`, `deallocated`).
    pub power_state: String,
}

/// A managed identity seeded onto VMs or scale sets (IMDS issues tokens for it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeededIdentity {
    /// Identity resource id (user-assigned) or the id of the VM / scale set owning a system-assigned one.
    pub resource_id: String,
    /// Client (application) id tokens carry as `appid`.
    pub client_id: String,
    /// Principal (object) id tokens carry as `oid`.
    pub principal_id: String,
    /// Whether this is a system-assigned identity.
    pub system_assigned: bool,
}

/// The result of [`super::seed`]: everything a harness needs to start kubelets and configure the CCM.
#[derive(Debug, Clone)]
pub struct SeededCloud {
    /// Subscription id.
    pub subscription_id: String,
    /// Tenant id.
    pub tenant_id: String,
    /// Normalised location.
    pub location: String,
    /// Node resource group (the CCM's `resourceGroup`).
    pub resource_group: String,
    /// VNet resource group (the CCM's `vnetResourceGroup`).
    pub vnet_resource_group: String,
    /// VNet name.
    pub vnet_name: String,
    /// Default subnet name (the first subnet).
    pub subnet_name: String,
    /// NSG name, when the topology has one.
    pub security_group_name: Option<String>,
    /// Route table name, when the topology has one.
    pub route_table_name: Option<String>,
    /// Every node, standalone VMs first, then scale sets in file order.
    pub nodes: Vec<SeededNode>,
    /// App registrations (secrets hashed) and their federated credentials, for the fake Entra ID.
    pub registry: Registry,
    /// Managed identities attached to VMs and scale sets.
    pub managed_identities: Vec<SeededIdentity>,
}

impl SeededCloud {
    /// Node by Kubernetes node name (case-insensitive).
    pub fn node(&self, node_name: &str) -> Option<&SeededNode> {
        self.nodes
            .iter()
            .find(|n| n.node_name.eq_ignore_ascii_case(node_name))
    }
}
