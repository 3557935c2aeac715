//! Frontend wishes: internal or public, subnet, IP families, requested IPs, public IP settings
//! and additional public IPs.

use std::collections::BTreeMap;
use std::net::IpAddr;

use ccm_names::service_annotations as sa;
use k8s_openapi::api::core::v1::ServiceSpec;

use super::annotations::Annotations;
use super::error::ServiceConfigError;
use crate::loadbalancer::service::{IpFamily, PerFamily, PublicIpSettings};

/// `spec.ipFamilies` in order; empty or absent means `[IPv4]`.
pub(super) fn families(spec: &ServiceSpec) -> Result<Vec<IpFamily>, ServiceConfigError> {
    let given = spec.ip_families.as_deref().unwrap_or_default();
    let mut out = Vec::new();
    for (i, f) in given.iter().enumerate() {
        let family = match f.as_str() {
            "IPv4" => IpFamily::V4,
            "IPv6" => IpFamily::V6,
            other => {
                return Err(ServiceConfigError::InvalidValue {
                    key: format!("spec.ipFamilies[{i}]"),
                    value: other.to_string(),
                    accepted: "`IPv4`, `IPv6`".to_string(),
                });
            }
        };
        if !out.contains(&family) {
            out.push(family);
        }
    }
    if out.is_empty() {
        out.push(IpFamily::V4);
    }
    Ok(out)
}

/// `azure-load-balancer-internal-subnet`, only for internal Services and only when not blank
/// (upstream ignores it otherwise); the value is kept as given.
pub(super) fn internal_subnet(a: &Annotations<'_>, internal: bool) -> Option<String> {
    let slot = a.get(sa::INTERNAL_SUBNET)?;
    (internal && !slot.value.trim().is_empty()).then(|| slot.value.to_string())
}

/// Requested frontend IPs per family: the family's annotation wins; otherwise
/// `spec.loadBalancerIP` goes to its own family. Only families of the Service are filled. An
/// empty annotation counts as absent (upstream checks `ip != ""`).
pub(super) fn requested_ips(
    a: &Annotations<'_>,
    spec: &ServiceSpec,
    families: &[IpFamily],
) -> Result<PerFamily<Option<IpAddr>>, ServiceConfigError> {
    let mut out = PerFamily::<Option<IpAddr>>::default();
    for (family, key) in [
        (IpFamily::V4, sa::LOAD_BALANCER_IPV4),
        (IpFamily::V6, sa::LOAD_BALANCER_IPV6),
    ] {
        if let Some(slot) = a.get(key).filter(|s| !s.value.is_empty()) {
            let ip = slot.ip_address()?;
            if families.contains(&family) {
                *out.get_mut(family) = Some(ip);
            }
        }
    }
    if let Some(given) = spec.load_balancer_ip.as_deref().filter(|s| !s.is_empty()) {
        let ip: IpAddr = given
            .parse()
            .map_err(|_| ServiceConfigError::InvalidValue {
                key: "spec.loadBalancerIP".to_string(),
                value: given.to_string(),
                accepted: "an IPv4 or IPv6 address".to_string(),
            })?;
        let family = IpFamily::of(&ip);
        if families.contains(&family) && out.get(family).is_none() {
            *out.get_mut(family) = Some(ip);
        }
    }
    Ok(out)
}

/// A free-text annotation as given; a blank value counts as absent.
fn non_blank(a: &Annotations<'_>, key: &'static str) -> Option<String> {
    a.get(key)
        .map(|s| s.value)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string)
}

/// Per-family values of a `<key>` / `<key>-ipv6` pair: a dual-stack Service reads one per
/// family; a single-stack Service (IPv4 or IPv6) reads the unsuffixed key for its only family
/// (upstream `getServicePIPName`, `getServicePIPPrefixID`).
fn per_family(
    a: &Annotations<'_>,
    families: &[IpFamily],
    key: &'static str,
    key_ipv6: &'static str,
) -> PerFamily<Option<String>> {
    let plain = non_blank(a, key);
    let suffixed = non_blank(a, key_ipv6);
    let mut out = PerFamily::default();
    match families {
        [only] => *out.get_mut(*only) = plain,
        _ => {
            out.v4 = plain;
            out.v6 = suffixed;
        }
    }
    out
}

/// Public IP wishes: names, resource group, DNS label, prefixes, tags and IP tags.
pub(super) fn public_ip(
    a: &Annotations<'_>,
    families: &[IpFamily],
) -> Result<PublicIpSettings, ServiceConfigError> {
    let mut tags = BTreeMap::new();
    if let Some(slot) = a.get(sa::PIP_TAGS) {
        for (k, v) in slot.key_value_pairs()? {
            tags.insert(k, v);
        }
    }
    let ip_tags = match a.get(sa::PIP_IP_TAGS) {
        Some(slot) => slot.key_value_pairs()?,
        None => Vec::new(),
    };
    Ok(PublicIpSettings {
        names: per_family(a, families, sa::PIP_NAME, sa::PIP_NAME_IPV6),
        resource_group: non_blank(a, sa::LOAD_BALANCER_RESOURCE_GROUP)
            .map(|g| g.trim().to_string()),
        // Absent and empty differ: empty removes the label.
        dns_label: a.get(sa::DNS_LABEL_NAME).map(|s| s.value.to_string()),
        prefix_ids: per_family(a, families, sa::PIP_PREFIX_ID, sa::PIP_PREFIX_ID_IPV6),
        tags,
        ip_tags,
    })
}

/// `azure-additional-public-ips`: comma-separated addresses; one bad item refuses the list (as
/// upstream does).
pub(super) fn additional_public_ips(
    a: &Annotations<'_>,
) -> Result<Vec<IpAddr>, ServiceConfigError> {
    let Some(slot) = a.get(sa::ADDITIONAL_PUBLIC_IPS) else {
        return Ok(Vec::new());
    };
    slot.comma_items()
        .iter()
        .map(|item| item.parse::<IpAddr>().map_err(|_| slot.invalid()))
        .collect()
}
