//! Fake Azure Resource Manager: the resource model and ARM REST semantics the CCM depends on.
//!
//! [`ArmState`] holds every resource of one fake cloud; [`ArmState::router`] serves the ARM REST surface
//! (PUT/PATCH/GET/DELETE on resources and NRP child resources, collection lists with `nextLink` paging,
//! `instanceView`, and the `Azure-AsyncOperation` / `Location` operation URLs). Authentication, throttling,
//! fault injection and request ids are layered on top by `azure-fakes`.
//!
//! Served types: resource groups; `Microsoft.Network` loadBalancers (+ frontendIPConfigurations,
//! backendAddressPools, loadBalancingRules, probes, inboundNatRules, outboundRules), publicIPAddresses,
//! networkSecurityGroups (+ securityRules, defaultSecurityRules), networkInterfaces (+ ipConfigurations),
//! routeTables (+ routes), virtualNetworks (+ subnets), privateLinkServices; `Microsoft.Compute`
//! virtualMachines, virtualMachineScaleSets (uniform instances materialised from `sku.capacity`, each with
//! NICs at `.../virtualMachineScaleSets/{ss}/virtualMachines/{i}/networkInterfaces/{nic}`; flexible members are
//! ordinary VMs with `properties.virtualMachineScaleSet.id`), scale-set VMs (PUT merges like CRP) and
//! availabilitySets.
//!
//! Power state: VMs and scale-set VMs carry an instance view (GET `.../instanceView` or
//! `$expand=instanceView`) whose statuses include `ProvisioningState/succeeded` and `PowerState/running`.
//! Change it with [`ArmState::set_power_state`] (e.g. `PowerState::Deallocated`) or any edit with
//! [`ArmState::modify_instance_view`]; both are platform events and do not change the model etag.
//!
//! LROs: writes answer with `provisioningState: Updating` (CRP create: `Creating`) and an operation that
//! reports `InProgress` for [`ArmConfig::lro_polls_in_progress`] polls, then finishes (commit, rollback
//! on [`ForceLroFailure`], or removal for deletes). Operations not polled finish after
//! [`ArmState::set_lro_max_age`] (30 s default). A write to a resource with a running operation gets 409
//! `AnotherOperationInProgress` (NRP) / `OperationNotAllowed` (CRP, resource being deleted); a PUT on a
//! resource with a running PUT supersedes it (old operation `Canceled` with
//! `CanceledAndSupersededDueToAnotherOperation`, CRP `OperationPreempted`).
//!
//! Known divergences / unverified error codes (the wording follows real NRP messages where the reference
//! or public logs document them; these codes were NOT confirmed from a primary source):
//! `LoadBalancerInUseByNetworkInterface` (LB pool removal while NIC ipconfigs reference it),
//! `LoadBalancerBackendAddressPoolInUseByVirtualMachineScaleSet`, `RulesUseSameFrontendIpConfigurationAndPort`,
//! `HaPortsRuleNotSupportedOnLoadBalancer`, `IpConfigurationCannotReferenceMultipleLoadBalancersOfSameType`,
//! `PublicIPAddressInUse`, `SecurityRulesLimitReached`, `LoadBalancerFrontendIPConfigurationsLimitReached`,
//! `LoadBalancerRulesLimitReached`, `RouteTableRoutesLimitReached`, `InvalidRouteNextHop*`,
//! `StandardSkuPublicIPAddressesMustBeStaticallyAllocated`, `InvalidProbeRequestPath`,
//! `PrivateLinkServiceNetworkPoliciesCannotBeEnabledOnPrivateLinkServiceSubnet`. A client-sent public IP
//! `ipAddress` is honoured on create (real NRP ignores it) so seeds can pin addresses. PLS auto-created NICs
//! are not modelled. Back-reference changes (a NIC joining a pool) bump the referenced NRP resource's etag.

mod api_version;
mod config;
mod delete;
mod error;
mod etag;
mod id;
mod kinds;
mod lro;
mod paging;
mod references;
mod resources;
mod router;
mod state;
mod store;
mod write;

pub use config::ArmConfig;
pub use error::{ArmError, ErrorDetail};
pub use state::{ArmState, PowerState};

/// Request extension set by the fault layer: the long-running operation started by this request ends `Failed` with this error.
#[derive(Clone, Debug)]
pub struct ForceLroFailure {
    /// Error code the operation fails with.
    pub code: String,
    /// Error message the operation fails with.
    pub message: String,
}
