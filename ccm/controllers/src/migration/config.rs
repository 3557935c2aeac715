//! `LeaderMigrationConfiguration` (`controllermanager.config.k8s.io` v1alpha1/v1beta1/v1):
//! strict decoding, validation and the built-in default.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::MigrationConfigError;
use super::names::canonical;

/// The API group of the configuration kind.
pub const GROUP: &str = "controllermanager.config.k8s.io";
/// The configuration kind.
pub const KIND: &str = "LeaderMigrationConfiguration";
/// The only lock kind we implement (`endpoints` locks are gone from client-go).
pub const RESOURCE_LOCK_LEASES: &str = "leases";
/// Component value meaning "whichever manager takes part in the migration".
pub const ANY_COMPONENT: &str = "*";

/// A validated Leader Migration configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderMigrationConfig {
    /// Name of the migration Lease (same namespace as the main lease).
    pub leader_name: String,
    /// Which component runs each migrated controller.
    pub controller_leaders: Vec<ControllerLeader>,
    /// Where it came from, for logs.
    pub source: ConfigSource,
}

/// One `controllerLeaders` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerLeader {
    /// The controller name as written (any release's name).
    pub name: String,
    /// `kube-controller-manager`, `cloud-controller-manager`, or `*`.
    pub component: String,
}

/// Origin of a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// `--leader-migration-config` was not given.
    BuiltInDefault,
    /// Read from this file.
    File(PathBuf),
}

/// The wire form, decoded strictly: an unknown field is an error naming it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Document {
    api_version: Option<String>,
    kind: Option<String>,
    leader_name: Option<String>,
    resource_lock: Option<String>,
    controller_leaders: Option<Vec<Entry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: Option<String>,
    component: Option<String>,
}

impl LeaderMigrationConfig {
    /// Upstream's default (`pkg/leadermigration/config/default.go`): the three cloud loops with
    /// component `*`, the same for kube-controller-manager and cloud-controller-manager. Names are
    /// the ≤1.27 keys; aliases make them match either release's controller names.
    pub fn built_in_default() -> Self {
        let leader = |name: &str| ControllerLeader {
            name: name.to_string(),
            component: ANY_COMPONENT.to_string(),
        };
        LeaderMigrationConfig {
            leader_name: ccm_names::leases::LEADER_MIGRATION.to_string(),
            controller_leaders: vec![
                leader("route"),
                leader("service"),
                leader("cloud-node-lifecycle"),
            ],
            source: ConfigSource::BuiltInDefault,
        }
    }

    /// Reads and validates `--leader-migration-config`.
    pub fn load(file: &Path) -> Result<Self, MigrationConfigError> {
        let text = std::fs::read_to_string(file).map_err(|source| MigrationConfigError::Read {
            file: file.to_path_buf(),
            source,
        })?;
        Self::parse(&text, file)
    }

    /// Decodes YAML or JSON text; `file` names the source in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Self, MigrationConfigError> {
        let invalid = |field: &str, problem: String| MigrationConfigError::Invalid {
            file: file.to_path_buf(),
            field: field.to_string(),
            problem,
        };
        let doc: Document =
            serde_saphyr::from_str(text).map_err(|e| MigrationConfigError::Decode {
                file: file.to_path_buf(),
                message: e.to_string(),
            })?;
        let api_version = doc.api_version.unwrap_or_default();
        let version = match api_version.split_once('/') {
            Some((GROUP, v @ ("v1alpha1" | "v1beta1" | "v1"))) => v,
            _ => {
                return Err(invalid(
                    "apiVersion",
                    format!(
                        "{api_version:?} is not supported; use {GROUP}/v1, {GROUP}/v1beta1 or {GROUP}/v1alpha1"
                    ),
                ));
            }
        };
        let kind = doc.kind.unwrap_or_default();
        if kind != KIND {
            return Err(invalid("kind", format!("{kind:?}: must be {KIND}")));
        }
        let leader_name = doc.leader_name.unwrap_or_default();
        if leader_name.is_empty() {
            return Err(invalid(
                "leaderName",
                "required: the name of the migration Lease (upstream default: cloud-provider-extraction-migration)".into(),
            ));
        }
        if let Some(lock) = doc.resource_lock
            && lock != RESOURCE_LOCK_LEASES
        {
            let hint = if version == "v1" {
                " (v1 has no resourceLock; it always uses leases)"
            } else {
                ""
            };
            return Err(invalid(
                "resourceLock",
                format!("{lock:?} is not supported: only \"leases\"{hint}"),
            ));
        }
        let mut controller_leaders = Vec::new();
        for (i, entry) in doc
            .controller_leaders
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            let name = entry.name.unwrap_or_default();
            if name.is_empty() {
                return Err(invalid(
                    &format!("controllerLeaders[{i}].name"),
                    "required: the controller's name".into(),
                ));
            }
            let component = entry.component.unwrap_or_default();
            if component.is_empty() {
                return Err(invalid(
                    &format!("controllerLeaders[{i}].component"),
                    "required: kube-controller-manager, cloud-controller-manager or \"*\"".into(),
                ));
            }
            if let Some(j) = controller_leaders
                .iter()
                .position(|l: &ControllerLeader| canonical(&l.name) == canonical(&name))
            {
                return Err(invalid(
                    &format!("controllerLeaders[{i}].name"),
                    format!(
                        "{name:?} names the same controller as controllerLeaders[{j}] ({:?})",
                        controller_leaders[j].name
                    ),
                ));
            }
            controller_leaders.push(ControllerLeader { name, component });
        }
        Ok(LeaderMigrationConfig {
            leader_name,
            controller_leaders,
            source: ConfigSource::File(file.to_path_buf()),
        })
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
