//! The ARM transport every resource client uses: typed calls ([`calls`]), long-running
//! operations ([`lro`]), the typed error ([`error`]), `Retry-After` parsing ([`retry_after`]),
//! the client kinds ([`client_kind`]) and the request pipeline ([`client`]); and what it carries:
//! the resource models ([`resources`]), resource ids and providerIDs ([`resource_id`]) and the
//! api-version table ([`api_versions`]); and the cached read-modify-write with `If-Match` and
//! one retry after a 412 ([`cached_update`]).
//!
//! # Why reqwest directly and not an azure_core pipeline
//! azure_core 1.1's retry policy retries 429 by default (`DEFAULT_RETRY_STATUS_CODES` in
//! typespec_client_core 1.1), which is exactly the blind 429 retry we must not do, and its LRO
//! poller and paging helpers are shaped for generated clients' models. The order we need per
//! attempt — throttle gate (fail fast, nothing sent) → per-client limiter (bounded wait) → token →
//! send → metrics and `x-ms-ratelimit-remaining-*` → gate closing on throttling — is a dozen lines
//! around reqwest, and reqwest's own errors tell a connection reset from a bad request without
//! string matching. We still take azure_core's `TokenCredential`, so every azure_identity
//! credential plugs in unchanged.
//!
//! # Verified behaviour (arm-imds-aad.md §1, anchor-ccm.md §6.1 and §7.2)
//! - Headers: `Authorization: Bearer`, `Accept: application/json`, `x-ms-client-request-id`,
//!   `If-Match` on writes when the caller read an ETag, `x-ms-authorization-auxiliary` for
//!   auxiliary tenants, `api-version` on every call.
//! - Lists follow `nextLink` until it is absent or null; a page may be empty with a `nextLink`.
//! - LROs: `Azure-AsyncOperation` (200 + `status`, terminal `Succeeded`/`Failed`/`Canceled`, the
//!   `error` of a failed one) before `Location` (202 while running); `Retry-After` in seconds.
//! - Retries: 408, 500, 502, 503, 504 and transport failures, 3 retries, 5 s base, 60 s cap; 429
//!   is never retried (it closes a throttle gate, see [`crate::throttle`]).
//! - Error envelope `{"error":{code,message,target,details,additionalInfo}}` with
//!   `x-ms-request-id` and `x-ms-correlation-request-id`.
//!
//! # Inferred or deliberately different
//! - Deliberate: `nextLink`, `Azure-AsyncOperation` and `Location` URLs must be on the ARM
//!   endpoint (same https host and port), since they receive the bearer token.
//! - [infer] After an `Azure-AsyncOperation` succeeds, a PUT re-reads the resource and a PATCH
//!   reads `Location` when given (else the resource), as the Azure SDKs' final-state rules do.
//! - Deliberate: a DELETE answered 404 is success (already gone), like upstream's "not exists".
//! - [infer] LRO polling stops after 20 minutes with [`ArmError::OperationTimeout`].
//! - [infer] A write answered without `Azure-AsyncOperation` and without a 202 `Location` is
//!   finished: its body is returned as is, even with a non-terminal `provisioningState`.
//! - Not done: `enableMinimumRetryAfter` (parsed by the config, not applied here).

pub mod api_versions;
pub mod cached_update;
pub mod calls;
pub mod client;
pub mod client_kind;
pub mod error;
pub mod lro;
pub mod options;
pub mod resource_id;
pub mod resources;
pub mod retry_after;

#[cfg(test)]
mod tests;

pub use cached_update::{Updated, update};
pub use calls::Target;
pub use client::{Answer, ArmClient};
pub use client_kind::ClientKind;
pub use error::{ArmError, ErrorDetail, ResponseError};
pub use options::{ArmClientOptions, LroSettings, RetrySettings};
