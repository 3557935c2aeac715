//! Which lease governs each controller this process runs, and a log-ready summary of it.

use std::fmt;

use super::config::{ANY_COMPONENT, LeaderMigrationConfig};
use super::names::canonical;

/// How a controller is governed during Leader Migration (upstream's `FilterResult`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControllerClass {
    /// Listed for this component (or `*`): runs only while holding the migration lease.
    Migrated,
    /// Not listed: runs under the main lease, as without migration.
    NotMigrated,
    /// Listed for another component: never started here.
    Unowned {
        /// The component the config gives it to.
        owner: String,
    },
}

/// The classification of every controller of one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// Main lease, `namespace/name`.
    pub main_lease: String,
    /// Migration lease, `namespace/name` (`None`: migration off, everything is not migrated).
    pub migration_lease: Option<String>,
    /// Each controller in the order given, with its class.
    pub controllers: Vec<(String, ControllerClass)>,
    /// Config entries that name none of this process's controllers (worth a warning).
    pub unmatched_entries: Vec<String>,
}

/// Classifies `controllers` of `component` (`kube-controller-manager` or `cloud-controller-manager`)
/// under `config`; `main_lease`/`namespace` locate the leases for the summary.
pub fn classify(
    config: Option<&LeaderMigrationConfig>,
    component: &str,
    controllers: &[&str],
    namespace: &str,
    main_lease: &str,
) -> Classification {
    let classes = controllers
        .iter()
        .map(|name| {
            let class = config
                .and_then(|c| {
                    c.controller_leaders
                        .iter()
                        .find(|l| canonical(&l.name) == canonical(name))
                })
                .map(|leader| {
                    if leader.component == component || leader.component == ANY_COMPONENT {
                        ControllerClass::Migrated
                    } else {
                        ControllerClass::Unowned {
                            owner: leader.component.clone(),
                        }
                    }
                })
                .unwrap_or(ControllerClass::NotMigrated);
            (name.to_string(), class)
        })
        .collect();
    let unmatched_entries = config
        .map(|c| {
            c.controller_leaders
                .iter()
                .filter(|l| {
                    !controllers
                        .iter()
                        .any(|n| canonical(n) == canonical(&l.name))
                })
                .map(|l| l.name.clone())
                .collect()
        })
        .unwrap_or_default();
    Classification {
        main_lease: format!("{namespace}/{main_lease}"),
        migration_lease: config.map(|c| format!("{namespace}/{}", c.leader_name)),
        controllers: classes,
        unmatched_entries,
    }
}

impl Classification {
    /// The class of one controller (`None` if it was not classified).
    pub fn class_of(&self, controller: &str) -> Option<&ControllerClass> {
        self.controllers
            .iter()
            .find(|(name, _)| name == controller)
            .map(|(_, class)| class)
    }
}

impl fmt::Display for Classification {
    /// One line per controller naming the lease that governs it, then unmatched config entries.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, class) in &self.controllers {
            match (class, &self.migration_lease) {
                (ControllerClass::Migrated, Some(migration)) => writeln!(
                    f,
                    "{name}: migrated, runs while holding Lease {migration} (taken after {})",
                    self.main_lease
                )?,
                (ControllerClass::Unowned { owner }, _) => writeln!(
                    f,
                    "{name}: unowned, never started here (the migration config gives it to {owner})"
                )?,
                _ => writeln!(f, "{name}: runs under the main Lease {}", self.main_lease)?,
            }
        }
        for entry in &self.unmatched_entries {
            writeln!(
                f,
                "migration config entry {entry:?} matches no controller of this process"
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migration::config::{ConfigSource, ControllerLeader};

    const CCM: &str = "cloud-controller-manager";
    const KCM: &str = "kube-controller-manager";
    /// The CCM's canonical controller names (≥1.28).
    const CCM_CONTROLLERS: [&str; 5] = [
        "cloud-node-controller",
        "cloud-node-lifecycle-controller",
        "service-lb-controller",
        "node-route-controller",
        "node-ipam",
    ];

    fn config(entries: &[(&str, &str)]) -> LeaderMigrationConfig {
        LeaderMigrationConfig {
            leader_name: "cloud-provider-extraction-migration".into(),
            controller_leaders: entries
                .iter()
                .map(|(name, component)| ControllerLeader {
                    name: name.to_string(),
                    component: component.to_string(),
                })
                .collect(),
            source: ConfigSource::BuiltInDefault,
        }
    }

    fn classes(config: Option<&LeaderMigrationConfig>, component: &str) -> Vec<ControllerClass> {
        classify(
            config,
            component,
            &CCM_CONTROLLERS,
            "kube-system",
            "cloud-controller-manager",
        )
        .controllers
        .into_iter()
        .map(|(_, c)| c)
        .collect()
    }

    use ControllerClass::{Migrated as M, NotMigrated as N};

    #[test]
    fn built_in_default_migrates_the_three_cloud_loops_in_both_managers() {
        let default = LeaderMigrationConfig::built_in_default();
        for component in [CCM, KCM] {
            assert_eq!(
                classes(Some(&default), component),
                [N, M, M, M, N],
                "{component}"
            );
        }
    }

    #[test]
    fn pre_and_post_1_28_names_classify_alike() {
        let old = config(&[
            ("route", CCM),
            ("service", CCM),
            ("cloud-node-lifecycle", CCM),
        ]);
        let new = config(&[
            ("route-controller", CCM),
            ("service-controller", CCM),
            ("cloud-node-lifecycle-controller", CCM),
        ]);
        let canonical = config(&[
            ("node-route-controller", CCM),
            ("service-lb-controller", CCM),
            ("cloud-node-lifecycle-controller", CCM),
        ]);
        for c in [&old, &new, &canonical] {
            assert_eq!(classes(Some(c), CCM), [N, M, M, M, N]);
        }
    }

    #[test]
    fn other_components_controllers_are_unowned() {
        let kcm_file = config(&[("route", KCM), ("service", KCM), ("nodeipam", "*")]);
        let owner = || ControllerClass::Unowned { owner: KCM.into() };
        assert_eq!(classes(Some(&kcm_file), CCM), [N, N, owner(), owner(), M]);
        assert_eq!(classes(Some(&kcm_file), KCM), [N, N, M, M, M]);
    }

    #[test]
    fn without_migration_everything_runs_under_the_main_lease() {
        assert_eq!(classes(None, CCM), [N, N, N, N, N]);
        let c = classify(
            None,
            CCM,
            &CCM_CONTROLLERS,
            "kube-system",
            "cloud-controller-manager",
        );
        assert_eq!(c.migration_lease, None);
    }

    #[test]
    fn summary_names_the_governing_lease_of_each_controller() {
        let file = config(&[("route", KCM), ("service", "*"), ("garbage-collector", "*")]);
        let c = classify(
            Some(&file),
            CCM,
            &CCM_CONTROLLERS,
            "kube-system",
            "cloud-controller-manager",
        );
        assert_eq!(c.unmatched_entries, ["garbage-collector"]);
        assert_eq!(c.class_of("service-lb-controller"), Some(&M));
        insta::assert_snapshot!("summary", c.to_string());
    }
}
