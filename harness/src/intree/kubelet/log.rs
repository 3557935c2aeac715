//! What one simulated kubelet did: transitions as timed events, periodic work as counters, so
//! the harness's samples can tell which kubelets were registered, posting and renewing.

use k8s_openapi::jiff::Timestamp;

use super::registration::Mode;

/// Most events kept per kubelet (the oldest go first).
const MAX_EVENTS: usize = 1000;

/// One thing a kubelet (or its handle, for stop/flip) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    /// The task started, in this mode.
    Started(Mode),
    /// The Node was created (`created`) or found and reconciled.
    Registered {
        /// Mode it registered in.
        mode: Mode,
        /// True when this registration created the Node.
        created: bool,
    },
    /// The Lease was renewed with this `renewTime`.
    LeaseRenewed(Timestamp),
    /// A status post went through.
    StatusPosted,
    /// The task was stopped.
    Stopped,
    /// The Node was marked as the node-lifecycle controller does after the grace period.
    MarkedUnreachable,
    /// Something failed (the kubelet retries on its next period).
    Failed(String),
}

/// A timed [`Activity`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// When.
    pub at: Timestamp,
    /// What.
    pub activity: Activity,
}

/// The record of one kubelet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Log {
    /// Transitions and failures, oldest first (at most 1000).
    pub events: Vec<Event>,
    /// Lease renewals so far.
    pub lease_renewals: u64,
    /// Status posts so far.
    pub status_posts: u64,
    /// Last `renewTime` written.
    pub last_lease_renew: Option<Timestamp>,
    /// Time of the last status post.
    pub last_status_post: Option<Timestamp>,
}

impl Log {
    /// Records `activity` now.
    pub fn push(&mut self, activity: Activity) {
        let at = Timestamp::now();
        match activity {
            Activity::LeaseRenewed(renewed) => {
                self.lease_renewals += 1;
                self.last_lease_renew = Some(renewed);
            }
            Activity::StatusPosted => {
                self.status_posts += 1;
                self.last_status_post = Some(at);
            }
            other => {
                if self.events.len() == MAX_EVENTS {
                    self.events.remove(0);
                }
                self.events.push(Event {
                    at,
                    activity: other,
                });
            }
        }
    }

    /// The last failure, if the kubelet has failed since it last registered.
    pub fn last_error(&self) -> Option<&str> {
        match self.events.last().map(|e| &e.activity) {
            Some(Activity::Failed(reason)) => Some(reason),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_work_is_counted_and_transitions_kept() {
        let mut log = Log::default();
        log.push(Activity::Started(Mode::InTree));
        log.push(Activity::StatusPosted);
        log.push(Activity::StatusPosted);
        let renewed = Timestamp::from_second(5).expect("t");
        log.push(Activity::LeaseRenewed(renewed));
        assert_eq!(log.status_posts, 2);
        assert_eq!(log.lease_renewals, 1);
        assert_eq!(log.last_lease_renew, Some(renewed));
        assert_eq!(log.events.len(), 1);
        assert_eq!(log.last_error(), None);
        log.push(Activity::Failed("boom".into()));
        assert_eq!(log.last_error(), Some("boom"));
        for _ in 0..MAX_EVENTS {
            log.push(Activity::Stopped);
        }
        assert_eq!(log.events.len(), MAX_EVENTS);
        assert_eq!(log.events[0].activity, Activity::Stopped);
    }
}
