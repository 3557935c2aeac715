//! `render_text`: a [`Timeline`] as fixed-width terminal lines, one per lane (`harness run
//! --verbose`). Cells: `█` runs its cloud loops, `▁` process running, `|` ARM write, `!` a 429 or
//! failed write; leases `k` (in-tree holder), `c` (CCM holder), `?` (other); services `█` up,
//! `X` down, `·` not serving yet; nodes `*` initialised, `+` added, `-` VM deleted. A `^` row marks
//! the switch steps, a `V` row the violated checks.

use super::model::{SpanKind, TickKind, Timeline};

const LABEL: usize = 34;

/// The timeline as text, `cells` columns wide (at least 10).
pub fn render_text(t: &Timeline, cells: usize) -> String {
    let cells = cells.max(10);
    let span = (t.end_ms - t.start_ms).max(1);
    let cell = |ms: i64| {
        let ms = ms.clamp(t.start_ms, t.end_ms) - t.start_ms;
        ((ms as i128 * cells as i128 / span as i128) as usize).min(cells - 1)
    };
    let mut out = String::new();
    out.push_str(&format!(
        "{} — switch timeline, {} .. {} ({} per cell)\n",
        t.title,
        Timeline::seconds(t.start_ms),
        Timeline::seconds(t.end_ms),
        Timeline::seconds(span / cells as i64).trim_start_matches('+')
    ));
    let mut row = |label: &str, line: Vec<char>| {
        out.push_str(&format!(
            "{:<LABEL$} │{}│\n",
            clip(label),
            line.into_iter().collect::<String>()
        ));
    };
    let mut steps = vec![' '; cells];
    for s in &t.steps {
        steps[cell(s.at_ms)] = '^';
    }
    row("steps", steps);
    for lane in &t.lanes {
        let mut line = vec![' '; cells];
        let mut spans = lane.spans.clone();
        // Alive first, so activity and states draw over it.
        spans.sort_by_key(|s| (s.kind != SpanKind::Alive, s.from_ms));
        for s in &spans {
            let c = match s.kind {
                SpanKind::Alive => '▁',
                SpanKind::Active | SpanKind::Up => '█',
                SpanKind::HeldInTree => 'k',
                SpanKind::HeldOutOfTree => 'c',
                SpanKind::HeldOther => '?',
                SpanKind::Down => 'X',
                SpanKind::Pending => '·',
            };
            for slot in &mut line[cell(s.from_ms)..=cell((s.to_ms - 1).max(s.from_ms))] {
                // Downtime wins over up when both fall in one cell.
                if !(*slot == 'X' && c == '█') {
                    *slot = c;
                }
            }
        }
        for tick in &lane.ticks {
            let slot = &mut line[cell(tick.at_ms)];
            *slot = match tick.kind {
                TickKind::Write {
                    throttled, failed, ..
                } if throttled || failed => '!',
                TickKind::Write { .. } if *slot == '!' => '!',
                TickKind::Write { .. } => '|',
                TickKind::NodeInit => '*',
                TickKind::NodeAdded => '+',
                TickKind::NodeRemoved => '-',
            };
        }
        row(&lane.label, line);
    }
    if t.violations.iter().any(|v| v.at_ms.is_some()) {
        let mut line = vec![' '; cells];
        for v in &t.violations {
            if let Some(at) = v.at_ms {
                line[cell(at)] = 'V';
            }
        }
        row("violated", line);
    }
    let steps: Vec<String> = t
        .steps
        .iter()
        .map(|s| format!("{} {}", s.label, Timeline::seconds(s.at_ms)))
        .collect();
    out.push_str(&format!("steps: {}\n", steps.join(", ")));
    for v in &t.violations {
        let when = v
            .at_ms
            .map_or_else(|| "time not recorded".to_owned(), Timeline::seconds);
        out.push_str(&format!("violated: {} ({when}): {}\n", v.check, v.reason));
    }
    out
}

fn clip(label: &str) -> String {
    if label.chars().count() <= LABEL {
        label.to_owned()
    } else {
        let cut: String = label.chars().take(LABEL - 1).collect();
        format!("{cut}…")
    }
}
