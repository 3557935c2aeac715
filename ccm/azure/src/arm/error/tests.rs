use std::time::Duration;

use ccm_cloud::{CloudError, Retry};

use super::*;

fn response(status: u16, body: &str, retry_after: Option<u64>) -> ArmError {
    ArmError::Response(Box::new(ResponseError {
        method: "PUT".into(),
        path: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb"
            .into(),
        status,
        error: ErrorDetail::from_body(body.as_bytes()),
        request_id: Some("11111111-2222-3333-4444-555555555555".into()),
        correlation_id: Some("66666666-7777-8888-9999-000000000000".into()),
        retry_after: retry_after.map(Duration::from_secs),
    }))
}

const NRP_412: &str = r#"{"error":{"code":"PreconditionFailed","message":"Precondition failed.","details":[{"code":"PreconditionFailedEtagMismatch","message":"Etag provided in if-match header W/\"invalid\" does not match etag W/\"abc\" of resource lb in NRP data store."}]}}"#;
const CRP_429: &str = r#"{"error":{"code":"OperationNotAllowed","message":"The server rejected the request because too many requests have been received for this subscription.","details":[{"code":"TooManyRequests","target":"HighCostGet30Min","message":"{\"operationGroup\":\"HighCostGet30Min\",\"startTime\":\"2018-06-29T19:54:21.0914017+00:00\",\"endTime\":\"2018-06-29T20:14:21.0914017+00:00\",\"allowedRequestCount\":800,\"measuredRequestCount\":1238}"}]}}"#;
const ARM_429: &str = r#"{"error":{"code":"SubscriptionRequestsThrottled","message":"Number of 'read' requests for subscription 's' actor 'a' exceeded. Please try again after '5' seconds after additional tokens are available."}}"#;
const NRP_RETRYABLE: &str = r#"{"error":{"code":"RetryableError","message":"A retryable error occurred.","details":[{"code":"ReferencedResourceNotProvisioned","message":"Cannot proceed."}]}}"#;
const NOT_FOUND: &str = r#"{"error":{"code":"ResourceNotFound","message":"The Resource 'Microsoft.Network/loadBalancers/lb' under resource group 'rg' was not found."}}"#;
const CONFLICT: &str = r#"{"error":{"code":"AnotherOperationInProgress","message":"Another operation on this or dependent resource is in progress."}}"#;
const BAD: &str = r#"{"error":{"code":"InvalidParameter","message":"Virtual Machine Scale Set VM instanceId must be a number.","target":"instanceId"}}"#;

#[test]
fn envelopes_parse_into_typed_details() {
    let parsed: Vec<(&str, ErrorDetail)> = [
        ("nrp_412", NRP_412),
        ("crp_429", CRP_429),
        ("arm_429", ARM_429),
        ("nrp_retryable", NRP_RETRYABLE),
        ("bad_request_with_target", BAD),
        ("not_json", "<html>Bad Gateway</html>"),
        ("empty", ""),
        (
            "bare_detail",
            r#"{"code":"InternalServerError","message":"boom"}"#,
        ),
    ]
    .into_iter()
    .map(|(name, body)| (name, ErrorDetail::from_body(body.as_bytes())))
    .collect();
    insta::assert_debug_snapshot!(parsed);
}

#[test]
fn display_names_status_code_target_details_and_request_id() {
    insta::assert_snapshot!(
        [response(412, NRP_412, None), response(400, BAD, None)]
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn classification() {
    let crp = response(429, CRP_429, Some(1200));
    assert!(crp.is_throttled());
    assert!(crp.is_retryable());
    assert!(!crp.is_transient(), "429 is never retried blindly");
    assert_eq!(crp.retry_after(), Some(Duration::from_secs(1200)));
    assert!(!crp.response().unwrap().is_subscription_throttling());

    let arm = response(429, ARM_429, Some(5));
    assert!(arm.is_throttled());
    assert!(arm.response().unwrap().is_subscription_throttling());

    let retryable = response(429, NRP_RETRYABLE, Some(1));
    assert!(
        !retryable.is_throttled(),
        "NRP RetryableError is not throttling"
    );
    assert!(retryable.is_retryable());

    let stale = response(412, NRP_412, None);
    assert!(stale.is_precondition_failed());
    assert!(stale.has_code("PreconditionFailedEtagMismatch"));
    assert!(!stale.is_retryable());

    let missing = response(404, NOT_FOUND, None);
    assert!(missing.is_not_found());
    assert!(!missing.is_retryable());

    let busy = response(409, CONFLICT, None);
    assert!(busy.is_conflict());
    assert!(busy.is_retryable());

    for status in [408, 500, 502, 503, 504] {
        assert!(response(status, "", None).is_transient(), "{status}");
    }
    assert!(!response(501, "", None).is_transient());

    let closed = ArmError::GateClosed {
        client: "loadBalancer",
        op: OpKind::Read,
        remaining: Duration::from_secs(9),
    };
    assert!(closed.is_throttled());
    assert_eq!(closed.retry_after(), Some(Duration::from_secs(9)));

    let failed = ArmError::OperationFailed {
        method: "PUT".into(),
        path: "/x".into(),
        status: "Canceled".into(),
        error: Box::new(ErrorDetail {
            code: "CanceledAndSupersededDueToAnotherOperation".into(),
            ..ErrorDetail::default()
        }),
    };
    assert!(failed.is_superseded());
    assert!(failed.is_retryable());
}

#[test]
fn cloud_error_mapping() {
    let throttled: CloudError<ArmError> = response(429, CRP_429, Some(30)).into();
    assert!(
        matches!(throttled, CloudError::Throttled { retry_after, .. } if retry_after == Duration::from_secs(30))
    );
    let closed: CloudError<ArmError> = ArmError::GateClosed {
        client: "virtualMachine",
        op: OpKind::Write,
        remaining: Duration::from_secs(3),
    }
    .into();
    assert_eq!(closed.retry_after(), Some(Duration::from_secs(3)));
    let stale: CloudError<ArmError> = response(412, NRP_412, None).into();
    assert!(matches!(
        stale,
        CloudError::Provider {
            retry: Retry::Never,
            ..
        }
    ));
    let gateway: CloudError<ArmError> = response(502, "", None).into();
    assert!(matches!(
        gateway,
        CloudError::Provider {
            retry: Retry::Backoff,
            ..
        }
    ));
    let busy: CloudError<ArmError> = response(429, NRP_RETRYABLE, Some(1)).into();
    assert!(
        matches!(busy, CloudError::Provider { retry: Retry::After(d), .. } if d == Duration::from_secs(1))
    );
}
