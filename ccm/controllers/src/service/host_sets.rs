//! The node names each Service's load balancer was last given, which node sync compares with the
//! current stable set. Services synced against the same set share one copy of it: a set per
//! Service was 5 million names (hundreds of MiB) at 5000 nodes and 1000 Services.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// One node-name set, shared by every Service that was given it.
pub type HostSet = Arc<BTreeSet<String>>;

/// Each Service's last given node set, keyed `namespace/name`.
#[derive(Debug, Default)]
pub struct HostSets {
    by_service: HashMap<String, HostSet>,
    /// The set handed out last: an equal new set is replaced by it.
    latest: Option<HostSet>,
}

impl HostSets {
    /// `names` as a shared set: the latest one when equal, so equal sets are stored once.
    pub fn share(&mut self, names: BTreeSet<String>) -> HostSet {
        if let Some(latest) = &self.latest
            && **latest == names
        {
            return Arc::clone(latest);
        }
        let shared = Arc::new(names);
        self.latest = Some(Arc::clone(&shared));
        shared
    }

    /// Records that `key`'s load balancer was given `names`.
    pub fn insert(&mut self, key: String, names: HostSet) {
        self.by_service.insert(key, names);
    }

    /// The set `key`'s load balancer was last given.
    pub fn get(&self, key: &str) -> Option<&BTreeSet<String>> {
        self.by_service.get(key).map(AsRef::as_ref)
    }

    /// Forgets `key`.
    pub fn remove(&mut self, key: &str) {
        self.by_service.remove(key);
    }

    /// Keeps only the Services `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.by_service.retain(|key, _| keep(key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn services_given_equal_sets_share_one_copy() {
        let mut hosts = HostSets::default();
        let first = hosts.share(names(&["n1", "n2"]));
        hosts.insert("default/a".into(), first);
        let second = hosts.share(names(&["n1", "n2"]));
        hosts.insert("default/b".into(), second);
        let a = hosts.get("default/a").expect("a recorded");
        let b = hosts.get("default/b").expect("b recorded");
        assert!(std::ptr::eq(a, b), "one set for both Services");
        assert_eq!(*a, names(&["n1", "n2"]));
    }

    #[test]
    fn a_changed_set_is_a_new_copy_and_old_holders_keep_theirs() {
        let mut hosts = HostSets::default();
        let old = hosts.share(names(&["n1"]));
        hosts.insert("default/a".into(), old);
        let new = hosts.share(names(&["n1", "n2"]));
        hosts.insert("default/b".into(), new);
        assert_eq!(hosts.get("default/a"), Some(&names(&["n1"])));
        assert_eq!(hosts.get("default/b"), Some(&names(&["n1", "n2"])));
        hosts.retain(|key| key == "default/b");
        hosts.remove("default/b");
        assert_eq!(hosts.get("default/a"), None);
        assert_eq!(hosts.get("default/b"), None);
    }
}
