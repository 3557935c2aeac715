//! Typed serde models of every ARM resource type the CCM reads or writes, one module per type.
//!
//! Each object level we model holds the fields the CCM uses (camelCase names exactly as ARM
//! spells them, `Option` for everything optional, `None` skipped on serialize) plus a
//! `#[serde(flatten)] extra` catch-all, so GET → deserialize → serialize → PUT sends back every
//! member the user or AKS set, unchanged. Helper methods are limited to pure facts read from a
//! document (power state, primary NIC / ipconfig, region zones). The per-node caches do not keep
//! these whole documents but the compact projections of `crate::instances::cached`, which share
//! the selection rules ([`envelope::only_or_flagged`], [`instance_view::power_state_of`]).
//!
//! # Verified behaviour (sources)
//! - Field names and shapes: `/work/shared/reference/arm-imds-aad.md` §2 (armnetwork v9 /
//!   armcompute v7 JSON names, recorded responses) and the documents `azure-fakes` serves for
//!   every example topology (round-trip tests in `tests/it/resource_models.rs`).
//! - Primary NIC (`getPrimaryInterfaceID`): the only NIC, else the first with `primary: true`;
//!   primary ipconfig (`getPrimaryIPConfig`): the only one, else the first with `primary: true`;
//!   by family (`getIPConfigByIPFamily`): first ipconfig with a private address of that
//!   version. Source: kubernetes-sigs/cloud-provider-azure `pkg/provider/azure_standard.go`; the
//!   error texts follow its messages.
//! - Power state: the first status whose code starts with `PowerState/` (upstream
//!   `vmPowerStateFromStatusesV2`), reported without the prefix; shutdown = `stopped`,
//!   `deallocated`, `deallocating` (anchor-ccm.md §3.6, arm-imds-aad.md §2.8).
//! - Region zones: `resourceTypes[virtualMachines].zoneMappings`, keyed by the display name
//!   lower-cased with spaces removed, a later mapping for a region replacing an earlier one
//!   (upstream's zone client `GetVirtualMachineSupportedZones`).
//!
//! # Inferred
//! - [infer] Scale-set NIC configuration choice (only one, else first flagged `primary`) is
//!   taken to mirror the VM rule; not re-read in upstream for this module.
//! - [infer] The region asked for is lower-cased before the zone lookup (config locations are
//!   ARM names such as `eastus2`).
//! - [infer] `null` members are not distinguished from absent ones on modelled fields (ARM omits
//!   unset members in the documents seen); unknown members keep their `null`s via `extra`.

pub mod availability_set;
pub mod envelope;
pub mod error;
pub mod instance_view;
pub mod load_balancer;
pub mod network_interface;
pub mod network_profile;
pub mod private_link_service;
pub mod provider_metadata;
pub mod public_ip_address;
pub mod public_ip_prefix;
pub mod route_table;
pub mod scale_set;
pub mod scale_set_network;
pub mod scale_set_vm;
pub mod security_group;
pub mod virtual_machine;
pub mod virtual_network;

pub use availability_set::AvailabilitySet;
pub use envelope::{Child, Extra, Page, Reference, Resource, Sku};
pub use error::SelectionError;
pub use load_balancer::LoadBalancer;
pub use network_interface::NetworkInterface;
pub use private_link_service::PrivateLinkService;
pub use provider_metadata::ResourceProvider;
pub use public_ip_address::PublicIpAddress;
pub use public_ip_prefix::PublicIpPrefix;
pub use route_table::RouteTable;
pub use scale_set::VirtualMachineScaleSet;
pub use scale_set_vm::ScaleSetVm;
pub use security_group::NetworkSecurityGroup;
pub use virtual_machine::VirtualMachine;
pub use virtual_network::{Subnet, VirtualNetwork};

#[cfg(test)]
mod round_trip_tests;
