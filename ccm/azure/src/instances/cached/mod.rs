//! The compact projections the node-metadata caches ([`super::reads`]) keep instead of whole ARM
//! documents: the whole round-trip documents (every unknown member kept in `extra` maps: storage
//! and OS profiles, instance-view statuses with their texts, NIC DNS settings, ...) of a uniform
//! instance and its NIC cost ~17 KB of heap, the projections ~2.2 KB (`benches/cached_documents.rs`
//! on the documents `azure-fakes` serves: 16.5 → 2.1 MiB per 1000 instances).
//!
//! Each projection keeps what its readers use and is decoded straight from the listed page:
//! members it does not name are skipped by the decoder (serde's `IgnoredAny`), so they are never
//! allocated. `From<&Whole>` (`TryFrom` for the instance, whose profile is packed) gives the same
//! projection of a whole document (a PUT answer, or a document cached whole), and tests hold the
//! two equal on realistic documents.
//!
//! What is compact, and what its readers are:
//! - [`CachedScaleSetVm`] (uniform instances, the largest list): node resolution ([`super::vmss`],
//!   [`super::Machine`]: id, name, instance id, location, zones, SKU name / `vmSize`, computer
//!   name, primary NIC, provisioning state, fault domain, power state) and backend-pool
//!   membership (`loadbalancer::pools::membership`), whose instance PUT is sparse (`location`,
//!   `hardwareProfile`, the edited `networkProfileConfiguration`, the ETag as `If-Match`): those
//!   two members are kept whole, everything else ARM would keep since the PUT does not name it.
//!   The network profile configuration, the largest member, is kept as its JSON text
//!   ([`Packed`]) and decoded again only to be edited.
//! - [`CachedNic`] (a uniform scale set's NICs, read-only in NRP): addresses and route next hops
//!   (id, name, each ipconfig's name, primary flag, private address, family, public IP id).
//! - [`CachedVm`] (VMs, never written by the CCM): node resolution and the flexible-member check
//!   of pool membership.
//! - [`CachedPublicIp`] (the address caches' PIPs): the ExternalIP.
//!
//! Kept whole on purpose, because a PUT sends the cached document back and ARM's PUT replaces the
//! resource (a dropped member would be deleted in Azure), or because there are few of them:
//! - the resource groups' NIC lists (availability-set, standalone and flexible-member NICs: the
//!   pool membership PUTs the whole NIC); readers see them through `CachedNic::from`;
//! - the scale-set lists (one document per scale set, not per node; the model PUT sends the
//!   scale set's network profile whole);
//! - the Compute provider metadata (one document);
//! - load balancers, public IPs and the NSG of a Service reconcile (`loadbalancer::network_io`)
//!   and the route table (`routes::table`): read fresh or cached one document at a time and PUT
//!   whole, never a per-node list.
//!
//! # Verified behaviour (sources)
//! - PUT replaces the resource model the RP owns, and an NRP parent PUT without a child deletes
//!   it; a uniform scale-set VM PUT is a merge, and upstream sends only `location`, the ETag,
//!   `hardwareProfile` and `networkProfileConfiguration` (`/work/shared/reference/arm-imds-aad.md`
//!   §1.4, kubernetes-sigs/cloud-provider-azure `pkg/provider/azure_vmss.go`). So the instance
//!   projection may drop every other member, and the NIC, scale-set, LB, PIP, NSG and route-table
//!   documents the CCM PUTs may not.
//! - The readers and what they read: this crate's code (`instances`, `routes::next_hop`,
//!   `loadbalancer::pools`); tests in `tests.rs` hold each projection equal to the projection of
//!   the whole document, and the instance PUT body byte-identical (`pools::membership` tests).

mod nic;
mod packed;
mod parts;
mod public_ip;
mod scale_set_vm;
mod vm;

pub use nic::{CachedIpConfig, CachedNic};
pub use packed::Packed;
pub use public_ip::CachedPublicIp;
pub use scale_set_vm::CachedScaleSetVm;
pub use vm::CachedVm;

#[cfg(test)]
mod tests;
