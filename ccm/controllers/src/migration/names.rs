//! Controller name aliases across Kubernetes releases, so one config matches ≤1.27 and ≥1.28 names.

use ccm_names::controllers::{CLOUD_NODE, CLOUD_NODE_LIFECYCLE, NODE_IPAM, NODE_ROUTE, SERVICE_LB};

/// Each group: the name we use first, then every name the same controller had in a config file.
static GROUPS: &[&[&str]] = &[
    // ≤1.27 cloud-provider key, ≥1.28 default-config name, KEP text name.
    &[CLOUD_NODE, "cloud-node"],
    &[
        CLOUD_NODE_LIFECYCLE,
        "cloud-node-lifecycle",
        "cloud-nodelifecycle-controller",
    ],
    &[SERVICE_LB, "service", "service-controller"],
    &[NODE_ROUTE, "route", "route-controller"],
    // The anchor CCM's `node-ipam`, KCM's `node-ipam-controller` and its alias `nodeipam`.
    &[NODE_IPAM, "node-ipam-controller", "nodeipam"],
];

/// The name a controller is known by in this crate; unknown names are returned unchanged.
pub fn canonical(name: &str) -> &str {
    GROUPS
        .iter()
        .find(|group| group.contains(&name))
        .map(|group| group[0])
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_and_new_names_meet() {
        for (old, new) in [
            ("route", "route-controller"),
            ("service", "service-controller"),
            ("cloud-node-lifecycle", "cloud-node-lifecycle-controller"),
            ("nodeipam", "node-ipam"),
            ("cloud-node", "cloud-node-controller"),
        ] {
            assert_eq!(canonical(old), canonical(new), "{old} vs {new}");
        }
        assert_eq!(canonical("service-lb-controller"), SERVICE_LB);
        assert_eq!(canonical("node-route-controller"), NODE_ROUTE);
        assert_eq!(canonical("garbage-collector"), "garbage-collector");
    }

    #[test]
    fn no_name_is_in_two_groups() {
        let mut all: Vec<&str> = GROUPS.iter().flat_map(|g| g.iter().copied()).collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
