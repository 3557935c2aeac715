//! `build` on small hand-made records: what the fixtures of real runs do not show (downtime after
//! serving, node initialisation, a 429 and a failed write, an unattributable writer).

use serde_json::json;

use super::build::{Recorded, build};
use super::model::{LaneGroup, SpanKind, TickKind, Timeline};
use crate::cluster::Component;
use crate::outcome::ScenarioOutcome;
use crate::record::Mark;
use crate::roster::ManagedProcess;
use crate::snapshot::{JournalEntry, Sample};

const T0: i64 = 1_800_000_000_000;

fn outcome() -> ScenarioOutcome {
    serde_json::from_value(json!({
        "name": "t", "description": "", "kubernetesVersion": "1.29", "procedure": "cold",
        "expect": "pass", "startedMs": T0, "durationMs": 1, "phases": [],
        "checks": [{"check": "downtime", "verdict": "fail",
                    "reason": "default/web down 0.5 s after the switch started"}],
        "artifacts": "."
    }))
    .expect("outcome")
}

fn sample(at: i64, rule: bool, ready: usize, uninitialized: bool, holder: &str) -> Sample {
    serde_json::from_value(json!({
        "atMs": T0 + at,
        "leases": [{"name": "cloud-controller-manager", "holder": holder}],
        "processes": [
            {"name": "ccm-a", "kind": "cloud-controller-manager", "hostname": "id-a",
             "cloudLoops": {"service-lb-controller": "cloud-controller-manager"}},
            {"name": "ccm-b", "kind": "cloud-controller-manager", "hostname": "id-b",
             "cloudLoops": {"service-lb-controller": "cloud-controller-manager"}}
        ],
        "nodes": [{"name": "n0", "uid": "u", "ready": true, "uninitialized": uninitialized,
                   "providerIdSet": !uninitialized}],
        "services": [],
        "lb": [{"service": "default/web", "hasRule": rule, "readyBackends": ready, "backends": 1}]
    }))
    .expect("sample")
}

fn process(name: &str, identity: &str) -> ManagedProcess {
    serde_json::from_value(json!({
        "name": name, "kind": "cloud-controller-manager", "hostname": identity,
        "cloudLoops": {"service-lb-controller": "cloud-controller-manager"},
        "startedMs": T0 - 1000
    }))
    .expect("process")
}

fn write(seq: u64, at: &str, status: u16, path: &str) -> JournalEntry {
    serde_json::from_value(json!({
        "seq": seq, "time": at, "surface": "arm", "operation": "PUT x", "method": "PUT",
        "path": path, "status": status, "durationMs": 1.0, "throttled": status == 429,
        "clientId": Component::CloudControllerManager.app().client_id
    }))
    .expect("journal entry")
}

fn timeline(samples: &[Sample], journal: &[JournalEntry]) -> Timeline {
    with_marks(
        samples,
        journal,
        json!([{"atMs": T0, "kind": "switchStarted"}]),
    )
}

fn with_marks(samples: &[Sample], journal: &[JournalEntry], marks: serde_json::Value) -> Timeline {
    let marks: Vec<Mark> = serde_json::from_value(marks).expect("marks");
    let roster = [process("ccm-a", "id-a"), process("ccm-b", "id-b")];
    build(&Recorded {
        outcome: &outcome(),
        roster: &roster,
        marks: &marks,
        samples,
        journal,
    })
}

#[test]
fn a_service_that_served_then_lost_its_backends_shows_downtime() {
    let samples = [
        sample(0, false, 0, true, "id-a"),
        sample(250, true, 1, true, "id-a"),
        sample(500, true, 0, false, "id-a"),
        sample(750, true, 1, false, "id-a"),
        sample(1000, true, 1, false, "id-a"),
    ];
    let t = timeline(&samples, &[]);
    let web = t
        .lanes
        .iter()
        .find(|l| l.group == LaneGroup::Service)
        .expect("service lane");
    let spans: Vec<(SpanKind, i64, i64)> = web
        .spans
        .iter()
        .map(|s| (s.kind, s.from_ms, s.to_ms))
        .collect();
    assert_eq!(
        spans,
        vec![
            (SpanKind::Pending, 0, 250),
            (SpanKind::Up, 250, 500),
            (SpanKind::Down, 500, 750),
            (SpanKind::Up, 750, 1250),
        ]
    );
    let nodes = t
        .lanes
        .iter()
        .find(|l| l.group == LaneGroup::Nodes)
        .expect("nodes");
    assert_eq!(nodes.ticks.len(), 1);
    assert_eq!(
        (nodes.ticks[0].kind, nodes.ticks[0].at_ms),
        (TickKind::NodeInit, 500)
    );
    assert_eq!(t.violations[0].at_ms, Some(500));
}

#[test]
fn a_service_the_scenario_deleted_shows_no_downtime_after_the_deletion() {
    let samples = [
        sample(0, true, 1, false, "id-a"),
        sample(250, true, 1, false, "id-a"),
        sample(500, false, 0, false, "id-a"),
        sample(750, false, 0, false, "id-a"),
    ];
    let marks = json!([
        {"atMs": T0, "kind": "switchStarted"},
        {"atMs": T0 + 300, "kind": "serviceDeleted", "namespace": "default", "name": "web"}
    ]);
    let t = with_marks(&samples, &[], marks);
    let web = t
        .lanes
        .iter()
        .find(|l| l.group == LaneGroup::Service)
        .expect("service lane");
    let kinds: Vec<SpanKind> = web.spans.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, vec![SpanKind::Up]);
    assert_eq!(web.spans[0].to_ms, 500);
}

#[test]
fn writes_go_to_the_lease_holder_and_429s_and_failures_are_marked() {
    let samples = [
        sample(0, true, 1, false, "id-b"),
        sample(250, true, 1, false, ""),
        sample(500, true, 1, false, ""),
    ];
    let lb = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/k8s";
    // T0 = 2027-01-15T08:00:00Z.
    let journal = [
        write(1, "2027-01-15T08:00:00.100Z", 429, lb),
        write(2, "2027-01-15T08:00:00.300Z", 500, lb),
    ];
    let t = timeline(&samples, &journal);
    let b = t
        .lanes
        .iter()
        .find(|l| l.label == "ccm-b")
        .expect("ccm-b lane");
    assert_eq!(b.ticks.len(), 1, "the holder's write: {:?}", t.lanes);
    assert_eq!(
        b.ticks[0].kind,
        TickKind::Write {
            resource: super::ResourceKind::LoadBalancer,
            throttled: true,
            failed: false
        }
    );
    // No holder and two candidates: the component's unattributed lane.
    let other = t
        .lanes
        .iter()
        .find(|l| l.label == "cloud-controller-manager (unattributed)")
        .expect("unattributed lane");
    assert!(matches!(
        other.ticks[0].kind,
        TickKind::Write {
            failed: true,
            throttled: false,
            ..
        }
    ));
    let svg = super::render_svg(&t);
    assert!(
        svg.contains(">429</text>") && svg.contains(">✗</text>"),
        "{svg}"
    );
    let active: Vec<&str> = t
        .lanes
        .iter()
        .filter(|l| l.spans.iter().any(|s| s.kind == SpanKind::Active))
        .map(|l| l.label.as_str())
        .collect();
    assert_eq!(active, vec!["ccm-b"]);
}
