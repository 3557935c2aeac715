//! The leader election record as stored in a Lease's spec (client-go's `LeaderElectionRecord`).

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;

/// Who holds a Lease, since when, for how long, and how often it changed hands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LeaderRecord {
    /// `spec.holderIdentity`; `None` or empty means released.
    pub holder: Option<String>,
    /// `spec.leaseDurationSeconds`.
    pub lease_duration_seconds: i32,
    /// `spec.acquireTime`: when the current holder took the lease.
    pub acquire_time: Option<Timestamp>,
    /// `spec.renewTime`: the holder's last renewal.
    pub renew_time: Option<Timestamp>,
    /// `spec.leaseTransitions`: number of changes of holder.
    pub transitions: i32,
}

impl LeaderRecord {
    /// Reads the record out of a Lease (missing fields read as client-go reads them: zero).
    pub fn from_lease(lease: &Lease) -> Self {
        let spec = lease.spec.clone().unwrap_or_default();
        LeaderRecord {
            holder: spec.holder_identity.filter(|h| !h.is_empty()),
            lease_duration_seconds: spec.lease_duration_seconds.unwrap_or(0),
            acquire_time: spec.acquire_time.map(|t| t.0),
            renew_time: spec.renew_time.map(|t| t.0),
            transitions: spec.lease_transitions.unwrap_or(0),
        }
    }

    /// Writes the record into a Lease's spec, keeping fields it does not own (strategy, preferredHolder).
    pub fn apply_to(&self, lease: &mut Lease) {
        let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
        spec.holder_identity = self.holder.clone();
        spec.lease_duration_seconds = Some(self.lease_duration_seconds);
        spec.acquire_time = self.acquire_time.map(MicroTime);
        spec.renew_time = self.renew_time.map(MicroTime);
        spec.lease_transitions = Some(self.transitions);
    }

    /// Whether `identity` is the recorded holder.
    pub fn is_held_by(&self, identity: &str) -> bool {
        self.holder.as_deref() == Some(identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_a_lease_and_keeps_foreign_fields() {
        let now = Timestamp::now();
        let record = LeaderRecord {
            holder: Some("host_1".into()),
            lease_duration_seconds: 15,
            acquire_time: Some(now),
            renew_time: Some(now),
            transitions: 3,
        };
        let mut lease = Lease::default();
        lease.spec = Some(LeaseSpec {
            strategy: Some("OldestEmulationVersion".into()),
            ..LeaseSpec::default()
        });
        record.apply_to(&mut lease);
        assert_eq!(LeaderRecord::from_lease(&lease), record);
        assert_eq!(
            lease.spec.and_then(|s| s.strategy).as_deref(),
            Some("OldestEmulationVersion")
        );
    }

    #[test]
    fn empty_holder_reads_as_released() {
        let mut lease = Lease::default();
        lease.spec = Some(LeaseSpec {
            holder_identity: Some(String::new()),
            ..LeaseSpec::default()
        });
        let record = LeaderRecord::from_lease(&lease);
        assert_eq!(record.holder, None);
        assert!(!record.is_held_by(""));
    }
}
