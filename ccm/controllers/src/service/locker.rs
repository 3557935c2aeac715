//! The `aks-managed-resource-locker` Lease the Azure provider takes around every load-balancer
//! call, so the CCM and AKS's resource provider never change the same load balancer at once.
//!
//! Verified (cloud-provider-azure `pkg/provider` `AzureResourceLocker`: `Lock`, `acquireLease`,
//! `hasExpired`, `releaseLease` and their unit tests; anchor-ccm.md 4.1):
//! - the Lease is created when missing (duration 900 s); taking it writes our holder and sets
//!   `acquireTime` and `renewTime` to now (no `leaseTransitions` change);
//! - taking it fails while another holder (compared case-insensitively) has it and
//!   `renewTime + leaseDurationSeconds` is in the future; an empty holder or a missing
//!   `renewTime` counts as expired; the same holder takes it again at once;
//! - unlock only touches a Lease we hold that has not expired, and writes `holderIdentity: ""`.
//!
//! **[infer]** / not reproduced: the missing Lease is created already holding our record (upstream
//! creates it empty, then updates it); the previous-holder annotation upstream writes on release
//! (its key was not found in the public sources read) is not written, and the provider-cache
//! invalidation it drives is the provider's business.

use std::time::Duration;

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::Client;

use super::config::ResourceLockerConfig;
use crate::leader::{LeaderRecord, LeaseLock, LockError};

/// Why the Lease could not be taken or released.
#[derive(Debug, thiserror::Error)]
pub enum LockerError {
    /// Another component holds the Lease and it has not expired: retry later.
    #[error(
        "lease {lease} held by {holder} has not expired yet ({left}s left), another component \
         such as aks rp may be processing another request, this would be automatically \
         recovered after the lease expires"
    )]
    HeldByOther {
        /// `namespace/name`.
        lease: String,
        /// The other holder.
        holder: String,
        /// Seconds until it expires.
        left: u64,
    },
    /// The API server refused or was unreachable (including a lost update race).
    #[error("Lease {lease}: {source}")]
    Api {
        /// `namespace/name`.
        lease: String,
        /// The API error.
        #[source]
        source: LockError,
    },
}

/// Takes and releases the resource-locker Lease.
#[derive(Clone)]
pub struct ResourceLocker {
    client: Client,
    config: ResourceLockerConfig,
}

impl ResourceLocker {
    /// A locker on the configured Lease.
    pub fn new(client: Client, config: ResourceLockerConfig) -> Self {
        Self { client, config }
    }

    fn lease(&self) -> String {
        format!("{}/{}", self.config.namespace, self.config.name)
    }

    fn api_error(&self, source: impl Into<LockError>) -> LockerError {
        LockerError::Api {
            lease: self.lease(),
            source: source.into(),
        }
    }

    /// Takes the Lease (creating it when missing); fails while another holder's is unexpired.
    pub async fn lock(&self) -> Result<(), LockerError> {
        let mut lock = LeaseLock::new(
            self.client.clone(),
            &self.config.namespace,
            &self.config.name,
        );
        let now = Timestamp::now();
        let ours = LeaderRecord {
            holder: Some(self.config.holder.clone()),
            lease_duration_seconds: self.config.duration_seconds,
            acquire_time: Some(now),
            renew_time: Some(now),
            transitions: 0,
        };
        let Some(current) = lock.get().await.map_err(|e| self.api_error(e))? else {
            return lock.create(&ours).await.map_err(|e| self.api_error(e));
        };
        let same = self.holds(&current);
        if let (Some(holder), false) = (&current.holder, same)
            && let Some(left) = time_left(&current, now)
        {
            return Err(LockerError::HeldByOther {
                lease: self.lease(),
                holder: holder.clone(),
                left: left.as_secs(),
            });
        }
        let record = LeaderRecord {
            transitions: current.transitions,
            ..ours
        };
        lock.update(&record).await.map_err(|e| self.api_error(e))
    }

    /// Whether the record's holder is ours (case-insensitive, as upstream's `EqualFold`).
    fn holds(&self, record: &LeaderRecord) -> bool {
        record
            .holder
            .as_deref()
            .is_some_and(|h| h.eq_ignore_ascii_case(&self.config.holder))
    }

    /// Releases the Lease if we hold it; leaves another holder's Lease alone.
    pub async fn unlock(&self) -> Result<(), LockerError> {
        let mut lock = LeaseLock::new(
            self.client.clone(),
            &self.config.namespace,
            &self.config.name,
        );
        let Some(current) = lock.get().await.map_err(|e| self.api_error(e))? else {
            return Ok(());
        };
        if !self.holds(&current) || time_left(&current, Timestamp::now()).is_none() {
            return Ok(());
        }
        let released = LeaderRecord {
            holder: Some(String::new()),
            ..current
        };
        lock.update(&released).await.map_err(|e| self.api_error(e))
    }
}

/// Time until the record expires (`renewTime + leaseDurationSeconds`), `None` once expired.
fn time_left(record: &LeaderRecord, now: Timestamp) -> Option<Duration> {
    let renewed = record.renew_time?;
    let expiry = renewed
        .checked_add(SignedDuration::from_secs(i64::from(
            record.lease_duration_seconds,
        )))
        .ok()?;
    let left = now.duration_until(expiry);
    (left.is_positive()).then(|| left.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(renewed_secs_ago: i64, duration: i32) -> LeaderRecord {
        let now = Timestamp::now();
        LeaderRecord {
            holder: Some("aks".into()),
            lease_duration_seconds: duration,
            renew_time: Some(now - SignedDuration::from_secs(renewed_secs_ago)),
            ..LeaderRecord::default()
        }
    }

    #[test]
    fn expiry_follows_renew_time_plus_duration() {
        let now = Timestamp::now();
        assert!(time_left(&record(10, 900), now).is_some());
        assert!(time_left(&record(901, 900), now).is_none());
        let no_renew = LeaderRecord {
            holder: Some("aks".into()),
            lease_duration_seconds: 900,
            ..LeaderRecord::default()
        };
        assert!(time_left(&no_renew, now).is_none());
    }
}
