//! Renders the HTML report in headless Chromium and checks, on the decoded PNG, that the pass and
//! fail cells are drawn in the expected number, proportion and columns.
//!
//! Needs the Debian package `chromium` (/usr/bin/chromium); the test fails without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::fixture::{NOW, START, Tree, finished_passed, suite};
use testgrid::grid::load::load;
use testgrid::grid::{Grid, ReadOptions, Status};

const CHROMIUM: &str = "/usr/bin/chromium";
const WINDOW: (u32, u32) = (1000, 700);

fn chromium_screenshot(html: &Path, png: &Path) {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} not found: install the Debian package `chromium` (apt-get install -y chromium) to run the report screenshot test"
    );
    let profile = tempfile::tempdir().expect("profile dir");
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
        .arg(format!("--user-data-dir={}", profile.path().display()))
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
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let (width, height) = (info.width as usize, info.height as usize);
    let rgb = (0..width * height)
        .map(|i| {
            let row = i / width;
            let at = row * info.line_size + (i % width) * channels;
            [buf[at], buf[at + 1], buf[at + 2]]
        })
        .collect();
    Image { width, height, rgb }
}

/// Connected areas of exactly `colour` larger than `min_px` (cells; legend swatches are smaller).
fn blobs(img: &Image, colour: [u8; 3], min_px: usize) -> Vec<(f64, f64, usize)> {
    let mut seen = vec![false; img.rgb.len()];
    let mut out = Vec::new();
    for start in 0..img.rgb.len() {
        if seen[start] || img.rgb[start] != colour {
            continue;
        }
        let (mut sx, mut sy, mut n) = (0usize, 0usize, 0usize);
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(p) = stack.pop() {
            let (x, y) = (p % img.width, p / img.width);
            sx += x;
            sy += y;
            n += 1;
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
        if n >= min_px {
            out.push((sx as f64 / n as f64, sy as f64 / n as f64, n));
        }
    }
    out
}

fn fixture(t: &Tree) -> PathBuf {
    let pass = |n: usize| format!(r#"<testcase name="check {n}" time="1"/>"#);
    let fail = |n: usize| {
        format!(
            r#"<testcase name="check {n}" time="1"><failure message="boom {n}">x</failure></testcase>"#
        )
    };
    // Newest build (left column): checks 1-2 fail, 3-6 pass, Overall fails.
    let newest: String = (1..=6)
        .map(|n| if n <= 2 { fail(n) } else { pass(n) })
        .collect();
    t.build(
        "2",
        &format!(r#"{{"timestamp": {START}}}"#),
        Some(&finished_passed(false)),
        Some(&suite(&newest)),
    );
    // Older build (right column): everything passes.
    let older: String = (1..=6).map(pass).collect();
    t.build(
        "1",
        &format!(r#"{{"timestamp": {}}}"#, START - 3600),
        Some(&finished_passed(true)),
        Some(&suite(&older)),
    );
    t.job_dir()
}

#[test]
fn report_cells_are_drawn_in_chromium() {
    let t = Tree::new();
    let job = fixture(&t);
    let reads = load(
        &[job],
        &ReadOptions {
            now: NOW,
            days_of_results: None,
        },
    )
    .expect("load");
    let grid = Grid::new(reads.into_iter().map(|r| r.column).collect());
    let out = tempfile::tempdir().expect("out dir");
    let html = out.path().join("report.html");
    std::fs::write(&html, testgrid::html::render(&grid, "screenshot test")).expect("write html");
    let png_path = out.path().join("shot.png");
    chromium_screenshot(&html, &png_path);
    let img = decode(&png_path);
    assert_eq!(
        (img.width, img.height),
        (WINDOW.0 as usize, WINDOW.1 as usize)
    );

    let (w, h) = testgrid::html::CELL_PX;
    let min_px = (w * h / 3) as usize;
    let pass = blobs(&img, Status::Pass.colour(), min_px);
    let fail = blobs(&img, Status::Fail.colour(), min_px);
    // 7 rows (Overall + 6 checks) x 2 builds: 3 fail cells (Overall, check 1, check 2), 11 pass cells.
    assert_eq!(
        (pass.len(), fail.len()),
        (11, 3),
        "pass blobs {pass:?}\nfail blobs {fail:?}"
    );
    let pass_px: usize = pass.iter().map(|b| b.2).sum();
    let fail_px: usize = fail.iter().map(|b| b.2).sum();
    let ratio = pass_px as f64 / fail_px as f64;
    assert!(
        (ratio - 11.0 / 3.0).abs() < 11.0 / 3.0 * 0.25,
        "pass/fail pixel ratio {ratio}"
    );

    // Fail cells all sit in the left (newest) column, in the top three rows.
    let left_x = fail[0].0;
    assert!(
        fail.iter().all(|b| (b.0 - left_x).abs() < 2.0),
        "fail cells not in one column: {fail:?}"
    );
    let right: Vec<_> = pass
        .iter()
        .filter(|b| b.0 > left_x + f64::from(w) / 2.0)
        .collect();
    let left: Vec<_> = pass.iter().filter(|b| (b.0 - left_x).abs() < 2.0).collect();
    assert_eq!(
        (left.len(), right.len()),
        (4, 7),
        "pass cells per column: {pass:?}"
    );
    let max_fail_y = fail.iter().map(|b| b.1).fold(f64::MIN, f64::max);
    let min_left_pass_y = left.iter().map(|b| b.1).fold(f64::MAX, f64::min);
    assert!(
        max_fail_y < min_left_pass_y,
        "failing rows should be above passing rows in the newest column"
    );
}
