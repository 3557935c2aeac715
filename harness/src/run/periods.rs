//! The settle windows of a scenario, from the periods its managers were started with: a window
//! shorter than a loop's period measures the cluster before that loop has acted (a kubenet
//! switch judged before node IPAM's first node list, an overlap of two allocators never shown).
//!
//! Periods read from the managers' command lines (defaults as upstream's when a flag is absent):
//! `--node-monitor-period` (5 s, cloud-node-lifecycle), `--route-reconciliation-period` (10 s,
//! with `--configure-cloud-routes`), node IPAM's start (10 s with `--allocate-node-cidrs`:
//! kubernetes-sigs/cloud-provider-azure `pkg/nodeipam/ipam/cidr_allocator.go`, `listNodes`
//! polls with `wait.Poll(10*time.Second, ...)`, whose first look comes one interval after the
//! start), and the simulated kubelets' status period ([`crate::switch::KUBELET_TIMING`]).
//!
//! Windows: quiet = the longer of 2.5 s and the kubelet status period + 0.5 s (a node's refresh of
//! what the cloud just changed lands inside it); stall (give up when nothing changes while
//! unsettled) = the longer of 12 s and twice the longest period + 2 s (one whole cycle of the
//! slowest loop after the change that started it, plus a poll); timeout = the longer of 90 s and
//! three stalls.

use std::time::Duration;

use super::settle::SettleLimits;

/// Shortest quiet period.
const MIN_QUIET: Duration = Duration::from_millis(2500);
/// Shortest stall period.
const MIN_STALL: Duration = Duration::from_secs(12);
/// Shortest timeout.
const MIN_TIMEOUT: Duration = Duration::from_secs(90);
/// Node IPAM's wait before its first node list (see the module docs).
pub const IPAM_START: Duration = Duration::from_secs(10);
/// `--node-monitor-period` default.
const NODE_MONITOR_DEFAULT: Duration = Duration::from_secs(5);
/// `--route-reconciliation-period` default.
const ROUTE_DEFAULT: Duration = Duration::from_secs(10);

/// The loop periods that decide how long a phase takes to show its effects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ManagerPeriods {
    /// The longest `--node-monitor-period` of any manager.
    pub node_monitor: Duration,
    /// The longest `--route-reconciliation-period` of a manager that configures routes.
    pub route_reconciliation: Option<Duration>,
    /// Node IPAM's start delay when a manager allocates pod CIDRs.
    pub ipam_start: Option<Duration>,
    /// The kubelets' status period.
    pub kubelet_status: Duration,
}

impl ManagerPeriods {
    /// Folds one manager's command line (`--flag=value` arguments) into the periods; a duration
    /// that does not parse counts as its default (the manager refuses it at start anyway).
    pub fn add_command_line(&mut self, args: &[String]) {
        let value = |name: &str| {
            args.iter()
                .rev()
                .find_map(|a| a.strip_prefix(name)?.strip_prefix('='))
        };
        let duration = |name: &str, default: Duration| {
            value(name)
                .and_then(|v| azure_ccm::go_duration::parse(v).ok())
                .unwrap_or(default)
        };
        let on = |name: &str| value(name).is_some_and(|v| v.eq_ignore_ascii_case("true"));
        self.node_monitor = self
            .node_monitor
            .max(duration("--node-monitor-period", NODE_MONITOR_DEFAULT));
        // Counted whenever routes are configured (the controller also needs
        // `--allocate-node-cidrs`; a window too long only costs time).
        if on("--configure-cloud-routes") {
            let period = duration("--route-reconciliation-period", ROUTE_DEFAULT);
            self.route_reconciliation =
                Some(self.route_reconciliation.map_or(period, |p| p.max(period)));
        }
        if on("--allocate-node-cidrs") {
            self.ipam_start = Some(IPAM_START);
        }
    }

    /// The longest loop period.
    fn longest(&self) -> Duration {
        [
            Some(self.node_monitor),
            self.route_reconciliation,
            self.ipam_start,
            Some(self.kubelet_status),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or_default()
    }

    /// The settle windows for these periods (see the module docs).
    pub fn settle_limits(&self) -> SettleLimits {
        let quiet = MIN_QUIET.max(self.kubelet_status + Duration::from_millis(500));
        let stall = MIN_STALL.max(self.longest() * 2 + Duration::from_secs(2));
        SettleLimits {
            timeout: MIN_TIMEOUT.max(stall * 3),
            stall,
            quiet,
            poll: Duration::from_millis(300),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn azure_cni_keeps_the_short_windows() {
        let mut p = ManagerPeriods {
            kubelet_status: Duration::from_secs(2),
            ..Default::default()
        };
        p.add_command_line(&args(&[
            "--allocate-node-cidrs=false",
            "--configure-cloud-routes=false",
        ]));
        let l = p.settle_limits();
        assert_eq!(l.quiet, Duration::from_millis(2500));
        assert_eq!(l.stall, Duration::from_secs(12));
        assert_eq!(l.timeout, Duration::from_secs(90));
    }

    #[test]
    fn kubenet_waits_for_ipam_and_a_whole_route_cycle() {
        let mut p = ManagerPeriods {
            kubelet_status: Duration::from_secs(2),
            ..Default::default()
        };
        p.add_command_line(&args(&[
            "--allocate-node-cidrs=true",
            "--configure-cloud-routes=true",
            "--route-reconciliation-period=15s",
        ]));
        assert_eq!(p.route_reconciliation, Some(Duration::from_secs(15)));
        assert_eq!(p.ipam_start, Some(IPAM_START));
        let l = p.settle_limits();
        assert_eq!(l.stall, Duration::from_secs(32));
        assert_eq!(l.timeout, Duration::from_secs(96));
    }

    #[test]
    fn the_longest_node_monitor_period_of_all_managers_counts() {
        let mut p = ManagerPeriods::default();
        p.add_command_line(&args(&["--node-monitor-period=20s"]));
        p.add_command_line(&args(&["--node-monitor-period=1s"]));
        assert_eq!(p.node_monitor, Duration::from_secs(20));
        assert_eq!(p.settle_limits().stall, Duration::from_secs(42));
        p.add_command_line(&args(&["--node-monitor-period=junk"]));
        assert_eq!(p.node_monitor, Duration::from_secs(20));
    }
}
