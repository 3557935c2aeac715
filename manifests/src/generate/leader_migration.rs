//! LeaderMigrationConfiguration (KEP-2436, `controllermanager.config.k8s.io/v1`) and the RBAC
//! kube-controller-manager needs for the migration lease.

use serde::{Deserialize, Serialize};

use azure_ccm::names::{controllers, leases};

use crate::options::{Mode, Options};

/// Header note of the files that take part in leader migration, written for the in-tree
/// kube-controller-manager (version N).
const IN_TREE_NOTE: &str = "\
Leader migration (KEP-2436): the in-tree kube-controller-manager (version N) takes the lease
kube-system/cloud-provider-extraction-migration and runs the listed cloud controllers only
while it holds it. The upstream Azure cloud-controller-manager (kubernetes-sigs/cloud-provider-azure)
accepts --enable-leader-migration and validates the file, but never campaigns for that lease: it
runs service, route and node-lifecycle under its own lease, so it is NOT excluded by this KCM.
With the upstream image, quiesce then switch: stop every kube-controller-manager that runs
--cloud-provider=azure (or switch it to external) before the first cloud-controller-manager starts.";

/// Header note for the cloud-controller-manager side (version N+1, out-of-tree up to 1.30).
const OUT_OF_TREE_NOTE: &str = "\
Leader migration (KEP-2436): --enable-leader-migration and --leader-migration-config are passed
to the cloud-controller-manager for a CCM that implements KEP-2436. The upstream image
(kubernetes-sigs/cloud-provider-azure) parses and validates the file but ignores it: it runs
service, route and node-lifecycle under its own lease only, so an in-tree kube-controller-manager
holding the migration lease runs them at the same time. With the upstream image, quiesce then
switch: no kube-controller-manager with --cloud-provider=azure may run when the first
cloud-controller-manager starts. Refused from 1.31: no in-tree kube-controller-manager exists.";

/// Why leader migration does not protect a switch to the upstream Azure CCM, for the header of
/// every file that wires it (migration.md 2.6; verified: the anchor's
/// `cmd/cloud-controller-manager/app/controllermanager.go` only runs `leaderelection.RunOrDie` on
/// the main lock and never uses `leadermigration`). None when leader migration is off.
pub fn header_note(o: &Options) -> Option<&'static str> {
    match (o.leader_migration, o.mode) {
        (false, _) => None,
        (true, Mode::InTree) => Some(IN_TREE_NOTE),
        (true, Mode::OutOfTree) => Some(OUT_OF_TREE_NOTE),
    }
}

/// The v1 file format. v1 has no `resourceLock` (it is always `leases`), so the struct refuses it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeaderMigrationConfiguration {
    /// `controllermanager.config.k8s.io/v1`.
    pub api_version: String,
    /// `LeaderMigrationConfiguration`.
    pub kind: String,
    /// Lease name shared by every participant.
    pub leader_name: String,
    /// Controllers that move, and who may run them.
    pub controller_leaders: Vec<ControllerLeader>,
}

/// One migrated controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControllerLeader {
    /// Controller key as the manager knows it internally.
    pub name: String,
    /// `*`: whichever manager holds the migration lease (KCM N and CCM N+1 share one file).
    pub component: String,
}

/// The wildcard form of the configuration.
///
/// Controller names follow the internal keys of the managers at the target version: up to 1.27
/// the short names (`route`, `service`, `cloud-node-lifecycle`), from 1.28 the canonical names
/// (`node-route-controller`, ...). The migrator compares plain strings without alias resolution,
/// so a name that matches nothing silently falls back to the main lease in both managers
/// (migration.md 2.2; the 1.28+ naming is [infer] — verify by observing which process runs which
/// controller). The route controller is listed only when routes are configured. Node IPAM is
/// never listed: with leader migration it stays in kube-controller-manager
/// ([`Options::node_ipam_owner`]).
pub fn config(o: &Options) -> LeaderMigrationConfiguration {
    let wanted = [
        Some(controllers::SERVICE_LB),
        o.configure_cloud_routes.then_some(controllers::NODE_ROUTE),
        Some(controllers::CLOUD_NODE_LIFECYCLE),
    ];
    let controller_leaders = wanted
        .into_iter()
        .flatten()
        .filter_map(controllers::lookup)
        .map(|c| ControllerLeader {
            name: if o.version.at_least(28) {
                c.canonical.to_string()
            } else {
                c.leader_migration_name_pre_1_28
                    .unwrap_or(c.canonical)
                    .to_string()
            },
            component: "*".to_string(),
        })
        .collect();
    LeaderMigrationConfiguration {
        api_version: "controllermanager.config.k8s.io/v1".to_string(),
        kind: "LeaderMigrationConfiguration".to_string(),
        leader_name: leases::LEADER_MIGRATION.to_string(),
        controller_leaders,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::KubeVersion;

    #[test]
    fn header_note_names_the_upstream_gap_per_side() {
        let mut o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(30).unwrap());
        assert_eq!(header_note(&o), None);
        o.leader_migration = true;
        let out = header_note(&o).unwrap_or_default();
        assert!(
            out.contains("ignores it") && out.contains("quiesce"),
            "{out}"
        );
        o.mode = Mode::InTree;
        o.version = KubeVersion::from_minor(29).unwrap();
        let inn = header_note(&o).unwrap_or_default();
        assert!(
            inn.contains("NOT excluded") && inn.contains("quiesce"),
            "{inn}"
        );
    }

    #[test]
    fn names_follow_the_version_and_routes() {
        let mut o = Options::new(Mode::InTree, KubeVersion::from_minor(27).unwrap());
        o.configure_cloud_routes = true;
        let names: Vec<String> = config(&o)
            .controller_leaders
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["service", "route", "cloud-node-lifecycle"]);
        o.version = KubeVersion::from_minor(29).unwrap();
        o.configure_cloud_routes = false;
        let c = config(&o);
        let names: Vec<String> = c
            .controller_leaders
            .iter()
            .map(|c| c.name.clone())
            .collect();
        assert_eq!(
            names,
            ["service-lb-controller", "cloud-node-lifecycle-controller"]
        );
        assert!(c.controller_leaders.iter().all(|l| l.component == "*"));
        assert_eq!(c.leader_name, "cloud-provider-extraction-migration");
    }
}
