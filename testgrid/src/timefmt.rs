//! Epoch seconds as a UTC date for column headers (no time zone database needed).

/// Formats epoch seconds as `YYYY-MM-DD HH:MM` (UTC); `-` for 0 (no started.json).
pub fn utc_minute(epoch: i64) -> String {
    if epoch == 0 {
        return "-".to_owned();
    }
    let days = epoch.div_euclid(86_400);
    let secs = epoch.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(utc_minute(1_767_225_600), "2026-01-01 00:00");
        assert_eq!(utc_minute(951_825_600), "2000-02-29 12:00");
        assert_eq!(utc_minute(0), "-");
        assert_eq!(utc_minute(-86_400), "1969-12-31 00:00");
    }
}
