//! The `--leader-elect*` flags (upstream names and defaults), turned into an election config.

use std::time::Duration;

use super::config::{
    DEFAULT_LEASE_DURATION, DEFAULT_RENEW_DEADLINE, DEFAULT_RETRY_PERIOD, ElectionConfig,
    ElectionConfigError,
};

/// Values of the leader election flags as a binary parsed them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderElectFlags {
    /// `--leader-elect` (default true).
    pub leader_elect: bool,
    /// `--leader-elect-lease-duration` (15s).
    pub lease_duration: Duration,
    /// `--leader-elect-renew-deadline` (10s).
    pub renew_deadline: Duration,
    /// `--leader-elect-retry-period` (2s).
    pub retry_period: Duration,
    /// `--leader-elect-resource-lock` (`leases`, the only kind accepted).
    pub resource_lock: String,
    /// `--leader-elect-resource-name` (the component's name).
    pub resource_name: String,
    /// `--leader-elect-resource-namespace` (`kube-system`).
    pub resource_namespace: String,
}

impl LeaderElectFlags {
    /// Upstream's defaults for a component whose main Lease is `lease_name`.
    pub fn defaults_for(lease_name: &str) -> Self {
        LeaderElectFlags {
            leader_elect: true,
            lease_duration: DEFAULT_LEASE_DURATION,
            renew_deadline: DEFAULT_RENEW_DEADLINE,
            retry_period: DEFAULT_RETRY_PERIOD,
            resource_lock: "leases".into(),
            resource_name: lease_name.into(),
            resource_namespace: ccm_names::leases::NAMESPACE.into(),
        }
    }

    /// The validated election (`None` with `--leader-elect=false`) for `identity`.
    pub fn election(&self, identity: &str) -> Result<Option<ElectionConfig>, ElectionConfigError> {
        if !self.leader_elect {
            return Ok(None);
        }
        if self.resource_lock != "leases" {
            return Err(ElectionConfigError::UnsupportedLock(
                self.resource_lock.clone(),
            ));
        }
        let mut config = ElectionConfig::new(
            self.resource_namespace.clone(),
            self.resource_name.clone(),
            identity,
        );
        config.lease_duration = self.lease_duration;
        config.renew_deadline = self.renew_deadline;
        config.retry_period = self.retry_period;
        config.validate()?;
        Ok(Some(config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_give_the_ccm_lease_with_client_go_timings() {
        let flags = LeaderElectFlags::defaults_for("cloud-controller-manager");
        let config = flags.election("h_1").unwrap().unwrap();
        assert_eq!(
            config,
            ElectionConfig::new("kube-system", "cloud-controller-manager", "h_1")
        );
    }

    #[test]
    fn disabled_election_and_bad_locks() {
        let mut flags = LeaderElectFlags::defaults_for("cloud-controller-manager");
        flags.leader_elect = false;
        assert_eq!(flags.election("h_1"), Ok(None));
        flags.leader_elect = true;
        flags.resource_lock = "endpointsleases".into();
        let err = flags.election("h_1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "--leader-elect-resource-lock=endpointsleases is not supported: only \"leases\""
        );
        flags.resource_lock = "leases".into();
        flags.renew_deadline = Duration::from_secs(20);
        assert!(matches!(
            flags.election("h_1"),
            Err(ElectionConfigError::RenewDeadlineNotBelowLease { .. })
        ));
    }
}
