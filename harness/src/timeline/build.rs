//! `build`: the scenario's recorded data (outcome, roster, marks, samples, ARM journal) to a
//! [`Timeline`]. Pure: the same records give the same timeline.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use k8s_openapi::jiff::Timestamp;

use super::attribution::Attribution;
use super::model::{
    Lane, LaneGroup, ResourceKind, Span, SpanKind, Step, Tick, TickKind, Timeline, Violation,
};
use super::violation;
use crate::outcome::{ScenarioOutcome, Verdict};
use crate::record::{Mark, MarkKind};
use crate::roster::{ManagedProcess, ManagerKind};
use crate::snapshot::{JournalEntry, Sample};

/// The one lane of every cloud-node-manager (together they are one writer, as in `single-writer`).
pub(super) const CNM_LANE: &str = "cloud-node-managers";

/// What a scenario recorded, borrowed from the run or from its files.
#[derive(Debug, Clone, Copy)]
pub struct Recorded<'a> {
    /// The outcome (name, checks).
    pub outcome: &'a ScenarioOutcome,
    /// Manager processes.
    pub roster: &'a [ManagedProcess],
    /// The runner's marks.
    pub marks: &'a [Mark],
    /// The sampler's ticks, in time order.
    pub samples: &'a [Sample],
    /// The fake's ARM journal (the latest snapshot's).
    pub journal: &'a [JournalEntry],
}

/// The timeline of one scenario.
pub fn build(rec: &Recorded<'_>) -> Timeline {
    let origin = rec
        .marks
        .iter()
        .find(|m| m.kind == MarkKind::SwitchStarted)
        .map(|m| m.at_ms)
        .or_else(|| rec.marks.iter().map(|m| m.at_ms).min())
        .or_else(|| rec.samples.first().map(|s| s.at_ms))
        .unwrap_or(0);
    let rel = |t: i64| t - origin;
    let times = rec
        .marks
        .iter()
        .map(|m| m.at_ms)
        .chain(rec.samples.iter().map(|s| s.at_ms));
    let (lo, hi) = times.fold((i64::MAX, i64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let (start, end) = if lo > hi {
        (0, 1000)
    } else {
        (rel(lo), rel(hi).max(rel(lo) + 1000))
    };
    let mut lanes = process_lanes(rec, &rel, end);
    writes(rec, &rel, &mut lanes);
    lanes.extend(lease_lanes(rec, &rel));
    lanes.extend(service_lanes(rec.samples, rec.marks, &rel));
    lanes.push(node_lane(rec, &rel));
    let seq_ms: BTreeMap<u64, i64> = rec
        .journal
        .iter()
        .filter_map(|e| Some((e.seq, entry_ms(e)?)))
        .collect();
    let violations = rec
        .outcome
        .checks
        .iter()
        .filter(|c| c.verdict == Verdict::Fail)
        .map(|c| Violation {
            check: c.check.to_string(),
            at_ms: violation::moment(c, |seq| seq_ms.get(&seq).map(|t| rel(*t))),
            reason: c.reason.clone(),
        })
        .collect();
    Timeline {
        title: rec.outcome.name.clone(),
        origin_ms: origin,
        start_ms: start,
        end_ms: end,
        lanes,
        steps: steps(rec.marks, &rel),
        violations,
    }
}

/// Journal time as Unix epoch milliseconds.
fn entry_ms(entry: &JournalEntry) -> Option<i64> {
    Timestamp::from_str(&entry.time)
        .ok()
        .map(|t| t.as_millisecond())
}

fn lane(group: LaneGroup, label: &str) -> Lane {
    Lane {
        group,
        label: label.to_owned(),
        spans: Vec::new(),
        ticks: Vec::new(),
    }
}

fn kind_order(kind: ManagerKind) -> u8 {
    match kind {
        ManagerKind::KubeControllerManager => 0,
        ManagerKind::CloudControllerManager => 1,
        ManagerKind::CloudNodeManager => 2,
    }
}

/// One lane per manager process name (the cloud-node-managers share one): `Alive` while it ran,
/// `Active` at the samples where it ran its cloud loops.
fn process_lanes(rec: &Recorded<'_>, rel: &impl Fn(i64) -> i64, end: i64) -> Vec<Lane> {
    let name_of = |p: &ManagedProcess| {
        if p.kind == ManagerKind::CloudNodeManager {
            CNM_LANE.to_owned()
        } else {
            p.name.clone()
        }
    };
    let mut order: BTreeMap<(u8, String), Lane> = BTreeMap::new();
    for p in rec.roster {
        let name = name_of(p);
        let lane = order
            .entry((kind_order(p.kind), name.clone()))
            .or_insert_with(|| lane(LaneGroup::Process, &name));
        let loops: Vec<&str> = p.cloud_loops.keys().map(String::as_str).collect();
        lane.spans.push(Span {
            from_ms: rel(p.started_ms),
            to_ms: p.stopped_ms.map_or(end, rel),
            kind: SpanKind::Alive,
            note: if loops.is_empty() {
                format!("{} running, no cloud loops", p.name)
            } else {
                format!("{} running; loops {}", p.name, loops.join(", "))
            },
        });
    }
    for (i, s) in rec.samples.iter().enumerate() {
        let next = rec.samples.get(i + 1).map_or(s.at_ms + 250, |n| n.at_ms);
        let mut active = BTreeSet::new();
        for p in &s.processes {
            let runs = p.cloud_loops.values().any(|lease| {
                lease.is_empty()
                    || s.lease(lease)
                        .is_some_and(|l| crate::roster::identity_of(&l.holder, &p.hostname))
            });
            if runs {
                let name = if p.kind == ManagerKind::CloudNodeManager {
                    CNM_LANE.to_owned()
                } else {
                    p.name.clone()
                };
                active.insert((kind_order(p.kind), name));
            }
        }
        for key in active {
            if let Some(lane) = order.get_mut(&key) {
                extend(
                    &mut lane.spans,
                    rel(s.at_ms),
                    rel(next),
                    SpanKind::Active,
                    "runs its cloud loops",
                );
            }
        }
    }
    order
        .into_values()
        .map(|mut l| {
            l.spans.sort_by_key(|s| (s.kind, s.from_ms));
            l
        })
        .collect()
}

/// Appends `[from, to)` of `kind`, joining it to the last span of that kind when they touch.
fn extend(spans: &mut Vec<Span>, from: i64, to: i64, kind: SpanKind, note: &str) {
    if let Some(last) = spans
        .iter_mut()
        .rev()
        .find(|s| s.kind == kind && s.note == note)
        .filter(|s| s.to_ms >= from)
    {
        last.to_ms = last.to_ms.max(to);
        return;
    }
    spans.push(Span {
        from_ms: from,
        to_ms: to,
        kind,
        note: note.to_owned(),
    });
}

fn is_write(e: &JournalEntry) -> bool {
    e.surface == azure_fakes::journal::Surface::Arm
        && matches!(e.method.as_str(), "PUT" | "PATCH" | "DELETE" | "POST")
}

/// ARM writes as ticks on the writer's lane (a lane is added for an unattributed writer).
fn writes(rec: &Recorded<'_>, rel: &impl Fn(i64) -> i64, lanes: &mut Vec<Lane>) {
    let who = Attribution::new(rec.roster, rec.samples);
    let mut entries: Vec<(i64, &JournalEntry)> = rec
        .journal
        .iter()
        .filter(|e| is_write(e))
        .filter_map(|e| Some((entry_ms(e)?, e)))
        .collect();
    entries.sort_by_key(|(t, e)| (*t, e.seq));
    for (t, e) in entries {
        let Some(name) = who.lane(e.client_id.as_deref(), t) else {
            continue;
        };
        let index = match lanes.iter().position(|l| l.label == name) {
            Some(i) => i,
            None => {
                lanes.push(lane(LaneGroup::Process, &name));
                lanes.len() - 1
            }
        };
        let resource = ResourceKind::of_path(&e.path);
        let throttled = e.status == 429;
        lanes[index].ticks.push(Tick {
            at_ms: rel(t),
            kind: TickKind::Write {
                resource,
                throttled,
                failed: e.status >= 400 && !throttled,
            },
            note: format!(
                "{} {} → {} (seq {})",
                e.method,
                short_path(&e.path),
                e.status,
                e.seq
            ),
        });
    }
}

/// `Microsoft.Network/loadBalancers/kubernetes` from a full ARM path.
fn short_path(path: &str) -> &str {
    path.split("/providers/").nth(1).unwrap_or(path)
}

/// One lane per Lease that governs a cloud loop: who held it, sample to sample.
fn lease_lanes(rec: &Recorded<'_>, rel: &impl Fn(i64) -> i64) -> Vec<Lane> {
    let governing: BTreeSet<&str> = rec
        .roster
        .iter()
        .flat_map(|p| p.cloud_loops.values())
        .filter(|l| !l.is_empty())
        .map(String::as_str)
        .collect();
    governing
        .into_iter()
        .map(|name| {
            let mut out = lane(LaneGroup::Lease, &format!("lease {name}"));
            for (i, s) in rec.samples.iter().enumerate() {
                let Some(held) = s.lease(name).filter(|l| !l.holder.is_empty()) else {
                    continue;
                };
                let next = rec.samples.get(i + 1).map_or(s.at_ms + 250, |n| n.at_ms);
                let holder = rec
                    .roster
                    .iter()
                    .filter(|p| p.holds(&held.holder))
                    .min_by_key(|p| !p.alive_at(s.at_ms));
                let (kind, note) = match holder {
                    Some(p) if p.kind == ManagerKind::KubeControllerManager => {
                        (SpanKind::HeldInTree, format!("held by {}", p.name))
                    }
                    Some(p) => (SpanKind::HeldOutOfTree, format!("held by {}", p.name)),
                    None => (SpanKind::HeldOther, format!("held by {}", held.holder)),
                };
                extend(&mut out.spans, rel(s.at_ms), rel(next), kind, &note);
            }
            out
        })
        .collect()
}

/// One lane per Service seen in the LB state: up, down after having served, or not yet serving;
/// once the scenario deleted it, only while it still serves (losing it then is no downtime).
fn service_lanes(samples: &[Sample], marks: &[Mark], rel: &impl Fn(i64) -> i64) -> Vec<Lane> {
    let deleted: BTreeMap<String, i64> = marks
        .iter()
        .filter_map(|m| match &m.kind {
            MarkKind::ServiceDeleted(o) => Some((o.to_string(), m.at_ms)),
            _ => None,
        })
        .collect();
    let mut lanes: BTreeMap<String, (Lane, bool)> = BTreeMap::new();
    for (i, s) in samples.iter().enumerate() {
        let next = samples.get(i + 1).map_or(s.at_ms + 250, |n| n.at_ms);
        for f in s.lb.iter().flatten() {
            let up = f.has_rule && f.ready_backends > 0;
            if !up && deleted.get(&f.service).is_some_and(|at| s.at_ms >= *at) {
                continue;
            }
            let (lane, served) = lanes
                .entry(f.service.clone())
                .or_insert_with(|| (lane(LaneGroup::Service, &f.service), false));
            let (kind, note) = match (up, *served) {
                (true, _) => (SpanKind::Up, "serving".to_owned()),
                (false, true) => (
                    SpanKind::Down,
                    if f.has_rule {
                        format!("down: no Ready backend (of {})", f.backends)
                    } else {
                        "down: no LB rule".to_owned()
                    },
                ),
                (false, false) => (SpanKind::Pending, "not serving yet".to_owned()),
            };
            *served |= up;
            extend(&mut lane.spans, rel(s.at_ms), rel(next), kind, &note);
        }
    }
    lanes.into_values().map(|(l, _)| l).collect()
}

/// Node initialisations (a node seen uninitialised, then initialised) and node churn marks.
fn node_lane(rec: &Recorded<'_>, rel: &impl Fn(i64) -> i64) -> Lane {
    let mut out = lane(LaneGroup::Nodes, "nodes");
    let mut waiting: BTreeSet<&str> = BTreeSet::new();
    for s in rec.samples {
        for n in s.nodes.iter().flatten() {
            let initialised = !n.uninitialized && n.provider_id_set;
            if !initialised {
                waiting.insert(&n.name);
            } else if waiting.remove(n.name.as_str()) {
                out.ticks.push(Tick {
                    at_ms: rel(s.at_ms),
                    kind: TickKind::NodeInit,
                    note: format!("{} initialised", n.name),
                });
            }
        }
    }
    for m in rec.marks {
        let (kind, note) = match &m.kind {
            MarkKind::NodeAdded { node } => (TickKind::NodeAdded, format!("{node} added")),
            MarkKind::VmDeleted { node } => (TickKind::NodeRemoved, format!("{node} VM deleted")),
            _ => continue,
        };
        out.ticks.push(Tick {
            at_ms: rel(m.at_ms),
            kind,
            note,
        });
    }
    out.ticks
        .sort_by(|a, b| (a.at_ms, &a.note).cmp(&(b.at_ms, &b.note)));
    out
}

/// The switch steps and phase boundaries worth a vertical line.
fn steps(marks: &[Mark], rel: &impl Fn(i64) -> i64) -> Vec<Step> {
    marks
        .iter()
        .filter_map(|m| {
            let label = match &m.kind {
                MarkKind::PhaseStarted { phase } if phase != "during" => phase.clone(),
                MarkKind::SwitchStarted => "switch".to_owned(),
                MarkKind::SwitchEnded => "switched".to_owned(),
                MarkKind::RollbackStarted => "rollback".to_owned(),
                MarkKind::RollbackEnded => "rolled back".to_owned(),
                MarkKind::FaultsInstalled { rules } => format!("faults ({rules})"),
                MarkKind::FaultsCleared => "faults cleared".to_owned(),
                MarkKind::ApiServerRestarted => "apiserver restart".to_owned(),
                MarkKind::ProcessKilled { name } => format!("kill {name}"),
                _ => return None,
            };
            Some(Step {
                at_ms: rel(m.at_ms),
                label,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_kinds_come_from_the_path() {
        let p = |t: &str| format!("/subscriptions/s/resourceGroups/rg/providers/{t}/x");
        assert_eq!(
            ResourceKind::of_path(&p("Microsoft.Network/loadBalancers")),
            ResourceKind::LoadBalancer
        );
        assert_eq!(
            ResourceKind::of_path(&p("Microsoft.Compute/virtualMachines")),
            ResourceKind::Compute
        );
        assert_eq!(
            ResourceKind::of_path(&p("Microsoft.Network/routeTables")),
            ResourceKind::RouteTable
        );
        assert_eq!(ResourceKind::of_path("/x"), ResourceKind::Other);
    }

    #[test]
    fn touching_spans_of_one_kind_join() {
        let mut spans = Vec::new();
        extend(&mut spans, 0, 250, SpanKind::Up, "serving");
        extend(&mut spans, 250, 500, SpanKind::Up, "serving");
        extend(&mut spans, 500, 750, SpanKind::Down, "down");
        extend(&mut spans, 750, 1000, SpanKind::Up, "serving");
        let got: Vec<(i64, i64)> = spans.iter().map(|s| (s.from_ms, s.to_ms)).collect();
        assert_eq!(got, vec![(0, 500), (500, 750), (750, 1000)]);
    }
}
