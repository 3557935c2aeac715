//! Label sets of the ARM metrics, and the parsing of `x-ms-ratelimit-remaining-*` headers.

use prometheus_client::encoding::EncodeLabelSet;

/// Labels of upstream's legacy `cloudprovider_azure_*` metrics.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct LegacyLabels {
    /// What was called (`loadBalancer_get`, `services_ensure_loadbalancer`, ...).
    pub request: String,
    /// Resource group of the call (lower-cased), empty at subscription scope.
    pub resource_group: String,
    /// Subscription of the call.
    pub subscription_id: String,
    /// Which component made the call (empty unless configured).
    pub source: String,
}

/// Attributes of the `arm_request_*` family.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ArmLabels {
    /// Subscription of the call.
    pub subscription_id: String,
    /// Resource group of the call (lower-cased), empty at subscription scope.
    pub resource_group: String,
    /// The ARM client (`loadBalancer`, `virtualMachineScaleSet`, ...).
    pub resource: String,
    /// HTTP method.
    pub method: String,
}

/// Attributes of `arm_request_errors_counter_total`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ArmErrorLabels {
    /// Subscription of the call.
    pub subscription_id: String,
    /// Resource group of the call (lower-cased), empty at subscription scope.
    pub resource_group: String,
    /// The ARM client.
    pub resource: String,
    /// HTTP method.
    pub method: String,
    /// HTTP status, `0` when no response arrived.
    pub status_code: String,
    /// ARM error code, or our own reason (`GateClosed`, `RateLimited`, `Transport`).
    pub error_code: String,
}

/// Labels of the remaining-quota gauge: the header, and for `...-resource` the RP policy.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct RemainingLabels {
    /// Header name, lower-case (`x-ms-ratelimit-remaining-subscription-reads`).
    pub header: String,
    /// `Microsoft.Compute/HighCostGet3Min` for the resource header, empty otherwise.
    pub policy: String,
}

/// Every `x-ms-ratelimit-remaining-*` value in `headers`: plain integers, and the Compute RP's
/// `<RP>/<policy>;<n>` lists (comma-separated or repeated). Malformed values are skipped.
pub fn remaining(headers: &reqwest::header::HeaderMap) -> Vec<(RemainingLabels, i64)> {
    let mut out = Vec::new();
    for (name, value) in headers {
        let name = name.as_str();
        if !name.starts_with("x-ms-ratelimit-remaining-") {
            continue;
        }
        let Ok(value) = value.to_str() else { continue };
        for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (policy, number) = match part.rsplit_once(';') {
                Some((policy, number)) => (policy.trim(), number.trim()),
                None => ("", part),
            };
            if let Ok(n) = number.parse::<i64>() {
                out.push((
                    RemainingLabels {
                        header: name.to_string(),
                        policy: policy.to_string(),
                    },
                    n,
                ));
            }
        }
    }
    out
}

/// `(subscription, resource group lower-cased)` read from an ARM path; empty when absent.
pub fn scope_of(path: &str) -> (String, String) {
    let mut segments = path.split('/').filter(|s| !s.is_empty());
    let mut subscription = String::new();
    let mut resource_group = String::new();
    while let Some(segment) = segments.next() {
        if segment.eq_ignore_ascii_case("subscriptions") && subscription.is_empty() {
            subscription = segments.next().unwrap_or_default().to_string();
        } else if segment.eq_ignore_ascii_case("resourcegroups") && resource_group.is_empty() {
            resource_group = segments.next().unwrap_or_default().to_ascii_lowercase();
        }
    }
    (subscription, resource_group)
}
