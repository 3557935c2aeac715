//! report.html with a scenario's switch timeline, rendered by headless Chromium (the approach of
//! testgrid's screenshot test): on the decoded PNG, the timeline is drawn: the Service's "up"
//! bar, the lease bars, the violated check's line inside the plot, and the two writers' ARM write
//! marks on two lanes at the same x.
//!
//! Needs the Debian package `chromium` (/usr/bin/chromium, installed by .ci/install-deps); the
//! test fails without it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::report::{RunMeta, write_results};
use harness::timeline::{self, ResourceKind, SpanKind};

use crate::scratch::Scratch;

const CHROMIUM: &str = "/usr/bin/chromium";
const WINDOW: (u32, u32) = (1200, 900);

fn chromium_screenshot(html: &Path, png: &Path, profile: &Path) {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} not found: install the Debian package `chromium` (.ci/install-deps) to run the timeline screenshot test"
    );
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={},{}", WINDOW.0, WINDOW.1))
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Some(status) = child.try_wait().expect("wait chromium") {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            assert!(
                status.success() && png.is_file(),
                "chromium failed ({status}): {err}"
            );
            return;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

struct Image {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

fn decode(path: &Path) -> Image {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("open png"),
    ));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("png size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    let (width, height) = (info.width as usize, info.height as usize);
    let rgb = (0..width * height)
        .map(|i| {
            let at = (i / width) * info.line_size + (i % width) * channels;
            [buf[at], buf[at + 1], buf[at + 2]]
        })
        .collect();
    Image { width, height, rgb }
}

/// A connected area of one exact colour: bounding box and pixel count.
#[derive(Debug, Clone, Copy)]
struct Blob {
    x0: usize,
    x1: usize,
    y0: usize,
    y1: usize,
    px: usize,
}

fn blobs(img: &Image, colour: [u8; 3], min_px: usize) -> Vec<Blob> {
    let mut seen = vec![false; img.rgb.len()];
    let mut out = Vec::new();
    for start in 0..img.rgb.len() {
        if seen[start] || img.rgb[start] != colour {
            continue;
        }
        let mut b = Blob {
            x0: usize::MAX,
            x1: 0,
            y0: usize::MAX,
            y1: 0,
            px: 0,
        };
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(p) = stack.pop() {
            let (x, y) = (p % img.width, p / img.width);
            b.x0 = b.x0.min(x);
            b.x1 = b.x1.max(x);
            b.y0 = b.y0.min(y);
            b.y1 = b.y1.max(y);
            b.px += 1;
            let mut push = |q: usize| {
                if !seen[q] && img.rgb[q] == colour {
                    seen[q] = true;
                    stack.push(q);
                }
            };
            if x > 0 {
                push(p - 1);
            }
            if x + 1 < img.width {
                push(p + 1);
            }
            if y > 0 {
                push(p - img.width);
            }
            if y + 1 < img.height {
                push(p + img.width);
            }
        }
        if b.px >= min_px {
            out.push(b);
        }
    }
    out
}

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
    chromium_screenshot(&html, &png_path, &scratch.0.join("profile"));
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
