//! NSG sources: `spec.loadBalancerSourceRanges`, `azure-allowed-ip-ranges` and its legacy alias,
//! `azure-allowed-service-tags`, deny-all-except and the break-glass switch.

use ccm_names::service_annotations as sa;
use ipnet::IpNet;
use k8s_openapi::api::core::v1::ServiceSpec;

use super::ServiceWarning;
use super::annotations::Annotations;
use super::error::ServiceConfigError;
use crate::loadbalancer::service::SecuritySettings;

/// Event reason for invalid `spec.loadBalancerSourceRanges` entries.
pub const REASON_INVALID_SOURCE_RANGES: &str = "InvalidSourceRanges";
/// Event reason for invalid `azure-allowed-ip-ranges` (or legacy alias) entries.
pub const REASON_INVALID_ALLOWED_IP_RANGES: &str = "InvalidAllowedIPRanges";
/// Event reason for spec source ranges given together with service tags.
pub const REASON_CONFLICT_CONFIGURATION: &str = "ConflictConfiguration";

/// A CIDR as upstream accepts it: `addr/bits` with no host bits set; surrounding spaces trimmed.
pub(super) fn parse_cidr(text: &str) -> Option<IpNet> {
    let net: IpNet = text.trim().parse().ok()?;
    (net.trunc() == net).then_some(net)
}

/// Valid and invalid entries of a list of CIDRs, in order.
fn split_ranges<'s>(items: impl Iterator<Item = &'s str>) -> (Vec<IpNet>, Vec<String>) {
    let (mut valid, mut invalid) = (Vec::new(), Vec::new());
    for item in items {
        match parse_cidr(item) {
            Some(net) => valid.push(net),
            None => invalid.push(item.trim().to_string()),
        }
    }
    (valid, invalid)
}

/// NSG settings plus the warnings upstream raises as events.
pub(super) fn security(
    a: &Annotations<'_>,
    spec: &ServiceSpec,
    warnings: &mut Vec<ServiceWarning>,
) -> Result<SecuritySettings, ServiceConfigError> {
    let disabled = a.flag(sa::DISABLE_NSG_RULE)?;
    let deny_all_except_source_ranges = a.flag(sa::DENY_ALL_EXCEPT_SOURCE_RANGES)?;

    let service_tags = match a.get(sa::ALLOWED_SERVICE_TAGS) {
        Some(slot) => {
            let tags = slot.comma_items();
            if tags.iter().any(String::is_empty) {
                return Err(slot.invalid());
            }
            tags
        }
        None => Vec::new(),
    };

    let spec_given = spec
        .load_balancer_source_ranges
        .as_deref()
        .unwrap_or_default();
    let (spec_valid, spec_invalid) = split_ranges(spec_given.iter().map(String::as_str));

    let mut ann_valid = Vec::new();
    let mut ann_invalid = Vec::new();
    let mut ann_key = None;
    let mut invalid_keys = Vec::new();
    for key in [sa::ALLOWED_IP_RANGES, sa::LEGACY_SOURCE_RANGES] {
        if let Some(slot) = a.get(key) {
            let items = slot.comma_items();
            let (valid, invalid) = split_ranges(items.iter().map(String::as_str));
            if !valid.is_empty() && ann_key.is_none() {
                ann_key = Some((slot.key.to_string(), slot.value.to_string()));
            }
            if !invalid.is_empty() {
                invalid_keys.push(key);
            }
            ann_valid.extend(valid);
            ann_invalid.extend(invalid);
        }
    }

    if let (false, Some((key, value))) = (spec_valid.is_empty(), ann_key) {
        return Err(ServiceConfigError::Conflict {
            key,
            value,
            other: "spec.loadBalancerSourceRanges".to_string(),
        });
    }
    if !spec_invalid.is_empty() {
        warnings.push(ServiceWarning {
            reason: REASON_INVALID_SOURCE_RANGES,
            message: format!(
                "spec.loadBalancerSourceRanges: ignoring invalid CIDRs {spec_invalid:?} and \
                 adding a deny-all security rule for the Service"
            ),
        });
    }
    if !ann_invalid.is_empty() {
        warnings.push(ServiceWarning {
            reason: REASON_INVALID_ALLOWED_IP_RANGES,
            message: format!(
                "{}: ignoring invalid CIDRs {ann_invalid:?} and adding a deny-all security rule \
                 for the Service",
                invalid_keys.join(", ")
            ),
        });
    }
    if !spec_valid.is_empty() && !service_tags.is_empty() {
        warnings.push(ServiceWarning {
            reason: REASON_CONFLICT_CONFIGURATION,
            message: format!(
                "spec.loadBalancerSourceRanges is set together with {}: kube-proxy drops traffic \
                 from the service tags; put the ranges in {} instead",
                sa::ALLOWED_SERVICE_TAGS,
                sa::ALLOWED_IP_RANGES
            ),
        });
    }

    let mut source_ranges = spec_valid;
    source_ranges.extend(ann_valid);
    let mut invalid_ranges = spec_invalid;
    invalid_ranges.extend(ann_invalid);
    Ok(SecuritySettings {
        disabled,
        source_ranges,
        invalid_ranges,
        service_tags,
        deny_all_except_source_ranges,
    })
}
