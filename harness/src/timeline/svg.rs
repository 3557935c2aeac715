//! `render_svg`: a [`Timeline`] as one static SVG document (no script, no external asset, no
//! ids, so several can sit inline in one page). Deterministic: lanes and marks in the timeline's
//! order, every coordinate with one decimal.

use std::fmt::Write as _;

use super::model::{LaneGroup, ResourceKind, SpanKind, TickKind, Timeline};

/// Width of the picture, px.
pub const WIDTH: f64 = 1000.0;
const PLOT_X0: f64 = 250.0;
const PLOT_X1: f64 = 985.0;
const LANE_H: f64 = 20.0;
const STEP_ROWS: usize = 3;
const STEP_ROW_H: f64 = 12.0;

/// Colour of a span kind.
pub fn span_colour(kind: SpanKind) -> &'static str {
    match kind {
        SpanKind::Alive => "#d8dee4",
        SpanKind::Active => "#54aeff",
        SpanKind::HeldInTree => "#8250df",
        SpanKind::HeldOutOfTree => "#bf8700",
        SpanKind::HeldOther => "#6e7781",
        SpanKind::Up => "#2da44e",
        SpanKind::Down => "#e5534b",
        SpanKind::Pending => "#eaeef2",
    }
}

/// Colour of an ARM write mark by resource type.
pub fn resource_colour(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::LoadBalancer => "#d4a72c",
        ResourceKind::PublicIp => "#e85aad",
        ResourceKind::SecurityGroup => "#1b7c83",
        ResourceKind::RouteTable => "#8a4600",
        ResourceKind::NetworkInterface => "#6639ba",
        ResourceKind::Compute => "#24292f",
        ResourceKind::Other => "#8c959f",
    }
}

/// Colour of the violated check's line and label.
pub const VIOLATION: &str = "#ff0000";

/// The SVG document for `t`.
pub fn render_svg(t: &Timeline) -> String {
    let violations_h = 14.0 * t.violations.len() as f64;
    let steps_y = 28.0 + violations_h;
    let lanes_y = steps_y + STEP_ROWS as f64 * STEP_ROW_H + 6.0;
    let lanes_h = LANE_H * t.lanes.len() as f64;
    let axis_y = lanes_y + lanes_h;
    let legend_y = axis_y + 30.0;
    let height = legend_y + 40.0;
    let span = (t.end_ms - t.start_ms).max(1) as f64;
    let x = |ms: i64| {
        PLOT_X0 + (ms.clamp(t.start_ms, t.end_ms) - t.start_ms) as f64 * (PLOT_X1 - PLOT_X0) / span
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{WIDTH:.0}\" \
         height=\"{height:.0}\" viewBox=\"0 0 {WIDTH:.0} {height:.0}\" font-family=\"sans-serif\" \
         font-size=\"11\" shape-rendering=\"crispEdges\">"
    );
    let _ = writeln!(
        out,
        "<rect x=\"0\" y=\"0\" width=\"{WIDTH:.0}\" height=\"{height:.0}\" fill=\"#ffffff\"/>"
    );
    let _ = writeln!(
        out,
        "<text x=\"8\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{} — switch timeline \
         (time from the switch start)</text>",
        esc(&t.title)
    );
    for (i, v) in t.violations.iter().enumerate() {
        let when = v
            .at_ms
            .map_or_else(|| "time not recorded".to_owned(), Timeline::seconds);
        let _ = writeln!(
            out,
            "<text x=\"8\" y=\"{:.1}\" fill=\"{VIOLATION}\">✗ {} violated ({when}): {}</text>",
            30.0 + 14.0 * i as f64,
            esc(&v.check),
            esc(&clip(&v.reason, 140))
        );
    }
    // Lane backgrounds and labels.
    let mut last_group = None;
    for (i, lane) in t.lanes.iter().enumerate() {
        let y = lanes_y + LANE_H * i as f64;
        if i % 2 == 0 {
            let _ = writeln!(
                out,
                "<rect x=\"0\" y=\"{y:.1}\" width=\"{WIDTH:.0}\" height=\"{LANE_H:.1}\" fill=\"#f6f8fa\"/>"
            );
        }
        if last_group.is_some_and(|g| g != lane.group) {
            let _ = writeln!(
                out,
                "<line x1=\"0\" y1=\"{y:.1}\" x2=\"{WIDTH:.0}\" y2=\"{y:.1}\" stroke=\"#8c959f\"/>"
            );
        }
        last_group = Some(lane.group);
        let _ = writeln!(
            out,
            "<text x=\"8\" y=\"{:.1}\" fill=\"#24292f\">{}</text>",
            y + 14.0,
            esc(&clip(&lane_label(lane.group, &lane.label), 38))
        );
    }
    // Spans per lane.
    for (i, lane) in t.lanes.iter().enumerate() {
        let y = lanes_y + LANE_H * i as f64;
        for s in &lane.spans {
            let (top, h) = match s.kind {
                SpanKind::Alive => (y + 4.0, 12.0),
                SpanKind::Active => (y + 7.0, 6.0),
                _ => (y + 4.0, 12.0),
            };
            let (x0, x1) = (x(s.from_ms), x(s.to_ms));
            let _ = writeln!(
                out,
                "<rect x=\"{x0:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{}\">\
                 <title>{} {}..{}</title></rect>",
                (x1 - x0).max(1.0),
                span_colour(s.kind),
                esc(&s.note),
                Timeline::seconds(s.from_ms),
                Timeline::seconds(s.to_ms)
            );
        }
    }
    // Steps: dashed lines over the lanes, labels staggered over three rows.
    for (i, step) in t.steps.iter().enumerate() {
        let sx = x(step.at_ms);
        let ly = steps_y + STEP_ROW_H * (i % STEP_ROWS) as f64 + 9.0;
        let _ = writeln!(
            out,
            "<line x1=\"{sx:.1}\" y1=\"{:.1}\" x2=\"{sx:.1}\" y2=\"{axis_y:.1}\" stroke=\"#57606a\" \
             stroke-dasharray=\"3,3\"/><text x=\"{:.1}\" y=\"{ly:.1}\" font-size=\"10\" \
             fill=\"#57606a\">{} {}</text>",
            ly + 2.0,
            sx + 2.0,
            esc(&step.label),
            Timeline::seconds(step.at_ms)
        );
    }
    // The violations: a solid line at the moment.
    for v in &t.violations {
        let Some(at) = v.at_ms else { continue };
        let vx = x(at);
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"3.0\" height=\"{:.1}\" fill=\"{VIOLATION}\">\
             <title>{} violated {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" font-weight=\"bold\" \
             fill=\"{VIOLATION}\">✗ {}</text>",
            vx - 1.5,
            lanes_y,
            lanes_h,
            esc(&v.check),
            Timeline::seconds(at),
            vx + 3.0,
            lanes_y - 2.0,
            esc(&v.check)
        );
    }
    // ARM writes and node marks last, over the lines: two writers at one moment stay visible.
    for (i, lane) in t.lanes.iter().enumerate() {
        let y = lanes_y + LANE_H * i as f64;
        for tick in &lane.ticks {
            let tx = x(tick.at_ms);
            let title = format!(
                "<title>{} {}</title>",
                esc(&tick.note),
                Timeline::seconds(tick.at_ms)
            );
            match tick.kind {
                TickKind::Write {
                    resource,
                    throttled,
                    failed,
                } => {
                    let _ = writeln!(
                        out,
                        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"3.0\" height=\"18.0\" fill=\"{}\">{title}</rect>",
                        tx - 1.5,
                        y + 1.0,
                        resource_colour(resource)
                    );
                    if throttled || failed {
                        let _ = writeln!(
                            out,
                            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"{VIOLATION}\">{}</text>",
                            tx + 2.0,
                            y + 8.0,
                            if throttled { "429" } else { "✗" }
                        );
                    }
                }
                TickKind::NodeInit | TickKind::NodeAdded | TickKind::NodeRemoved => {
                    let (fill, shape) = match tick.kind {
                        TickKind::NodeInit => ("#2da44e", "◆"),
                        TickKind::NodeAdded => ("#0969da", "+"),
                        _ => ("#cf222e", "−"),
                    };
                    let _ = writeln!(
                        out,
                        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{fill}\">{shape}{title}</text>",
                        tx,
                        y + 14.0
                    );
                }
            }
        }
    }
    axis(&mut out, t, axis_y, &x);
    legend(&mut out, legend_y);
    out.push_str("</svg>\n");
    out
}

fn lane_label(group: LaneGroup, label: &str) -> String {
    match group {
        LaneGroup::Service => format!("service {label}"),
        _ => label.to_owned(),
    }
}

/// Ticks every 1, 2, 5, 10, ... seconds: about ten labels across.
fn axis(out: &mut String, t: &Timeline, y: f64, x: &impl Fn(i64) -> f64) {
    let _ = writeln!(
        out,
        "<line x1=\"{PLOT_X0:.1}\" y1=\"{y:.1}\" x2=\"{PLOT_X1:.1}\" y2=\"{y:.1}\" stroke=\"#24292f\"/>"
    );
    let span = t.end_ms - t.start_ms;
    let step = [
        1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000,
    ]
    .into_iter()
    .find(|s| span / s <= 12)
    .unwrap_or(1_200_000);
    let first = t.start_ms.div_euclid(step) * step;
    let mut at = first;
    while at <= t.end_ms {
        if at >= t.start_ms {
            let tx = x(at);
            let _ = writeln!(
                out,
                "<line x1=\"{tx:.1}\" y1=\"{y:.1}\" x2=\"{tx:.1}\" y2=\"{:.1}\" stroke=\"#24292f\"/>\
                 <text x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{}</text>",
                y + 4.0,
                y + 15.0,
                Timeline::seconds(at)
            );
        }
        at += step;
    }
}

fn legend(out: &mut String, y: f64) {
    let mut items: Vec<(&str, String)> = vec![
        (span_colour(SpanKind::Alive), "process running".into()),
        (span_colour(SpanKind::Active), "runs cloud loops".into()),
        (span_colour(SpanKind::HeldInTree), "lease: in-tree".into()),
        (span_colour(SpanKind::HeldOutOfTree), "lease: CCM".into()),
        (span_colour(SpanKind::Up), "service up".into()),
        (span_colour(SpanKind::Down), "service down".into()),
        (span_colour(SpanKind::Pending), "not serving yet".into()),
    ];
    items.extend(
        ResourceKind::ALL
            .iter()
            .map(|k| (resource_colour(*k), format!("write: {}", k.label()))),
    );
    for (i, (colour, label)) in items.iter().enumerate() {
        let (col, row) = (i % 7, i / 7);
        let lx = 8.0 + col as f64 * 140.0;
        let ly = y + row as f64 * 16.0;
        let _ = writeln!(
            out,
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"10.0\" height=\"10.0\" fill=\"{colour}\"/>\
             <text x=\"{:.1}\" y=\"{ly:.1}\" font-size=\"10\">{}</text>",
            ly - 9.0,
            lx + 14.0,
            esc(label)
        );
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}

/// Escapes text for XML content and attribute values.
fn esc(s: &str) -> String {
    testgrid::escape::markup(s)
}
