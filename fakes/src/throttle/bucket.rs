//! A token bucket refilled continuously: the algorithm ARM (per region since 2024) and the Compute RP
//! use for their request limits.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Size and refill rate of one kind of bucket.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BucketSpec {
    /// Tokens when full (the burst).
    pub size: u32,
    /// Tokens added per second.
    pub refill_per_sec: f64,
}

impl BucketSpec {
    /// A spec given per minute, as the Compute throttling table is.
    pub fn per_minute(refill: u32, size: u32) -> Self {
        Self {
            size,
            refill_per_sec: f64::from(refill) / 60.0,
        }
    }

    /// This spec with size and rate multiplied (the ARM global bucket is 15 x the per-principal one).
    pub fn scaled(self, factor: u32) -> Self {
        Self {
            size: self.size.saturating_mul(factor),
            refill_per_sec: self.refill_per_sec * f64::from(factor),
        }
    }
}

/// One bucket's live state.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    spec: BucketSpec,
    tokens: f64,
    last: Instant,
}

/// Outcome of taking a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    /// Token taken; this many whole tokens remain.
    Granted(u32),
    /// Empty; a token is available after this many whole seconds (at least 1).
    Throttled(u64),
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(spec: BucketSpec, now: Instant) -> Self {
        Self {
            spec,
            tokens: f64::from(spec.size),
            last: now,
        }
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens =
            (self.tokens + elapsed * self.spec.refill_per_sec).min(f64::from(self.spec.size));
        self.last = now;
    }

    /// Whole tokens available at `now`, without taking one.
    pub fn available(&mut self, now: Instant) -> u32 {
        self.refill(now);
        self.tokens.floor() as u32
    }

    /// Seconds until a token is available (0 when one is).
    pub fn wait(&mut self, now: Instant) -> u64 {
        self.refill(now);
        if self.tokens >= 1.0 {
            return 0;
        }
        if self.spec.refill_per_sec <= 0.0 {
            return u64::MAX / 2;
        }
        let secs = Duration::from_secs_f64((1.0 - self.tokens) / self.spec.refill_per_sec)
            .as_secs_f64()
            .ceil() as u64;
        secs.max(1)
    }

    /// Takes one token or reports how long to wait.
    pub fn take(&mut self, now: Instant) -> Take {
        match self.wait(now) {
            0 => {
                self.tokens -= 1.0;
                Take::Granted(self.tokens.floor() as u32)
            }
            secs => Take::Throttled(secs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn drains_then_refills() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(
            BucketSpec {
                size: 3,
                refill_per_sec: 1.0,
            },
            t0,
        );
        assert_eq!(b.take(t0), Take::Granted(2));
        assert_eq!(b.take(t0), Take::Granted(1));
        assert_eq!(b.take(t0), Take::Granted(0));
        assert_eq!(b.take(t0), Take::Throttled(1));
        assert_eq!(b.take(t0 + Duration::from_millis(1000)), Take::Granted(0));
        assert_eq!(b.available(t0 + Duration::from_secs(100)), 3);
    }

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(
            BucketSpec {
                size: 1,
                refill_per_sec: 0.25,
            },
            t0,
        );
        assert_eq!(b.take(t0), Take::Granted(0));
        assert_eq!(b.take(t0), Take::Throttled(4));
        assert_eq!(b.take(t0 + Duration::from_millis(3500)), Take::Throttled(1));
    }

    proptest! {
        #[test]
        fn never_grants_more_than_size_plus_refill(size in 1u32..50, rate in 0.1f64..20.0, steps in proptest::collection::vec(0u64..500, 1..200)) {
            let t0 = Instant::now();
            let mut b = TokenBucket::new(BucketSpec { size, refill_per_sec: rate }, t0);
            let mut now = t0;
            let mut granted = 0u64;
            for ms in steps {
                now += Duration::from_millis(ms);
                if matches!(b.take(now), Take::Granted(_)) { granted += 1; }
            }
            let elapsed = now.duration_since(t0).as_secs_f64();
            prop_assert!(granted as f64 <= f64::from(size) + elapsed * rate + 1e-6);
        }
    }
}
