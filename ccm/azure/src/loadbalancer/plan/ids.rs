//! ARM ids of the load balancer and its children, and how references to them are compared:
//! the ids the CCM writes are built from the config (as upstream does), while ids read back may
//! differ in casing, so every comparison ignores ASCII case.

use crate::arm::resources::Reference;

use super::LbTarget;

/// Builds the ids of one load balancer's children.
#[derive(Debug, Clone)]
pub(crate) struct LbIds {
    lb_id: String,
}

impl LbIds {
    /// Ids for the load balancer `target` describes.
    pub(crate) fn new(target: &LbTarget) -> Self {
        LbIds {
            lb_id: format!(
                "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Network/loadBalancers/{}",
                target.subscription, target.resource_group, target.name
            ),
        }
    }

    fn child(&self, collection: &str, name: &str) -> String {
        format!("{}/{collection}/{name}", self.lb_id)
    }

    /// `.../frontendIPConfigurations/<name>`.
    pub(crate) fn frontend(&self, name: &str) -> String {
        self.child("frontendIPConfigurations", name)
    }

    /// `.../backendAddressPools/<name>`.
    pub(crate) fn pool(&self, name: &str) -> String {
        self.child("backendAddressPools", name)
    }

    /// `.../probes/<name>`.
    pub(crate) fn probe(&self, name: &str) -> String {
        self.child("probes", name)
    }
}

/// Two optional ids name the same resource (ASCII case ignored; both absent counts as equal).
pub(crate) fn same_id(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => false,
    }
}

/// Two optional references point at the same resource.
pub(crate) fn same_reference(a: Option<&Reference>, b: Option<&Reference>) -> bool {
    same_id(
        a.and_then(|r| r.id.as_deref()),
        b.and_then(|r| r.id.as_deref()),
    )
}

/// The last path segment of an id (a child's name).
pub(crate) fn last_segment(id: &str) -> &str {
    id.trim_end_matches('/').rsplit('/').next().unwrap_or(id)
}

/// True when `reference` points at the child called `name` of this load balancer.
pub(crate) fn refers_to(reference: Option<&Reference>, name: &str) -> bool {
    reference
        .and_then(|r| r.id.as_deref())
        .is_some_and(|id| last_segment(id).eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_compare_without_case() {
        let a = Reference::to("/subscriptions/S/resourceGroups/RG/x/probes/P1");
        let b = Reference::to("/subscriptions/s/resourcegroups/rg/x/probes/p1");
        assert!(same_reference(Some(&a), Some(&b)));
        assert!(!same_reference(Some(&a), None));
        assert!(same_reference(None, None));
        assert!(refers_to(Some(&a), "p1"));
        assert!(!refers_to(Some(&a), "p"));
        assert_eq!(last_segment("a/b/c"), "c");
    }
}
