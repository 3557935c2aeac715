//! service-lb-controller: creates, updates and deletes cloud load balancers for
//! `type: LoadBalancer` Services through the provider's `LoadBalancer`.
//!
//! Pure decisions ([`predicates`], [`backoff`]), effects ([`controller`], [`node_sync`],
//! [`locker`]).
//!
//! Verified behaviour (source: `k8s.io/cloud-provider` `controllers/service/controller.go`, read
//! through the public kubernetes/cloud-provider repository; migration.md 6.3; anchor-ccm.md 4.1):
//! - only `type: LoadBalancer` without `spec.loadBalancerClass`; cleanup when the Service has the
//!   finalizer `service.kubernetes.io/load-balancer-cleanup` and is being deleted or no longer
//!   wants a load balancer;
//! - ensure: Event `EnsuringLoadBalancer`, finalizer added first, `EnsureLoadBalancer` with the
//!   stable node set (not deleted, not excluded by `node.kubernetes.io/exclude-from-external-load-balancers`
//!   unless it parses as false, has a providerID, no `ToBeDeletedByClusterAutoscaler` taint;
//!   readiness is not a predicate), `UnAvailableLoadBalancer` when the set is empty,
//!   `EnsuredLoadBalancer`, `status.loadBalancer` patched only when it changed;
//! - cleanup: `GetLoadBalancer`, `DeletingLoadBalancer` + `EnsureLoadBalancerDeleted` when it
//!   exists, finalizer removed, `DeletedLoadBalancer`, status cleared (a Service already gone is
//!   fine); failures are `Warning SyncLoadBalancerFailed "Error syncing load balancer: <err>"`;
//! - finalizer and status are written through the `/status` subresource (`PatchService`);
//! - per-key exponential retry 5 s → 300 s; node sync every 100 s and on node set changes, one
//!   `UpdateLoadBalancer` per Service whose set changed (`UpdatedLoadBalancer`, or
//!   `UpdateLoadBalancerFailed` unless the load balancer no longer exists), failures requeue it;
//! - Events from component `service-controller`; metrics `service_controller_*`;
//! - around each provider call the Azure provider takes the Lease
//!   `kube-system/aks-managed-resource-locker` (holder `cloud-controller-manager`, 900 s) and
//!   serialises the calls; we do both here, in front of any provider, when configured.
//!
//! Ours / inferred **[infer]**:
//! - a cloud error the provider classifies as not retryable waits the maximum delay (300 s)
//!   instead of the next exponential step; a cloud `retry_after` replaces the step;
//! - a Service change or watch event during a backoff does not retry early unless a field
//!   upstream's `needsUpdate` compares (or deletion) changed, so our own finalizer/status writes
//!   never cause a busy loop;
//! - the last synced node set is kept per Service (upstream keeps one global set), so a Service
//!   ensured while the node set changed is still updated by the next node sync;
//! - what was synced is remembered per Service as the fingerprint of those fields, so a stale
//!   copy in the watch cache (before our own finalizer/status write arrives) causes no second
//!   provider call; like upstream's `needsUpdate`, a finalizer removed by hand comes back only
//!   with the Service's next relevant change;
//! - a Service deleted without our finalizer is not cleaned up (upstream's cache-based path for
//!   Services from before finalizers);
//! - the `Type`/`LoadBalancerSourceRanges`/... change Events upstream's `needsUpdate` records
//!   are not recorded.

pub mod backoff;
pub mod config;
pub mod controller;
pub mod error;
pub mod event;
pub mod host_sets;
pub mod locker;
pub mod metrics;
pub mod node_sync;
pub mod predicates;

pub use config::{ResourceLockerConfig, ServiceControllerConfig};
pub use controller::ServiceController;
pub use error::{ServiceControllerError, SyncError};
pub use locker::{LockerError, ResourceLocker};
pub use metrics::ServiceMetrics;
