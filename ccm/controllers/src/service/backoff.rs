//! Per-Service retry pacing: client-go's item exponential failure rate limiter (5 s doubling to
//! 300 s per key, reset on success), lengthened to a cloud-given `retry_after`. Upstream's
//! service controller requeues on its rate limiter whatever ARM answered, and the Azure clients
//! hold calls back until a throttling Retry-After has passed: the wait is the longer of the two.
//! A short Retry-After never shortens the backoff (NRP's 429 `RetryableError` for a public IP
//! still provisioning says `Retry-After: 1`; obeying it alone re-sent the whole reconcile every
//! second while the dependency finished).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::predicates::Fingerprint;

/// A failed key's retry state.
#[derive(Debug, Clone)]
struct Failure {
    count: u32,
    not_before: Instant,
    fingerprint: Fingerprint,
}

/// Failure counts and retry deadlines per Service key.
#[derive(Debug)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    failures: HashMap<String, Failure>,
}

impl Backoff {
    /// Delays start at `min` and double up to `max`.
    pub fn new(min: Duration, max: Duration) -> Self {
        Self {
            min,
            max: max.max(min),
            failures: HashMap::new(),
        }
    }

    /// Records a failure of `key` (synced as `fingerprint`) and returns the delay before the next
    /// attempt: `max` when retrying cannot help, else the next exponential step, or the cloud's
    /// `retry_after` when that is longer.
    pub fn fail(
        &mut self,
        key: &str,
        fingerprint: Fingerprint,
        retryable: bool,
        retry_after: Option<Duration>,
    ) -> Duration {
        let count = self.failures.get(key).map_or(0, |f| f.count);
        let exponential = self
            .min
            .checked_mul(2u32.saturating_pow(count))
            .unwrap_or(self.max)
            .min(self.max);
        let delay = match (retryable, retry_after) {
            (false, _) => self.max,
            (true, Some(after)) => after.max(exponential),
            (true, None) => exponential,
        };
        self.failures.insert(
            key.to_owned(),
            Failure {
                count: count.saturating_add(1),
                not_before: Instant::now() + delay,
                fingerprint,
            },
        );
        delay
    }

    /// Time left before `key` may be retried when nothing relevant changed since it failed;
    /// `None` when it may run now.
    pub fn wait(&self, key: &str, fingerprint: &Fingerprint) -> Option<Duration> {
        let failure = self.failures.get(key)?;
        if &failure.fingerprint != fingerprint {
            return None;
        }
        let left = failure.not_before.checked_duration_since(Instant::now())?;
        (!left.is_zero()).then_some(left)
    }

    /// Forgets `key`'s deadline but keeps its failure count (a node change asks for a retry now).
    pub fn release(&mut self, key: &str) {
        if let Some(failure) = self.failures.get_mut(key) {
            failure.not_before = Instant::now();
        }
    }

    /// Keeps only the keys `keep` accepts (Services that still exist).
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.failures.retain(|key, _| keep(key));
    }

    /// Forgets `key` after a success.
    pub fn reset(&mut self, key: &str) {
        self.failures.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print(text: &str) -> Fingerprint {
        Fingerprint::from_text(text)
    }

    #[test]
    fn doubles_to_the_cap_and_resets() {
        let mut b = Backoff::new(Duration::from_secs(5), Duration::from_secs(300));
        let steps: Vec<u64> = (0..8)
            .map(|_| b.fail("k", print("1"), true, None).as_secs())
            .collect();
        assert_eq!(steps, [5, 10, 20, 40, 80, 160, 300, 300]);
        b.reset("k");
        assert_eq!(b.fail("k", print("1"), true, None).as_secs(), 5);
        assert_eq!(b.fail("other", print("1"), true, None).as_secs(), 5);
    }

    #[test]
    fn the_longer_of_cloud_delay_and_backoff_wins_and_non_retryable_waits_the_maximum() {
        let mut b = Backoff::new(Duration::from_secs(5), Duration::from_secs(300));
        let after = Some(Duration::from_secs(42));
        assert_eq!(b.fail("k", print("1"), true, after).as_secs(), 42);
        assert_eq!(b.fail("n", print("1"), false, None).as_secs(), 300);
        // A 1 s Retry-After (NRP's RetryableError) does not shorten the 5 s doubling.
        let short = Some(Duration::from_secs(1));
        let steps: Vec<u64> = (0..3)
            .map(|_| b.fail("s", print("1"), true, short).as_secs())
            .collect();
        assert_eq!(steps, [5, 10, 20]);
    }

    #[test]
    fn waits_only_while_nothing_changed() {
        let mut b = Backoff::new(Duration::from_secs(5), Duration::from_secs(300));
        b.fail("k", print("1"), true, None);
        assert!(b.wait("k", &print("1")).is_some());
        assert!(b.wait("k", &print("2")).is_none());
        assert!(b.wait("x", &print("1")).is_none());
        b.release("k");
        assert!(b.wait("k", &print("1")).is_none());
        b.fail("k", print("1"), true, None);
        b.retain(|k| k != "k");
        assert!(b.wait("k", &print("1")).is_none());
    }
}
