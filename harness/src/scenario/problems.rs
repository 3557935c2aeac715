//! The collector every validator writes to, so a user sees every problem of a file at once.

use super::error::Problem;
use serde_saphyr::Spanned;

/// Line of a spanned value (`None` when the parser did not record one).
pub(crate) fn line<T>(s: &Spanned<T>) -> Option<u64> {
    let l = s.referenced.line();
    (l > 0).then_some(l)
}

/// Accumulated problems of one file.
#[derive(Default)]
pub(crate) struct Problems {
    /// Every problem, in the order found.
    pub list: Vec<Problem>,
}

impl Problems {
    /// Records a problem at `line`.
    pub fn err(&mut self, line: Option<u64>, field: impl Into<String>, message: impl Into<String>) {
        self.list.push(Problem {
            line,
            field: field.into(),
            message: message.into(),
        });
    }

    /// Records a problem at a spanned value.
    pub fn at<T>(
        &mut self,
        value: &Spanned<T>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.err(line(value), field, message);
    }
}

/// A Kubernetes object name or namespace: a DNS label (1-63 lower-case letters, digits, '-').
pub(crate) fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// Accepted-values text for a DNS label.
pub(crate) const DNS_LABEL: &str =
    "accepted: 1-63 lower-case letters, digits and '-', starting and ending with a letter or digit";
