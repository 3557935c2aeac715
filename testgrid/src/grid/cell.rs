//! One cell of the grid, and TestGrid's rules for turning a testcase into a cell
//! (status mapping, message, metrics) and for merging equal row names.

use std::collections::BTreeMap;

use super::status::Status;
use crate::junit::reader::{Detail, ParsedCase};

/// Metric TestGrid derives from the testcase `time` (and from finished − started for Overall).
pub const DURATION_METRIC: &str = "test-duration-minutes";

/// TestGrid keeps this many bytes of a cell message (first and last half around `...`).
const MESSAGE_BYTES: usize = 140;

/// What one row shows for one build.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Status.
    pub status: Status,
    /// Short text in the cell (`F`, `S`, `E`, `R`, `T`, `2/3`…).
    pub icon: Option<String>,
    /// Hover message (≤140 bytes, like TestGrid).
    pub message: String,
    /// Metrics by name.
    pub metrics: BTreeMap<String, f64>,
}

impl Cell {
    /// A cell with a status and no icon, message or metrics.
    pub fn new(status: Status) -> Self {
        Self {
            status,
            icon: None,
            message: String::new(),
            metrics: BTreeMap::new(),
        }
    }

    /// Sets the icon.
    pub fn with_icon(mut self, icon: &str) -> Self {
        self.icon = Some(icon.to_owned());
        self
    }

    /// Sets the message, cut like TestGrid cuts it.
    pub fn with_message(mut self, message: &str) -> Self {
        self.message = cut_message(message);
        self
    }
}

/// Result of mapping one testcase.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseCell {
    /// A bare skip: TestGrid makes no cell at all.
    Dropped,
    /// The cell, plus the names of properties that were not numbers (not metrics).
    Cell(Cell, Vec<String>),
}

/// Applies TestGrid's status mapping (first match wins) to one testcase.
pub fn from_case(case: &ParsedCase) -> CaseCell {
    if let Some(skip) = &case.skipped
        && skip.body.is_empty()
        && (skip.message.is_empty() || skip.message == "skipped")
    {
        return CaseCell::Dropped;
    }
    let (status, icon) = if let Some(d) = case.error.as_ref().or(case.failure.as_ref()) {
        (Status::Fail, (!d.message.is_empty()).then_some("F"))
    } else if case.skipped.is_some() {
        (Status::PassWithSkips, Some("S"))
    } else {
        (Status::Pass, None)
    };
    let message = [&case.error, &case.failure, &case.skipped]
        .into_iter()
        .flatten()
        .map(detail_text)
        .chain([case.system_err.clone(), case.system_out.clone()])
        .find(|m| !m.is_empty())
        .unwrap_or_default();
    let mut cell = Cell::new(status).with_message(&message);
    cell.icon = icon.map(str::to_owned);
    if case.time_secs > 0.0 {
        cell.metrics
            .insert(DURATION_METRIC.to_owned(), case.time_secs / 60.0);
    }
    let mut sums: BTreeMap<&str, (f64, u32)> = BTreeMap::new();
    let mut not_numeric = Vec::new();
    for (name, value) in &case.properties {
        match parse_go_float(value) {
            Some(v) => {
                let e = sums.entry(name).or_insert((0.0, 0));
                e.0 += v;
                e.1 += 1;
            }
            None => not_numeric.push(name.clone()),
        }
    }
    for (name, (sum, n)) in sums {
        cell.metrics.insert(name.to_owned(), sum / f64::from(n));
    }
    CaseCell::Cell(cell, not_numeric)
}

fn detail_text(d: &Detail) -> String {
    match (d.message.is_empty(), d.body.is_empty()) {
        (_, true) => d.message.clone(),
        (true, false) => d.body.clone(),
        (false, false) => format!("{}\n{}", d.message, d.body),
    }
}

/// Go's `strconv.ParseFloat(v, 64)` for the forms a JUnit property realistically holds.
fn parse_go_float(value: &str) -> Option<f64> {
    let v = value.strip_prefix('+').unwrap_or(value);
    if v.is_empty() || v.contains(char::is_whitespace) {
        return None;
    }
    v.parse::<f64>().ok()
}

/// Keeps the first and last 70 bytes around `...` (on character boundaries).
pub fn cut_message(message: &str) -> String {
    if message.len() <= MESSAGE_BYTES {
        return message.to_owned();
    }
    let half = MESSAGE_BYTES / 2;
    let mut head = half;
    while !message.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = message.len() - half;
    while !message.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}...{}", &message[..head], &message[tail..])
}

/// Merges cells with the same row name in one column: FLAKY when some passed and some failed,
/// else the most severe status; icon `passes/total`; metrics averaged.
pub fn merge(cells: Vec<Cell>) -> Option<Cell> {
    if cells.len() <= 1 {
        return cells.into_iter().next();
    }
    let total = cells.len();
    let passes = cells.iter().filter(|c| c.status.is_passing()).count();
    let any_fail = cells.iter().any(|c| c.status.is_failing());
    let worst = cells.iter().max_by_key(|c| c.status)?;
    let status = if passes > 0 && any_fail {
        Status::Flaky
    } else {
        worst.status
    };
    let relevant = cells
        .iter()
        .filter(|c| !c.message.is_empty())
        .max_by_key(|c| c.status)
        .map(|c| c.message.clone())
        .unwrap_or_default();
    let mut sums: BTreeMap<String, (f64, u32)> = BTreeMap::new();
    for c in &cells {
        for (k, v) in &c.metrics {
            let e = sums.entry(k.clone()).or_insert((0.0, 0));
            e.0 += v;
            e.1 += 1;
        }
    }
    let mut merged = Cell::new(status)
        .with_icon(&format!("{passes}/{total}"))
        .with_message(&format!("{passes}/{total} runs passed: {relevant}"));
    merged.metrics = sums
        .into_iter()
        .map(|(k, (s, n))| (k, s / f64::from(n)))
        .collect();
    Some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case() -> ParsedCase {
        ParsedCase {
            row_name: "s.c".into(),
            ..Default::default()
        }
    }

    fn detail(message: &str, body: &str) -> Option<Detail> {
        Some(Detail {
            message: message.into(),
            body: body.into(),
        })
    }

    #[test]
    fn bare_skips_are_dropped_reasoned_skips_kept() {
        assert_eq!(
            from_case(&ParsedCase {
                skipped: detail("", ""),
                ..case()
            }),
            CaseCell::Dropped
        );
        assert_eq!(
            from_case(&ParsedCase {
                skipped: detail("skipped", ""),
                ..case()
            }),
            CaseCell::Dropped
        );
        for kept in [
            detail("skipped - single stack", ""),
            detail("skipped", "why"),
            detail("Skipped", ""),
        ] {
            let CaseCell::Cell(c, _) = from_case(&ParsedCase {
                skipped: kept,
                ..case()
            }) else {
                panic!()
            };
            assert_eq!(
                (c.status, c.icon.as_deref()),
                (Status::PassWithSkips, Some("S"))
            );
        }
    }

    #[test]
    fn error_and_failure_fail_icon_only_with_message() {
        let CaseCell::Cell(c, _) = from_case(&ParsedCase {
            error: detail("boom", ""),
            ..case()
        }) else {
            panic!()
        };
        assert_eq!((c.status, c.icon.as_deref()), (Status::Fail, Some("F")));
        let CaseCell::Cell(c, _) = from_case(&ParsedCase {
            failure: detail("", "body"),
            ..case()
        }) else {
            panic!()
        };
        assert_eq!(
            (c.status, c.icon, c.message.as_str()),
            (Status::Fail, None, "body")
        );
    }

    #[test]
    fn message_is_cut_to_140_bytes() {
        let long = format!("{}{}", "a".repeat(100), "b".repeat(100));
        let cut = cut_message(&long);
        assert_eq!(cut, format!("{}...{}", "a".repeat(70), "b".repeat(70)));
    }

    #[test]
    fn numeric_properties_become_averaged_metrics() {
        let props = [
            ("calls", "4"),
            ("calls", "6"),
            ("zone", "eastus-1"),
            ("ratio", "1e-3"),
        ];
        let parsed = ParsedCase {
            time_secs: 30.0,
            properties: props
                .iter()
                .map(|(a, b)| ((*a).into(), (*b).into()))
                .collect(),
            ..case()
        };
        let CaseCell::Cell(c, not_numeric) = from_case(&parsed) else {
            panic!()
        };
        assert_eq!(c.metrics["calls"], 5.0);
        assert_eq!(c.metrics["ratio"], 0.001);
        assert_eq!(c.metrics[DURATION_METRIC], 0.5);
        assert_eq!(not_numeric, ["zone"]);
    }

    #[test]
    fn merge_makes_flaky_or_worst() {
        let pass = Cell::new(Status::Pass);
        let fail = Cell::new(Status::Fail).with_message("boom");
        let m = merge(vec![pass.clone(), fail.clone(), pass.clone()]).unwrap();
        assert_eq!(
            (m.status, m.icon.as_deref(), m.message.as_str()),
            (Status::Flaky, Some("2/3"), "2/3 runs passed: boom")
        );
        let m = merge(vec![Cell::new(Status::PassWithSkips), pass]).unwrap();
        assert_eq!(m.status, Status::PassWithSkips);
        assert_eq!(
            merge(vec![fail.clone(), fail]).unwrap().status,
            Status::Fail
        );
    }
}
