//! Fake Azure Resource Manager: the resource model and ARM REST semantics the CCM depends on.
//!
//! [`ArmState`] holds every resource of one fake cloud; [`ArmState::router`] serves the ARM REST surface
//! (PUT/PATCH/GET/DELETE on resources and NRP child resources, collection lists with `nextLink` paging,
//! `instanceView`, and the `Azure-AsyncOperation` / `Location` operation URLs). Authentication, throttling,
//! fault injection and request ids are layered on top by `azure-fakes`.
//!
//! Served types: resource groups (+ list), provider registrations (`/subscriptions/{s}/providers[/{ns}]`, with
//! `Microsoft.Compute` zone mappings); `Microsoft.Network` loadBalancers (+ frontendIPConfigurations,
//! backendAddressPools, loadBalancingRules, probes, inboundNatRules, outboundRules), publicIPAddresses,
//! publicIPPrefixes (`ipPrefix` allocated, public IPs referencing one take its addresses and are listed back in its
//! `publicIPAddresses`; details and [infer]s in `resources/public_ip_prefix.rs`),
//! networkSecurityGroups (+ securityRules, defaultSecurityRules), networkInterfaces (+ ipConfigurations),
//! routeTables (+ routes), virtualNetworks (+ subnets), privateLinkServices (each with the NIC NRP creates for it,
//! `<pls>.nic.<guid>` in the service's group, listed in `properties.networkInterfaces`, pointing back with
//! `properties.privateLinkService`, read-only to clients and deleted with the service); `Microsoft.Compute`
//! virtualMachines, virtualMachineScaleSets (uniform instances materialised from `sku.capacity`, each with NICs at
//! `.../virtualMachineScaleSets/{ss}/virtualMachines/{i}/networkInterfaces/{nic}` and public IPs at
//! `.../networkInterfaces/{nic}/ipConfigurations/{ipc}/publicIPAddresses/{pip}` from `publicIPAddressConfiguration`,
//! plus the scale-set-wide lists `.../virtualMachineScaleSets/{ss}/networkInterfaces|publicIPAddresses`, all on
//! api-version 2018-10-01 like the Go SDK; flexible members are ordinary VMs with `properties.virtualMachineScaleSet.id`),
//! scale-set VMs (PUT merges like CRP) and availabilitySets. A reference to a resource in another location is
//! rejected with `InvalidResourceReference`, as NRP/CRP resolve references within one region.
//!
//! Compute fidelity (sources in each module header): a PUT on an existing VM or scale set updates the stored model
//! like CRP (omitted fields, capacity and instances are kept; arrays sent replace; `resources::crp_update`); CRP's
//! computed scale-set defaults and the instances' `storageProfile` are filled in (`resources::compute_defaults`),
//! for seeded scale sets too; write-only secrets (`adminPassword`, `customData`, `protectedSettings`) are dropped
//! before storing, so no answer, snapshot or `/admin/state` holds them (`resources::write_only`);
//! `identity: {type: None}` is omitted; availability sets list `virtualMachines` (`[]` when empty, [infer]) and
//! carry no `provisioningState`; a scale-set VM PUT stores no tags (instances keep the scale set's tags they were
//! materialised with, which IMDS reports: [infer], the 2017 "Get the model view of a VM" REST sample shows tags on
//! an instance while issue 9 reports none).
//!
//! Private addresses: NIC and scale-set instance ipconfigs and internal LB frontends get the lowest free address of
//! their subnet from `.4` (static addresses are validated instead); ipconfigs with `privateIPAddressVersion: IPv6`
//! take theirs from the IPv6 entry of a dual-stack subnet's `addressPrefixes`. Commits keep back-references and the
//! per-subnet address index up to date by the references that changed, so joining a large subnet or pool is cheap.
//!
//! Power state: VMs and scale-set VMs carry an instance view (GET `.../instanceView` or
//! `$expand=instanceView`) whose statuses include `ProvisioningState/succeeded` and `PowerState/running`.
//! Change it with [`ArmState::set_power_state`] (e.g. `PowerState::Deallocated`) or any edit with
//! [`ArmState::modify_instance_view`]; both are platform events and do not change the model etag.
//!
//! Which writes complete synchronously is a per-kind fact with its source in `completion` (resource groups,
//! availability sets, NIC PUTs, and VM PUTs that leave the model unchanged, which keep their etag [infer]).
//! LROs: other writes answer with `provisioningState: Updating` (CRP create: `Creating`) and an operation that
//! reports `InProgress` for [`ArmConfig::lro_polls_in_progress`] polls, then finishes (commit, rollback
//! on [`ForceLroFailure`], or removal for deletes). The `Azure-AsyncOperation` URL always answers 200 with
//! `{"status":...}` (NRP) or `{startTime,endTime,status,name}` (CRP) plus `error` when Failed/Canceled; the
//! `Location` URL answers 202 while running, then 200 with the resource (PUT) or 204 (delete; 200 for resource
//! groups). 201/202 responses that start an operation and 202 Location polls carry `Retry-After`
//! ([`ArmState::set_retry_after`], default 1 s; `None` omits it like the recorded NRP/CRP writes). Operations not
//! polled finish after [`ArmState::set_lro_max_age`] (5 s default, [infer]). DELETE of a missing resource answers 204. A
//! write to a resource with a running operation gets 409 `AnotherOperationInProgress` (NRP) / `OperationNotAllowed`
//! (CRP, resource being deleted); a PUT on a resource with a running PUT supersedes it (old operation `Canceled`
//! with `CanceledAndSupersededDueToAnotherOperation`, CRP `OperationPreempted`). PATCH replaces the whole tag map; it
//! is no PUT, so an NRP PATCH during any running operation gets the 409 (a CRP PATCH preempts like a PUT, [infer]).
//! A `provisioningState` sent in a PUT body is ignored like any read-only property (the Go SDK echoes GET bodies
//! back; that real NRP/CRP ignore it rather than answering 400 as the RPC allows is [infer]).
//!
//! Error codes: every code the fake can emit, with its HTTP status, how far it is verified and its source, is one
//! entry of [`error_codes`] (rendered by rustdoc there); [`ArmError`] and [`ErrorDetail`] take only table entries,
//! so this list cannot drift from the emitting sites. The doc comment at each emitting site gives the detail.
//!
//! Private link services answer like the recorded NRP traffic (cloud-provider-azure
//! `pkg/azclient/privatelinkserviceclient/testdata/AZURECLOUD.yaml`): `loadBalancerFrontendIpConfigurations[]` and the
//! ipconfig `subnet` are `{id}` references, `visibility`/`autoApproval` only when sent, and a Dynamic NAT ipconfig
//! carries no `privateIPAddress` (the fake keeps the address on the service's NIC).
//!
//! Computed defaults (recorded NRP answers in cloud-provider-azure `pkg/azclient/*/testdata` unless marked): LB
//! `sku.tier: Regional` when only `sku.name` is sent, `privateIPAllocationMethod: Dynamic` on public frontends; VNet
//! `privateEndpointVNetPolicies: Disabled`; subnet `delegations: []`; backend pools `loadBalancerBackendAddresses: []`
//! ([infer] for pools with NIC members, which real NRP may list there); a NIC has no `macAddress` until a VM using it
//! is provisioned (issue 9 item 8, observed), then keeps it ([infer]).
//!
//! Public IPs: Standard and Static addresses are allocated when the create reaches Succeeded (recorded); a Basic,
//! Dynamic public IP has no `ipAddress` and no `ddosSettings` until an LB frontend or the NIC of a VM that is not
//! deallocated uses it, and loses them when detached or deallocated (issue 9 item 7, observed; details and [infer]s in `resources/dynamic_public_ip.rs`).
//!
//! References to a resource not in Succeeded state: 429 `RetryableError` with a `ReferencedResourceNotProvisioned`
//! detail while it is written or deleted, 400 `ReferencedResourceNotProvisioned` when an LB frontend or NIC ipconfig
//! references a public IP whose last operation failed; nothing is stored (evidence and [infer]s in
//! `not_provisioned.rs`).
//!
//! Load balancer writes: an LB PUT is validated as a whole new document, so a PUT that drops a rule together with the
//! frontend and probe it used succeeds, while a frontend still used by a rule that stays is an
//! `InvalidResourceReference` (issue 9 item 3, observed with a production CCM). Deleting a whole LB removes the NIC
//! ipconfig `loadBalancerBackendAddressPools` entries pointing at it (new NIC etags); only scale-set models
//! (`LoadBalancerInUseByVirtualMachineScaleSet`) and private link services block it (issue 9 item 4, observed); the
//! same for `loadBalancerInboundNatRules` entries is [infer].
//!
//! Known divergences: a client-sent public IP `ipAddress` is honoured on create (real NRP ignores it) so seeds can
//! pin addresses. Backend-port conflicts between rules reaching one NIC ipconfig are checked when the NIC is written,
//! not when an LB PUT adds the colliding rule. A PLS NIC's ipConfigurations mirror the PLS NAT ipConfigurations
//! (names and shape [infer]); a VM may still reference a PLS NIC. Back-reference changes (a NIC joining a pool) bump
//! the referenced NRP resource's etag.

mod addresses;
mod api_version;
mod commit;
mod completion;
mod config;
mod delete;
mod error;
pub mod error_codes;
mod etag;
mod id;
mod kinds;
mod lro;
mod not_provisioned;
mod paging;
mod providers;
mod ref_index;
mod references;
mod resources;
mod router;
mod state;
mod store;
mod write;

pub use config::ArmConfig;
pub use error::{ArmError, ErrorDetail};
pub use error_codes::ErrorCode;
pub use state::{ArmState, DEFAULT_LRO_MAX_AGE, PowerState};

/// Request extension set by the fault layer: the long-running operation started by this request ends `Failed` with this error.
#[derive(Clone, Debug)]
pub struct ForceLroFailure {
    /// Error code the operation fails with.
    pub code: String,
    /// Error message the operation fails with.
    pub message: String,
}
