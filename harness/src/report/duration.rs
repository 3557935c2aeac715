//! Durations as people read them in the table, the page and the progress lines.

/// `850ms`, `12.3s`, `2m05s`, `1h02m`.
pub(crate) fn human(ms: u64) -> String {
    if ms < 1_000 {
        return format!("{ms}ms");
    }
    if ms < 60_000 {
        return format!("{}.{}s", ms / 1_000, ms % 1_000 / 100);
    }
    let secs = ms / 1_000;
    if secs < 3_600 {
        return format!("{}m{:02}s", secs / 60, secs % 60);
    }
    format!("{}h{:02}m", secs / 3_600, secs % 3_600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_unit_people_expect() {
        assert_eq!(human(0), "0ms");
        assert_eq!(human(850), "850ms");
        assert_eq!(human(12_345), "12.3s");
        assert_eq!(human(59_999), "59.9s");
        assert_eq!(human(125_000), "2m05s");
        assert_eq!(human(3_720_000), "1h02m");
    }
}
