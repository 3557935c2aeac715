//! Timestamps in the API's RFC 3339 second-precision form, and the human ages kubectl prints.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Current time as `2024-01-02T03:04:05Z`.
pub fn now() -> String {
    format(OffsetDateTime::now_utc())
}

/// Formats a time as the API does (UTC, whole seconds).
pub fn format(t: OffsetDateTime) -> String {
    let t = t.replace_nanosecond(0).unwrap_or(t);
    t.format(&Rfc3339).unwrap_or_default()
}

/// Parses an RFC 3339 timestamp.
pub fn parse(text: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(text, &Rfc3339).ok()
}

/// Age of `timestamp` the way kubectl prints it (`5s`, `3m2s`, `4h`, `2d3h`, `45d`, `2y10d`).
pub fn age(timestamp: &str) -> String {
    match parse(timestamp) {
        Some(t) => human_duration((OffsetDateTime::now_utc() - t).whole_seconds()),
        None => "<unknown>".into(),
    }
}

/// kubectl's `HumanDuration` for a number of seconds.
pub fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    let secs = secs.max(0);
    let (m, h, d) = (secs / 60, secs / 3600, secs / 86400);
    if secs < 120 {
        format!("{secs}s")
    } else if m < 10 {
        if secs % 60 == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{}s", secs % 60)
        }
    } else if h < 3 {
        format!("{m}m")
    } else if h < 8 {
        if m % 60 == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{}m", m % 60)
        }
    } else if h < 48 {
        format!("{h}h")
    } else if h < 24 * 8 {
        if h % 24 == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{}h", h % 24)
        }
    } else if h < 24 * 365 * 2 {
        format!("{d}d")
    } else if h < 24 * 365 * 8 {
        let y = d / 365;
        if d % 365 == 0 {
            format!("{y}y")
        } else {
            format!("{y}y{}d", d % 365)
        }
    } else {
        format!("{}y", d / 365)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_durations_match_kubectl() {
        for (secs, want) in [
            (5, "5s"),
            (119, "119s"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600 + 60, "3h1m"),
            (10 * 3600, "10h"),
            (3 * 86400 + 3600, "3d1h"),
            (40 * 86400, "40d"),
            (3 * 365 * 86400, "3y"),
        ] {
            assert_eq!(human_duration(secs), want, "{secs}");
        }
        assert!(now().ends_with('Z'));
        assert!(parse(&now()).is_some());
    }
}
