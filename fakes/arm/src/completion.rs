//! How writes of each served kind complete: synchronously (the final document in the PUT answer, no operation to
//! poll) or through a long-running operation, with the source of each fact. The write and delete paths ask this
//! table instead of deciding per call site.

use crate::kinds::KindId;

/// How one kind's PUT and DELETE complete.
#[derive(Debug)]
struct Mode {
    kind: KindId,
    /// PUT answers `provisioningState: Succeeded` with no `Azure-AsyncOperation`/`Location`.
    put_sync: bool,
    /// PUT answers 200 even when it creates.
    create_200: bool,
    /// DELETE completes before answering (200 plus an already finished `Azure-AsyncOperation`).
    delete_sync: bool,
    /// A PUT whose resulting model equals the stored one answers 200 Succeeded without an operation.
    noop_put_sync: bool,
}

const fn m(kind: KindId, put_sync: bool, create_200: bool, delete_sync: bool, noop: bool) -> Mode {
    Mode {
        kind,
        put_sync,
        create_200,
        delete_sync,
        noop_put_sync: noop,
    }
}

/// Per-kind facts. Sources:
/// - resource groups: synchronous 201/200 (recorded ARM traffic; `Microsoft.Resources` has no LRO on PUT).
/// - availability sets: synchronous, 200 even on create (recorded CRP traffic; the REST spec marks no LRO).
/// - NICs: PUT synchronous, 201/200 with `Succeeded` and no operation headers (recorded NRP traffic of a production
///   CCM, issue 9 item 6); DELETE 200 plus `Azure-AsyncOperation` (recorded).
/// - public IPs, VNets, private link services: PUT answers 201 `Updating` plus `Azure-AsyncOperation`, the operation
///   then reports `Succeeded` (recorded: cloud-provider-azure `pkg/azclient/privatelinkserviceclient/testdata`).
/// - load balancers: PUT answers 201 plus `Azure-AsyncOperation` (same recording). Known divergence: the recorded
///   body already says `Succeeded`, the fake says `Updating` until its operation ends.
/// - NSGs, route tables, public IP prefixes: like public IPs ([infer]: the REST spec marks every NRP PUT
///   long-running, which allows both answers). NRP DELETEs other than NICs answer 202 with both operation headers
///   (recorded).
/// - VMs: PUT is an operation (`Creating`/`Updating`, recorded CRP traffic), but an update that leaves the model as
///   stored answers 200 `Succeeded` without an operation (issue 9 item 6, observed on real CRP).
/// - scale sets and their instances: operations (recorded); a no-op shortcut is not known for them ([infer]).
static MODES: &[Mode] = &[
    m(KindId::ResourceGroup, true, false, false, false),
    m(KindId::AvailabilitySet, true, true, false, false),
    m(KindId::Nic, true, false, true, false),
    m(KindId::Vm, false, false, false, true),
];

fn mode(kind: KindId) -> Option<&'static Mode> {
    MODES.iter().find(|m| m.kind == kind)
}

/// `true` when a PUT of `kind` completes before answering.
pub(crate) fn put_is_synchronous(kind: KindId) -> bool {
    mode(kind).is_some_and(|m| m.put_sync)
}

/// `true` when a PUT of `kind` that leaves the stored model unchanged completes before answering.
pub(crate) fn noop_put_is_synchronous(kind: KindId) -> bool {
    mode(kind).is_some_and(|m| m.noop_put_sync)
}

/// `true` when a create of `kind` answers 200 rather than 201.
pub(crate) fn create_answers_200(kind: KindId) -> bool {
    mode(kind).is_some_and(|m| m.create_200)
}

/// `true` when a DELETE of `kind` completes before answering.
pub(crate) fn delete_is_synchronous(kind: KindId) -> bool {
    mode(kind).is_some_and(|m| m.delete_sync)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nic_put_is_synchronous_lb_put_is_not() {
        assert!(put_is_synchronous(KindId::Nic));
        assert!(!put_is_synchronous(KindId::LoadBalancer));
        assert!(!put_is_synchronous(KindId::Vm) && noop_put_is_synchronous(KindId::Vm));
        assert!(create_answers_200(KindId::AvailabilitySet));
        assert!(delete_is_synchronous(KindId::Nic));
    }
}
