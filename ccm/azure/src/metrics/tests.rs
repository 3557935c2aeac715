use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;
use reqwest::header::{HeaderMap, HeaderValue};

use super::*;

#[test]
fn remaining_headers_become_gauges_per_header_and_policy() {
    let mut headers = HeaderMap::new();
    headers.insert(
        "x-ms-ratelimit-remaining-subscription-reads",
        HeaderValue::from_static("249"),
    );
    headers.append(
        "x-ms-ratelimit-remaining-resource",
        HeaderValue::from_static(
            "Microsoft.Compute/HighCostGet3Min;159,Microsoft.Compute/HighCostGet30Min;1299",
        ),
    );
    headers.insert(
        "x-ms-ratelimit-remaining-tenant-reads",
        HeaderValue::from_static("n/a"),
    );
    let mut registry = Registry::default();
    let metrics = ArmMetrics::register(&mut registry);
    metrics.record_remaining(&headers);
    let mut text = String::new();
    encode(&mut text, &registry).unwrap();
    let mut lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("cloudprovider_azure_arm_ratelimit_remaining{"))
        .collect();
    lines.sort();
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn scope_comes_from_the_path() {
    assert_eq!(
        labels::scope_of(
            "/subscriptions/S/resourceGroups/My-RG/providers/Microsoft.Network/loadBalancers/lb"
        ),
        ("S".to_string(), "my-rg".to_string())
    );
    assert_eq!(
        labels::scope_of(
            "/subscriptions/S/providers/Microsoft.Compute/locations/eastus/operations/1"
        ),
        ("S".to_string(), String::new())
    );
}

#[test]
fn names_are_upstreams() {
    let mut registry = Registry::default();
    let metrics = ArmMetrics::register(&mut registry);
    let legacy = LegacyLabels {
        request: "loadBalancer_get".into(),
        resource_group: "rg".into(),
        subscription_id: "sub".into(),
        source: String::new(),
    };
    let arm = ArmLabels {
        subscription_id: "sub".into(),
        resource_group: "rg".into(),
        resource: "loadBalancer".into(),
        method: "GET".into(),
    };
    metrics
        .api_request_duration
        .get_or_create(&legacy)
        .observe(0.2);
    metrics.api_request_errors.get_or_create(&legacy).inc();
    metrics.api_request_throttled.get_or_create(&legacy).inc();
    metrics.api_request_ratelimited.get_or_create(&legacy).inc();
    metrics.observe_op(&legacy, std::time::Duration::from_millis(300), true);
    metrics
        .arm_request_duration
        .get_or_create(&arm)
        .observe(0.2);
    metrics
        .arm_request_errors
        .get_or_create(&ArmErrorLabels {
            subscription_id: "sub".into(),
            resource_group: "rg".into(),
            resource: "loadBalancer".into(),
            method: "GET".into(),
            status_code: "429".into(),
            error_code: "SubscriptionRequestsThrottled".into(),
        })
        .inc();
    metrics.arm_request_rate_limit.get_or_create(&arm).inc();
    metrics.arm_request_throttle.get_or_create(&arm).inc();
    let mut text = String::new();
    encode(&mut text, &registry).unwrap();
    // Exposed sample names (without labels or histogram suffixes), as a scraper sees them.
    let samples: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(['{', ' ']).next())
        .collect();
    // A histogram's `_bucket` and `_count` series go with its `_sum`; every other name stays.
    let histogram_part = |n: &str| {
        n.ends_with("_bucket")
            || n.strip_suffix("_count")
                .is_some_and(|base| samples.contains(format!("{base}_sum").as_str()))
    };
    let names: Vec<&str> = samples
        .iter()
        .copied()
        .filter(|n| !histogram_part(n))
        .collect();
    insta::assert_snapshot!(names.join("\n"));
}
