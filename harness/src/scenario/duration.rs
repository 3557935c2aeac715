//! Durations as written in scenario files (`250ms`, `30s`, `2m`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A duration with its unit as written; serialises back to the same text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration {
    millis: u64,
}

/// Why a duration string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a duration (accepted: <integer>ms, <integer>s or <integer>m, e.g. 250ms, 30s, 2m)"
)]
pub struct DurationError(String);

impl Duration {
    /// A duration of `millis` milliseconds.
    pub const fn from_millis(millis: u64) -> Self {
        Self { millis }
    }

    /// Length in milliseconds.
    pub const fn as_millis(self) -> u64 {
        self.millis
    }

    /// As a std duration, for the runner's timers.
    pub const fn to_std(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.millis)
    }

    /// Parses `<integer>ms`, `<integer>s` or `<integer>m`.
    pub fn parse(text: &str) -> Result<Self, DurationError> {
        let bad = || DurationError(text.to_string());
        let t = text.trim();
        let (digits, scale) = if let Some(d) = t.strip_suffix("ms") {
            (d, 1)
        } else if let Some(d) = t.strip_suffix('s') {
            (d, 1_000)
        } else if let Some(d) = t.strip_suffix('m') {
            (d, 60_000)
        } else {
            return Err(bad());
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let n: u64 = digits.parse().map_err(|_| bad())?;
        n.checked_mul(scale).map(Self::from_millis).ok_or_else(bad)
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.millis;
        if ms != 0 && ms.is_multiple_of(60_000) {
            write!(f, "{}m", ms / 60_000)
        } else if ms.is_multiple_of(1_000) {
            write!(f, "{}s", ms / 1_000)
        } else {
            write!(f, "{ms}ms")
        }
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_parse_and_print_back() {
        for (text, ms, back) in [
            ("250ms", 250, "250ms"),
            ("30s", 30_000, "30s"),
            ("2m", 120_000, "2m"),
            ("120s", 120_000, "2m"),
            ("0s", 0, "0s"),
        ] {
            let d = Duration::parse(text).unwrap();
            assert_eq!(d.as_millis(), ms, "{text}");
            assert_eq!(d.to_string(), back);
        }
    }

    #[test]
    fn bad_text_names_the_accepted_forms() {
        for text in ["30", "s", "1.5s", "-3s", "30 sec", "1h", ""] {
            let err = Duration::parse(text).unwrap_err().to_string();
            assert!(err.contains("accepted: <integer>ms"), "{text}: {err}");
        }
    }
}
