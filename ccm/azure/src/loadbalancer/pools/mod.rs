//! Backend pool membership (issue 11 item 3): which nodes may be members ([`eligibility`]), the
//! `nodeIP` pool body ([`node_ip`]), and the `nodeIPConfiguration` writes that make NIC ipconfigs
//! reference the pools ([`membership`], over [`desired`], [`ipconfig_edit`] and [`batch`]).
//!
//! # Verified behaviour (sources)
//! - Exclusions (anchor-ccm.md §3.4 and §4.6; kubernetes-sigs/cloud-provider-azure
//!   `pkg/provider/azure.go` `updateNodeCaches` / `ShouldNodeExcludedFromLoadBalancer`,
//!   `azure_standard.go` and `azure_vmss.go` `EnsureHostsInPool`): `kubernetes.azure.com/managed=false`;
//!   the exclude-from-external-load-balancers label, by presence (the Azure provider's own check;
//!   the upstream service controller parses the value, but the provider excludes any value); a
//!   `kubernetes.azure.com/resource-group` label other than the config's group; control-plane
//!   markers (`node-role.kubernetes.io/control-plane`, `node-role.kubernetes.io/master`,
//!   `kubernetes.io/role=master`) when `excludeMasterFromStandardLB` and the SKU is standard.
//!   Nodes with a deletion timestamp or the `ToBeDeletedByClusterAutoscaler` taint are excluded as
//!   the k8s service controller's stable node set does (`controllers/service/controller.go`
//!   `stableNodeSetPredicates`).
//! - nodeIP members (`azure_loadbalancer_backendpool.go`, `backendPoolTypeNodeIP.EnsureHostsInPool`):
//!   `{name: <node>, properties{ipAddress, virtualNetwork{id}}}`, the name suffixed `-ipv6` for
//!   IPv6 addresses; the node's InternalIP of the family from `status.addresses`; existing entries
//!   are matched by IP address.
//! - nodeIPConfiguration (anchor-ccm.md §4.6; `azure_standard.go` `EnsureHostInPool`,
//!   `azure_vmss.go` `ensureVMSSInPool` / `EnsureHostInPool`): VMAS/standalone: PUT the primary NIC
//!   with the pool on the primary ipconfig (IPv6 pools: the first IPv6 ipconfig), If-Match its ETag;
//!   NICs in `Failed` state are skipped. Uniform scale sets: PUT the model with only `location`,
//!   `etag` and `virtualMachineProfile.networkProfile`, then each instance with `location`,
//!   `hardwareProfile` and `networkProfileConfiguration`, `putVMSSVMBatchSize` at a time; scale sets
//!   being deleted are skipped, and so are instances that are not active (`IsNotActiveVMState`:
//!   provisioning `Deleting`/`Unknown`, power state unknown, stopped(ing) or deallocat(ed|ing)),
//!   whether joining or leaving. On a standard LB an ipconfig already in a pool of
//!   another load balancer of the same kind (internal / public) is not added (`isBackendPoolOnSameLB`).
//!   Leaving removes the pool from every ipconfig (upstream `EnsureBackendPoolDeleted`).
//! - `preConfiguredBackendPoolLoadBalancerTypes` (anchor-ccm.md §4.6): no membership writes for the
//!   pools of those LB kinds; the kind is read from the LB name (`-internal` suffix, upstream's
//!   internal-LB naming).
//!
//! # Deliberately different from upstream
//! - Membership is exact: every NIC of the scanned resource groups and every uniform instance of
//!   the node resource group's scale sets that references one of the pools but is not an eligible
//!   node's leaves the pools, whether or not it was ever a node (upstream only removes nodes it saw
//!   leave the cluster). A scale-set model references the pools exactly while it hosts an eligible
//!   node, so a set whose nodes are all excluded does not keep adding new instances.
//! - A call in which some node could not be resolved (an ARM read failed) only adds
//!   references: the unresolved node is missing from the wanted set, and detaching it on a
//!   transient read error would drop a healthy node.
//! - No per-node GETs: NICs, scale sets and instances come from the shared cached lists (one list
//!   per resource group or scale set per TTL), and our own writes are patched into those lists
//!   instead of re-listing; a second call with the same nodes sends nothing.
//!
//! - A failed write (e.g. 412 after someone else changed the NIC since we listed it) drops the
//!   lists it came from, so the next call re-reads and retries with the new ETag (upstream
//!   invalidates its caches after a pool write the same way).
//!
//! # Inferred
//! - [infer] The patched list counts as freshly loaded (its TTL restarts at our write).
//! - [infer] NIC PUTs run [`membership::NIC_CONCURRENCY`] at a time (upstream: all at once).
//! - [infer] Flexible scale sets: the model joins like a uniform one when it has a network
//!   profile; members join through their NICs (anchor-ccm.md §4.6 "model + NICs").
//! - [infer] In a dual-stack cluster the IPv4 pool goes on the primary ipconfig (upstream takes the
//!   first IPv4 ipconfig there, which is the primary one on AKS-built NICs).
//! - Not done: basic-SKU VM-set selection (only nodes of the LB's availability / scale set), the
//!   Windows Server 2019 IPv6 skip, and the migration API to IP-based pools.
//!
//! `preConfiguredBackendPoolLoadBalancerTypes` and the `nodeIP` / `podIP` pool types make
//! [`PoolMembership::ensure`] a no-op (it returns zero writes); callers need no flag.

pub mod batch;
pub mod desired;
pub mod eligibility;
pub mod error;
pub mod ipconfig_edit;
pub mod membership;
pub mod node_ip;
pub mod pool_ref;

#[cfg(test)]
mod test_support;

pub use eligibility::{Exclusion, eligible_nodes, eligible_refs};
pub use error::PoolError;
pub use membership::{PoolMembership, PoolWrites};
pub use node_ip::{set_node_ip_members, vnet_id};
pub use pool_ref::PoolRef;
