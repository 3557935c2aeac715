//! Renders the HTML report in headless Chromium and checks, on the decoded PNG, that pass, fail,
//! skip, flaky and running cells are drawn in their colours, number, columns and rows.
//!
//! Needs the Debian package `chromium` (/usr/bin/chromium); the test fails without it.

use std::path::PathBuf;

use fake_process::screenshot::{Image, blobs, chromium_screenshot, decode};

use crate::fixture::{NOW, START, Tree, finished_passed, suite};
use testgrid::grid::load::load;
use testgrid::grid::tab_status::{TabSettings, summarize};
use testgrid::grid::{Grid, ReadOptions, Status};

const WINDOW: (u32, u32) = (1000, 700);

fn fixture(t: &Tree) -> PathBuf {
    let pass = |n: usize| format!(r#"<testcase name="check {n}" time="1"/>"#);
    let fail = |n: usize| {
        format!(
            r#"<testcase name="check {n}" time="1"><failure message="boom {n}">x</failure></testcase>"#
        )
    };
    let skip = |n: usize| {
        format!(r#"<testcase name="check {n}"><skipped message="skipped - not here"/></testcase>"#)
    };
    // Newest build (left column): still running (no finished.json), every check passed so far.
    let running: String = (1..=6).map(pass).collect();
    t.build(
        "3",
        &format!(r#"{{"timestamp": {START}}}"#),
        None,
        Some(&suite(&running)),
    );
    // Middle build: checks 1-2 fail, 3 skipped with a reason, 4 retried (flaky), 5-6 pass;
    // Overall fails.
    let middle = format!(
        "{}{}{}{}{}{}{}",
        fail(1),
        fail(2),
        skip(3),
        fail(4),
        pass(4),
        pass(5),
        pass(6)
    );
    t.build(
        "2",
        &format!(r#"{{"timestamp": {}}}"#, START - 3600),
        Some(&finished_passed(false)),
        Some(&suite(&middle)),
    );
    // Oldest build (right column): everything passes.
    let older: String = (1..=6).map(pass).collect();
    t.build(
        "1",
        &format!(r#"{{"timestamp": {}}}"#, START - 7200),
        Some(&finished_passed(true)),
        Some(&suite(&older)),
    );
    t.job_dir()
}

/// Cells of `status`: connected areas of its exact colour larger than a third of a cell.
fn cells(img: &Image, status: Status) -> Vec<(f64, f64, usize)> {
    let (w, h) = testgrid::html::CELL_PX;
    blobs(img, status.colour(), (w * h / 3) as usize)
        .into_iter()
        .map(|b| {
            let (x, y) = b.centre();
            (x, y, b.px)
        })
        .collect()
}

#[test]
fn report_cells_are_drawn_in_chromium() {
    let t = Tree::new();
    let job = fixture(&t);
    let reads = load(&[job], &ReadOptions::at(NOW)).expect("load");
    let grid = Grid::new(reads.into_iter().map(|r| r.column).collect());
    let out = tempfile::tempdir().expect("out dir");
    let html = out.path().join("report.html");
    let tab = summarize(&grid, &TabSettings::default(), NOW);
    std::fs::write(
        &html,
        testgrid::html::render(&grid, &tab, "screenshot test"),
    )
    .expect("write html");
    let png_path = out.path().join("shot.png");
    chromium_screenshot(&html, &png_path, WINDOW);
    // For a person to look at what the test judged: `TESTGRID_SCREENSHOT_OUT=/tmp/shot.png cargo test ...`.
    if let Some(keep) = std::env::var_os("TESTGRID_SCREENSHOT_OUT") {
        std::fs::copy(&png_path, keep).expect("copy screenshot");
    }
    let img = decode(&png_path);
    assert_eq!(
        (img.width, img.height),
        (WINDOW.0 as usize, WINDOW.1 as usize)
    );

    let pass = cells(&img, Status::Pass);
    let fail = cells(&img, Status::Fail);
    let skip = cells(&img, Status::PassWithSkips);
    let flaky = cells(&img, Status::Flaky);
    let running = cells(&img, Status::Running);
    // 7 rows (Overall + 6 checks) x 3 builds = 21 cells.
    assert_eq!(
        (
            pass.len(),
            fail.len(),
            skip.len(),
            flaky.len(),
            running.len()
        ),
        (15, 3, 1, 1, 1),
        "pass {pass:?}\nfail {fail:?}\nskip {skip:?}\nflaky {flaky:?}\nrunning {running:?}"
    );
    let pass_px: usize = pass.iter().map(|b| b.2).sum();
    let fail_px: usize = fail.iter().map(|b| b.2).sum();
    let ratio = pass_px as f64 / fail_px as f64;
    assert!(
        (ratio - 15.0 / 3.0).abs() < 15.0 / 3.0 * 0.25,
        "pass/fail pixel ratio {ratio}"
    );

    // Columns: running on the left; fail, skip and flaky in the middle; then passes only.
    let (w, _) = testgrid::html::CELL_PX;
    let same_x = |a: f64, b: f64| (a - b).abs() < 2.0;
    let left_x = running[0].0;
    let mid_x = fail[0].0;
    assert!(
        mid_x > left_x + f64::from(w) / 2.0,
        "running {left_x} middle {mid_x}"
    );
    assert!(
        fail.iter()
            .chain(&skip)
            .chain(&flaky)
            .all(|b| same_x(b.0, mid_x)),
        "middle column: fail {fail:?} skip {skip:?} flaky {flaky:?}"
    );
    let per_column = |x: f64| pass.iter().filter(|b| same_x(b.0, x)).count();
    let right_x = pass.iter().map(|b| b.0).fold(f64::MIN, f64::max);
    assert_eq!(
        (per_column(left_x), per_column(mid_x), per_column(right_x)),
        (6, 2, 7),
        "pass cells per column: {pass:?}"
    );
    // Rows: Overall and checks 1-2 fail (top three), then check 3 skipped, check 4 flaky; the
    // running cell is the Overall row.
    let max_fail_y = fail.iter().map(|b| b.1).fold(f64::MIN, f64::max);
    let min_fail_y = fail.iter().map(|b| b.1).fold(f64::MAX, f64::min);
    assert!(
        max_fail_y < skip[0].1 && skip[0].1 < flaky[0].1,
        "row order: fail {fail:?} skip {skip:?} flaky {flaky:?}"
    );
    assert!(
        (running[0].1 - min_fail_y).abs() < 2.0,
        "running cell is the Overall row"
    );
}
