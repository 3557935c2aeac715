use std::collections::BTreeMap;

use super::*;
use crate::config::{Inputs, Origin, SourceText, load};

fn limits(json: &str) -> RateLimits {
    let origin = Origin::File("/etc/kubernetes/azure.json".into());
    load(&Inputs {
        file: Some(SourceText {
            origin: &origin,
            text: json,
        }),
        secret: None,
        env: BTreeMap::new(),
    })
    .expect("valid azure.json")
    .config
    .rate_limits
}

/// How many tokens a bucket grants back to back (its burst, with a QPS too low to refill).
fn burst(limiter: &ClientLimiter, op: OpKind) -> u32 {
    let Some(bucket) = limiter.bucket(op) else {
        return 0;
    };
    (0..1000).take_while(|_| bucket.check().is_ok()).count() as u32
}

#[test]
fn limits_from_azure_json_apply_per_client_with_overrides() {
    let limits = limits(
        r#"{
            "tenantId": "t", "subscriptionId": "s", "aadClientId": "c", "aadClientSecret": "x",
            "resourceGroup": "rg", "location": "eastus",
            "cloudProviderRatelimit": true,
            "cloudProviderRateLimitQPS": 0.01, "cloudProviderRateLimitBucket": 4,
            "cloudProviderRateLimitQPSWrite": 0.01, "cloudProviderRateLimitBucketWrite": 2,
            "loadBalancerRateLimit": {"cloudProviderRateLimit": true, "cloudProviderRateLimitBucket": 7},
            "securityGroupRateLimit": {"cloudProviderRateLimit": false}
        }"#,
    );
    let limiters = Limiters::from_config(&limits);
    let vm = limiters.client(ClientKind::VirtualMachine).unwrap();
    assert_eq!(burst(vm, OpKind::Read), 4);
    assert_eq!(burst(vm, OpKind::Write), 2);
    let lb = limiters.client(ClientKind::LoadBalancer).unwrap();
    assert_eq!(burst(lb, OpKind::Read), 7, "override's bucket");
    assert_eq!(
        burst(lb, OpKind::Write),
        2,
        "write bucket from the defaults"
    );
    let nsg = limiters.client(ClientKind::SecurityGroup).unwrap();
    assert!(
        !nsg.is_limited(OpKind::Read),
        "override disables the client"
    );
    assert!(!nsg.is_limited(OpKind::Write));
    // Separate clients have separate buckets: the VM client's empty bucket leaves the PIP one full.
    let pip = limiters.client(ClientKind::PublicIpAddress).unwrap();
    assert_eq!(burst(pip, OpKind::Read), 4);
}

#[test]
fn no_limiter_when_rate_limiting_is_off() {
    let limits = limits(
        r#"{"tenantId": "t", "subscriptionId": "s", "aadClientId": "c", "aadClientSecret": "x",
            "resourceGroup": "rg", "location": "eastus"}"#,
    );
    let limiters = Limiters::from_config(&limits);
    for kind in ClientKind::ALL {
        let limiter = limiters.client(*kind).unwrap();
        assert!(!limiter.is_limited(OpKind::Read), "{kind:?}");
        assert!(!limiter.is_limited(OpKind::Write), "{kind:?}");
    }
}

#[test]
fn quota_needs_a_positive_rate_and_bucket() {
    assert!(quota(0.0, 5).is_none());
    assert!(quota(f32::NAN, 5).is_none());
    assert!(quota(1.0, 0).is_none());
    let q = quota(0.5, 3).unwrap();
    assert_eq!(q.burst_size().get(), 3);
    assert_eq!(q.replenish_interval(), Duration::from_secs(2));
}

#[tokio::test]
async fn acquire_waits_for_a_token_within_the_bound_and_refuses_beyond_it() {
    let limiter = ClientLimiter::from_config(&RateLimit {
        enabled: true,
        qps: 100.0,
        bucket: 1,
        qps_write: 0.001,
        bucket_write: 1,
    });
    assert_eq!(
        limiter.acquire(OpKind::Read, Duration::from_secs(5)).await,
        Ok(false)
    );
    assert_eq!(
        limiter.acquire(OpKind::Read, Duration::from_secs(5)).await,
        Ok(true),
        "waited"
    );
    assert_eq!(
        limiter.acquire(OpKind::Write, Duration::from_secs(5)).await,
        Ok(false)
    );
    let refused = limiter.acquire(OpKind::Write, Duration::from_secs(5)).await;
    assert!(
        matches!(refused, Err(WaitTooLong { wait }) if wait > Duration::from_secs(5)),
        "{refused:?}"
    );
}
