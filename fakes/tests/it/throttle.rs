//! ARM throttling with tiny buckets set on the command line.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{Fake, header};

#[tokio::test]
async fn exhausted_read_bucket_answers_429_with_retry_after() {
    let fake = Fake::start(&["--read-bucket", "3/0.2"]);
    let token = fake.token().await;
    let path = fake.rg_url();
    let mut remaining = Vec::new();
    for _ in 0..3 {
        let ok = fake.arm(&token, Method::GET, &path, None).await;
        assert_eq!(ok.status(), 200);
        remaining.push(header(&ok, "x-ms-ratelimit-remaining-subscription-reads"));
        assert!(!header(&ok, "x-ms-ratelimit-remaining-subscription-global-reads").is_empty());
    }
    assert_eq!(remaining, ["2", "1", "0"]);
    let throttled = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(throttled.status(), 429);
    assert_eq!(header(&throttled, "retry-after"), "5");
    let body: Value = throttled.json().await.unwrap();
    assert_eq!(body["error"]["code"], "SubscriptionRequestsThrottled");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("'read' requests")
    );
    // Writes have their own bucket.
    let write = fake
        .arm(
            &token,
            Method::PUT,
            &path,
            Some(json!({"location": "eastus"})),
        )
        .await;
    assert_eq!(write.status(), 200);
    assert_eq!(
        header(&write, "x-ms-ratelimit-remaining-subscription-writes"),
        "199"
    );

    let throttled: Vec<Value> = fake
        .journal()
        .await
        .into_iter()
        .filter(|e| e["throttled"] == true)
        .collect();
    assert_eq!(throttled.len(), 1);
    assert_eq!(throttled[0]["status"], 429);
}

#[tokio::test]
async fn admin_can_turn_throttling_off() {
    let fake = Fake::start(&["--read-bucket", "1/0.01"]);
    let token = fake.token().await;
    let path = fake.rg_url();
    assert_eq!(
        fake.arm(&token, Method::GET, &path, None).await.status(),
        200
    );
    assert_eq!(
        fake.arm(&token, Method::GET, &path, None).await.status(),
        429
    );
    let (_, mut config) = fake.admin(Method::GET, "/admin/throttle", None).await;
    config["enabled"] = json!(false);
    let (status, _) = fake
        .admin(Method::PUT, "/admin/throttle", Some(config))
        .await;
    assert_eq!(status, 200);
    let free = fake.arm(&token, Method::GET, &path, None).await;
    assert_eq!(free.status(), 200);
    assert_eq!(
        header(&free, "x-ms-ratelimit-remaining-subscription-reads"),
        ""
    );
}

fn vm_list(fake: &Fake) -> String {
    format!(
        "{}?api-version=2025-04-01",
        fake.rg_path("Microsoft.Compute/virtualMachines")
    )
}

#[tokio::test]
async fn compute_rp_policies_count_down_and_refuse_with_operation_not_allowed() {
    let fake = Fake::start(&["--crp-policy", "HighCostGet3Min=2/60"]);
    let token = fake.token().await;
    let list = vm_list(&fake);
    let mut remaining = Vec::new();
    for _ in 0..2 {
        let ok = fake.arm(&token, Method::GET, &list, None).await;
        assert_eq!(ok.status(), 200);
        assert_eq!(header(&ok, "x-ms-request-charge"), "1");
        remaining.push(header(&ok, "x-ms-ratelimit-remaining-resource"));
    }
    assert_eq!(
        remaining,
        [
            "Microsoft.Compute/HighCostGet3Min;1,Microsoft.Compute/HighCostGet30Min;699",
            "Microsoft.Compute/HighCostGet3Min;0,Microsoft.Compute/HighCostGet30Min;698",
        ]
    );
    let refused = fake.arm(&token, Method::GET, &list, None).await;
    assert_eq!(refused.status(), 429);
    let retry_after: u64 = header(&refused, "retry-after").parse().unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert_eq!(
        header(&refused, "x-ms-ratelimit-remaining-resource"),
        "Microsoft.Compute/HighCostGet3Min;0,Microsoft.Compute/HighCostGet30Min;697"
    );
    assert!(
        !header(&refused, "x-ms-ratelimit-remaining-subscription-reads").is_empty(),
        "the front door admitted it: CRP refused"
    );
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "OperationNotAllowed");
    assert_eq!(
        body["error"]["message"],
        "The server rejected the request because too many requests have been received for this subscription."
    );
    let detail = &body["error"]["details"][0];
    assert_eq!(detail["code"], "TooManyRequests");
    assert_eq!(detail["target"], "HighCostGet3Min");
    let violation: Value = serde_json::from_str(detail["message"].as_str().unwrap()).unwrap();
    assert_eq!(violation["operationGroup"], "HighCostGet3Min");
    assert_eq!(violation["allowedRequestCount"], 2);
    assert_eq!(violation["measuredRequestCount"], 3);

    // A VM GET draws on another policy; network calls carry no CRP header.
    let vm = fake
        .arm(
            &token,
            Method::GET,
            &format!(
                "{}?api-version=2025-04-01",
                fake.rg_path("Microsoft.Compute/virtualMachines/k8s-master-0")
            ),
            None,
        )
        .await;
    assert_eq!(vm.status(), 200);
    assert_eq!(
        header(&vm, "x-ms-ratelimit-remaining-resource"),
        "Microsoft.Compute/LowCostGet3Min;3999,Microsoft.Compute/LowCostGet30Min;31999"
    );
    let lb = fake
        .arm(
            &token,
            Method::GET,
            &format!(
                "{}?api-version=2025-05-01",
                fake.rg_path("Microsoft.Network/loadBalancers/kubernetes")
            ),
            None,
        )
        .await;
    assert_eq!(lb.status(), 200);
    assert_eq!(header(&lb, "x-ms-ratelimit-remaining-resource"), "");

    let throttled: Vec<Value> = fake
        .journal()
        .await
        .into_iter()
        .filter(|e| e["throttled"] == true)
        .collect();
    assert_eq!(throttled.len(), 1);
    assert_eq!(
        throttled[0]["operation"],
        "GET Microsoft.Compute/virtualMachines"
    );

    // Policies are reconfigurable at run time (and the windows restart).
    let (_, mut config) = fake.admin(Method::GET, "/admin/throttle", None).await;
    config["compute"]["policies"]["HighCostGet3Min"] = json!({"allowed": 5, "windowSecs": 60});
    let (status, _) = fake
        .admin(Method::PUT, "/admin/throttle", Some(config.clone()))
        .await;
    assert_eq!(status, 200);
    let again = fake.arm(&token, Method::GET, &list, None).await;
    assert_eq!(again.status(), 200);
    assert!(
        header(&again, "x-ms-ratelimit-remaining-resource")
            .starts_with("Microsoft.Compute/HighCostGet3Min;4,")
    );
    config["compute"]["policies"]["CheapGet3Min"] = json!({"allowed": 5, "windowSecs": 60});
    let message = fake
        .admin_refused(Method::PUT, "/admin/throttle", Some(config))
        .await;
    assert!(
        message.contains("compute.policies.CheapGet3Min: unknown"),
        "{message}"
    );
}

#[tokio::test]
async fn no_throttle_turns_the_compute_rp_policies_off_too() {
    let fake = Fake::start(&["--no-throttle", "--crp-policy", "HighCostGet3Min=1/60"]);
    let token = fake.token().await;
    let list = vm_list(&fake);
    for _ in 0..3 {
        let ok = fake.arm(&token, Method::GET, &list, None).await;
        assert_eq!(ok.status(), 200);
        assert_eq!(header(&ok, "x-ms-ratelimit-remaining-resource"), "");
    }
}
