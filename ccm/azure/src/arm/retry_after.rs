//! `Retry-After` (integer seconds or an HTTP date) and `retry-after-ms` / `x-ms-retry-after-ms`.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// The delay a response asks for, if any: `x-ms-retry-after-ms` and `retry-after-ms` first
/// (milliseconds), then `Retry-After` as seconds or as an HTTP date (a past date means zero).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    retry_after_at(headers, SystemTime::now())
}

/// [`retry_after`] with an explicit "now", for HTTP dates.
pub fn retry_after_at(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    for name in ["x-ms-retry-after-ms", "retry-after-ms"] {
        if let Some(ms) = text(name).and_then(|v| v.parse::<u64>().ok()) {
            return Some(Duration::from_millis(ms));
        }
    }
    parse(text("retry-after")?, now)
}

/// One `Retry-After` value: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
pub fn parse(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_static(v));
        }
        map
    }

    #[test]
    fn seconds_dates_and_milliseconds() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(parse("120", now), Some(Duration::from_secs(120)));
        assert_eq!(parse(" 7 ", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse("Wed, 21 Oct 2015 07:29:30 GMT", now),
            Some(Duration::from_secs(90))
        );
        assert_eq!(
            parse("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse("-1", now), None);
        assert_eq!(parse("soon", now), None);
        assert_eq!(parse("1.5", now), None);
        assert_eq!(
            retry_after_at(
                &headers(&[("retry-after", "3"), ("retry-after-ms", "250")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after_at(
                &headers(&[("x-ms-retry-after-ms", "10"), ("retry-after", "3")]),
                now
            ),
            Some(Duration::from_millis(10))
        );
        assert_eq!(
            retry_after_at(&headers(&[("retry-after", "3")]), now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(retry_after_at(&HeaderMap::new(), now), None);
    }
}
