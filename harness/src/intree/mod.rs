//! In-tree emulation: what the in-tree Azure provider did in the processes it lived in, so the
//! parity checks compare the out-of-tree CCM with the behaviour users had, not with itself.
//! `kubelet` simulates the kubelets (Node registration, Lease, status) of either mode.

pub mod kcm_profile;
pub mod kubelet;
