//! One cell of the grid, and TestGrid's rules for turning a testcase into a cell
//! (status mapping, message, metrics) and for merging equal row names.

use std::collections::BTreeMap;

use super::status::Status;
use crate::junit::reader::{Detail, ParsedCase};

/// Metric TestGrid derives from the testcase `time` (and from finished − started for Overall).
pub const DURATION_METRIC: &str = "test-duration-minutes";

/// Testcase messages this long or longer are cut to their first and last half around `...`.
const MESSAGE_BYTES: usize = 140;
/// Every stored cell message longer than this is cut again when the updater appends the cell.
const STORED_MESSAGE_BYTES: usize = 140;

/// What one row shows for one build.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Status.
    pub status: Status,
    /// Short text in the cell (`F`, `S`, `E`, `R`, `T`, `2/3`…).
    pub icon: Option<String>,
    /// Hover message (testcase messages cut like TestGrid cuts them, see [`cut_message`]).
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

    /// Sets the message as is (TestGrid cuts only testcase messages, see [`cut_message`]).
    pub fn with_message(mut self, message: &str) -> Self {
        self.message = message.to_owned();
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
    let message = [&case.error, &case.failure, &case.skipped]
        .into_iter()
        .flatten()
        .map(detail_text)
        .chain([case.system_err.clone(), case.system_out.clone()])
        .find(|m| !m.is_empty())
        .map(|m| cut_message(&m))
        .unwrap_or_default();
    // The "F" icon needs a cell message: from the element, or the system-err/out fallback.
    let (status, icon) = if case.error.is_some() || case.failure.is_some() {
        (Status::Fail, (!message.is_empty()).then_some("F"))
    } else if case.skipped.is_some() {
        (Status::PassWithSkips, Some("S"))
    } else {
        (Status::Pass, None)
    };
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

/// TestGrid's testcase message cut: a message of 140 bytes or more keeps its first and last 70
/// bytes around `...` (cutting bytes, not characters); if that splits a character the message
/// becomes `invalid utf8: ` plus the text with each broken sequence replaced by `?`.
pub fn cut_message(message: &str) -> String {
    if message.len() < MESSAGE_BYTES {
        return message.to_owned();
    }
    let half = MESSAGE_BYTES / 2;
    let bytes = message.as_bytes();
    let mut cut = Vec::with_capacity(MESSAGE_BYTES + 3);
    cut.extend_from_slice(&bytes[..half]);
    cut.extend_from_slice(b"...");
    cut.extend_from_slice(&bytes[bytes.len() - half..]);
    match String::from_utf8(cut) {
        Ok(valid) => valid,
        Err(e) => format!("invalid utf8: {}", to_valid_utf8(e.as_bytes(), "?")),
    }
}

/// The message a cell finally shows: TestGrid's updater (`pkg/updater/updater.go`,
/// `appendCell` calling `truncate(cell.Message, 140)`) cuts every cell message it stores, after
/// the testcase message was already derived (see [`cut_message`]) and merged (see [`merge`]): a
/// message over 140 bytes keeps its first and last 70 bytes around `...`, each half with any
/// split character dropped (`strings.ToValidUTF8(s, "")`). So a merged flaky message, an
/// `invalid utf8: ` message or a long Overall message is cut (again).
pub fn stored_message(message: &str) -> String {
    if message.len() <= STORED_MESSAGE_BYTES {
        return message.to_owned();
    }
    let half = STORED_MESSAGE_BYTES / 2;
    let bytes = message.as_bytes();
    format!(
        "{}...{}",
        to_valid_utf8(&bytes[..half], ""),
        to_valid_utf8(&bytes[bytes.len() - half..], "")
    )
}

impl Cell {
    /// This cell as TestGrid stores and shows it (message cut by [`stored_message`]).
    pub fn stored(mut self) -> Self {
        self.message = stored_message(&self.message);
        self
    }
}

/// Go's `strings.ToValidUTF8`: each run of invalid bytes becomes one `replacement`.
fn to_valid_utf8(bytes: &[u8], replacement: &str) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut in_invalid_run = false;
    for chunk in bytes.utf8_chunks() {
        if !chunk.valid().is_empty() {
            out.push_str(chunk.valid());
            in_invalid_run = false;
        }
        if !chunk.invalid().is_empty() && !in_invalid_run {
            out.push_str(replacement);
            in_invalid_run = true;
        }
    }
    out
}

/// Merges cells with the same row name in one column like TestGrid's `MergeCells`: FLAKY when
/// some passed and some failed, else the most severe status; icon `passes/total`; metrics
/// averaged; message `passes/total runs passed: <most relevant message>`, where the most
/// relevant message is the failing one of highest severity (later cells win ties), else the
/// passing one likewise. As in TestGrid, a candidate must be at least as severe as the first
/// cell, so a failing first cell hides every passing message.
pub fn merge(cells: Vec<Cell>) -> Option<Cell> {
    if cells.len() <= 1 {
        return cells.into_iter().next();
    }
    let first = cells.first()?.status;
    let (mut worst, mut passes, mut fails) = (first, 0usize, 0usize);
    let (mut pass_msg, mut pass_msg_status) = ("", first);
    let (mut fail_msg, mut fail_msg_status) = ("", first);
    let mut sums: BTreeMap<&str, (f64, u32)> = BTreeMap::new();
    for c in &cells {
        worst = worst.max(c.status);
        if c.status.is_passing() {
            passes += 1;
            if !c.message.is_empty() && c.status >= pass_msg_status {
                (pass_msg, pass_msg_status) = (&c.message, c.status);
            }
        } else if c.status.is_failing() {
            fails += 1;
            if !c.message.is_empty() && c.status >= fail_msg_status {
                (fail_msg, fail_msg_status) = (&c.message, c.status);
            }
        }
        for (k, v) in &c.metrics {
            let e = sums.entry(k).or_insert((0.0, 0));
            e.0 += v;
            e.1 += 1;
        }
    }
    let status = if passes > 0 && fails > 0 {
        Status::Flaky
    } else {
        worst
    };
    let icon = format!("{passes}/{}", cells.len());
    let relevant = if fail_msg.is_empty() {
        pass_msg
    } else {
        fail_msg
    };
    let message = if relevant.is_empty() {
        format!("{icon} runs passed")
    } else {
        format!("{icon} runs passed: {relevant}")
    };
    let mut merged = Cell::new(status).with_icon(&icon).with_message(&message);
    merged.metrics = sums
        .into_iter()
        .map(|(k, (s, n))| (k.to_owned(), s / f64::from(n)))
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
    fn error_and_failure_fail_icon_only_with_a_cell_message() {
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
            (c.status, c.icon.as_deref(), c.message.as_str()),
            (Status::Fail, Some("F"), "body")
        );
        let CaseCell::Cell(c, _) = from_case(&ParsedCase {
            failure: detail("", ""),
            ..case()
        }) else {
            panic!()
        };
        assert_eq!(
            (c.status, c.icon, c.message.as_str()),
            (Status::Fail, None, "")
        );
        let CaseCell::Cell(c, _) = from_case(&ParsedCase {
            failure: detail("", ""),
            system_out: "log".into(),
            ..case()
        }) else {
            panic!()
        };
        assert_eq!((c.icon.as_deref(), c.message.as_str()), (Some("F"), "log"));
    }

    #[test]
    fn message_is_cut_from_140_bytes_on_bytes_like_go() {
        let long = format!("{}{}", "a".repeat(100), "b".repeat(100));
        let cut = cut_message(&long);
        assert_eq!(cut, format!("{}...{}", "a".repeat(70), "b".repeat(70)));
        assert_eq!(cut_message(&"x".repeat(139)), "x".repeat(139));
        assert_eq!(cut_message(&"x".repeat(140)).len(), 143);
        // "é" is two bytes: after one "a", byte 70 falls inside the 35th "é".
        let accents = format!("a{}", "é".repeat(100));
        assert_eq!(
            cut_message(&accents),
            format!("invalid utf8: a{}?...{}", "é".repeat(34), "é".repeat(35))
        );
    }

    #[test]
    fn stored_message_cuts_over_140_bytes_dropping_split_characters() {
        assert_eq!(stored_message(&"x".repeat(140)), "x".repeat(140));
        assert_eq!(stored_message(&"x".repeat(141)).len(), 143);
        // An `invalid utf8:` derived message (14 + 143 bytes) is cut again.
        let derived = cut_message(&format!("a{}", "é".repeat(100)));
        assert!(derived.starts_with("invalid utf8: ") && derived.len() > 140);
        let stored = stored_message(&derived);
        assert_eq!(stored.len(), 143 - 1, "one split byte dropped: {stored}");
        assert!(stored.starts_with("invalid utf8: a"));
        // After one "a", byte 70 splits an "é": the lone byte is dropped, not replaced.
        assert_eq!(
            stored_message(&format!("a{}", "é".repeat(80))),
            format!("a{}...{}", "é".repeat(34), "é".repeat(35))
        );
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
    fn merged_message_is_the_most_relevant_one_like_testgrid() {
        let fail = |m: &str| Cell::new(Status::Fail).with_message(m);
        let pass = |m: &str| Cell::new(Status::Pass).with_message(m);
        let msg = |cells: Vec<Cell>| merge(cells).map(|c| c.message).unwrap_or_default();
        // Equally severe failures: the later one wins (GTE), as in TestGrid's MergeCells.
        assert_eq!(msg(vec![fail("a"), fail("b")]), "0/2 runs passed: b");
        // A failing message beats a passing one whatever the order.
        assert_eq!(msg(vec![pass("p"), fail("f")]), "1/2 runs passed: f");
        // No message at all: no dangling ": ".
        assert_eq!(msg(vec![fail(""), pass("")]), "1/2 runs passed");
        // A failing first cell sets the bar: a passing message is never chosen.
        assert_eq!(msg(vec![fail(""), pass("p")]), "1/2 runs passed");
        assert_eq!(msg(vec![pass(""), pass("p")]), "2/2 runs passed: p");
        // Merging itself keeps the whole message (17 bytes of prefix + 140)...
        let long = "m".repeat(140);
        let merged = msg(vec![fail(&long), pass("")]);
        assert_eq!(merged.len(), 140 + 17);
        // ...but TestGrid's appendCell cuts it again when it stores the cell.
        assert_eq!(
            stored_message(&merged),
            format!("1/2 runs passed: {}...{}", "m".repeat(53), "m".repeat(70))
        );
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
