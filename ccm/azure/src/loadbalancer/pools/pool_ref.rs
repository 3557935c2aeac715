//! A backend pool named by its ARM id, with what membership decisions need from it: its load
//! balancer, whether that LB is internal, and the IP family the pool serves.

use crate::arm::resources::envelope::Reference;
use crate::loadbalancer::IpFamily;

/// Name suffix of the internal load balancer (`<cluster>-internal`).
pub const INTERNAL_SUFFIX: &str = "-internal";

/// One backend pool id, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRef {
    /// The pool id as given (ARM casing).
    pub id: String,
    /// The owning load balancer's id, lower-cased (compare key).
    pub lb_key: String,
    /// The LB name ends with `-internal`.
    pub internal: bool,
    /// `-IPv6` pools take the IPv6 ipconfig, every other pool the primary one.
    pub family: IpFamily,
}

/// The load balancer part of a pool id (`.../loadBalancers/<lb>`), lower-cased.
pub fn lb_key_of(pool_id: &str) -> Option<String> {
    let lower = pool_id.to_ascii_lowercase();
    let at = lower.find("/backendaddresspools/")?;
    Some(lower[..at].to_string())
}

impl PoolRef {
    /// Parses `.../loadBalancers/<lb>/backendAddressPools/<pool>`; `None` for anything else.
    pub fn parse(id: &str) -> Option<PoolRef> {
        let lb_key = lb_key_of(id)?;
        let lb_name = lb_key.rsplit('/').next()?.to_string();
        let pool_name = id.rsplit('/').next()?;
        let family = if pool_name.to_ascii_lowercase().ends_with("-ipv6") {
            IpFamily::V6
        } else {
            IpFamily::V4
        };
        Some(PoolRef {
            id: id.to_string(),
            internal: lb_name.ends_with(INTERNAL_SUFFIX),
            lb_key,
            family,
        })
    }

    /// True when `reference` points at this pool (ids compare case-insensitively).
    pub fn is(&self, reference: &Reference) -> bool {
        reference
            .id
            .as_deref()
            .is_some_and(|r| r.eq_ignore_ascii_case(&self.id))
    }

    /// True when `reference` is a pool of another load balancer of the same kind (internal or
    /// public): NRP lets one NIC join one LB of each kind only.
    pub fn conflicts_with(&self, reference: &Reference) -> bool {
        let Some(other) = reference.id.as_deref().and_then(PoolRef::parse) else {
            return false;
        };
        other.lb_key != self.lb_key && other.internal == self.internal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LB: &str = "/subscriptions/s/resourceGroups/RG/providers/Microsoft.Network/loadBalancers";

    #[test]
    fn parses_lb_kind_and_family() {
        let p = PoolRef::parse(&format!(
            "{LB}/kubernetes-internal/backendAddressPools/kubernetes-IPv6"
        ))
        .unwrap();
        assert!(p.internal);
        assert_eq!(p.family, IpFamily::V6);
        assert_eq!(
            p.lb_key,
            format!("{LB}/kubernetes-internal").to_ascii_lowercase()
        );
        let q = PoolRef::parse(&format!("{LB}/kubernetes/backendAddressPools/kubernetes")).unwrap();
        assert!(!q.internal && q.family == IpFamily::V4);
        assert!(PoolRef::parse("/not/a/pool").is_none());
    }

    #[test]
    fn same_kind_other_lb_conflicts() {
        let ours =
            PoolRef::parse(&format!("{LB}/kubernetes/backendAddressPools/kubernetes")).unwrap();
        let other_public = Reference::to(format!("{LB}/other/backendAddressPools/x"));
        let internal = Reference::to(format!(
            "{LB}/kubernetes-internal/backendAddressPools/kubernetes"
        ));
        let same_lb = Reference::to(format!("{LB}/KUBERNETES/backendAddressPools/aksOutbound"));
        assert!(ours.conflicts_with(&other_public));
        assert!(!ours.conflicts_with(&internal));
        assert!(!ours.conflicts_with(&same_lb));
        assert!(ours.is(&Reference::to(format!(
            "{LB}/Kubernetes/backendAddressPools/KUBERNETES"
        ))));
    }
}
