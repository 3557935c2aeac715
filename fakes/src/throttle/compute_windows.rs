//! The Compute RP's live policy windows: per subscription and policy, a fixed window counting every
//! request (refused ones too, as CRP's `measuredRequestCount` does) that resets when it ends. A
//! request is refused with 429 `OperationNotAllowed` while any of its policies is over its count;
//! `Retry-After` is the time until the last such window ends.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::json;
use time::OffsetDateTime;

use super::compute_policies::ComputeLimits;

/// Message of CRP's throttling error (Compute throttling troubleshooting page).
pub const CRP_THROTTLED_MESSAGE: &str = "The server rejected the request because too many requests have been received for this subscription.";

/// One policy's state after counting a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyCount {
    /// Policy name (without `Microsoft.Compute/`).
    pub policy: &'static str,
    /// Requests the window allows.
    pub allowed: u32,
    /// Requests counted in the window, this one included.
    pub measured: u32,
    /// Window start (for the error detail).
    pub start: OffsetDateTime,
    /// Window end (for the error detail).
    pub end: OffsetDateTime,
    /// Seconds until the window ends (at least 1).
    pub secs_left: u64,
}

impl PolicyCount {
    /// Requests left in the window.
    pub fn remaining(&self) -> u32 {
        self.allowed.saturating_sub(self.measured)
    }

    /// Whether this request went over the policy's count.
    pub fn exceeded(&self) -> bool {
        self.measured > self.allowed
    }

    /// CRP's detail `message`: the violation serialised as JSON.
    pub fn detail_message(&self) -> String {
        json!({
            "operationGroup": self.policy,
            "startTime": crp_time(self.start),
            "endTime": crp_time(self.end),
            "allowedRequestCount": self.allowed,
            "measuredRequestCount": self.measured,
        })
        .to_string()
    }
}

/// `2018-06-29T19:54:21.0914017+00:00`, the shape CRP reports window bounds in.
fn crp_time(t: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:07}+00:00",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.nanosecond() / 100
    )
}

/// Outcome of one Compute request against its policies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputeAdmission {
    /// Every policy the request counted against, in header order.
    pub counts: Vec<PolicyCount>,
}

impl ComputeAdmission {
    /// `x-ms-ratelimit-remaining-resource` value (`Microsoft.Compute/P;n,Microsoft.Compute/Q;m`).
    pub fn header(&self) -> String {
        self.counts
            .iter()
            .map(|c| format!("Microsoft.Compute/{};{}", c.policy, c.remaining()))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Policies this request went over (empty when admitted).
    pub fn exceeded(&self) -> impl Iterator<Item = &PolicyCount> {
        self.counts.iter().filter(|c| c.exceeded())
    }

    /// `Retry-After` seconds when refused.
    pub fn retry_after(&self) -> Option<u64> {
        self.exceeded().map(|c| c.secs_left).max()
    }
}

#[derive(Debug, Clone)]
struct Window {
    started: Instant,
    started_wall: OffsetDateTime,
    length: Duration,
    measured: u32,
}

/// Live windows keyed by (subscription, policy).
#[derive(Debug, Default)]
pub struct ComputeWindows {
    windows: Mutex<HashMap<(String, &'static str), Window>>,
}

impl ComputeWindows {
    /// Counts one request of `subscription` against `policies` at `now`.
    pub fn admit(
        &self,
        limits: &ComputeLimits,
        subscription: &str,
        policies: &[&'static str],
        now: Instant,
    ) -> ComputeAdmission {
        let wall = OffsetDateTime::now_utc();
        let mut windows = self.windows.lock();
        let counts = policies
            .iter()
            .filter_map(|policy| {
                let spec = limits.spec(policy)?;
                let length = Duration::from_secs(spec.window_secs);
                let window = windows
                    .entry((subscription.to_ascii_lowercase(), *policy))
                    .or_insert_with(|| Window {
                        started: now,
                        started_wall: wall,
                        length,
                        measured: 0,
                    });
                if now.saturating_duration_since(window.started) >= window.length
                    || window.length != length
                {
                    *window = Window {
                        started: now,
                        started_wall: wall,
                        length,
                        measured: 0,
                    };
                }
                window.measured = window.measured.saturating_add(1);
                let left = window
                    .length
                    .saturating_sub(now.saturating_duration_since(window.started));
                Some(PolicyCount {
                    policy,
                    allowed: spec.allowed,
                    measured: window.measured,
                    start: window.started_wall,
                    end: window.started_wall + window.length,
                    secs_left: left.as_secs_f64().ceil().max(1.0) as u64,
                })
            })
            .collect();
        ComputeAdmission { counts }
    }

    /// Forgets every window (reconfiguration).
    pub fn clear(&self) {
        self.windows.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::throttle::compute_policies::PolicySpec;

    fn tiny() -> ComputeLimits {
        let mut limits = ComputeLimits::default();
        limits.policies.insert(
            "HighCostGetVMScaleSet3Min".into(),
            PolicySpec {
                allowed: 2,
                window_secs: 10,
            },
        );
        limits
    }

    const VMSS_LIST: &[&str] = &["HighCostGetVMScaleSet3Min", "HighCostGetVMScaleSet30Min"];

    #[test]
    fn counts_down_then_refuses_until_the_window_ends() {
        let w = ComputeWindows::default();
        let limits = tiny();
        let t0 = Instant::now();
        let first = w.admit(&limits, "S", VMSS_LIST, t0);
        assert_eq!(
            first.header(),
            "Microsoft.Compute/HighCostGetVMScaleSet3Min;1,Microsoft.Compute/HighCostGetVMScaleSet30Min;899"
        );
        assert_eq!(first.retry_after(), None);
        assert_eq!(w.admit(&limits, "s", VMSS_LIST, t0).retry_after(), None);
        let refused = w.admit(&limits, "s", VMSS_LIST, t0 + Duration::from_millis(2500));
        assert_eq!(refused.retry_after(), Some(8));
        let over: Vec<_> = refused.exceeded().collect();
        assert_eq!(over.len(), 1);
        assert_eq!((over[0].allowed, over[0].measured), (2, 3));
        let detail: serde_json::Value = serde_json::from_str(&over[0].detail_message()).unwrap();
        assert_eq!(detail["operationGroup"], "HighCostGetVMScaleSet3Min");
        assert_eq!(detail["measuredRequestCount"], 3);
        assert!(detail["startTime"].as_str().unwrap().ends_with("+00:00"));
        // Refused requests count too: the 30-minute window saw all three.
        assert_eq!(refused.counts[1].measured, 3);
        // Another subscription has its own windows; a new window admits again.
        assert_eq!(w.admit(&limits, "other", VMSS_LIST, t0).retry_after(), None);
        assert_eq!(
            w.admit(&limits, "s", VMSS_LIST, t0 + Duration::from_secs(10))
                .retry_after(),
            None
        );
    }
}
