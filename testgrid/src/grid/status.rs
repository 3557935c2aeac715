//! Cell statuses TestGrid can give a row, with its severity order and colours for our report.

/// A cell status (the subset of TestGrid's `TestStatus` that files can produce).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Passed.
    Pass,
    /// Passed with skips (`<skipped>` with a reason): counts as passing.
    PassWithSkips,
    /// No `finished.json` yet.
    Running,
    /// Not decidable (e.g. build too old).
    Unknown,
    /// Equal row names with both passing and failing results.
    Flaky,
    /// The updater could not read the build's files.
    ToolFail,
    /// Failed.
    Fail,
}

impl Status {
    /// All statuses in severity order (lowest first), as TestGrid ranks them.
    pub const ALL: [Status; 7] = [
        Status::Pass,
        Status::PassWithSkips,
        Status::Running,
        Status::Unknown,
        Status::Flaky,
        Status::ToolFail,
        Status::Fail,
    ];

    /// TestGrid's "passing" class (BUILD_PASSED..PASS_WITH_ERRORS).
    pub fn is_passing(self) -> bool {
        matches!(self, Status::Pass | Status::PassWithSkips)
    }

    /// TestGrid's "failing" class (TOOL_FAIL..FAIL).
    pub fn is_failing(self) -> bool {
        matches!(self, Status::ToolFail | Status::Fail)
    }

    /// Lower-case name used in CSS classes and summaries.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::PassWithSkips => "skip",
            Status::Running => "running",
            Status::Unknown => "unknown",
            Status::Flaky => "flaky",
            Status::ToolFail => "tool-fail",
            Status::Fail => "fail",
        }
    }

    /// TestGrid's `result.Coalesce` with `IgnoreRunning`, the five-way reduction alerts and tab
    /// summaries use: a RUNNING cell counts as no result.
    pub fn coalesce(self) -> Coalesced {
        match self {
            Status::Running => Coalesced::NoResult,
            Status::Flaky => Coalesced::Flaky,
            s if s.is_failing() => Coalesced::Fail,
            s if s.is_passing() => Coalesced::Pass,
            _ => Coalesced::Unknown,
        }
    }

    /// Fill colour of the cell in our HTML grid (distinct per status; fixed so tests can find it).
    pub fn colour(self) -> [u8; 3] {
        match self {
            Status::Pass => [0x2e, 0x9e, 0x44],
            Status::PassWithSkips => [0xa8, 0xd8, 0x8c],
            Status::Running => [0xf9, 0xab, 0x00],
            Status::Unknown => [0x9a, 0xa0, 0xa6],
            Status::Flaky => [0x8e, 0x44, 0xd8],
            Status::ToolFail => [0x6d, 0x1b, 0x14],
            Status::Fail => [0xd9, 0x30, 0x25],
        }
    }
}

/// A status reduced the way TestGrid reduces statuses for alerts and tab summaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Coalesced {
    /// No cell, or a running one.
    NoResult,
    /// Any passing status.
    Pass,
    /// Any failing status.
    Fail,
    /// Flaky.
    Flaky,
    /// Anything else (unknown).
    Unknown,
}

impl Coalesced {
    /// Coalesces an optional cell status (a missing cell is no result).
    pub fn of(status: Option<Status>) -> Self {
        status.map_or(Coalesced::NoResult, Status::coalesce)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_order_matches_testgrid() {
        let mut sorted = Status::ALL;
        sorted.sort();
        assert_eq!(sorted, Status::ALL);
        assert!(Status::Flaky < Status::Fail && Status::Running < Status::Flaky);
    }

    /// For alerts and summaries every status reduces to PASS, FAIL, FLAKY, UNKNOWN or
    /// NO_RESULT; RUNNING counts as no result there.
    #[test]
    fn coalescing_matches_testgrid() {
        let got: Vec<(Status, Coalesced)> =
            Status::ALL.iter().map(|s| (*s, s.coalesce())).collect();
        assert_eq!(
            got,
            [
                (Status::Pass, Coalesced::Pass),
                (Status::PassWithSkips, Coalesced::Pass),
                (Status::Running, Coalesced::NoResult),
                (Status::Unknown, Coalesced::Unknown),
                (Status::Flaky, Coalesced::Flaky),
                (Status::ToolFail, Coalesced::Fail),
                (Status::Fail, Coalesced::Fail),
            ]
        );
        assert_eq!(Coalesced::of(None), Coalesced::NoResult);
        assert_eq!(Coalesced::of(Some(Status::Running)), Coalesced::NoResult);
    }

    #[test]
    fn colours_are_distinct() {
        let mut c: Vec<_> = Status::ALL.iter().map(|s| s.colour()).collect();
        c.sort();
        c.dedup();
        assert_eq!(c.len(), Status::ALL.len());
    }
}
