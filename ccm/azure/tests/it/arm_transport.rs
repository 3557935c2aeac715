//! The ARM transport against the real `azure-fakes serve` process: paging, LROs, ETags, retries,
//! throttle gates and the per-client limiter.

use std::sync::Arc;
use std::time::Duration;

use azure_core::credentials::{AccessToken, TokenCredential, TokenRequestOptions};
use ccm_azure::arm::{ArmClient, ArmClientOptions, ArmError, ClientKind, Target};
use ccm_azure::config::RateLimit;
use ccm_azure::metrics::{ArmLabels, ArmMetrics};
use ccm_azure::throttle::OpKind;
use prometheus_client::registry::Registry;
use reqwest::Method;
use serde_json::{Value, json};

use crate::fake_azure::{FakeAzure, example};

const SCOPE: &str = "https://management.azure.com/.default";
const CLIENT_ID: &str = "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11";
const CLIENT_SECRET: &str = "fake-secret-not-for-production";
const COMPUTE: &str = "2025-04-01";
const NETWORK: &str = "2025-05-01";
const RG: &str = "k8s-small-rg";

/// Test-only credential: a client-credentials token from the fake's Entra ID.
#[derive(Debug)]
struct FakeEntra {
    http: reqwest::Client,
    token_url: String,
}

#[async_trait::async_trait]
impl TokenCredential for FakeEntra {
    async fn get_token(
        &self,
        scopes: &[&str],
        _: Option<TokenRequestOptions<'_>>,
    ) -> azure_core::Result<AccessToken> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", "client_credentials")
            .append_pair("client_id", CLIENT_ID)
            .append_pair("client_secret", CLIENT_SECRET)
            .append_pair("scope", &scopes.join(" "))
            .finish();
        let response: Value = self
            .http
            .post(&self.token_url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| azure_core::Error::new(azure_core::error::ErrorKind::Credential, e))?
            .json()
            .await
            .map_err(|e| azure_core::Error::new(azure_core::error::ErrorKind::Credential, e))?;
        let token = response["access_token"].as_str().unwrap_or_default();
        Ok(AccessToken::new(
            token.to_string(),
            time::OffsetDateTime::now_utc() + time::Duration::minutes(30),
        ))
    }
}

struct Arm {
    client: ArmClient,
    registry: Registry,
}

/// An ARM client on the fake with fast retries and polls; `tweak` adjusts the options.
fn arm(fake: &FakeAzure, tweak: impl FnOnce(&mut ArmClientOptions)) -> Arm {
    let endpoint = url::Url::parse(&format!("{}/", fake.base)).unwrap();
    let mut options = ArmClientOptions::new(endpoint, SCOPE).unwrap();
    options.retry.base_delay = Duration::from_millis(10);
    options.retry.max_delay = Duration::from_millis(100);
    options.lro.default_interval = Duration::from_millis(20);
    options.lro.max_interval = Duration::from_millis(20);
    tweak(&mut options);
    let credential = Arc::new(FakeEntra {
        http: fake.http.clone(),
        token_url: format!("{}/{}/oauth2/v2.0/token", fake.base, fake.tenant),
    });
    let mut registry = Registry::default();
    let metrics = ArmMetrics::register(&mut registry);
    Arm {
        client: ArmClient::new(options, credential, fake.http.clone(), metrics),
        registry,
    }
}

fn rg_path(fake: &FakeAzure, rest: &str) -> String {
    format!(
        "/subscriptions/{}/resourceGroups/{RG}/providers/{rest}",
        fake.subscription
    )
}

async fn fault(fake: &FakeAzure, rule: Value) {
    let (status, body) = fake.admin(Method::POST, "/admin/faults", Some(rule)).await;
    assert!(status < 300, "fault refused: {status} {body}");
}

/// ARM entries of the journal (method, path, api-version, status, user agent, faults), in order.
async fn arm_requests(fake: &FakeAzure) -> Vec<Value> {
    fake.journal().await["entries"]
        .as_array()
        .expect("journal entries")
        .iter()
        .filter(|e| e["surface"] == "arm")
        .map(|e| {
            json!({
                "method": e["method"], "path": e["path"], "apiVersion": e["apiVersion"],
                "status": e["status"], "userAgent": e["userAgent"],
                "faults": e.get("faults").map(|f| f.as_array().unwrap().len()).unwrap_or(0),
            })
        })
        .collect()
}

fn pip_body() -> Value {
    json!({"location": "eastus", "sku": {"name": "Standard"},
           "properties": {"publicIPAllocationMethod": "Static"}})
}

#[tokio::test]
async fn get_and_list_follow_next_link_with_api_version_and_user_agent() {
    let fake = FakeAzure::start(&example("small.yaml"), &["--page-size", "2"]);
    let arm = arm(&fake, |_| {});
    let path = rg_path(&fake, "Microsoft.Compute/virtualMachines");
    let vms: Vec<Value> = arm
        .client
        .list(Target::new(ClientKind::VirtualMachine, &path, COMPUTE))
        .await
        .unwrap();
    let mut names: Vec<&str> = vms.iter().map(|v| v["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        ["k8s-agentpool-0-0", "k8s-agentpool-0-1", "k8s-master-0"]
    );
    let vm: Value = arm
        .client
        .get(Target::new(
            ClientKind::VirtualMachine,
            &format!("{path}/k8s-master-0"),
            COMPUTE,
        ))
        .await
        .unwrap();
    assert_eq!(vm["name"], "k8s-master-0");
    let requests = arm_requests(&fake).await;
    let user_agent = ccm_azure::arm::options::default_user_agent();
    let text = serde_json::to_string_pretty(&requests)
        .unwrap()
        .replace(&fake.subscription, "<sub>")
        .replace(&user_agent, "<ccm user agent>");
    insta::assert_snapshot!(text);
    assert!(user_agent.starts_with("azure-ccm/"));

    // ARM's and the Compute RP's remaining quotas are exposed as gauges.
    let mut exposed = String::new();
    prometheus_client::encoding::text::encode(&mut exposed, &arm.registry).unwrap();
    let gauges: Vec<&str> = exposed
        .lines()
        .filter(|l| l.starts_with("cloudprovider_azure_arm_ratelimit_remaining{"))
        .collect();
    assert!(
        gauges
            .iter()
            .any(|l| l.contains(r#"policy="Microsoft.Compute/HighCostGet3Min""#)),
        "{gauges:#?}"
    );
    assert!(
        gauges
            .iter()
            .any(|l| l.contains(r#"header="x-ms-ratelimit-remaining-subscription-reads""#)),
        "{gauges:#?}"
    );
}

#[tokio::test]
async fn put_waits_for_the_lro_and_if_match_guards_the_etag() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let arm = arm(&fake, |_| {});
    let path = rg_path(&fake, "Microsoft.Network/publicIPAddresses/lro-pip");
    let target = Target::new(ClientKind::PublicIpAddress, &path, NETWORK);
    let created: Value = arm.client.put(target, &pip_body(), None).await.unwrap();
    assert_eq!(
        created["properties"]["provisioningState"], "Succeeded",
        "{created}"
    );
    let etag = created["etag"].as_str().expect("etag").to_string();

    // The ETag just read is accepted; the write changes it, so the old one is now stale.
    let updated: Value = arm
        .client
        .put(target, &pip_body(), Some(&etag))
        .await
        .unwrap();
    assert_ne!(updated["etag"], created["etag"]);
    let stale = arm
        .client
        .put::<_, Value>(target, &pip_body(), Some(&etag))
        .await
        .unwrap_err();
    assert!(stale.is_precondition_failed(), "{stale}");
    assert!(!stale.is_retryable());
    assert!(stale.request_id().is_some());

    // An injected 412 is typed the same way.
    let fresh = updated["etag"].as_str().unwrap();
    fault(
        &fake,
        json!({"method": "PUT", "path": "/subscriptions/**/publicIPAddresses/lro-pip",
                        "fault": {"kind": "preconditionFailed"}, "count": 1}),
    )
    .await;
    let injected = arm
        .client
        .put::<_, Value>(target, &pip_body(), Some(fresh))
        .await
        .unwrap_err();
    assert!(injected.is_precondition_failed(), "{injected}");
    assert_eq!(injected.code(), Some("PreconditionFailed"));

    arm.client.delete(target, None).await.unwrap();
    let gone = arm.client.get::<Value>(target).await.unwrap_err();
    assert!(gone.is_not_found(), "{gone}");
}

#[tokio::test]
async fn a_failed_lro_is_a_typed_error_with_the_operations_error() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let arm = arm(&fake, |_| {});
    fault(&fake, json!({"method": "PUT", "path": "/subscriptions/**/publicIPAddresses/doomed",
                        "fault": {"kind": "lroFailed", "code": "AllocationFailed", "message": "no capacity"},
                        "count": 1}))
    .await;
    let path = rg_path(&fake, "Microsoft.Network/publicIPAddresses/doomed");
    let error = arm
        .client
        .put::<_, Value>(
            Target::new(ClientKind::PublicIpAddress, &path, NETWORK),
            &pip_body(),
            None,
        )
        .await
        .unwrap_err();
    match &error {
        ArmError::OperationFailed { status, error, .. } => {
            assert_eq!(status, "Failed");
            assert_eq!(error.code, "AllocationFailed");
            assert_eq!(error.message, "no capacity");
        }
        other => panic!("expected OperationFailed, got {other:?}"),
    }
    assert_eq!(error.code(), Some("AllocationFailed"));
}

#[tokio::test]
async fn server_errors_and_connection_resets_are_retried_then_succeed() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let arm = arm(&fake, |_| {});
    let path = rg_path(&fake, "Microsoft.Network/loadBalancers/kubernetes");
    let glob = "/subscriptions/**/loadBalancers/kubernetes";
    fault(&fake, json!({"method": "GET", "path": glob, "fault": {"kind": "status", "status": 503}, "count": 1})).await;
    fault(&fake, json!({"method": "GET", "path": glob, "fault": {"kind": "status", "status": 500}, "count": 1})).await;
    fault(
        &fake,
        json!({"method": "GET", "path": glob, "fault": {"kind": "reset"}, "count": 1}),
    )
    .await;
    let lb: Value = arm
        .client
        .get(Target::new(ClientKind::LoadBalancer, &path, NETWORK))
        .await
        .unwrap();
    assert_eq!(lb["name"], "kubernetes");
    let requests = arm_requests(&fake).await;
    let faulted = requests.iter().filter(|r| r["faults"] == 1).count();
    assert_eq!(faulted, 3, "{requests:#?}");
    assert_eq!(
        requests.len(),
        4,
        "three failures, then the answer: {requests:#?}"
    );

    // 429 is not retried: one request, a typed throttling error.
    fault(&fake, json!({"method": "GET", "path": glob, "fault": {"kind": "throttle", "retryAfterSecs": 1}, "count": 1})).await;
    let error = arm
        .client
        .get::<Value>(Target::new(ClientKind::LoadBalancer, &path, NETWORK))
        .await
        .unwrap_err();
    assert!(error.is_throttled() && !error.is_transient(), "{error}");
    assert_eq!(arm_requests(&fake).await.len(), 5);
}

#[tokio::test]
async fn a_429_storm_closes_the_gate_and_nothing_is_sent_while_closed() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let arm = arm(&fake, |_| {});
    let path = rg_path(&fake, "Microsoft.Compute/virtualMachines");
    let target = Target::new(ClientKind::VirtualMachine, &path, COMPUTE);
    fault(
        &fake,
        json!({"method": "GET", "path": "/subscriptions/**/virtualMachines",
                        "fault": {"kind": "throttle", "retryAfterSecs": 2}}),
    )
    .await;
    let first = arm.client.list::<Value>(target).await.unwrap_err();
    assert!(first.is_throttled(), "{first}");
    assert_eq!(first.status(), Some(429));
    assert_eq!(first.retry_after(), Some(Duration::from_secs(2)));
    for _ in 0..20 {
        let refused = arm.client.list::<Value>(target).await.unwrap_err();
        match refused {
            ArmError::GateClosed { remaining, .. } => {
                assert!(remaining <= Duration::from_secs(2), "{remaining:?}")
            }
            other => panic!("expected the closed gate, got {other}"),
        }
    }
    // The fault answers as ARM's front door (`SubscriptionRequestsThrottled`): the subscription's
    // read gate is shared, so another client's reads wait too, unsent; writes have their own gate.
    let nsg = arm
        .client
        .get::<Value>(Target::new(
            ClientKind::SecurityGroup,
            &rg_path(&fake, "Microsoft.Network/networkSecurityGroups/k8s-nsg"),
            NETWORK,
        ))
        .await
        .unwrap_err();
    assert!(matches!(nsg, ArmError::GateClosed { .. }), "{nsg}");
    assert_eq!(
        arm.client
            .gates()
            .check(ClientKind::VirtualMachine, OpKind::Write),
        Ok(())
    );
    let requests = arm_requests(&fake).await;
    assert_eq!(
        requests.len(),
        1,
        "only the first call reached ARM: {requests:#?}"
    );
    let vm_requests = |requests: &[Value]| {
        requests
            .iter()
            .filter(|r| r["path"].as_str().unwrap().ends_with("/virtualMachines"))
            .count()
    };
    assert_eq!(
        vm_requests(&arm_requests(&fake).await),
        1,
        "only the first call reached ARM"
    );

    // After Retry-After the gate opens and the next call is sent.
    let (status, _) = fake.admin(Method::DELETE, "/admin/faults", None).await;
    assert!(status < 300);
    while arm
        .client
        .gates()
        .check(ClientKind::VirtualMachine, OpKind::Read)
        .is_err()
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let vms = arm.client.list::<Value>(target).await.unwrap();
    assert_eq!(vms.len(), 3);
    assert_eq!(vm_requests(&arm_requests(&fake).await), 2);
    let throttled = arm
        .client
        .metrics()
        .arm_request_throttle
        .get_or_create(&ArmLabels {
            subscription_id: fake.subscription.clone(),
            resource_group: RG.to_string(),
            resource: "virtualMachine".into(),
            method: "GET".into(),
        })
        .get();
    assert_eq!(throttled, 21, "the 429 and the 20 refusals");
}

#[tokio::test]
async fn the_per_client_limiter_delays_but_does_not_fail() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let arm = arm(&fake, |options| {
        options.rate_limits.per_client.insert(
            "virtualMachineRateLimit",
            RateLimit {
                enabled: true,
                qps: 20.0,
                bucket: 1,
                qps_write: 20.0,
                bucket_write: 1,
            },
        );
    });
    let path = rg_path(&fake, "Microsoft.Compute/virtualMachines/k8s-master-0");
    for _ in 0..4 {
        let vm: Value = arm
            .client
            .get(Target::new(ClientKind::VirtualMachine, &path, COMPUTE))
            .await
            .unwrap();
        assert_eq!(vm["name"], "k8s-master-0");
    }
    let labels = ArmLabels {
        subscription_id: fake.subscription.clone(),
        resource_group: RG.to_string(),
        resource: "virtualMachine".into(),
        method: "GET".into(),
    };
    let delayed = arm
        .client
        .metrics()
        .arm_request_rate_limit
        .get_or_create(&labels)
        .get();
    assert_eq!(delayed, 3, "the bucket of 1 made every later call wait");
    // Another client has its own (unlimited here) bucket.
    let _: Value = arm
        .client
        .get(Target::new(
            ClientKind::LoadBalancer,
            &rg_path(&fake, "Microsoft.Network/loadBalancers/kubernetes"),
            NETWORK,
        ))
        .await
        .unwrap();
    let lb_delayed = arm
        .client
        .metrics()
        .arm_request_rate_limit
        .get_or_create(&ArmLabels {
            resource: "loadBalancer".into(),
            ..labels
        })
        .get();
    assert_eq!(lb_delayed, 0);
}

#[tokio::test]
async fn compute_rp_throttling_closes_only_that_clients_read_gate() {
    let fake = FakeAzure::start(
        &example("small.yaml"),
        &["--crp-policy", "HighCostGet3Min=1/60"],
    );
    let arm = arm(&fake, |_| {});
    let path = rg_path(&fake, "Microsoft.Compute/virtualMachines");
    let target = Target::new(ClientKind::VirtualMachine, &path, COMPUTE);
    assert_eq!(arm.client.list::<Value>(target).await.unwrap().len(), 3);
    let throttled = arm.client.list::<Value>(target).await.unwrap_err();
    assert_eq!(throttled.status(), Some(429), "{throttled}");
    assert_eq!(throttled.code(), Some("OperationNotAllowed"));
    assert!(throttled.has_code("TooManyRequests") && throttled.is_throttled());
    assert!(throttled.retry_after().is_some());
    // The VM client's reads now fail fast, a low-cost GET too (upstream's gate is per client).
    let vm_path = format!("{path}/k8s-master-0");
    let vm = Target::new(ClientKind::VirtualMachine, &vm_path, COMPUTE);
    let refused = arm.client.get::<Value>(vm).await.unwrap_err();
    assert!(
        matches!(
            refused,
            ArmError::GateClosed {
                op: OpKind::Read,
                ..
            }
        ),
        "{refused}"
    );
    // Not a front-door answer: other clients keep reading.
    let nsg: Value = arm
        .client
        .get(Target::new(
            ClientKind::SecurityGroup,
            &rg_path(&fake, "Microsoft.Network/networkSecurityGroups/k8s-nsg"),
            NETWORK,
        ))
        .await
        .unwrap();
    assert_eq!(nsg["name"], "k8s-nsg");
    let compute = arm_requests(&fake)
        .await
        .into_iter()
        .filter(|r| r["path"].as_str().unwrap().contains("Microsoft.Compute"))
        .count();
    assert_eq!(compute, 2, "the refused GET was not sent");
}

#[tokio::test]
async fn patch_tags_and_a_location_only_delete() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let arm = arm(&fake, |_| {});
    // Resource group delete answers 202 with a Location (operationresults) URL only.
    let rg = format!("/subscriptions/{}/resourcegroups/lro-rg", fake.subscription);
    let rg_target = Target::new(ClientKind::Resources, &rg, "2021-04-01");
    let created: Value = arm
        .client
        .put(rg_target, &json!({"location": "eastus"}), None)
        .await
        .unwrap();
    assert_eq!(created["name"], "lro-rg");
    let tagged: Value = arm
        .client
        .patch(rg_target, &json!({"tags": {"owner": "ccm"}}), None)
        .await
        .unwrap();
    assert_eq!(tagged["tags"]["owner"], "ccm", "{tagged}");
    arm.client.delete(rg_target, None).await.unwrap();
    let gone = arm.client.get::<Value>(rg_target).await.unwrap_err();
    assert!(gone.is_not_found(), "{gone}");
    let polled = arm_requests(&fake)
        .await
        .into_iter()
        .filter(|r| r["path"].as_str().unwrap().contains("/operationresults/"))
        .count();
    assert!(polled >= 1, "the delete was followed through Location");
}

#[tokio::test]
async fn lro_polling_and_paging_are_bounded() {
    let fake = FakeAzure::start(
        &example("small.yaml"),
        &["--lro-polls", "100000", "--page-size", "1"],
    );
    let arm = arm(&fake, |options| {
        options.lro.max_total = Duration::from_millis(200);
        options.max_pages = 2;
    });
    let path = rg_path(&fake, "Microsoft.Network/publicIPAddresses/slow");
    let error = arm
        .client
        .put::<_, Value>(
            Target::new(ClientKind::PublicIpAddress, &path, NETWORK),
            &pip_body(),
            None,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(error, ArmError::OperationTimeout { .. }),
        "{error}"
    );
    assert!(error.is_retryable());

    let vms = rg_path(&fake, "Microsoft.Compute/virtualMachines");
    let error = arm
        .client
        .list::<Value>(Target::new(ClientKind::VirtualMachine, &vms, COMPUTE))
        .await
        .unwrap_err();
    assert!(
        matches!(error, ArmError::TooManyPages { cap: 2, .. }),
        "{error}"
    );
}

/// The NSG of small.yaml through [`ccm_azure::arm::update`]: a stale cached ETag (the NSG was
/// written behind the cache's back, or the fake answers one injected 412) invalidates the entry and
/// the retry from a fresh read succeeds without losing the other writer's change; an edit that
/// changes nothing sends no PUT.
#[tokio::test]
async fn a_412_invalidates_the_cache_and_the_retry_succeeds() {
    use ccm_azure::arm::resources::NetworkSecurityGroup;
    use ccm_azure::arm::{Updated, update};
    use ccm_azure::cache::{CachePolicy, TtlCache};

    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let arm = arm(&fake, |_| {});
    let path = rg_path(&fake, "Microsoft.Network/networkSecurityGroups/k8s-nsg");
    let target = Target::new(ClientKind::SecurityGroup, &path, NETWORK);
    let cache: TtlCache<String, NetworkSecurityGroup> =
        TtlCache::new(CachePolicy::with_ttl(Duration::from_secs(600)));
    let tag = |key: &'static str| {
        move |nsg: &mut NetworkSecurityGroup| {
            nsg.tags
                .get_or_insert_with(Default::default)
                .insert(key.to_string(), "yes".to_string());
        }
    };
    let puts = |requests: &[Value]| {
        requests
            .iter()
            .filter(|r| {
                r["method"] == "PUT" && r["path"].as_str().unwrap_or("").contains("k8s-nsg")
            })
            .count()
    };

    let first = update(&arm.client, &cache, target, tag("ours"))
        .await
        .unwrap();
    assert!(matches!(first, Updated::Written(_)));

    // Another writer changes the NSG: the cached ETag is now stale.
    let mut other: Value = arm.client.get(target).await.unwrap();
    other["tags"]["theirs"] = json!("yes");
    let _: Value = arm.client.put(target, &other, None).await.unwrap();

    let before = puts(&arm_requests(&fake).await);
    let second = update(&arm.client, &cache, target, tag("second"))
        .await
        .unwrap();
    let tags = second.resource().tags.clone().unwrap_or_default();
    assert!(
        ["ours", "theirs", "second"]
            .iter()
            .all(|k| tags.contains_key(*k)),
        "the retry starts from a fresh read and keeps the other writer's tag: {tags:?}"
    );
    assert_eq!(
        puts(&arm_requests(&fake).await) - before,
        2,
        "one PUT refused with 412, one accepted"
    );

    // One injected 412 on a fresh cache entry: same recovery.
    fault(
        &fake,
        json!({"method": "PUT", "path": "/subscriptions/*/resourceGroups/*/providers/Microsoft.Network/networkSecurityGroups/k8s-nsg",
            "fault": {"kind": "preconditionFailed"}, "count": 1}),
    )
    .await;
    let third = update(&arm.client, &cache, target, tag("third"))
        .await
        .unwrap();
    assert!(matches!(third, Updated::Written(_)));

    // Nothing to change: no PUT at all.
    let before = puts(&arm_requests(&fake).await);
    let same = update(&arm.client, &cache, target, tag("third"))
        .await
        .unwrap();
    assert!(matches!(same, Updated::Unchanged(_)));
    assert_eq!(
        puts(&arm_requests(&fake).await),
        before,
        "an unchanged edit sends nothing"
    );
}
