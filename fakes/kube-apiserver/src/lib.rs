//! Embedded Kubernetes API server: the default cluster of the migration harness, faithful to the
//! real server's semantics (resourceVersions, watches and 410s, conflicts, patches, server-side
//! apply, finalizers, status subresources, Service allocation) for the kinds the cloud controller
//! manager and kubectl use.
//!
//! Stated limitations: there is no kubelet and no garbage collector. A Pod bound to a node and
//! deleted with a grace period stays Terminating until a delete with `gracePeriodSeconds=0` (what
//! the kubelet sends) removes it; a terminating namespace removes its content at once.
//! `propagationPolicy` is validated, but dependents are not tracked: every policy deletes the
//! object as if it had none (no `orphan` or `foregroundDeletion` finalizer is added).
//!
//! Write semantics and their sources (kubernetes/kubernetes unless said otherwise):
//! - `/status` writes keep the request's metadata except what each kind's status strategy resets
//!   (`pkg/registry/*/*/strategy.go` `PrepareForUpdate`): see [`kinds::status_strategy`].
//! - Every write goes through the typed round trip: unknown fields dropped (or refused with
//!   `fieldValidation=Strict`), empty optional lists and maps, nulls and the zeros of value
//!   scalars left out, and the managedFields that named them with them
//!   (`field_validation::drop_empty`). `[infer]` every optional list and map of the served kinds
//!   is `omitempty`; a zero value scalar is left out as `omitempty` would, including on the few
//!   value fields without the tag (the protobuf decoder already reads them that way).
//! - Not modelled: defaults Go adds by encoding value structs that were absent (a Node's empty
//!   `status.nodeInfo`, a container's `resources: {}`), and the `null` a required list without
//!   `omitempty` reads back as after protobuf storage (an empty `rules` of a Role is left out
//!   rather than answered as `null`).
//! - Known managedFields divergences (no CCM path uses them): a server-side apply to `/status` still
//!   records the spec fields of the applied object for its manager instead of dropping the ones the
//!   status strategy resets, and a server-side apply of an explicitly empty list (`taints: []`)
//!   records the applier as owning a field that is not stored.
//! - `--audit-log-path` writes the real server's audit Events (level Metadata) with the verbs its
//!   `RequestInfoFactory` computes: see [`audit`] for the fields and the known divergences.
//! - `POST tokenreviews` (authentication.k8s.io/v1) and `subjectaccessreviews`
//!   (authorization.k8s.io/v1) answer `201` with the request and its `status`: tokens by this
//!   server's authenticator (admin token, `--token-auth-file` users; `system:authenticated` added),
//!   access by the RBAC authorizer over the stored RBAC objects plus the bootstrap roles it knows
//!   ([`rbac`]; `plugin/pkg/auth/authorizer/rbac`). Requests to this server itself are still not
//!   authorised. See `reviews` for the inferred details.
//! - `status.loadBalancer.ingress[].ipMode` defaults to `VIP` (`SetDefaults_Service`,
//!   `pkg/apis/core/v1/defaults.go`); cluster IPs and node ports are random, upper band first
//!   (`calculateRangeOffset` in `pkg/registry/core/service/{ipallocator,portallocator}`).

pub mod audit;
mod auth;
pub mod cli;
mod config;
mod discovery;
mod error;
pub mod field_validation;
mod handlers;
pub mod kinds;
mod kubeconfig;
mod openapi;
pub mod patch;
mod protobuf;
pub mod rbac;
mod reviews;
pub mod selectors;
mod server;
pub mod status;
pub mod store;
pub mod table;
mod timestamps;
mod token_file;

pub use auth::TokenUser;
pub use config::ApiServerConfig;
pub use error::Error;
pub use kinds::service_alloc::ServiceCidr;
pub use kubeconfig::{ADMIN_CONTEXT, AdminCredentials, TOKEN_CONTEXT};
pub use server::{RunningApiServer, SYSTEM_NAMESPACES, start};
