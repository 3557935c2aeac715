//! Nearest-rank percentile of the delay checks, and their verdict against a p99 budget.

use super::{budgeted, seconds};
use crate::outcome::{CheckResult, Verdict};
use crate::scenario::CheckName;

/// What one delay check measured: a delay (ms) and its detail line per object.
#[derive(Default)]
pub(crate) struct Delays {
    /// Delays in milliseconds.
    delays: Vec<u64>,
    /// One line per object, same order.
    details: Vec<String>,
}

impl Delays {
    /// An object that got there after `ms`.
    pub(crate) fn done(&mut self, ms: u64, line: String) {
        self.delays.push(ms);
        self.details.push(line);
    }

    /// An object still waiting after `ms` at the last sample: counted as over `limit`.
    pub(crate) fn unfinished(&mut self, ms: u64, limit: u64, line: String) {
        self.delays.push(ms.max(limit + 1));
        self.details.push(line);
    }
}

/// The p99 verdict of `measured` against `limit` (ms): "p99 `what` 3.1s over N `objects`;
/// slowest: ..."; `Skipped` with `none` when nothing was measured.
pub(crate) fn p99_verdict(
    check: CheckName,
    measured: Delays,
    limit: u64,
    what: &str,
    objects: &str,
    none: &str,
) -> CheckResult {
    let Delays { delays, details } = measured;
    let Some(p99) = percentile(&delays, 99.0) else {
        return CheckResult::new(check, Verdict::Skipped, none);
    };
    let slowest = details
        .iter()
        .zip(&delays)
        .max_by_key(|(_, d)| **d)
        .map(|(line, _)| line.clone())
        .unwrap_or_default();
    budgeted(
        check,
        p99 <= limit,
        format!(
            "p99 {what} {} over {} {objects}; slowest: {slowest}",
            seconds(p99),
            delays.len()
        ),
        format!("p99 {}", seconds(p99)),
        seconds(limit),
        details,
    )
}

/// The nearest-rank `p`th percentile (0 < p ≤ 100) of `values`; `None` when empty.
pub(crate) fn percentile(values: &[u64], p: f64) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        assert_eq!(percentile(&[], 99.0), None);
        assert_eq!(percentile(&[5], 99.0), Some(5));
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&hundred, 99.0), Some(99));
        assert_eq!(percentile(&[3, 1, 2], 99.0), Some(3));
    }
}
