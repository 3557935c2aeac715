//! Timings, lock coordinates and identity of one leader election, validated like client-go's.

use std::time::Duration;

use thiserror::Error;

/// client-go's default lease duration (`--leader-elect-lease-duration`).
pub const DEFAULT_LEASE_DURATION: Duration = Duration::from_secs(15);
/// client-go's default renew deadline (`--leader-elect-renew-deadline`).
pub const DEFAULT_RENEW_DEADLINE: Duration = Duration::from_secs(10);
/// client-go's default retry period (`--leader-elect-retry-period`).
pub const DEFAULT_RETRY_PERIOD: Duration = Duration::from_secs(2);
/// client-go's jitter factor for the acquire loop: waits are `retry * [1, 2.2)`.
pub const JITTER_FACTOR: f64 = 1.2;

/// Where the lock lives, who we are and how long we may hold it without renewing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElectionConfig {
    /// Namespace of the Lease (`--leader-elect-resource-namespace`).
    pub namespace: String,
    /// Name of the Lease (`--leader-elect-resource-name`).
    pub name: String,
    /// Holder identity written to `spec.holderIdentity` (`<hostname>_<uuid>` by default).
    pub identity: String,
    /// How long a holder may go without renewing before others take the lease.
    pub lease_duration: Duration,
    /// How long the holder keeps retrying a failed renewal before it gives up leadership.
    pub renew_deadline: Duration,
    /// Pause between attempts to acquire or renew.
    pub retry_period: Duration,
    /// Clear `holderIdentity` on graceful shutdown so a standby takes over at once.
    pub release_on_cancel: bool,
}

/// A timing or identity that would make the election unsafe; client-go refuses the same.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ElectionConfigError {
    /// The identity is empty, so two processes could both believe they hold the lease.
    #[error("leader election identity must not be empty")]
    EmptyIdentity,
    /// The Lease name or namespace is empty.
    #[error("leader election lock {field} must not be empty")]
    EmptyLock {
        /// `name` or `namespace`.
        field: &'static str,
    },
    /// `leaseDurationSeconds` is whole seconds, so anything under 1 s cannot be written.
    #[error("--leader-elect-lease-duration must be at least 1s, got {0:?}")]
    LeaseTooShort(Duration),
    /// The holder must give up before others may take over.
    #[error(
        "--leader-elect-lease-duration ({lease:?}) must be greater than --leader-elect-renew-deadline ({renew:?})"
    )]
    RenewDeadlineNotBelowLease {
        /// Lease duration.
        lease: Duration,
        /// Renew deadline.
        renew: Duration,
    },
    /// At least one jittered retry must fit into the renew deadline.
    #[error(
        "--leader-elect-renew-deadline ({renew:?}) must be greater than 1.2 x --leader-elect-retry-period ({retry:?})"
    )]
    RetryNotBelowRenewDeadline {
        /// Renew deadline.
        renew: Duration,
        /// Retry period.
        retry: Duration,
    },
}

impl ElectionConfig {
    /// A configuration with client-go's default timings and release on graceful shutdown.
    pub fn new(
        namespace: impl Into<String>,
        name: impl Into<String>,
        identity: impl Into<String>,
    ) -> Self {
        ElectionConfig {
            namespace: namespace.into(),
            name: name.into(),
            identity: identity.into(),
            lease_duration: DEFAULT_LEASE_DURATION,
            renew_deadline: DEFAULT_RENEW_DEADLINE,
            retry_period: DEFAULT_RETRY_PERIOD,
            release_on_cancel: true,
        }
    }

    /// The same identity and timings on another Lease (the Leader Migration lease).
    pub fn for_lease(&self, name: impl Into<String>) -> Self {
        ElectionConfig {
            name: name.into(),
            ..self.clone()
        }
    }

    /// Checks the invariants client-go's `NewLeaderElector` enforces.
    pub fn validate(&self) -> Result<(), ElectionConfigError> {
        if self.identity.is_empty() {
            return Err(ElectionConfigError::EmptyIdentity);
        }
        if self.name.is_empty() {
            return Err(ElectionConfigError::EmptyLock { field: "name" });
        }
        if self.namespace.is_empty() {
            return Err(ElectionConfigError::EmptyLock { field: "namespace" });
        }
        if self.lease_duration < Duration::from_secs(1) {
            return Err(ElectionConfigError::LeaseTooShort(self.lease_duration));
        }
        if self.lease_duration <= self.renew_deadline {
            return Err(ElectionConfigError::RenewDeadlineNotBelowLease {
                lease: self.lease_duration,
                renew: self.renew_deadline,
            });
        }
        if self.renew_deadline.as_secs_f64() <= JITTER_FACTOR * self.retry_period.as_secs_f64()
            || self.retry_period.is_zero()
        {
            return Err(ElectionConfigError::RetryNotBelowRenewDeadline {
                renew: self.renew_deadline,
                retry: self.retry_period,
            });
        }
        Ok(())
    }

    /// `spec.leaseDurationSeconds` for this configuration (whole seconds, rounded down).
    pub fn lease_duration_seconds(&self) -> i32 {
        i32::try_from(self.lease_duration.as_secs()).unwrap_or(i32::MAX)
    }
}

/// client-go's identity: `<hostname>_<uuid>`, unique per process even on one host.
pub fn default_identity() -> String {
    format!("{}_{}", hostname(), uuid::Uuid::new_v4())
}

/// The kernel's host name (`os.Hostname()` reads the same file), falling back to `$HOSTNAME`.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "localhost".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> ElectionConfig {
        ElectionConfig::new("kube-system", "cloud-controller-manager", "me")
    }

    #[test]
    fn defaults_are_client_go_defaults_and_valid() {
        let c = cfg();
        assert_eq!(c.lease_duration, Duration::from_secs(15));
        assert_eq!(c.renew_deadline, Duration::from_secs(10));
        assert_eq!(c.retry_period, Duration::from_secs(2));
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.lease_duration_seconds(), 15);
    }

    #[test]
    fn unsafe_timings_are_refused() {
        let mut c = cfg();
        c.renew_deadline = Duration::from_secs(15);
        assert!(matches!(
            c.validate(),
            Err(ElectionConfigError::RenewDeadlineNotBelowLease { .. })
        ));
        let mut c = cfg();
        c.retry_period = Duration::from_secs(9);
        assert!(matches!(
            c.validate(),
            Err(ElectionConfigError::RetryNotBelowRenewDeadline { .. })
        ));
        let mut c = cfg();
        c.lease_duration = Duration::from_millis(900);
        c.renew_deadline = Duration::from_millis(500);
        c.retry_period = Duration::from_millis(100);
        assert!(matches!(
            c.validate(),
            Err(ElectionConfigError::LeaseTooShort(_))
        ));
        let mut c = cfg();
        c.identity.clear();
        assert_eq!(c.validate(), Err(ElectionConfigError::EmptyIdentity));
    }

    #[test]
    fn identity_is_hostname_underscore_uuid_and_unique() {
        let a = default_identity();
        let b = default_identity();
        assert_ne!(a, b);
        let (host, id) = a.rsplit_once('_').expect("underscore");
        assert!(!host.is_empty());
        assert!(uuid::Uuid::parse_str(id).is_ok(), "{a}");
    }
}
