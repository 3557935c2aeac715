//! node-ipam: the range allocator behind `--allocate-node-cidrs` with `--cluster-cidr`, giving each
//! new Node one block per family (`spec.podCIDR` and `spec.podCIDRs`) and never changing a value a
//! Node already has.
//!
//! Pure parts ([`config`], [`allocator`]), thin effect ([`controller`]).
//!
//! Verified behaviour (source: anchor-ccm.md 1.2/1.3, from the upstream Azure CCM's
//! `cmd/cloud-controller-manager/app/options` and `pkg/nodeipam`):
//! - `--cluster-cidr` holds at most two CIDRs, one per family; `--node-cidr-mask-size-ipv4` defaults
//!   to 24 and `-ipv6` to 64; `--service-cluster-ip-range` is never handed to a node;
//! - a Node's podCIDRs are in the order of the `--cluster-cidr` flag; events come from component
//!   `cidrAllocator` (migration.md, event components);
//! - exhaustion records upstream's Normal Event `CIDRNotAvailable`, message
//!   `Node <name> status is now: CIDRNotAvailable`, and is retried (kubernetes
//!   `pkg/controller/nodeipam/ipam/range_allocator.go`, `RecordNodeStatusChange`);
//! - a node mask more than 16 bits longer than the cluster prefix is refused (kubernetes
//!   `pkg/controller/nodeipam/ipam/cidrset/cidr_set.go`, `clusterSubnetMaxDiff = 16`);
//! - exactly one allocator may own IPAM (migration.md P12): existing podCIDRs are never changed.
//!
//! Inferred **[infer]**:
//! - a CIDR flag entry with host bits set is refused;
//! - a Node whose podCIDR is invalid, outside `--cluster-cidr` or overlapping another Node's or the
//!   service range is left untouched with a Warning Event, reason `PodCIDRConflict`, naming the
//!   cause (upstream only occupies what it can and logs); its valid, non-overlapping entries are
//!   still recorded as used; of two Nodes sharing a podCIDR, the one listed first keeps the block;
//! - a deleted Node's blocks are freed when it is gone from the controller's cache, checked before
//!   each allocation (so a deletion missed across a relist is freed as well);
//! - podCIDRs are written by get-modify-replace with client-go's conflict retry; a Node that
//!   gained a value meanwhile keeps it and the block taken for it is freed;
//! - allocation continues after the last block given (wrapping), so a released block is reused
//!   only once the blocks after it are used, like upstream's cidrset.

pub mod allocator;
pub mod config;

pub use allocator::{AllocateError, OccupyError, RangeAllocator};
pub use config::{ConfigError, Family, FamilyRange, IpamConfig};
pub mod controller;
pub use controller::NodeIpamController;
