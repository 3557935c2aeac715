//! Long-running operations (arm-imds-aad.md §1.10): poll `Azure-AsyncOperation` (200 with a
//! `status`) or, without it, `Location` (202 while running); wait `Retry-After` between polls
//! (capped), stop at a terminal status, and bound the total time.
//!
//! Deliberately different from upstream: NRP's LB, PIP and NSG writes send no `Retry-After`, so
//! the SDK poller waits its fixed 30 s before each poll and a Service create (three writes)
//! takes at least 90 s. Without `Retry-After` we wait 1 s, then double up to 30 s: an operation
//! that ends in seconds is seen in seconds, a long one costs at most five more polls.

use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;
use serde::Deserialize;
use tokio::time::Instant;
use url::Url;

use super::client::{Answer, ArmClient};
use super::client_kind::ClientKind;
use super::error::{ArmError, ErrorDetail};
use super::options::LroSettings;
use super::retry_after::retry_after;

/// Body of an `Azure-AsyncOperation` status URL.
#[derive(Debug, Deserialize)]
struct OperationStatus {
    #[serde(default)]
    status: String,
    #[serde(default)]
    error: Option<ErrorDetail>,
}

/// What a terminal status means.
fn terminal(status: &str) -> Option<bool> {
    if status.eq_ignore_ascii_case("Succeeded") {
        Some(true)
    } else if status.eq_ignore_ascii_case("Failed") || status.eq_ignore_ascii_case("Canceled") {
        Some(false)
    } else {
        None
    }
}

/// The wait before poll number `attempt`: the service's `Retry-After`, else the doubling schedule
/// from `first_interval` to `default_interval`; never above `max_interval`.
fn poll_delay(retry_after: Option<Duration>, attempt: u32, lro: &LroSettings) -> Duration {
    let backoff = || {
        lro.first_interval
            .saturating_mul(1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX))
            .min(lro.default_interval)
    };
    retry_after
        .unwrap_or_else(backoff)
        .min(lro.max_interval)
        .max(Duration::from_millis(1))
}

impl ArmClient {
    fn poll_url(&self, value: &str) -> Result<Url, ArmError> {
        let url = Url::parse(value).map_err(|e| ArmError::InvalidUrl {
            url: value.to_string(),
            reason: e.to_string(),
        })?;
        self.check_origin(&url)?;
        Ok(url)
    }

    /// Sleeps until poll number `attempt` (0 = the first), or fails when that would pass the
    /// deadline.
    async fn wait_poll(
        &self,
        answer: &Answer,
        attempt: u32,
        deadline: Instant,
        started: Instant,
        method: &Method,
        url: &Url,
    ) -> Result<(), ArmError> {
        let delay = poll_delay(retry_after(&answer.headers), attempt, &self.options().lro);
        if Instant::now() + delay > deadline {
            return Err(ArmError::OperationTimeout {
                method: method.to_string(),
                path: url.path().to_string(),
                elapsed: started.elapsed(),
            });
        }
        tokio::time::sleep(delay).await;
        Ok(())
    }

    /// Finishes a write: returns the final body (the resource for PUT/PATCH, empty for DELETE).
    pub(crate) async fn finish(
        &self,
        client: ClientKind,
        method: &Method,
        url: &Url,
        initial: Answer,
    ) -> Result<Bytes, ArmError> {
        let async_operation = initial.header("azure-asyncoperation").map(str::to_string);
        let location = initial.header("location").map(str::to_string);
        let started = Instant::now();
        let deadline = started + self.lro_bound();
        if let Some(status_url) = async_operation {
            let status_url = self.poll_url(&status_url)?;
            let mut last = initial;
            let mut attempt = 0u32;
            loop {
                self.wait_poll(&last, attempt, deadline, started, method, url)
                    .await?;
                attempt = attempt.saturating_add(1);
                last = self
                    .call(client, Method::GET, &status_url, None, None, "poll")
                    .await?;
                let status: OperationStatus =
                    super::calls::decode(&Method::GET, &status_url, &last.body)?;
                match terminal(&status.status) {
                    None => continue,
                    Some(false) => {
                        return Err(ArmError::OperationFailed {
                            method: method.to_string(),
                            path: url.path().to_string(),
                            status: status.status,
                            error: Box::new(status.error.unwrap_or_default()),
                        });
                    }
                    Some(true) => break,
                }
            }
            if *method == Method::DELETE {
                return Ok(Bytes::new());
            }
            let final_url = match (method, location) {
                (&Method::PUT, _) | (_, None) => url.clone(),
                (_, Some(location)) => self.poll_url(&location)?,
            };
            let answer = self
                .call(client, Method::GET, &final_url, None, None, "get")
                .await?;
            return Ok(answer.body);
        }
        match location {
            Some(location) if initial.status == 202 => {
                let location = self.poll_url(&location)?;
                let mut last = initial;
                let mut attempt = 0u32;
                loop {
                    self.wait_poll(&last, attempt, deadline, started, method, url)
                        .await?;
                    attempt = attempt.saturating_add(1);
                    last = self
                        .call(client, Method::GET, &location, None, None, "poll")
                        .await?;
                    if last.status != 202 {
                        return Ok(last.body);
                    }
                }
            }
            _ => Ok(initial.body),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_retry_after_polls_start_at_one_second_and_double_to_thirty() {
        let lro = LroSettings::default();
        let waits: Vec<u64> = (0..8)
            .map(|n| poll_delay(None, n, &lro).as_secs())
            .collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 16, 30, 30, 30]);
        assert_eq!(poll_delay(None, 200, &lro), Duration::from_secs(30));
    }

    #[test]
    fn retry_after_wins_and_is_capped() {
        let lro = LroSettings::default();
        assert_eq!(
            poll_delay(Some(Duration::from_secs(10)), 0, &lro),
            Duration::from_secs(10)
        );
        assert_eq!(
            poll_delay(Some(Duration::from_secs(600)), 3, &lro),
            Duration::from_secs(60)
        );
    }

    #[test]
    fn terminal_states() {
        assert_eq!(terminal("Succeeded"), Some(true));
        assert_eq!(terminal("succeeded"), Some(true));
        assert_eq!(terminal("Failed"), Some(false));
        assert_eq!(terminal("Canceled"), Some(false));
        assert_eq!(terminal("InProgress"), None);
        assert_eq!(terminal("Updating"), None);
        assert_eq!(terminal(""), None);
    }
}
