//! Client-side protection of ARM: throttle gates that stop sending after ARM throttled us
//! ([`gate`]), and per-client token buckets from `cloudProviderRateLimit*` ([`limiter`]).
//!
//! # Verified (anchor-ccm.md §7.2, arm-imds-aad.md §1.13, from cloud-provider-azure
//! `pkg/azclient/policy/retryrepectthrottled/throttle.go` and `policy/ratelimit`)
//! - Separate read (GET/HEAD) and write gates per client; a 429 closes the gate of its kind until
//!   `Retry-After`; while closed every call of that kind fails at once without reaching ARM.
//! - Token-bucket limits with separate read and write QPS/bucket, per client key.
//!
//! # Deliberately different from upstream
//! - Upstream parses the client rate limits but attaches them to no client; here every ARM call
//!   goes through its client's limiter. Upstream's limiter fails at once ("rate limit reached");
//!   ours waits for a token, and fails only when the wait would exceed a bound.
//! - A front-door `SubscriptionRequestsThrottled` 429 (the subscription-wide ARM bucket) closes
//!   the subscription gate of that kind, shared by every client, not just the calling client's.
//! - NRP's 429 `RetryableError` (a dependency not yet provisioned, not throttling) does not close
//!   a gate: the error carries its `Retry-After` to the caller instead.
//! - [infer] A throttling answer without `Retry-After` closes the gate for a default (5 s) rather
//!   than not at all as upstream does (it stores "now").

pub mod gate;
pub mod limiter;

pub use gate::{Gate, GateClosed, Gates, OpKind};
pub use limiter::{ClientLimiter, Limiters};
