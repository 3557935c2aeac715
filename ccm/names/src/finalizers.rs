//! Finalizers the cloud controllers put on objects.

/// Added to a LoadBalancer Service before its Azure LB is created; removed after LB cleanup, so
/// a deleted Service never leaks Azure resources.
pub const LOAD_BALANCER_CLEANUP: &str = "service.kubernetes.io/load-balancer-cleanup";

/// One finalizer with the object kind it is placed on, for the reference docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finalizer {
    /// Finalizer string.
    pub name: &'static str,
    /// Kubernetes kind carrying it.
    pub kind: &'static str,
    /// When it is added and removed.
    pub description: &'static str,
}

/// Every finalizer written by the Azure CCM.
pub static FINALIZERS: &[Finalizer] = &[Finalizer {
    name: LOAD_BALANCER_CLEANUP,
    kind: "Service",
    description: "Added by the service controller before it creates load-balancer resources for a \
                  `type: LoadBalancer` Service; removed once the frontend, rules, probes, NSG \
                  entries and owned public IP are gone.",
}];
