//! report.html with a scenario's switch timeline, rendered by headless Chromium (the approach of
//! testgrid's screenshot test): on the decoded PNG, the timeline is drawn: the Service's "up"
//! bar, the lease bars, the violated check's line inside the plot, and the two writers' ARM write
//! marks on two lanes at the same x.
//!
//! Needs the Debian package `chromium` (/usr/bin/chromium, installed by .ci/install-deps); the
//! test fails without it.

use std::path::Path;

use fake_process::screenshot::{Blob, blobs, chromium_screenshot, decode};

use harness::report::{RunMeta, write_results};
use harness::timeline::{self, ResourceKind, SpanKind};

use crate::scratch::Scratch;

const WINDOW: (u32, u32) = (1200, 900);

fn rgb(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).expect("hex colour");
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

#[test]
fn the_report_page_draws_the_timeline_in_chromium() {
    let scratch = Scratch::new("timeline-shot");
    let build = scratch.0.join("build");
    let dir = build.join("artifacts/scenarios/04-ha-no-quiesce");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/timeline/04-ha-no-quiesce");
    std::fs::create_dir_all(&dir).expect("scenario dir");
    for entry in std::fs::read_dir(&fixture).expect("fixture") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.join(entry.file_name())).expect("copy fixture");
    }
    let mut loaded = timeline::load_dir(&dir).expect("load");
    loaded.outcome.artifacts = dir.clone();
    timeline::write_svg(&dir, &loaded.recorded()).expect("timeline.svg");
    let meta = RunMeta::new(loaded.outcome.started_ms);
    let written =
        write_results(&build, &meta, std::slice::from_ref(&loaded.outcome), false).expect("write");
    let html = written.html.expect("report.html");
    let page = std::fs::read_to_string(&html).expect("read page");
    assert!(
        page.contains("<svg xmlns"),
        "the page embeds the SVG inline"
    );
    let png_path = scratch.0.join("shot.png");
    chromium_screenshot(&html, &png_path, WINDOW);
    // For a person to look at what the test judged: `TIMELINE_SCREENSHOT_OUT=/tmp/t.png cargo test ...`.
    if let Some(keep) = std::env::var_os("TIMELINE_SCREENSHOT_OUT") {
        std::fs::copy(&png_path, keep).expect("copy screenshot");
    }
    let img = decode(&png_path);

    let up = blobs(&img, rgb(timeline::span_colour(SpanKind::Up)), 2000);
    let ccm_lease = blobs(
        &img,
        rgb(timeline::span_colour(SpanKind::HeldOutOfTree)),
        2000,
    );
    let in_tree_lease = blobs(&img, rgb(timeline::span_colour(SpanKind::HeldInTree)), 1000);
    let violation = blobs(&img, rgb(timeline::VIOLATION), 300);
    assert_eq!(up.len(), 1, "one Service up bar: {up:?}");
    assert_eq!(ccm_lease.len(), 1, "one CCM lease bar: {ccm_lease:?}");
    assert!(!in_tree_lease.is_empty(), "in-tree lease bars");
    let up = up[0];
    assert!(
        up.x1 - up.x0 > 300,
        "the up bar spans most of the run: {up:?}"
    );
    // The violation line: thin red pieces at one x (write marks drawn over it cut it), together
    // reaching from the process lanes down over the Service lane, inside the plot.
    let pieces: Vec<&Blob> = violation.iter().filter(|b| b.x1 - b.x0 < 6).collect();
    let first = pieces
        .iter()
        .max_by_key(|b| b.y1 - b.y0)
        .unwrap_or_else(|| panic!("no violation line: {violation:?}"));
    let line: Vec<&&Blob> = pieces
        .iter()
        .filter(|b| b.x0.abs_diff(first.x0) <= 2)
        .collect();
    let (top, bottom) = (
        line.iter().map(|b| b.y0).min().unwrap_or(0),
        line.iter().map(|b| b.y1).max().unwrap_or(0),
    );
    assert!(
        first.x0 >= up.x0.saturating_sub(10) && first.x0 < up.x1,
        "line {line:?} up {up:?}"
    );
    assert!(top < ccm_lease[0].y0 && bottom >= up.y1, "line {line:?}");
    // ARM writes by both managers: full-height marks on two lanes (two y) at about one x.
    let marks: Vec<Blob> = ResourceKind::ALL
        .iter()
        .flat_map(|k| blobs(&img, rgb(timeline::resource_colour(*k)), 20))
        .filter(|b| b.y1 - b.y0 >= 14 && b.x1 - b.x0 <= 4)
        .collect();
    let two_lanes = marks.iter().any(|a| {
        marks
            .iter()
            .any(|b| b.y0 > a.y1 && b.x0.abs_diff(a.x0) <= 20)
    });
    assert!(two_lanes, "write marks {marks:?}");
}
