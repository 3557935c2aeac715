//! The `--leader-elect*` and Leader Migration flags every controller manager of this repository
//! takes (upstream's names and defaults, k8s.io/component-base `LeaderElectionConfiguration` and
//! k8s.io/controller-manager `LeaderMigrationOptions`), turned into the election and migration
//! settings of `ccm-controllers`.

use std::path::PathBuf;
use std::time::Duration;

use ccm_controllers::host::HostPlan;
use ccm_controllers::leader::{ElectionConfig, LeaderElectFlags};
use ccm_controllers::migration::{LeaderMigrationConfig, MigrationFlags};
use clap::{ArgAction, Args};

use crate::go_duration;

fn duration(text: &str) -> Result<Duration, String> {
    go_duration::parse(text).map_err(|e| e.to_string())
}

/// Leader election and Leader Migration flags (flattened into each binary's command line).
#[derive(Debug, Clone, Args)]
pub struct ElectionArgs {
    /// Take the leader Lease before running controllers.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "true", default_missing_value = "true", value_name = "BOOL")]
    pub leader_elect: bool,

    /// How long a holder keeps the Lease without renewing.
    #[arg(long, value_parser = duration, default_value = "15s", value_name = "DURATION")]
    pub leader_elect_lease_duration: Duration,

    /// How long the holder retries a failed renewal before giving up.
    #[arg(long, value_parser = duration, default_value = "10s", value_name = "DURATION")]
    pub leader_elect_renew_deadline: Duration,

    /// Pause between acquire or renew attempts.
    #[arg(long, value_parser = duration, default_value = "2s", value_name = "DURATION")]
    pub leader_elect_retry_period: Duration,

    /// Lock kind; only `leases` is supported.
    #[arg(long, default_value = "leases", value_name = "KIND")]
    pub leader_elect_resource_lock: String,

    /// Name of the leader Lease (default: the component's name).
    #[arg(long, value_name = "NAME")]
    pub leader_elect_resource_name: Option<String>,

    /// Namespace of the leader Lease.
    #[arg(long, default_value = "kube-system", value_name = "NAMESPACE")]
    pub leader_elect_resource_namespace: String,

    /// Leader Migration (KEP-2436): run the migrated controllers under a second Lease.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true", value_name = "BOOL")]
    pub enable_leader_migration: bool,

    /// LeaderMigrationConfiguration file; empty means the built-in default.
    #[arg(long, value_name = "FILE")]
    pub leader_migration_config: Option<PathBuf>,
}

impl ElectionArgs {
    /// The main Lease's name for `component` (`--leader-elect-resource-name` or the component).
    pub fn resource_name<'a>(&'a self, component: &'a str) -> &'a str {
        self.leader_elect_resource_name
            .as_deref()
            .filter(|n| !n.is_empty())
            .unwrap_or(component)
    }

    /// The election flags of `component`.
    pub fn election(&self, component: &str) -> LeaderElectFlags {
        LeaderElectFlags {
            leader_elect: self.leader_elect,
            lease_duration: self.leader_elect_lease_duration,
            renew_deadline: self.leader_elect_renew_deadline,
            retry_period: self.leader_elect_retry_period,
            resource_lock: self.leader_elect_resource_lock.clone(),
            resource_name: self.resource_name(component).to_owned(),
            resource_namespace: self.leader_elect_resource_namespace.clone(),
        }
    }

    /// The Leader Migration flags.
    pub fn migration(&self) -> MigrationFlags {
        MigrationFlags {
            enable: self.enable_leader_migration,
            config: self.leader_migration_config.clone(),
        }
    }

    /// What `component` hosts: `controllers` under `election` (validated from these flags) and
    /// `migration`, the summary naming the Leases these flags locate.
    pub fn host_plan<'a>(
        &'a self,
        component: &'static str,
        controllers: &'a [&'static str],
        election: Option<&'a ElectionConfig>,
        migration: Option<&'a LeaderMigrationConfig>,
    ) -> HostPlan<'a> {
        HostPlan {
            component,
            controllers,
            election,
            migration,
            lease_namespace: &self.leader_elect_resource_namespace,
            lease_name: self.resource_name(component),
        }
    }
}
