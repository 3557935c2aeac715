//! Service load balancers (issue 11): the Azure side of `ccm_cloud::LoadBalancer`.
//!
//! Layout: [`service`] parses a Service once into an [`LbService`]; [`names`] derives every Azure
//! name from it; pure plans compute the desired LB, public IP and NSG documents from
//! (Service, nodes, config, current ARM state); a thin executor reads the current state once and
//! writes only what differs, in upstream's order (anchor-ccm.md §4.1).

pub mod cloud;
pub mod draft;
pub mod dry_run;
pub mod error;
pub mod names;
pub mod network_io;
pub mod nsg;
pub mod parse;
pub mod plan;
pub mod pools;
pub mod publicip;
pub mod reconcile;
pub mod service;
pub mod settings;
pub mod status;

pub use cloud::AzureLoadBalancer;
pub use error::LbError;
pub use reconcile::{LbReconciler, ServiceSource};
pub use service::{IpFamily, LbPort, LbService, PerFamily, Protocol, ServiceKey};
