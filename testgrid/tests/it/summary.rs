//! Golden test of the terminal summary `harness report` prints.

use crate::fixture::{NOW, START, Tree, case, grid_of};
use testgrid::grid::ReadOptions;
use testgrid::grid::tab_status::{TabSettings, summarize};

/// Totals, the tab status and alerts, then each job's newest build with what is failing.
#[test]
fn terminal_summary_golden() {
    let t = Tree::new();
    let green: String = ["lb", "routes", "ipv6"]
        .iter()
        .map(|n| case(n, 'P'))
        .collect();
    t.run("ci-parity", "1767200000", START - 7200, Some(true), &green);
    let newest = format!(
        "{}{}{}{}",
        case("lb", 'F'),
        case("routes", 'F'),
        case("routes", 'P'),
        case("ipv6", 'S')
    );
    t.run("ci-parity", "1767210000", START, Some(false), &newest);
    t.run("ci-other", "1", START - 3600, None, &case("smoke", 'P'));
    let grid = grid_of(
        &[t.job("ci-parity"), t.job("ci-other")],
        &ReadOptions::at(NOW),
    );
    let tab = summarize(&grid, &TabSettings::default(), NOW);
    insta::assert_snapshot!(testgrid::summary::render(&grid, &tab));
}
