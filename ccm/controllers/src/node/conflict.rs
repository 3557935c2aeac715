//! Retry on conflict, as client-go's `retry.RetryOnConflict(retry.DefaultRetry, ...)` that the
//! node controllers wrap their get-modify-Update cycles in: the whole cycle runs again (fresh
//! read included) when the Update answers 409, at most five times, 10 ms apart.

use std::future::Future;
use std::time::Duration;

/// Attempts before a conflict is returned (`retry.DefaultRetry.Steps`).
pub const ATTEMPTS: usize = 5;
/// Pause between attempts (`retry.DefaultRetry.Duration`, without its 10 % jitter).
const PAUSE: Duration = Duration::from_millis(10);

/// Runs `cycle` until it succeeds, fails with something other than a conflict, or has
/// conflicted [`ATTEMPTS`] times.
pub async fn retry_on_conflict<T, F, Fut>(mut cycle: F) -> Result<T, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        match cycle().await {
            Err(kube::Error::Api(status)) if status.is_conflict() && attempt < ATTEMPTS => {
                tokio::time::sleep(PAUSE).await;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use kube::core::Status;

    use super::*;

    fn conflict() -> kube::Error {
        kube::Error::Api(
            Status::failure("modified", "Conflict")
                .with_code(409)
                .boxed(),
        )
    }

    #[tokio::test]
    async fn conflicts_rerun_the_whole_cycle() {
        let calls = Cell::new(0);
        let result = retry_on_conflict(|| async {
            calls.set(calls.get() + 1);
            if calls.get() < 3 {
                Err(conflict())
            } else {
                Ok(calls.get())
            }
        })
        .await;
        assert_eq!(result.unwrap(), 3);
    }

    #[tokio::test]
    async fn gives_up_after_five_conflicts_and_never_retries_other_errors() {
        let calls = Cell::new(0);
        let result: Result<(), _> = retry_on_conflict(|| async {
            calls.set(calls.get() + 1);
            Err(conflict())
        })
        .await;
        assert!(matches!(result, Err(kube::Error::Api(s)) if s.is_conflict()));
        assert_eq!(calls.get(), ATTEMPTS);

        calls.set(0);
        let result: Result<(), _> = retry_on_conflict(|| async {
            calls.set(calls.get() + 1);
            Err(kube::Error::Api(
                Status::failure("gone", "NotFound").with_code(404).boxed(),
            ))
        })
        .await;
        assert!(result.is_err());
        assert_eq!(calls.get(), 1);
    }
}
