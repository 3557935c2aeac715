//! The LeaderMigrationConfiguration each side reads: the plan's verbatim document, or the one
//! `ccm_manifests::generate::leader_migration::config` generates (wildcard), narrowed to the
//! side's own component name unless the plan asks for the wildcard (migration.md §2.5 steps 2-3:
//! `component: kube-controller-manager` in the KCMs' file, `cloud-controller-manager` in the
//! CCMs').

use ccm_manifests::generate::leader_migration::{self, LeaderMigrationConfiguration};
use ccm_names::controllers::{CLOUD_CONTROLLERS, NODE_IPAM};

use super::error::SwitchError;
use super::options::{Side, options};
use crate::scenario::ScenarioPlan;

/// The document `component` (`kube-controller-manager` or `cloud-controller-manager`) reads.
pub fn document(plan: &ScenarioPlan, component: &str) -> Result<String, SwitchError> {
    let spec = plan.switch.leader_migration.as_ref();
    if let Some(text) = spec.and_then(|s| s.config.as_ref()) {
        return Ok(text.clone());
    }
    let mut config = leader_migration::config(&options(plan, Side::InTree, true)?);
    if !spec.is_some_and(|s| s.wildcard) {
        for leader in &mut config.controller_leaders {
            leader.component = component.to_owned();
        }
    }
    serde_json::to_string_pretty(&config).map_err(|e| SwitchError::Plan {
        scenario: plan.name.clone(),
        reason: format!("rendering the LeaderMigrationConfiguration: {e}"),
    })
}

/// The loops (canonical names) `text` gives `component`; an unreadable document gives none (the
/// process then refuses it at start and says why).
pub fn migrated_loops(text: &str, component: &str) -> Vec<&'static str> {
    let Ok(config) = serde_saphyr::from_str::<LeaderMigrationConfiguration>(text) else {
        return Vec::new();
    };
    config
        .controller_leaders
        .iter()
        .filter(|l| l.component == "*" || l.component == component)
        .filter_map(|l| canonical(&l.name))
        .collect()
}

/// A migration entry's loop: canonical name, alias, the pre-1.28 key, or KCM's IPAM names.
fn canonical(name: &str) -> Option<&'static str> {
    if matches!(name, "nodeipam" | "node-ipam-controller") {
        return Some(NODE_IPAM);
    }
    CLOUD_CONTROLLERS
        .iter()
        .find(|c| {
            c.canonical == name
                || c.alias == Some(name)
                || c.leader_migration_name_pre_1_28 == Some(name)
        })
        .map(|c| c.canonical)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccm_names::controllers::{CLOUD_NODE_LIFECYCLE, SERVICE_LB};

    #[test]
    fn entries_resolve_for_their_component_or_the_wildcard() {
        let text = "kind: LeaderMigrationConfiguration\n\
            apiVersion: controllermanager.config.k8s.io/v1\n\
            leaderName: cloud-provider-extraction-migration\n\
            controllerLeaders:\n\
            - {name: service, component: kube-controller-manager}\n\
            - {name: cloud-node-lifecycle-controller, component: \"*\"}\n\
            - {name: service-controller, component: \"*\"}\n";
        assert_eq!(
            migrated_loops(text, "kube-controller-manager"),
            [SERVICE_LB, CLOUD_NODE_LIFECYCLE]
        );
        assert_eq!(
            migrated_loops(text, "cloud-controller-manager"),
            [CLOUD_NODE_LIFECYCLE]
        );
        assert!(migrated_loops("not: [yaml", "x").is_empty());
    }
}
