//! Azure cloud provider: the library behind `cloud-controller-manager` and `cloud-node-manager`.

pub mod names;
