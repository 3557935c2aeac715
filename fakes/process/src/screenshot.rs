//! Screenshots of generated HTML pages in headless Chromium, decoded to pixels, so report tests
//! check what a reader sees (cells, bars, marks) rather than the markup.
//!
//! Needs the Debian package `chromium` (/usr/bin/chromium, installed by .ci/install-deps).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian installs Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// Renders `html` at `window` (width, height) into the PNG `png`; panics with Chromium's stderr
/// when it fails or takes over 90 s.
pub fn chromium_screenshot(html: &Path, png: &Path, window: (u32, u32)) {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} not found: install the Debian package `chromium` (apt-get install -y chromium, as .ci/install-deps does) to run the screenshot tests"
    );
    let profile = tempfile::tempdir().expect("chromium profile dir");
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
        .arg(format!("--window-size={},{}", window.0, window.1))
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

/// A decoded screenshot: RGB pixels row by row.
pub struct Image {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// One RGB triple per pixel, row-major.
    pub rgb: Vec<[u8; 3]>,
}

/// Decodes an 8-bit RGB or RGBA PNG (what Chromium writes).
pub fn decode(path: &Path) -> Image {
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
            let at = (i / width) * info.line_size + (i % width) * channels;
            [buf[at], buf[at + 1], buf[at + 2]]
        })
        .collect();
    Image { width, height, rgb }
}

/// A connected area of one exact colour: bounding box and pixel count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blob {
    /// Leftmost column.
    pub x0: usize,
    /// Rightmost column.
    pub x1: usize,
    /// Top row.
    pub y0: usize,
    /// Bottom row.
    pub y1: usize,
    /// Pixels in the area.
    pub px: usize,
}

impl Blob {
    /// Centre of the bounding box.
    pub fn centre(&self) -> (f64, f64) {
        (
            (self.x0 + self.x1) as f64 / 2.0,
            (self.y0 + self.y1) as f64 / 2.0,
        )
    }
}

/// Connected (4-neighbour) areas of exactly `colour` with at least `min_px` pixels, in scan order
/// of their first pixel; the size floor keeps legend swatches and anti-aliased edges out.
pub fn blobs(img: &Image, colour: [u8; 3], min_px: usize) -> Vec<Blob> {
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
