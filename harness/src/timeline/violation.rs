//! When a failed check was violated, read from its result: the first `N s after the switch
//! started` / `N s before the switch started` phrase (the format of `checks::Intent::when`) in its
//! reason or details, else the first ARM `journal seq N` it names (looked up in the journal).

use crate::outcome::CheckResult;

/// Milliseconds relative to the switch start, if the result names a moment.
pub fn moment(result: &CheckResult, seq_ms: impl Fn(u64) -> Option<i64>) -> Option<i64> {
    let texts = || std::iter::once(&result.reason).chain(&result.details);
    texts()
        .find_map(|t| relative_phrase(t))
        .or_else(|| texts().find_map(|t| journal_seq(t).and_then(&seq_ms)))
}

/// `0.2 s after the switch started` → 200; `1.5 s before the switch started` → -1500.
fn relative_phrase(text: &str) -> Option<i64> {
    for (marker, sign) in [
        (" s after the switch started", 1),
        (" s before the switch started", -1),
    ] {
        let Some(end) = text.find(marker) else {
            continue;
        };
        let head = &text[..end];
        let start = head
            .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(0, |i| i + 1);
        let seconds: f64 = head[start..].parse().ok()?;
        return Some(sign * (seconds * 1000.0).round() as i64);
    }
    None
}

/// `journal seq 124` → 124.
fn journal_seq(text: &str) -> Option<u64> {
    let at = text.find("journal seq ")? + "journal seq ".len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Verdict;
    use crate::scenario::CheckName;

    #[test]
    fn reads_the_phrase_of_intent_when_and_falls_back_to_a_journal_seq() {
        let mut r = CheckResult::new(
            CheckName::SingleWriter,
            Verdict::Fail,
            "loop x: run by a and b at once, first seen 0.2 s after the switch started (8 samples)",
        );
        assert_eq!(moment(&r, |_| None), Some(200));
        r.reason = "waited 12.5 s before the switch started".into();
        assert_eq!(moment(&r, |_| None), Some(-12_500));
        r.reason = "lb: in-tree PUT (journal seq 124) after the CCM's first write".into();
        assert_eq!(moment(&r, |s| (s == 124).then_some(3_000)), Some(3_000));
        r.reason = "no time here".into();
        r.details = vec!["detail 4.0 s after the switch started".into()];
        assert_eq!(moment(&r, |_| None), Some(4_000));
        r.details.clear();
        assert_eq!(moment(&r, |_| Some(1)), None);
    }

    #[test]
    fn reads_what_the_checks_write() {
        let marks = [crate::record::Mark {
            at_ms: 10_000,
            kind: crate::record::MarkKind::SwitchStarted,
        }];
        let intent = crate::checks::Intent::from_marks(&marks);
        for at in [12_345, 7_500] {
            let r = CheckResult::new(
                CheckName::Downtime,
                Verdict::Fail,
                format!("web down {}", intent.when(at)),
            );
            let want = ((at - 10_000) as f64 / 100.0).round() as i64 * 100;
            assert_eq!(moment(&r, |_| None), Some(want), "{}", r.reason);
        }
    }
}
