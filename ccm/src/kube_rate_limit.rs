//! `--kube-api-qps` / `--kube-api-burst`: client-go's token bucket in front of every request to
//! the API server (watches included, as client-go counts each request once when it is sent).
//!
//! The layer waits in `poll_ready`; kube's `Client` drives its stack through one buffer worker,
//! so the bucket is shared by every request of the client. **[infer]** a QPS of 0 or less
//! disables the limiter (client-go would substitute its default of 5 for 0).

use std::future::Future;
use std::num::NonZeroU32;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

/// Why the QPS/burst pair is refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RateLimitError {
    /// client-go refuses a positive QPS with a burst below 1.
    #[error("--kube-api-burst={burst}: must be at least 1 when --kube-api-qps={qps} is positive")]
    Burst {
        /// The QPS given.
        qps: f32,
        /// The burst given.
        burst: i32,
    },
    /// The QPS is not a finite number.
    #[error("--kube-api-qps={0}: not a finite number")]
    Qps(f32),
}

/// The validated limit (`None`: unlimited).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KubeRateLimit {
    quota: Quota,
}

impl KubeRateLimit {
    /// Validates the flags as given.
    pub fn from_flags(qps: f32, burst: i32) -> Result<Option<Self>, RateLimitError> {
        if !qps.is_finite() {
            return Err(RateLimitError::Qps(qps));
        }
        if qps <= 0.0 {
            return Ok(None);
        }
        let burst = u32::try_from(burst)
            .ok()
            .and_then(NonZeroU32::new)
            .ok_or(RateLimitError::Burst { qps, burst })?;
        let period = Duration::from_secs_f64(1.0 / f64::from(qps));
        let quota = Quota::with_period(period)
            .ok_or(RateLimitError::Qps(qps))?
            .allow_burst(burst);
        Ok(Some(Self { quota }))
    }

    /// The tower layer to add to kube's client stack.
    pub fn layer(self) -> RateLimitLayer {
        RateLimitLayer {
            limiter: Arc::new(RateLimiter::direct(self.quota)),
        }
    }
}

/// Adds the shared token bucket to a service.
#[derive(Clone)]
pub struct RateLimitLayer {
    limiter: Arc<DefaultDirectRateLimiter>,
}

impl<S> tower::Layer<S> for RateLimitLayer {
    type Service = RateLimited<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RateLimited {
            inner,
            limiter: self.limiter.clone(),
            waiting: None,
            permitted: false,
        }
    }
}

/// A service whose readiness waits for a token.
pub struct RateLimited<S> {
    inner: S,
    limiter: Arc<DefaultDirectRateLimiter>,
    waiting: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    permitted: bool,
}

impl<S, R> tower::Service<R> for RateLimited<S>
where
    S: tower::Service<R>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if !self.permitted {
            let limiter = &self.limiter;
            let waiting = self.waiting.get_or_insert_with(|| {
                let limiter = limiter.clone();
                Box::pin(async move { limiter.until_ready().await })
            });
            if waiting.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.waiting = None;
            self.permitted = true;
        }
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        self.permitted = false;
        self.inner.call(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::{Layer, Service, ServiceExt};

    #[test]
    fn flags_like_client_go() {
        assert_eq!(KubeRateLimit::from_flags(0.0, 0), Ok(None));
        assert!(KubeRateLimit::from_flags(20.0, 30).unwrap().is_some());
        assert_eq!(
            KubeRateLimit::from_flags(5.0, 0),
            Err(RateLimitError::Burst { qps: 5.0, burst: 0 })
        );
        assert!(KubeRateLimit::from_flags(f32::NAN, 1).is_err());
    }

    #[tokio::test]
    async fn the_request_after_the_burst_waits_for_a_token() {
        // One token per ~17 minutes: the third request cannot become ready during the test.
        let limit = KubeRateLimit::from_flags(0.001, 2).unwrap().unwrap();
        let mut service = limit
            .layer()
            .layer(tower::service_fn(|n: u32| async move { Ok::<_, ()>(n) }));
        assert_eq!(service.ready().await.unwrap().call(1).await, Ok(1));
        assert_eq!(service.ready().await.unwrap().call(2).await, Ok(2));
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(service.poll_ready(&mut cx).is_pending());
    }
}
