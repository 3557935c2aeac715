//! Go's `time.ParseDuration` syntax (`300ms`, `5m`, `1h30m`, `1.5s`), which upstream's duration
//! flags take, so the same command lines work for our binaries.

use std::time::Duration;

/// Why a duration string was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid duration {input:?}: {reason}")]
pub struct DurationError {
    /// The text as given.
    pub input: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Parses a non-negative Go duration; a bare `0` is allowed as in Go.
pub fn parse(input: &str) -> Result<Duration, DurationError> {
    let fail = |reason| DurationError {
        input: input.to_owned(),
        reason,
    };
    let text = input.strip_prefix('+').unwrap_or(input);
    if text.starts_with('-') {
        return Err(fail("negative durations are not allowed"));
    }
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() {
        return Err(fail("empty"));
    }
    let mut total = 0f64;
    let mut rest = text;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| fail("missing unit (ns, us, ms, s, m, h)"))?;
        if number_len == 0 {
            return Err(fail("expected a number"));
        }
        let number: f64 = rest[..number_len]
            .parse()
            .map_err(|_| fail("malformed number"))?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(fail("unknown unit (ns, us, ms, s, m, h)")),
        };
        total += number * scale;
        rest = &rest[unit_len..];
    }
    Duration::try_from_secs_f64(total).map_err(|_| fail("out of range"))
}

/// Formats like Go's `Duration.String()` for whole milliseconds and up (`5m0s`, `1h0m0s`,
/// `1.5s`, `0s`), as upstream's `/configz` prints durations.
pub fn format(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis == 0 {
        return "0s".to_owned();
    }
    let hours = millis / 3_600_000;
    let minutes = millis / 60_000 % 60;
    let seconds = millis % 60_000;
    let seconds = if seconds.is_multiple_of(1000) {
        format!("{}s", seconds / 1000)
    } else {
        let text = format!("{}.{:03}", seconds / 1000, seconds % 1000);
        format!("{}s", text.trim_end_matches('0'))
    };
    if millis < 1000 {
        return format!("{millis}ms");
    }
    match (hours, minutes) {
        (0, 0) => seconds,
        (0, m) => format!("{m}m{seconds}"),
        (h, m) => format!("{h}h{m}m{seconds}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_go() {
        assert_eq!(format(Duration::from_secs(300)), "5m0s");
        assert_eq!(format(Duration::from_secs(12 * 3600)), "12h0m0s");
        assert_eq!(format(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format(Duration::from_millis(300)), "300ms");
        assert_eq!(format(Duration::ZERO), "0s");
        assert_eq!(format(Duration::from_secs(10)), "10s");
    }

    #[test]
    fn accepts_go_forms() {
        assert_eq!(parse("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse("300ms"), Ok(Duration::from_millis(300)));
        assert_eq!(parse("0"), Ok(Duration::ZERO));
    }

    #[test]
    fn refuses_bad_input() {
        for bad in ["", "5", "m", "-5m", "5x", "1..2s"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
