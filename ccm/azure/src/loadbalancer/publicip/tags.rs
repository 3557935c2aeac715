//! Public IP tags: who uses a managed PIP (`k8s-azure-service`), which cluster made it, who owns its
//! DNS label, read under the current or the legacy keys. Written under the current keys; under the
//! legacy ones (`service`, `kubernetes-cluster-name`, `kubernetes-dns-label-service`, the in-tree
//! provider's: `legacy-cloud-providers/azure/azure_loadbalancer.go`) only for the harness's
//! stand-in in-tree KCM ([`to_legacy_keys`]). [infer] The stand-in still reads the current keys
//! too, where the in-tree provider read only its own.

use std::collections::BTreeMap;

use ccm_names::resource_tags::{
    CLUSTER_NAME, DNS_LABEL_SERVICE, LEGACY_CLUSTER_NAME, LEGACY_DNS_LABEL_SERVICE, LEGACY_SERVICE,
    SERVICE,
};

/// Tags as ARM returns them.
pub type Tags = BTreeMap<String, String>;

/// The value under `key`, else under `legacy`; empty values count as absent.
fn current_or_legacy<'a>(tags: &'a Tags, key: &str, legacy: &str) -> Option<&'a str> {
    tags.get(key)
        .or_else(|| tags.get(legacy))
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// The raw service-tag value (`ns/a,ns/b`), current key first.
pub fn service_tag(tags: &Tags) -> Option<&str> {
    current_or_legacy(tags, SERVICE, LEGACY_SERVICE)
}

/// Services listed in the service tag, trimmed, empty items dropped.
pub fn services(tags: &Tags) -> Vec<String> {
    service_tag(tags)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// True when `service` (`ns/name`) is listed, compared case-insensitively as upstream does.
pub fn lists_service(tags: &Tags, service: &str) -> bool {
    services(tags)
        .iter()
        .any(|s| s.eq_ignore_ascii_case(service))
}

/// The cluster tag, current key first.
pub fn cluster(tags: &Tags) -> Option<&str> {
    current_or_legacy(tags, CLUSTER_NAME, LEGACY_CLUSTER_NAME)
}

/// The Service owning the DNS label, current key first.
pub fn dns_owner(tags: &Tags) -> Option<&str> {
    current_or_legacy(tags, DNS_LABEL_SERVICE, LEGACY_DNS_LABEL_SERVICE)
}

/// Writes the service list under the current key and drops the legacy one [infer: upstream's
/// bind keeps one list; writing it under the new key while the legacy key remains would leave
/// two lists that disagree after the next unbind].
pub fn set_services(tags: &mut Tags, services: &[String]) {
    tags.insert(SERVICE.to_string(), services.join(","));
    tags.remove(LEGACY_SERVICE);
}

/// Adds `service` to the list (kept in the order services joined); true when it was missing.
pub fn bind(tags: &mut Tags, service: &str) -> bool {
    let mut list = services(tags);
    if list.iter().any(|s| s.eq_ignore_ascii_case(service)) {
        if tags.contains_key(LEGACY_SERVICE) && !tags.contains_key(SERVICE) {
            set_services(tags, &list);
            return true;
        }
        return false;
    }
    list.push(service.to_string());
    set_services(tags, &list);
    true
}

/// Removes `service` from the list and releases the DNS label tags it holds.
pub fn unbind(tags: &mut Tags, service: &str) {
    let list: Vec<String> = services(tags)
        .into_iter()
        .filter(|s| !s.eq_ignore_ascii_case(service))
        .collect();
    set_services(tags, &list);
    if dns_owner(tags).is_some_and(|owner| owner.eq_ignore_ascii_case(service)) {
        tags.remove(DNS_LABEL_SERVICE);
        tags.remove(LEGACY_DNS_LABEL_SERVICE);
    }
}

/// Claims the DNS label for `service`.
pub fn set_dns_owner(tags: &mut Tags, service: &str) {
    tags.insert(DNS_LABEL_SERVICE.to_string(), service.to_string());
}

/// Each current ownership key with the legacy key the in-tree provider wrote instead.
const KEY_PAIRS: [(&str, &str); 3] = [
    (SERVICE, LEGACY_SERVICE),
    (CLUSTER_NAME, LEGACY_CLUSTER_NAME),
    (DNS_LABEL_SERVICE, LEGACY_DNS_LABEL_SERVICE),
];

/// Moves the ownership tags the plan wrote under the current keys to the in-tree provider's
/// legacy keys (reproducing the in-tree provider). A current key the PIP already carried in
/// `before` (a CCM wrote it) keeps its old value: the in-tree provider did not know that key.
pub fn to_legacy_keys(tags: &mut Tags, before: &Tags) {
    for (current, legacy) in KEY_PAIRS {
        if let Some(value) = tags.remove(current) {
            tags.insert(legacy.to_string(), value);
            if let Some(old) = before.get(current) {
                tags.insert(current.to_string(), old.clone());
            }
        }
    }
}

/// The ownership tags of a PIP the plan creates: service and cluster, under the current keys or
/// (`legacy`) the in-tree provider's.
pub fn new_owner_tags(service: &str, cluster: &str, legacy: bool) -> Tags {
    let (service_key, cluster_key) = if legacy {
        (LEGACY_SERVICE, LEGACY_CLUSTER_NAME)
    } else {
        (SERVICE, CLUSTER_NAME)
    };
    Tags::from([
        (service_key.to_string(), service.to_string()),
        (cluster_key.to_string(), cluster.to_string()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn legacy_keys_are_read_when_current_ones_are_absent() {
        let t = tags(&[
            ("service", "ns/a, ns/b"),
            ("kubernetes-cluster-name", "k8s"),
            ("kubernetes-dns-label-service", "ns/a"),
        ]);
        assert_eq!(services(&t), vec!["ns/a", "ns/b"]);
        assert_eq!(cluster(&t), Some("k8s"));
        assert_eq!(dns_owner(&t), Some("ns/a"));
        assert!(lists_service(&t, "NS/B"));
    }

    #[test]
    fn bind_and_unbind_keep_one_list_under_the_current_key() {
        let mut t = tags(&[("service", "ns/a")]);
        assert!(bind(&mut t, "ns/b"));
        assert_eq!(t, tags(&[("k8s-azure-service", "ns/a,ns/b")]));
        assert!(!bind(&mut t, "ns/a"));
        set_dns_owner(&mut t, "ns/a");
        unbind(&mut t, "ns/a");
        assert_eq!(t, tags(&[("k8s-azure-service", "ns/b")]));
        unbind(&mut t, "ns/b");
        assert_eq!(services(&t), Vec::<String>::new());
    }

    #[test]
    fn legacy_keys_move_what_was_written_and_keep_a_ccm_key_found_before() {
        let before = tags(&[("service", "ns/a"), ("kubernetes-cluster-name", "k8s")]);
        let mut t = before.clone();
        bind(&mut t, "ns/b");
        set_dns_owner(&mut t, "ns/b");
        to_legacy_keys(&mut t, &before);
        assert_eq!(
            t,
            tags(&[
                ("service", "ns/a,ns/b"),
                ("kubernetes-cluster-name", "k8s"),
                ("kubernetes-dns-label-service", "ns/b"),
            ])
        );
        let ccm = tags(&[("k8s-azure-service", "ns/a")]);
        let mut t = ccm.clone();
        bind(&mut t, "ns/b");
        to_legacy_keys(&mut t, &ccm);
        assert_eq!(
            t,
            tags(&[("k8s-azure-service", "ns/a"), ("service", "ns/a,ns/b")])
        );
    }
}
