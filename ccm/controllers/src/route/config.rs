//! Settings of the route controller and the parsing of `--cluster-cidr` for it.

use std::time::Duration;

use ipnet::IpNet;

/// Default `--route-reconciliation-period` (anchor-ccm.md 1.3, migration.md 6.4).
pub const DEFAULT_RECONCILIATION_PERIOD: Duration = Duration::from_secs(10);
/// Provider calls in flight at once (upstream `maxConcurrentRouteOperations`).
pub const MAX_CONCURRENT_ROUTE_OPERATIONS: usize = 200;

/// Why the route flags were refused; every message names the flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteConfigError {
    /// Routes need the cluster CIDR to know which routes are theirs.
    #[error("--cluster-cidr: required when --configure-cloud-routes=true")]
    MissingClusterCidr,
    /// An entry does not parse as a CIDR.
    #[error("--cluster-cidr: invalid CIDR {value:?}: {reason}")]
    InvalidClusterCidr {
        /// The entry as given.
        value: String,
        /// The parser's reason.
        reason: String,
    },
}

/// Settings of one route controller (`node-route-controller`).
#[derive(Debug, Clone)]
pub struct RouteControllerConfig {
    /// `--cluster-name`, passed to every provider call.
    pub cluster_name: String,
    /// `--cluster-cidr` entries: only routes inside them are managed (created or deleted).
    pub cluster_cidrs: Vec<IpNet>,
    /// `--route-reconciliation-period`.
    pub reconciliation_period: Duration,
}

impl RouteControllerConfig {
    /// Parses the comma-separated `--cluster-cidr` value (one CIDR per family).
    pub fn from_flags(
        cluster_name: &str,
        cluster_cidr: &str,
        reconciliation_period: Duration,
    ) -> Result<Self, RouteConfigError> {
        let cluster_cidrs = cluster_cidr
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|value| {
                value
                    .parse::<IpNet>()
                    .map_err(|e| RouteConfigError::InvalidClusterCidr {
                        value: value.to_owned(),
                        reason: e.to_string(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if cluster_cidrs.is_empty() {
            return Err(RouteConfigError::MissingClusterCidr);
        }
        Ok(Self {
            cluster_name: cluster_name.to_owned(),
            cluster_cidrs,
            reconciliation_period,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dual_stack_and_refuses_empty_or_bad_values() {
        let config =
            RouteControllerConfig::from_flags("k", "10.244.0.0/16, fd00::/48", Duration::ZERO)
                .unwrap();
        assert_eq!(config.cluster_cidrs.len(), 2);
        assert_eq!(
            RouteControllerConfig::from_flags("k", "", Duration::ZERO).unwrap_err(),
            RouteConfigError::MissingClusterCidr
        );
        let bad = RouteControllerConfig::from_flags("k", "10.244.0.0", Duration::ZERO);
        assert!(
            bad.unwrap_err()
                .to_string()
                .starts_with("--cluster-cidr: invalid CIDR \"10.244.0.0\"")
        );
    }
}
