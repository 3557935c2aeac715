//! Per-VM IMDS request budgets: 5 requests/second for metadata categories and 20/second for managed
//! identity (the limits the IMDS documentation states); excess requests get 429.

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::num::NonZeroU32;

/// Requests per second each VM may send; `None` disables a budget (load tests of other components).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImdsLimits {
    /// Instance, load balancer, versions and identity-info requests per second per VM.
    pub metadata_per_second: Option<NonZeroU32>,
    /// Managed-identity token requests per second per VM.
    pub identity_per_second: Option<NonZeroU32>,
}

impl Default for ImdsLimits {
    fn default() -> Self {
        Self {
            metadata_per_second: NonZeroU32::new(5),
            identity_per_second: NonZeroU32::new(20),
        }
    }
}

impl ImdsLimits {
    /// No budgets at all.
    pub fn unlimited() -> Self {
        Self {
            metadata_per_second: None,
            identity_per_second: None,
        }
    }
}

/// The keyed limiters (key = node name, lower-cased).
pub(super) struct Limiters {
    metadata: Option<DefaultKeyedRateLimiter<String>>,
    identity: Option<DefaultKeyedRateLimiter<String>>,
}

impl Limiters {
    pub(super) fn new(limits: ImdsLimits) -> Self {
        let make = |n: Option<NonZeroU32>| n.map(|n| RateLimiter::keyed(Quota::per_second(n)));
        Self {
            metadata: make(limits.metadata_per_second),
            identity: make(limits.identity_per_second),
        }
    }

    /// Whether `node` may send one more request in the given category.
    pub(super) fn admit(&self, node: &str, identity: bool) -> bool {
        let limiter = if identity {
            &self.identity
        } else {
            &self.metadata
        };
        limiter
            .as_ref()
            .is_none_or(|l| l.check_key(&node.to_ascii_lowercase()).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_is_per_vm() {
        let l = Limiters::new(ImdsLimits::default());
        for _ in 0..5 {
            assert!(l.admit("a", false));
        }
        assert!(!l.admit("a", false));
        assert!(!l.admit("A", false));
        assert!(l.admit("b", false));
        assert!(l.admit("a", true));
        let open = Limiters::new(ImdsLimits::unlimited());
        assert!((0..100).all(|_| open.admit("a", false)));
    }
}
