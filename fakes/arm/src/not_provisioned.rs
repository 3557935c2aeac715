//! NRP's refusal of a write whose references point at a resource that is not in `Succeeded` state
//! (`ReferencedResourceNotProvisioned`), in its two real shapes.
//!
//! Evidence (NRP answers quoted in public logs; the wording is the same in every one):
//! - A dependency still being written or deleted (`Updating`, `Deleting`): **429** `RetryableError`, message
//!   "A retryable error occurred.", one `details` entry `ReferencedResourceNotProvisioned` carrying the sentence
//!   below. Seen for a subnet used by a NIC (hashicorp/terraform issue #7986, PR #14365), an NSG used by a NIC
//!   (hashicorp/terraform issue #7153) and a NIC ipconfig used by a load balancer (coreos/tectonic-installer issues
//!   #1459, #1460, `Resource is in Deleting state ... DeleteNicOperation`).
//! - A dependency whose last operation failed (`Failed`): **400**, top-level code `ReferencedResourceNotProvisioned`
//!   with the same sentence and `"details": []`. Seen for a NIC ipconfig used by a load balancer (Azure/aks-engine
//!   issue #336: `HTTP response=400 ... StatusCode=400 -- Original Error: Code="ReferencedResourceNotProvisioned"
//!   ... Details=[]`), for a NIC ipconfig used by a subnet (cklewar/f5-xc-uc-aws-azure-lab README: `StatusCode=400`,
//!   `PutNicOperation`), and for a public IP used by a load balancer (gardener/gardener-extension-provider-azure issue
//!   #2: `Code="ReferencedResourceNotProvisioned"`, `Resource is in Failed state ... PutPublicIpAddressOperation`;
//!   the same text is the fixture of cloud-provider-azure `pkg/provider/azure_loadbalancer_repo_test.go`
//!   `TestCreateOrUpdateLB`). Microsoft's "Troubleshoot Azure Microsoft.Network failed provisioning state" article:
//!   operations on resources depending on a Failed one may fail until a PUT of it restores `Succeeded`.
//!
//! The sentence: "Cannot proceed with operation because resource {referenced id} used by resource {written id} is
//! not in Succeeded state. Resource is in {state} state and the last operation that updated/is updating the
//! resource is {Put|Delete}{Noun}Operation." The written id is the resource the PUT targets (the LB, the NIC; the
//! subnet of a subnet PUT, where the fake names the VNet it stores the subnet in), not the child holding the
//! reference; upstream's regex finds the public IP id wherever it stands in the sentence.
//!
//! How upstream reacts (kubernetes-sigs/cloud-provider-azure `pkg/provider/azure_loadbalancer_repo.go`
//! `CreateOrUpdateLB`): it matches `consts.ReferencedResourceNotProvisionedMessageCode` in the error text, parses the
//! public IP's group and name out of the message (`pipErrorMessageRE`, `pkg/provider/azure_backoff.go`), re-PUTs that
//! public IP unchanged and returns the error, so the next reconcile retries the LB.
//!
//! Scope in the fake: the 429 applies to every reference; the 400 only to references to public IPs (LB
//! frontends and NIC ipconfigs). Refusing a NIC write that references a Failed public IP is [infer]: no public answer
//! for that pair was found, but NRP checks a NIC's other references (subnet, NSG) the same way. Other Failed
//! dependencies (a Failed VNet, NSG or NIC) are accepted: a known divergence, [infer] that NRP refuses them too. LB
//! frontends' `publicIPPrefix` is not tracked as a reference by the fake, so it is not checked.

use crate::error::{ArmError, ErrorDetail};
use crate::error_codes;
use crate::id::key_of;
use crate::lro::{OpKind, Operation};
use crate::references::{Ref, RefKind, collection_of};
use crate::store::Store;

/// The refusal for `r` (held by the resource `writer`) when the referenced resource, stored as `owner`, is not in a
/// state a write may reference; `None` when it may be referenced. `network_writer`: the written resource is NRP's.
pub(crate) fn check(
    store: &Store,
    r: &Ref,
    owner: &str,
    writer: &str,
    network_writer: bool,
) -> Option<ArmError> {
    let e = store.entries.get(owner)?;
    let state = e.provisioning_state();
    let retryable =
        state == "Deleting" || (state == "Updating" && network_writer && e.op.is_some());
    if retryable {
        return Some(retryable_error(sentence(store, r, owner, writer, state)));
    }
    if state == "Failed" && r.kind == RefKind::PipUser {
        return Some(ArmError::nrp(
            error_codes::REFERENCED_RESOURCE_FAILED,
            sentence(store, r, owner, writer, state),
        ));
    }
    None
}

/// NRP's 429 for a dependency still being written or deleted (shape in the module docs).
fn retryable_error(sentence: String) -> ArmError {
    ArmError::new(error_codes::RETRYABLE_ERROR, "A retryable error occurred.")
        .with_details(vec![ErrorDetail {
            code: error_codes::REFERENCED_RESOURCE_NOT_PROVISIONED,
            message: sentence,
            target: None,
        }])
        .with_header("retry-after", "1")
}

fn sentence(store: &Store, r: &Ref, owner: &str, writer: &str, state: &str) -> String {
    let delete =
        last_operation(store, owner).is_some_and(|o| matches!(o.kind, OpKind::Delete { .. }));
    format!(
        "Cannot proceed with operation because resource {} used by resource {writer} is not in Succeeded state. Resource is in {state} state and the last operation that updated/is updating the resource is {}.",
        r.to,
        operation_name(&collection_of(&key_of(&r.to)), delete)
    )
}

/// The operation running on the entry `owner`, else the latest one that ran on it.
fn last_operation<'a>(store: &'a Store, owner: &str) -> Option<&'a Operation> {
    let running = store
        .entries
        .get(owner)
        .and_then(|e| e.op.as_ref())
        .and_then(|o| store.ops.get(o));
    running.or_else(|| {
        store
            .ops
            .values()
            .filter(|o| o.entry_key == owner)
            .max_by_key(|o| o.started)
    })
}

/// NRP's name of the operation on a resource of the collection `coll`. Verified: `PutPublicIpAddressOperation`,
/// `PutNicOperation`, `DeleteNicOperation`, `PutSubnetOperation` (the logs in the module docs); the other nouns and
/// the Delete form for them are [infer].
fn operation_name(coll: &str, delete: bool) -> String {
    let noun = match coll {
        "publicipaddresses" => "PublicIpAddress",
        "networkinterfaces" | "ipconfigurations" => "Nic",
        "subnets" => "Subnet",
        "publicipprefixes" => "PublicIpPrefix",
        "networksecuritygroups" => "NetworkSecurityGroup",
        "routetables" => "RouteTable",
        "loadbalancers"
        | "frontendipconfigurations"
        | "backendaddresspools"
        | "probes"
        | "inboundnatrules"
        | "loadbalancingrules"
        | "outboundrules" => "LoadBalancer",
        _ => "Resource",
    };
    let verb = if delete { "Delete" } else { "Put" };
    format!("{verb}{noun}Operation")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_names_follow_the_resource_type() {
        assert_eq!(
            operation_name("publicipaddresses", false),
            "PutPublicIpAddressOperation"
        );
        assert_eq!(
            operation_name("ipconfigurations", true),
            "DeleteNicOperation"
        );
        assert_eq!(operation_name("subnets", false), "PutSubnetOperation");
    }

    #[test]
    fn failed_shape_is_a_400_with_empty_details() {
        let e = ArmError::nrp(error_codes::REFERENCED_RESOURCE_FAILED, "m");
        assert_eq!(e.status().as_u16(), 400);
        assert_eq!(
            e.envelope(),
            serde_json::json!({"error":{"code":"ReferencedResourceNotProvisioned","message":"m","details":[]}})
        );
    }

    #[test]
    fn retryable_shape_is_a_429_with_one_detail() {
        let r = retryable_error("s".into());
        assert_eq!(r.status().as_u16(), 429);
        assert_eq!(r.code(), "RetryableError");
        assert_eq!(
            r.details().unwrap()[0].code.code(),
            "ReferencedResourceNotProvisioned"
        );
    }
}
