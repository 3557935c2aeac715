//! The node-local Instance Metadata Service path (cloud-node-manager): a client for
//! `/metadata/instance` and `/metadata/loadbalancer` ([`ImdsClient`]), typed documents
//! ([`document`]) and pure functions deriving the node's providerID, addresses, zone, region and
//! instance type from them.
//!
//! The real IMDS is plain HTTP at `http://169.254.169.254`; [`ImdsEndpoint`] also accepts an
//! `https` base with a path (the fake serves each VM at `https://127.0.0.1:PORT/imds/<node>`),
//! with an extra CA trusted on top of the system roots.
//!
//! # Verified behaviour (sources: arm-imds-aad.md §3; anchor-ccm.md §1.4, §3.1, §3.3, §6.2;
//! kubernetes-sigs/cloud-provider-azure `pkg/provider/azure_instance_metadata.go`,
//! `azure_instances_v1.go`, `azure_zones.go`, `pkg/node/node.go`, read for this module)
//! - Requests: `GET {base}/metadata/instance?api-version=2021-10-01&format=json` and
//!   `/metadata/loadbalancer?api-version=2020-10-01&format=json`, header `Metadata: True`, the
//!   environment's proxy (Go's `DefaultTransport`), one-minute timeout; the result is cached 60 s under one key.
//! - The load-balancer document is read only when the first NIC's first IPv4 and first IPv6
//!   address both lack a public IP; a failed read is ignored. Its `frontendIpAddress` is copied to
//!   the address whose private IP equals the entry's `privateIpAddress` (IPv6 brackets stripped).
//! - Addresses: Hostname (node name), v4 InternalIP, v4 ExternalIP, v6 InternalIP, v6 ExternalIP,
//!   from the first NIC's first address per family; no private IP at all is an error and drops
//!   the cached document, as does an empty `resourceId`.
//! - providerID: `azure://` + `resourceId` with each occurrence of `subscriptionId` and
//!   `resourceGroupName` replaced by its lower-case form (upstream `strings.ReplaceAll`).
//! - Zone: `<lower(location)>-<atoi(zone)>` when `zone` is set (a non-number is an error), else
//!   `platformFaultDomain`; lower-cased. Region: lower-cased `location`. `GetZone` reads the
//!   cache in unsafe mode ([`ImdsClient::zone`] does too). Instance type: `vmSize`.
//! - Retryable statuses per the IMDS documentation: 410, 429, 500 (arm-imds-aad.md §3.1).
//!
//! # Inferred or deliberately different
//! - Deliberate: upstream never retries IMDS; we retry 410, 429 and every 5xx a bounded number of
//!   times ([`RetryPolicy`], default 5 attempts, 1 s doubling to 16 s, `Retry-After` honoured
//!   and capped). Transport errors (connection refused, timeouts) are not retried: they mean
//!   there is no IMDS to ask.
//! - Deliberate: a 10 s connect timeout on top of upstream's one-minute request timeout, and a
//!   user agent naming this crate instead of `golang/kubernetes-cloud-provider`.
//! - Deliberate: a missing `vmSize` is an error here; upstream falls back to ARM, which the
//!   IMDS path does not have.
//! - Not done here: the `sub-fault-domain` / `interconnect-group` labels (the node manager sets
//!   them from [`document::Compute`]) and the "is this the local node" check (the caller's).

mod addresses;
mod client;
pub mod document;
mod endpoint;
mod error;
mod node_metadata;
mod provider_id;
mod public_ips;
mod retry;
mod zone;

#[cfg(test)]
mod tests;

pub use addresses::node_addresses;
pub use client::{ImdsClient, ImdsClientBuilder};
pub use document::{InstanceMetadata, LoadBalancerMetadata};
pub use endpoint::{
    DEFAULT_BASE, ENDPOINT_ENV, INSTANCE_API_VERSION, ImdsEndpoint, LOAD_BALANCER_API_VERSION,
};
pub use error::ImdsError;
pub use node_metadata::local_node_metadata;
pub use provider_id::{PROVIDER_ID_PREFIX, provider_id};
pub use public_ips::{fill_public_ips, has_public_ip};
pub use retry::RetryPolicy;
pub use zone::{region, zone};
