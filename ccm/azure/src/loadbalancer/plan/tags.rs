//! Config tags on the LB (anchor-ccm.md §4.7, last point): configured keys are added or
//! overwritten; other tags stay unless `systemTags` is set and they match none of its prefixes.

use crate::arm::resources::load_balancer::LoadBalancer;
use crate::config::tags::reconcile_tags;

use super::LbTarget;

/// Reconciles the LB's tags with the target's configured and system tags (no `tags` member is
/// written on an LB that has none when there is nothing to set).
pub(crate) fn reconcile_lb_tags(lb: &mut LoadBalancer, target: &LbTarget) {
    if target.tags.is_empty() && target.system_tags.is_empty() {
        return;
    }
    let mut tags = lb.tags.clone().unwrap_or_default();
    if reconcile_tags(&mut tags, &target.tags, &target.system_tags) {
        lb.tags = Some(tags);
    }
}
