//! Leader election on `coordination.k8s.io/v1` Leases with client-go's semantics.
//!
//! Decision: implemented directly on kube 5 rather than with `kube-lease-manager`, because the
//! binaries need client-go's exact behaviour, which that crate does not document as a contract:
//! expiry measured from the *local* time a changed record was observed (not the holder's
//! `renewTime`, so host clock skew is harmless), a renew loop that gives up after the renew
//! deadline and reports the loss (the binary exits), optimistic concurrency on
//! `metadata.resourceVersion` for every write, `leaseTransitions` incremented only when the holder
//! changes, and release on graceful shutdown by clearing `holderIdentity` with
//! `leaseDurationSeconds: 1`. It also keeps one less dependency and lets Leader Migration run two
//! elections with one identity.
//!
//! Verified against client-go `tools/leaderelection/leaderelection.go` (`tryAcquireOrRenew`,
//! `renew`, `release`, `acquire` with `JitterFactor` 1.2, `NewLeaderElector` validation) and the
//! CCM defaults in `anchor-ccm.md` 1.2/1.3: identity `<hostname>_<uuid>`, Lease
//! `kube-system/cloud-controller-manager`, 15 s / 10 s / 2 s.
//!
//! Inferred:
//! - [infer] On loss we do not try to release (client-go may attempt it): another holder may
//!   already own the Lease and the process is about to exit anyway.
//! - [infer] Each API call is bounded by the renew deadline in the acquire loop too (client-go
//!   bounds only the renew loop), so a hung connection cannot stall campaigning.

mod config;
mod elector;
mod lock;
mod record;

pub use config::{
    DEFAULT_LEASE_DURATION, DEFAULT_RENEW_DEADLINE, DEFAULT_RETRY_PERIOD, ElectionConfig,
    ElectionConfigError, default_identity,
};
pub use elector::{LeaderHandle, LeaderState};
pub use lock::{LeaseLock, LockError};
pub use record::LeaderRecord;
