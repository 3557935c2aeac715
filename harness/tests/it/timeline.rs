//! The switch timeline drawn from trimmed real artifacts (harness/tests/fixtures/timeline/, see its
//! README): SVG snapshots for a passing cold switch and for the failing no-quiesce twin, whose two
//! writers must show as write marks on two process lanes at the same moment.

use std::path::{Path, PathBuf};

use harness::timeline::{self, LaneGroup, TickKind, Timeline};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/timeline")
        .join(name)
}

fn timeline_of(name: &str) -> Timeline {
    let loaded = timeline::load_dir(&fixture(name)).expect("fixture loads");
    timeline::build(&loaded.recorded())
}

/// Times of the ARM write marks on the lane called `label`.
fn writes(t: &Timeline, label: &str) -> Vec<i64> {
    t.lanes
        .iter()
        .filter(|l| l.label == label)
        .flat_map(|l| &l.ticks)
        .filter(|k| matches!(k.kind, TickKind::Write { .. }))
        .map(|k| k.at_ms)
        .collect()
}

#[test]
fn a_passing_cold_switch_draws_its_lanes_without_a_violation() {
    let t = timeline_of("01-cold-switch-azure-cni");
    assert!(t.violations.is_empty(), "{:?}", t.violations);
    let labels: Vec<(LaneGroup, &str)> = t
        .lanes
        .iter()
        .map(|l| (l.group, l.label.as_str()))
        .collect();
    assert_eq!(
        labels,
        vec![
            (LaneGroup::Process, "kube-controller-manager-0"),
            (LaneGroup::Process, "cloud-controller-manager-0"),
            (LaneGroup::Process, "cloud-node-managers"),
            (LaneGroup::Lease, "lease cloud-controller-manager"),
            (LaneGroup::Lease, "lease kube-controller-manager"),
            (LaneGroup::Service, "default/web"),
            (LaneGroup::Service, "kube-public/dns"),
            (LaneGroup::Nodes, "nodes"),
        ]
    );
    let svg = timeline::render_svg(&t);
    assert_eq!(
        svg,
        timeline::render_svg(&timeline_of("01-cold-switch-azure-cni"))
    );
    insta::assert_snapshot!("timeline_01_cold_switch_svg", svg);
}

#[test]
fn the_no_quiesce_twin_shows_two_writers_at_once_and_the_violation() {
    let t = timeline_of("04-ha-no-quiesce");
    let in_tree = writes(&t, "kube-controller-manager-0");
    let ccm = writes(&t, "cloud-controller-manager-0");
    assert!(
        !in_tree.is_empty() && !ccm.is_empty(),
        "{in_tree:?} {ccm:?}"
    );
    // Both wrote within the same half second, after the switch started: two marks, two lanes,
    // one moment of the picture.
    let overlap = in_tree
        .iter()
        .any(|a| *a >= 0 && ccm.iter().any(|b| (a - b).abs() <= 500));
    assert!(overlap, "in-tree writes {in_tree:?}, CCM writes {ccm:?}");
    let violation = t
        .violations
        .iter()
        .find(|v| v.check == "single-writer")
        .expect("single-writer violation");
    assert_eq!(violation.at_ms, Some(200));
    let svg = timeline::render_svg(&t);
    assert!(svg.contains("✗ single-writer"), "violation label drawn");
    insta::assert_snapshot!("timeline_04_ha_no_quiesce_svg", svg);
}

#[test]
fn the_terminal_rendering_has_one_line_per_lane() {
    let t = timeline_of("04-ha-no-quiesce");
    let text = timeline::render_text(&t, 60);
    for lane in &t.lanes {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{} ", lane.label)))
            .unwrap_or_else(|| panic!("no line for {}\n{text}", lane.label));
        let cells = line.split('│').nth(1).expect("cells between bars");
        assert_eq!(cells.chars().count(), 60, "{line}");
    }
    insta::assert_snapshot!("timeline_04_ha_no_quiesce_text", text);
}
