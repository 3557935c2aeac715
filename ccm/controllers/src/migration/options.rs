//! The `--enable-leader-migration` / `--leader-migration-config` / `--leader-elect` combination.

use std::path::PathBuf;

use super::config::LeaderMigrationConfig;
use super::error::MigrationConfigError;

/// The Leader Migration flags as given on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MigrationFlags {
    /// `--enable-leader-migration`.
    pub enable: bool,
    /// `--leader-migration-config` (empty means the built-in default).
    pub config: Option<PathBuf>,
}

impl MigrationFlags {
    /// The configuration to enforce (`None`: migration off), refusing incoherent flags.
    pub fn resolve(
        &self,
        leader_elect: bool,
    ) -> Result<Option<LeaderMigrationConfig>, MigrationConfigError> {
        let file = self.config.as_ref().filter(|p| !p.as_os_str().is_empty());
        match (self.enable, file) {
            (false, Some(file)) => {
                Err(MigrationConfigError::ConfigWithoutEnable { file: file.clone() })
            }
            (false, None) => Ok(None),
            (true, _) if !leader_elect => Err(MigrationConfigError::MigrationWithoutLeaderElection),
            (true, Some(file)) => LeaderMigrationConfig::load(file).map(Some),
            (true, None) => Ok(Some(LeaderMigrationConfig::built_in_default())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_combinations() {
        let off = MigrationFlags::default();
        assert_eq!(off.resolve(true).unwrap(), None);
        assert_eq!(off.resolve(false).unwrap(), None);

        let default = MigrationFlags {
            enable: true,
            config: None,
        };
        assert_eq!(
            default.resolve(true).unwrap(),
            Some(LeaderMigrationConfig::built_in_default())
        );
        let err = default.resolve(false).unwrap_err();
        assert!(matches!(
            err,
            MigrationConfigError::MigrationWithoutLeaderElection
        ));
        insta::assert_snapshot!("migration_without_leader_elect", err.to_string());

        let file_only = MigrationFlags {
            enable: false,
            config: Some("/etc/leadermigration.conf".into()),
        };
        let err = file_only.resolve(true).unwrap_err();
        insta::assert_snapshot!("config_without_enable", err.to_string());
    }

    #[test]
    fn enabled_with_a_file_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lm.yaml");
        std::fs::write(
            &file,
            "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: custom\ncontrollerLeaders: []\n",
        )
        .unwrap();
        let flags = MigrationFlags {
            enable: true,
            config: Some(file),
        };
        let config = flags.resolve(true).unwrap().unwrap();
        assert_eq!(config.leader_name, "custom");
    }
}
