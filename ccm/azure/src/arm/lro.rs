//! Long-running operations (arm-imds-aad.md §1.10): poll `Azure-AsyncOperation` (200 with a
//! `status`) or, without it, `Location` (202 while running); wait `Retry-After` between polls
//! (capped), stop at a terminal status, and bound the total time.

use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;
use serde::Deserialize;
use tokio::time::Instant;
use url::Url;

use super::client::{Answer, ArmClient};
use super::client_kind::ClientKind;
use super::error::{ArmError, ErrorDetail};
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

impl ArmClient {
    fn poll_url(&self, value: &str) -> Result<Url, ArmError> {
        let url = Url::parse(value).map_err(|e| ArmError::InvalidUrl {
            url: value.to_string(),
            reason: e.to_string(),
        })?;
        self.check_origin(&url)?;
        Ok(url)
    }

    /// Sleeps until the next poll, or fails when that would pass the deadline.
    async fn wait_poll(
        &self,
        answer: &Answer,
        deadline: Instant,
        started: Instant,
        method: &Method,
        url: &Url,
    ) -> Result<(), ArmError> {
        let lro = &self.options().lro;
        let delay = retry_after(&answer.headers)
            .unwrap_or(lro.default_interval)
            .min(lro.max_interval)
            .max(Duration::from_millis(1));
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
            loop {
                self.wait_poll(&last, deadline, started, method, url)
                    .await?;
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
                loop {
                    self.wait_poll(&last, deadline, started, method, url)
                        .await?;
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
    use super::terminal;

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
