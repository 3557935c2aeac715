//! Which cloud loops a manager process runs and which Lease governs each, read from its final
//! command line (and, with Leader Migration, its LeaderMigrationConfiguration) with the same
//! rules the binaries apply: `--controllers` (`*`, `name`, `-name`, aliases), node IPAM only with
//! `--allocate-node-cidrs`, routes only with `--configure-cloud-routes` (default true) and a
//! `--cluster-cidr` (in-tree also `--allocate-node-cidrs`), nothing in a KCM whose
//! `--cloud-provider` is not `azure`. The roster records the result for `single-writer`.

use std::collections::BTreeMap;

use ccm_controllers::host::{self, FlagName};
use ccm_names::controllers::{
    CLOUD_NODE, CLOUD_NODE_LIFECYCLE, NODE_IPAM, NODE_ROUTE, SERVICE_LB, lookup,
};
use ccm_names::leases;

use super::flags::Flags;
use crate::roster::ManagerKind;

/// Loops a KCM can run (no cloud-node in-tree).
const KCM_LOOPS: [&str; 4] = [CLOUD_NODE_LIFECYCLE, SERVICE_LB, NODE_ROUTE, NODE_IPAM];
/// Loops a CCM can run.
const CCM_LOOPS: [&str; 5] = [
    CLOUD_NODE,
    CLOUD_NODE_LIFECYCLE,
    SERVICE_LB,
    NODE_ROUTE,
    NODE_IPAM,
];

/// Cloud loop → governing Lease name (`""`: no Lease) for a process of `kind` started with
/// `args`; `migrated` are the loops its LeaderMigrationConfiguration gives it (only read when
/// `--enable-leader-migration` is on).
pub fn cloud_loops(
    kind: ManagerKind,
    args: &[String],
    migrated: &[&'static str],
) -> BTreeMap<String, String> {
    let flags = Flags::parse(args);
    let on = |name: &str, default: bool| {
        flags
            .get(name)
            .map_or(default, |v| v.eq_ignore_ascii_case("true"))
    };
    let (component, hosted, in_tree): (&str, &[&'static str], bool) = match kind {
        ManagerKind::CloudNodeManager => {
            return BTreeMap::from([(CLOUD_NODE.to_owned(), String::new())]);
        }
        ManagerKind::KubeControllerManager => {
            if flags.get("--cloud-provider") != Some("azure") {
                return BTreeMap::new();
            }
            (leases::KUBE_CONTROLLER_MANAGER, &KCM_LOOPS, true)
        }
        ManagerKind::CloudControllerManager => {
            (leases::CLOUD_CONTROLLER_MANAGER, &CCM_LOOPS, false)
        }
    };
    let entries: Vec<String> = flags
        .get("--controllers")
        .unwrap_or("*")
        .split(',')
        .map(str::to_owned)
        .collect();
    let resolve = |name: &str| match name {
        "nodeipam" | "node-ipam-controller" => Some(FlagName::Hosted(NODE_IPAM)),
        _ => Some(
            lookup(name)
                .map(|c| c.canonical)
                .filter(|c| hosted.contains(c))
                .map_or(FlagName::NotHosted, FlagName::Hosted),
        ),
    };
    let enabled = host::enabled(&entries, hosted, resolve, String::new).unwrap_or_default();
    let allocate = on("--allocate-node-cidrs", false);
    let routes = on("--configure-cloud-routes", true)
        && (!in_tree || allocate)
        && flags.get("--cluster-cidr").is_some_and(|c| !c.is_empty());
    let elect = on("--leader-elect", true);
    let migrating = elect && on("--enable-leader-migration", false);
    let main = flags
        .get("--leader-elect-resource-name")
        .filter(|n| !n.is_empty())
        .unwrap_or(component);
    enabled
        .into_iter()
        .filter(|l| match *l {
            NODE_ROUTE => routes,
            NODE_IPAM => allocate,
            _ => true,
        })
        .map(|l| {
            let lease = if !elect {
                ""
            } else if migrating && migrated.contains(&l) {
                leases::LEADER_MIGRATION
            } else {
                main
            };
            (l.to_owned(), lease.to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn kcm_loops_follow_provider_controllers_and_ipam() {
        let in_tree = args(&[
            "--cloud-provider=azure",
            "--controllers=*,bootstrapsigner",
            "--configure-cloud-routes=false",
        ]);
        let loops = cloud_loops(ManagerKind::KubeControllerManager, &in_tree, &[]);
        assert_eq!(
            loops,
            BTreeMap::from([
                (
                    CLOUD_NODE_LIFECYCLE.into(),
                    "kube-controller-manager".into()
                ),
                (SERVICE_LB.into(), "kube-controller-manager".into()),
            ])
        );
        let external = args(&[
            "--cloud-provider=azure",
            "--controllers=*,-cloud-node-lifecycle-controller,-service-lb-controller,-node-route-controller",
            "--allocate-node-cidrs=true",
            "--cluster-cidr=10.244.0.0/16",
        ]);
        let loops = cloud_loops(ManagerKind::KubeControllerManager, &external, &[]);
        assert_eq!(loops.keys().collect::<Vec<_>>(), [NODE_IPAM]);
        assert!(
            cloud_loops(
                ManagerKind::KubeControllerManager,
                &args(&["--cloud-provider=external"]),
                &[]
            )
            .is_empty()
        );
    }

    #[test]
    fn migration_moves_only_listed_loops_and_no_election_means_no_lease() {
        let ccm = args(&[
            "--controllers=*",
            "--configure-cloud-routes=false",
            "--enable-leader-migration=true",
        ]);
        let loops = cloud_loops(
            ManagerKind::CloudControllerManager,
            &ccm,
            &[SERVICE_LB, CLOUD_NODE_LIFECYCLE],
        );
        assert_eq!(loops[SERVICE_LB], leases::LEADER_MIGRATION);
        assert_eq!(loops[CLOUD_NODE], "cloud-controller-manager");
        assert!(!loops.contains_key(NODE_ROUTE));
        let mut off = ccm.clone();
        off.push("--leader-elect=false".into());
        let loops = cloud_loops(ManagerKind::CloudControllerManager, &off, &[SERVICE_LB]);
        assert!(loops.values().all(String::is_empty), "{loops:?}");
        assert_eq!(
            cloud_loops(ManagerKind::CloudNodeManager, &[], &[]),
            BTreeMap::from([(CLOUD_NODE.into(), String::new())])
        );
    }
}
