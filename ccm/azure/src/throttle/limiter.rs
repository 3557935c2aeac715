//! Per-client token buckets from `cloudProviderRateLimit*` and the per-client override objects:
//! a call waits for a token (bounded), it does not fail at once.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{Quota, RateLimiter};

use super::gate::OpKind;
use crate::arm::ClientKind;
use crate::config::{RateLimit, RateLimits};

type Bucket = RateLimiter<
    governor::state::NotKeyed,
    governor::state::InMemoryState,
    DefaultClock,
    governor::middleware::NoOpMiddleware<<DefaultClock as Clock>::Instant>,
>;

/// Why a token was not granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitTooLong {
    /// How long the bucket would have made the call wait.
    pub wait: Duration,
}

/// One client's read and write buckets (`None` when that client's limiter is off).
#[derive(Debug)]
pub struct ClientLimiter {
    read: Option<Bucket>,
    write: Option<Bucket>,
    clock: DefaultClock,
}

/// Token-bucket quota for `qps` tokens per second and a burst of `bucket`; `None` when either is
/// not positive (nothing to limit with).
pub fn quota(qps: f32, bucket: u32) -> Option<Quota> {
    if !(qps.is_finite() && qps > 0.0) {
        return None;
    }
    let burst = NonZeroU32::new(bucket)?;
    let period = Duration::from_secs_f64(1.0 / f64::from(qps));
    Quota::with_period(period).map(|q| q.allow_burst(burst))
}

impl ClientLimiter {
    /// The limiter a resolved config entry asks for (no buckets when it is disabled).
    pub fn from_config(limit: &RateLimit) -> ClientLimiter {
        let bucket = |qps, size| {
            if limit.enabled {
                quota(qps, size).map(RateLimiter::direct)
            } else {
                None
            }
        };
        ClientLimiter {
            read: bucket(limit.qps, limit.bucket),
            write: bucket(limit.qps_write, limit.bucket_write),
            clock: DefaultClock::default(),
        }
    }

    /// True when this client has a bucket for `op`.
    pub fn is_limited(&self, op: OpKind) -> bool {
        self.bucket(op).is_some()
    }

    fn bucket(&self, op: OpKind) -> Option<&Bucket> {
        match op {
            OpKind::Read => self.read.as_ref(),
            OpKind::Write => self.write.as_ref(),
        }
    }

    /// Takes a token at once if one is there: `Ok(false)`; otherwise waits for one (`Ok(true)`),
    /// unless the wait would exceed `max_wait` (`Err`, nothing consumed).
    pub async fn acquire(&self, op: OpKind, max_wait: Duration) -> Result<bool, WaitTooLong> {
        let Some(bucket) = self.bucket(op) else {
            return Ok(false);
        };
        let mut waited = Duration::ZERO;
        loop {
            match bucket.check() {
                Ok(()) => return Ok(waited > Duration::ZERO),
                Err(not_until) => {
                    let wait = not_until.wait_time_from(self.clock.now());
                    if waited + wait > max_wait {
                        return Err(WaitTooLong {
                            wait: waited + wait,
                        });
                    }
                    // A zero wait still counts as having been delayed.
                    let wait = wait.max(Duration::from_millis(1));
                    tokio::time::sleep(wait).await;
                    waited += wait;
                }
            }
        }
    }
}

/// One [`ClientLimiter`] per client kind, from the config's defaults and per-client overrides.
#[derive(Debug)]
pub struct Limiters {
    per_client: HashMap<ClientKind, Arc<ClientLimiter>>,
}

impl Limiters {
    /// Builds every client's limiter from the resolved rate-limit config.
    pub fn from_config(limits: &RateLimits) -> Limiters {
        let per_client = ClientKind::ALL
            .iter()
            .map(|&kind| {
                let limit = kind
                    .rate_limit_key()
                    .and_then(|key| limits.per_client.get(key))
                    .unwrap_or(&limits.default);
                (kind, Arc::new(ClientLimiter::from_config(limit)))
            })
            .collect();
        Limiters { per_client }
    }

    /// The limiter of `client`.
    pub fn client(&self, client: ClientKind) -> Option<&Arc<ClientLimiter>> {
        self.per_client.get(&client)
    }
}

#[cfg(test)]
mod tests;
