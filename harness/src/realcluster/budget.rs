//! The ARM read budget of a real cluster's commands: one token bucket (burst 1) that every ARM
//! request of the process waits on, enforced by wrapping the ARM credential so no request path
//! (snapshot lists, the node resolution, the load balancer dry run) can bypass it.
//!
//! Why 2 reads/s by default: ARM grants a principal 250 subscription reads with a refill of 25/s,
//! and Compute's "high-cost" list calls (VM and scale-set lists) refill at 300/min (5/s) for the
//! whole subscription (shared/reference/arm-imds-aad.md §1.13, "Throttling"). The cluster's own
//! CCM or kube-controller-manager spends that same budget while the harness reads, so the harness
//! stays under 10% of the per-principal rate and under half of Compute's list rate.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use azure_core::credentials::{AccessToken, TokenCredential, TokenRequestOptions};
use tokio::sync::Mutex;
use tokio::time::Instant;

/// Default ARM requests per second of `preflight` and `snapshot`.
pub const DEFAULT_READS_PER_SECOND: f64 = 2.0;

/// The schedule of a bucket of one token refilled at `rate` per second: when the next request may
/// go (pure, so its arithmetic is tested without clocks).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    interval: Duration,
    next: Option<Instant>,
}

impl Schedule {
    /// A schedule of `rate` requests per second (at least one request per hour).
    pub fn new(rate: f64) -> Self {
        let rate = if rate.is_finite() && rate > 0.0 {
            rate.max(1.0 / 3600.0)
        } else {
            DEFAULT_READS_PER_SECOND
        };
        Self {
            interval: Duration::from_secs_f64(1.0 / rate),
            next: None,
        }
    }

    /// Reserves the next slot for a request asked for at `now`: the instant it may be sent.
    pub fn reserve(&mut self, now: Instant) -> Instant {
        let slot = match self.next {
            Some(next) if next > now => next,
            _ => now,
        };
        self.next = Some(slot + self.interval);
        slot
    }
}

/// The process-wide ARM request budget (cheap to clone: one shared schedule).
#[derive(Debug, Clone)]
pub struct ReadBudget {
    schedule: Arc<Mutex<Schedule>>,
    rate: f64,
    granted: Arc<AtomicU64>,
}

impl ReadBudget {
    /// A budget of `rate` ARM requests per second.
    pub fn new(rate: f64) -> Self {
        Self {
            schedule: Arc::new(Mutex::new(Schedule::new(rate))),
            rate,
            granted: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Requests per second.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Slots granted so far (one per ARM request attempt): tests compare it with what ARM saw.
    pub fn granted(&self) -> u64 {
        self.granted.load(Ordering::Relaxed)
    }

    /// Waits for this request's slot.
    pub async fn acquire(&self) {
        self.granted.fetch_add(1, Ordering::Relaxed);
        let slot = self.schedule.lock().await.reserve(Instant::now());
        tokio::time::sleep_until(slot).await;
    }

    /// `credential` gated by this budget: ARM asks its credential for a token before every
    /// request attempt, so every request waits for a slot.
    pub fn gate(&self, credential: Arc<dyn TokenCredential>) -> Arc<dyn TokenCredential> {
        Arc::new(Gated {
            budget: self.clone(),
            inner: credential,
        })
    }
}

/// A credential that takes a budget slot before each token request.
struct Gated {
    budget: ReadBudget,
    inner: Arc<dyn TokenCredential>,
}

impl std::fmt::Debug for Gated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gated")
            .field("rate", &self.budget.rate)
            .finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl TokenCredential for Gated {
    async fn get_token(
        &self,
        scopes: &[&str],
        options: Option<TokenRequestOptions<'_>>,
    ) -> azure_core::Result<AccessToken> {
        self.budget.acquire().await;
        self.inner.get_token(scopes, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_one_interval_apart_and_idle_time_is_not_banked() {
        let mut schedule = Schedule::new(2.0);
        let t0 = Instant::now();
        assert_eq!(schedule.reserve(t0), t0);
        assert_eq!(schedule.reserve(t0), t0 + Duration::from_millis(500));
        assert_eq!(schedule.reserve(t0), t0 + Duration::from_millis(1000));
        // After a long idle period the next request goes at once, the one after waits again:
        // a burst of one, never more than `rate` per second.
        let later = t0 + Duration::from_secs(60);
        assert_eq!(schedule.reserve(later), later);
        assert_eq!(schedule.reserve(later), later + Duration::from_millis(500));
    }

    #[test]
    fn a_nonsense_rate_falls_back_to_the_default() {
        let mut schedule = Schedule::new(0.0);
        let t0 = Instant::now();
        schedule.reserve(t0);
        assert_eq!(schedule.reserve(t0), t0 + Duration::from_millis(500));
    }
}
