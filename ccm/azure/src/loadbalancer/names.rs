//! Azure resource names derived from a Service and the cluster (anchor-ccm.md §4.2, §4.3): the
//! byte-exact names let the out-of-tree CCM adopt what the in-tree provider created.

use super::service::{IpFamily, Protocol};

/// Longest frontend / rule / PIP name upstream produces before trimming.
pub const MAX_NAME_LENGTH: usize = 75;

/// Suffix of the internal load balancer (`<cluster>-internal`).
pub const INTERNAL_SUFFIX: &str = "-internal";

/// Probe shared by every `externalTrafficPolicy: Cluster` Service in `shared` probe mode.
pub const SHARED_PROBE_NAME: &str = "cluster-service-shared-health-probe";

/// `cloudprovider.DefaultLoadBalancerName`: `a` + UID without dashes, cut to 32 characters.
pub fn base_name(uid: &str) -> String {
    let mut name: String = std::iter::once('a')
        .chain(uid.chars().filter(|c| *c != '-'))
        .collect();
    name.truncate(32);
    name
}

/// `<cluster>` or `<cluster>-internal` (the cluster name is `loadBalancerName` when set).
pub fn load_balancer_name(cluster_or_lb_name: &str, internal: bool) -> String {
    if internal {
        format!("{cluster_or_lb_name}{INTERNAL_SUFFIX}")
    } else {
        cluster_or_lb_name.to_string()
    }
}

/// Backend pool: `<cluster>` for IPv4, `<cluster>-IPv6` for IPv6.
pub fn backend_pool_name(cluster_name: &str, family: IpFamily) -> String {
    format!("{cluster_name}{}", family.name_suffix())
}

/// Per-family suffix of per-Service names: `-IPv6` only on the IPv6 half of a dual-stack Service.
fn family_suffix(family: IpFamily, dual_stack: bool) -> &'static str {
    if dual_stack {
        family.name_suffix()
    } else {
        ""
    }
}

/// Cuts `name` to [`MAX_NAME_LENGTH`]; when it was cut and now ends on something other than a
/// letter or `_`, that last character becomes `_` (upstream's frontend-name rule).
fn trim_to_limit(name: &str) -> String {
    if name.chars().count() <= MAX_NAME_LENGTH {
        return name.to_string();
    }
    let mut out: String = name.chars().take(MAX_NAME_LENGTH).collect();
    if out
        .chars()
        .last()
        .is_some_and(|c| !c.is_alphabetic() && c != '_')
    {
        out.pop();
        out.push('_');
    }
    out
}

/// Frontend IP configuration: `<base>`, or `<base>-<subnet>` (cut to 75) with the internal
/// subnet annotation, plus `-IPv6` on the IPv6 half of a dual-stack Service.
pub fn frontend_name(
    base: &str,
    internal_subnet: Option<&str>,
    family: IpFamily,
    dual_stack: bool,
) -> String {
    let stem = match internal_subnet {
        Some(subnet) => trim_to_limit(&format!("{base}-{subnet}")),
        None => base.to_string(),
    };
    format!("{stem}{}", family_suffix(family, dual_stack))
}

/// LB rule (and its probe): `<base>[-<subnet>]-<PROTO>-<port>[-IPv6]`, the subnet part cut so
/// the whole name stays within 75 characters.
pub fn rule_name(
    base: &str,
    internal_subnet: Option<&str>,
    protocol: Protocol,
    port: u16,
    family: IpFamily,
    dual_stack: bool,
) -> String {
    let tail = format!("-{}-{port}", protocol.name_part());
    let stem = match internal_subnet {
        Some(subnet) => {
            let room = MAX_NAME_LENGTH.saturating_sub(base.len() + tail.len() + 1);
            let cut: String = subnet.chars().take(room).collect();
            format!("{base}-{cut}")
        }
        None => base.to_string(),
    };
    format!("{stem}{tail}{}", family_suffix(family, dual_stack))
}

/// Managed public IP: `<cluster>-<base>[-<prefixName>]` cut to 75, `-IPv6` for the IPv6 PIP of a
/// dual-stack Service.
pub fn public_ip_name(
    cluster_name: &str,
    base: &str,
    prefix_name: Option<&str>,
    family: IpFamily,
    dual_stack: bool,
) -> String {
    let stem = match prefix_name {
        Some(prefix) => format!("{cluster_name}-{base}-{prefix}"),
        None => format!("{cluster_name}-{base}"),
    };
    let stem: String = stem.chars().take(MAX_NAME_LENGTH).collect();
    format!("{stem}{}", family_suffix(family, dual_stack))
}

/// Route for a node's pod CIDR: `<node>____<cidr without '.', ':' and '/'>` (anchor-ccm.md §5).
pub fn route_name(node_name: &str, cidr: &str) -> String {
    let digits: String = cidr
        .chars()
        .filter(|c| !matches!(c, '.' | ':' | '/'))
        .collect();
    format!("{node_name}____{digits}")
}

/// The node a route name points at (the part before `____`; legacy routes are just the name).
pub fn route_target_node(route_name: &str) -> &str {
    route_name
        .split_once("____")
        .map_or(route_name, |(node, _)| node)
}

#[cfg(test)]
mod tests {
    use super::*;

    const UID: &str = "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809";

    #[test]
    fn base_name_drops_dashes_and_keeps_32_characters() {
        assert_eq!(base_name(UID), "a1a2b3c4d5e6f708192a3b4c5d6e7f80");
        assert_eq!(base_name(UID).len(), 32);
        assert_eq!(base_name("ab-c"), "aabc");
    }

    #[test]
    fn load_balancer_and_pool_names() {
        assert_eq!(load_balancer_name("kubernetes", false), "kubernetes");
        assert_eq!(load_balancer_name("kubernetes", true), "kubernetes-internal");
        assert_eq!(backend_pool_name("k8s", IpFamily::V4), "k8s");
        assert_eq!(backend_pool_name("k8s", IpFamily::V6), "k8s-IPv6");
    }

    #[test]
    fn frontend_names_follow_subnet_and_family() {
        let base = base_name(UID);
        assert_eq!(frontend_name(&base, None, IpFamily::V4, false), base);
        assert_eq!(frontend_name(&base, None, IpFamily::V6, false), base);
        assert_eq!(
            frontend_name(&base, None, IpFamily::V6, true),
            format!("{base}-IPv6")
        );
        assert_eq!(
            frontend_name(&base, Some("snet"), IpFamily::V4, false),
            format!("{base}-snet")
        );
        let long = "s".repeat(60) + "-";
        let name = frontend_name(&base, Some(&long), IpFamily::V4, false);
        assert_eq!(name.len(), MAX_NAME_LENGTH);
        assert!(name.ends_with('s'));
        let ends_on_digit = format!("{}9x", "s".repeat(41));
        let name = frontend_name(&base, Some(&ends_on_digit), IpFamily::V4, true);
        assert!(name.ends_with("_"), "{name}");
        let ends_on_dash = format!("{}-x", "s".repeat(41));
        let name = frontend_name(&base, Some(&ends_on_dash), IpFamily::V4, false);
        assert_eq!(name.len(), MAX_NAME_LENGTH);
        assert!(name.ends_with('_'), "{name}");
    }

    #[test]
    fn rule_names_fit_75_characters() {
        let base = base_name(UID);
        assert_eq!(
            rule_name(&base, None, Protocol::Tcp, 80, IpFamily::V4, false),
            format!("{base}-TCP-80")
        );
        assert_eq!(
            rule_name(&base, None, Protocol::Udp, 53, IpFamily::V6, true),
            format!("{base}-UDP-53-IPv6")
        );
        let subnet = "x".repeat(80);
        let name = rule_name(&base, Some(&subnet), Protocol::Sctp, 9000, IpFamily::V4, false);
        assert_eq!(name.len(), MAX_NAME_LENGTH);
        assert!(name.ends_with("-SCTP-9000"));
    }

    #[test]
    fn public_ip_names() {
        let base = base_name(UID);
        assert_eq!(
            public_ip_name("k8s", &base, None, IpFamily::V4, false),
            format!("k8s-{base}")
        );
        assert_eq!(
            public_ip_name("k8s", &base, Some("pfx"), IpFamily::V6, true),
            format!("k8s-{base}-pfx-IPv6")
        );
    }

    #[test]
    fn route_names_round_trip_the_node() {
        assert_eq!(
            route_name("aks-np-vmss000000", "10.244.1.0/24"),
            "aks-np-vmss000000____102441024"
        );
        assert_eq!(route_name("n1", "fd00:10:244::/64"), "n1____fd001024464");
        assert_eq!(route_target_node("n1____fd001024464"), "n1");
        assert_eq!(route_target_node("legacy-node"), "legacy-node");
    }
}
