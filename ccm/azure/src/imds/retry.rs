//! When an IMDS answer is worth asking again, and how long to wait: the IMDS documentation lists
//! 410 (retry, up to 70 s), 429 (rate limited) and 500 (retry) as retryable; other 5xx are treated
//! the same. Bounded by attempts, with exponential backoff capped per wait and `Retry-After` honoured.

use std::time::Duration;

/// Retry schedule for IMDS requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Requests sent at most, the first included (1 = no retry).
    pub max_attempts: u32,
    /// Wait before the first retry; doubled for each further retry.
    pub base_delay: Duration,
    /// Longest single wait (also caps `Retry-After`).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 5 attempts, 1 s doubling to at most 16 s: about 30 s of retries in all, inside the 70 s
    /// the IMDS documentation allows for 410.
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(16),
        }
    }
}

impl RetryPolicy {
    /// A policy that sends each request once.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// Whether an answer with this status is retried.
    pub fn retryable(status: u16) -> bool {
        status == 410 || status == 429 || (500..=599).contains(&status)
    }

    /// Wait before retry number `retry` (1-based), or the server's `Retry-After`, capped.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let backoff = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(retry.saturating_sub(1)));
        retry_after.unwrap_or(backoff).min(self.max_delay)
    }
}

/// `Retry-After` in whole seconds (the form IMDS and the fake send); dates are ignored.
pub(super) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_statuses_are_retried_others_not() {
        for s in [410, 429, 500, 502, 503, 504] {
            assert!(RetryPolicy::retryable(s), "{s}");
        }
        for s in [200, 400, 403, 404, 405] {
            assert!(!RetryPolicy::retryable(s), "{s}");
        }
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = RetryPolicy::default();
        let secs = |r, after: Option<u64>| p.delay(r, after.map(Duration::from_secs)).as_secs();
        assert_eq!([secs(1, None), secs(2, None), secs(3, None)], [1, 2, 4]);
        assert_eq!(secs(10, None), 16);
        assert_eq!(secs(1, Some(7)), 7);
        assert_eq!(secs(1, Some(600)), 16);
    }
}
