//! Config tags on the LB (anchor-ccm.md §4.7, last point): configured keys are added or
//! overwritten, every other tag stays.

use std::collections::BTreeMap;

use crate::arm::resources::load_balancer::LoadBalancer;

/// Adds / overwrites the configured tags (keys match without ASCII case).
pub(crate) fn reconcile_tags(lb: &mut LoadBalancer, wanted: &BTreeMap<String, String>) {
    if wanted.is_empty() {
        return;
    }
    let tags = lb.tags.get_or_insert_with(BTreeMap::new);
    for (key, value) in wanted {
        let existing = tags.keys().find(|k| k.eq_ignore_ascii_case(key)).cloned();
        match existing {
            Some(k) if tags.get(&k).is_some_and(|v| v.eq_ignore_ascii_case(value)) => {}
            Some(k) => {
                tags.insert(k, value.clone());
            }
            None => {
                tags.insert(key.clone(), value.clone());
            }
        }
    }
}
