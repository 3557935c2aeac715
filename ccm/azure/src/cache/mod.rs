//! The provider's caches of ARM (and IMDS) reads: a generic keyed TTL cache ([`TtlCache`]) with
//! upstream's read modes ([`ReadMode`]) and per-cache TTLs from azure.json ([`CachePolicy`],
//! [`CacheKind`]).
//!
//! # Verified behaviour (sources: anchor-ccm.md §2.2 and §7.1; kubernetes-sigs/cloud-provider-azure
//! `pkg/cache/azure_cache.go` and `pkg/provider/azure_instance_metadata.go`, read for this module)
//! - Read modes: default serves an entry younger than the TTL and loads otherwise; unsafe serves
//!   any stored entry and loads only when none is stored; force-refresh always loads.
//! - Concurrent readers of one key cause one load (upstream locks the entry around its getter).
//! - A failed load stores nothing and returns the error.
//! - `disableAPICallCache` makes the ARM caches call their getter on every read; the instance
//!   metadata cache (60 s, fixed key) is never disabled.
//! - TTLs per cache come from the `*CacheTTLInSeconds` keys with upstream's defaults
//!   ([`crate::config::CacheSettings`]).
//!
//! # Inferred or deliberately different
//! - Deliberate: a reader that waited while another reader loaded the same key is served that
//!   load's result even in force-refresh mode (the load began after it asked), so N concurrent
//!   force-refreshes cost one call, not N.
//! - Deliberate: invalidating a key while its load is in flight keeps that load's result out of
//!   the cache (the reader that ran it still gets it), so a read racing a write cannot re-cache
//!   the pre-write state.
//! - [infer] A failed load keeps the previous value, so a later unsafe read can still serve it
//!   (upstream's lock-per-entry cache leaves the entry untouched on error).

mod policy;
mod read_mode;
mod ttl_cache;

#[cfg(test)]
mod tests;

pub use policy::{CacheKind, CachePolicy, INSTANCE_METADATA_TTL};
pub use read_mode::ReadMode;
pub use ttl_cache::TtlCache;
