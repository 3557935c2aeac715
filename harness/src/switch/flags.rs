//! The command line of every manager process, in ONE place: each starts from what
//! `ccm_manifests` generates for the plan's version and options (the flags of the manifests
//! `harness manifests generate` writes) and is translated for a local process. Every change the
//! harness makes is listed here:
//!
//! All managers:
//! - `--kubeconfig` = the cluster's admin kubeconfig (a Pod uses its service account or the
//!   static pod's kubeconfig file);
//! - `--bind-address=127.0.0.1 --secure-port=<a free port>`, set by [`super::process`] at each
//!   start (several replicas share 127.0.0.1): readiness is `/healthz` on it;
//! - paths: `--cloud-config` = the cluster's azure.json of the component (its own Entra app, so
//!   the fake's journal names the caller), `--leader-migration-config` = the file the deployment
//!   writes (generated or the plan's verbatim document);
//! - `--leader-elect-lease-duration=6s --leader-elect-renew-deadline=4s
//!   --leader-elect-retry-period=1s` (defaults 15 s, 10 s, 2 s): speed only. A SIGKILLed leader
//!   holds its Lease until it expires, and the default 15 s per failover would eat the suite's
//!   3-minute budget; the ratios keep lease > renew deadline > 1.2 × retry as client-go requires.
//!   A plan override of any of them wins.
//!
//! kube-controller-manager (the stand-in `harness kube-controller-manager`):
//! - only the flags the stand-in knows are kept ([`KCM_ACCEPTED`]); the rest (authentication,
//!   authorization, certificate, signing, service-account, `--bind-address`, `--feature-gates`,
//!   `--use-service-account-credentials`...) concern KCM's own controllers and serving, which the
//!   stand-in does not emulate: they are dropped and listed in [`CommandLine::dropped`];
//! - an external KCM (`--cloud-provider=external`, after the switch) is run as the stand-in with
//!   `--cloud-provider=azure` and every cloud loop removed from `--controllers` (the stand-in only
//!   emulates the azure provider): it keeps the `kube-controller-manager` Lease and runs no cloud
//!   loop, except node IPAM when it still allocates (`cidrAllocator: kube-controller-manager` or
//!   `both`, or Leader Migration), which keeps `--allocate-node-cidrs=true` with the in-tree
//!   `--cluster-cidr` and masks.
//!
//! cloud-controller-manager: `nodeInit: cloud-controller-manager` turns the generated
//! `--controllers=*,-cloud-node` into `*` (the CCM initialises Nodes); `network` mask sizes replace
//! the generator's defaults. The azure.json is the CCM's copy with the plan's `azureJson` keys.
//!
//! cloud-node-manager: `--node-name=$(NODE_NAME)` becomes the node (and [`super::process`] sets
//! `NODE_NAME` and the host name as the DaemonSet Pod has them); IMDS is reached at the real
//! `http://169.254.169.254` through the node's proxy (`HTTP_PROXY`, [`super::process`]); with a plan override
//! `--use-instance-metadata=false` (ARM mode) `--cloud-config` = the cluster's CNM azure.json.
//!
//! Leader Migration with `enableFlag: false`: neither side gets `--leader-migration-config`
//! either. Upstream silently ignores a file given without `--enable-leader-migration`; the
//! project's binaries refuse that combination at start, so dropping both is how "ignored" is
//! reproduced [infer: same effect, no migration Lease on either side].
//!
//! Then the plan's overrides (`ccmFlags`, `cnmFlags`, `kcmFlags`) replace or append flags, last.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ccm_manifests::generate::{cloud_controller_manager, cloud_node_manager};
use serde::Serialize;

use super::error::SwitchError;
use super::options::{Side, kcm_allocates_after, options};
use crate::scenario::{NodeInit, Procedure, ScenarioPlan};

/// Flags of the stand-in KCM (`harness kube-controller-manager --help`); others are dropped.
pub const KCM_ACCEPTED: [&str; 26] = [
    "--kubeconfig",
    "--cloud-provider",
    "--cloud-config",
    "--controllers",
    "--cluster-name",
    "--cluster-cidr",
    "--allocate-node-cidrs",
    "--node-cidr-mask-size-ipv4",
    "--node-cidr-mask-size-ipv6",
    "--service-cluster-ip-range",
    "--configure-cloud-routes",
    "--route-reconciliation-period",
    "--node-monitor-period",
    "--concurrent-service-syncs",
    "--leader-elect",
    "--leader-elect-lease-duration",
    "--leader-elect-renew-deadline",
    "--leader-elect-retry-period",
    "--leader-elect-resource-lock",
    "--leader-elect-resource-name",
    "--leader-elect-resource-namespace",
    "--enable-leader-migration",
    "--leader-migration-config",
    "--secure-port",
    "--bind-address",
    "--in-tree-profile",
];

/// Shortened leader-election timings (see the module docs for why).
pub const ELECTION_TIMINGS: [(&str, &str); 3] = [
    ("--leader-elect-lease-duration", "6s"),
    ("--leader-elect-renew-deadline", "4s"),
    ("--leader-elect-retry-period", "1s"),
];

/// The in-tree cloud loops as the KCM's `--controllers` names them.
const KCM_CLOUD_LOOPS: [&str; 3] = [
    "cloud-node-lifecycle-controller",
    "service-lb-controller",
    "node-route-controller",
];

/// Files the local managers read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalFiles {
    /// Admin kubeconfig of the cluster.
    pub kubeconfig: PathBuf,
    /// azure.json of the in-tree KCM (Entra app `in-tree`).
    pub in_tree_json: PathBuf,
    /// The CCM's azure.json copy with the plan's `azureJson` keys.
    pub ccm_json: PathBuf,
    /// azure.json of the CNMs (ARM mode only).
    pub cnm_json: PathBuf,
    /// LeaderMigrationConfiguration of the KCMs.
    pub kcm_migration: PathBuf,
    /// LeaderMigrationConfiguration of the CCMs.
    pub ccm_migration: PathBuf,
}

/// One process's arguments, and what the translation dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandLine {
    /// Arguments, `--flag=value` each.
    pub args: Vec<String>,
    /// Generated flags the local process does not take (the stand-in KCM's unknown ones).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
}

/// How a KCM replica runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KcmRole {
    /// `--cloud-provider=azure`, with or without Leader Migration.
    InTree {
        /// `--enable-leader-migration` + the KCM's LeaderMigrationConfiguration.
        leader_migration: bool,
    },
    /// After the switch: `--cloud-provider=external` (no cloud loop, IPAM if it still allocates).
    External,
}

/// True when the plan's Leader Migration passes `--enable-leader-migration` (and the file).
pub fn migration_flag(plan: &ScenarioPlan) -> bool {
    plan.switch.procedure == Procedure::LeaderMigration
        && plan
            .switch
            .leader_migration
            .as_ref()
            .is_none_or(|l| l.enable_flag)
}

/// True when the CCM replicas take part in Leader Migration (`ccmHonoursLease: false` = a CCM
/// that ignores the migration Lease: started without Leader Migration).
pub fn ccm_migrates(plan: &ScenarioPlan) -> bool {
    migration_flag(plan)
        && plan
            .switch
            .leader_migration
            .as_ref()
            .is_none_or(|l| l.ccm_honours_lease)
}

/// The command line of a KCM replica.
pub fn kcm(
    plan: &ScenarioPlan,
    files: &LocalFiles,
    role: KcmRole,
) -> Result<CommandLine, SwitchError> {
    let migrating = matches!(
        role,
        KcmRole::InTree {
            leader_migration: true
        }
    );
    let in_tree = options(plan, Side::InTree, migrating)?;
    let bundle = ccm_manifests::generate(&in_tree).map_err(|e| SwitchError::Plan {
        scenario: plan.name.clone(),
        reason: format!("generating the in-tree manifests: {e}"),
    })?;
    let manifest = "kube-controller-manager.manifest";
    let invocation = bundle
        .file(manifest)
        .and_then(|f| ccm_manifests::lint::extract(Path::new(manifest), &f.contents).ok())
        .and_then(|mut found| (!found.is_empty()).then(|| found.remove(0)))
        .ok_or_else(|| SwitchError::Plan {
            scenario: plan.name.clone(),
            reason: format!("the generated {manifest} has no command line"),
        })?;
    let mut flags = Flags::default();
    let mut dropped = Vec::new();
    for (name, value) in invocation.flags {
        if KCM_ACCEPTED.contains(&name.as_str()) {
            flags.set(&name, value.as_deref().unwrap_or("true"));
        } else {
            dropped.push(name);
        }
    }
    flags.set("--kubeconfig", &files.kubeconfig.display().to_string());
    flags.set("--cloud-config", &files.in_tree_json.display().to_string());
    if migrating {
        flags.set(
            "--leader-migration-config",
            &files.kcm_migration.display().to_string(),
        );
    }
    // The stand-in's one flag upstream's KCM lacks: which release's in-tree provider to emulate.
    // A 1.30+ scenario's in-tree phase is the cluster before its upgrade: the provider was
    // deleted in 1.30, so the last in-tree release (1.29) is what it ran.
    let profile_minor = plan.minor().min(crate::scenario::LAST_IN_TREE_MINOR);
    flags.set("--in-tree-profile", &format!("1.{profile_minor}"));
    masks(&mut flags, plan);
    if role == KcmRole::External {
        // The generated external KCM is `--cloud-provider=external`; see the module docs.
        flags.set("--cloud-provider", "azure");
        let allocates = kcm_allocates_after(plan, false)
            || (plan.switch.procedure == Procedure::LeaderMigration
                && kcm_allocates_after(plan, true));
        let mut controllers = flags
            .get("--controllers")
            .unwrap_or("*")
            .split(',')
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect::<Vec<_>>();
        controllers.extend(KCM_CLOUD_LOOPS.iter().map(|c| format!("-{c}")));
        if !allocates {
            controllers.push("-node-ipam-controller".into());
            flags.set("--allocate-node-cidrs", "false");
        }
        flags.set("--controllers", &controllers.join(","));
        flags.set("--configure-cloud-routes", "false");
    }
    flags.timings();
    flags.overrides(&plan.switch.kcm_flags);
    Ok(CommandLine {
        args: flags.render(),
        dropped,
    })
}

/// The command line of a CCM replica.
pub fn ccm(plan: &ScenarioPlan, files: &LocalFiles) -> Result<CommandLine, SwitchError> {
    let migrating = ccm_migrates(plan);
    let o = options(plan, Side::OutOfTree, migrating)?;
    let mut flags = Flags::parse(&cloud_controller_manager::flags(&o));
    flags.set("--kubeconfig", &files.kubeconfig.display().to_string());
    flags.set("--cloud-config", &files.ccm_json.display().to_string());
    if migrating {
        flags.set(
            "--leader-migration-config",
            &files.ccm_migration.display().to_string(),
        );
    }
    if plan.switch.node_init == NodeInit::CloudControllerManager {
        flags.set("--controllers", "*");
    }
    masks(&mut flags, plan);
    flags.timings();
    flags.overrides(&plan.switch.ccm_flags);
    Ok(CommandLine {
        args: flags.render(),
        dropped: Vec::new(),
    })
}

/// The command line of `node`'s CNM.
pub fn cnm(
    plan: &ScenarioPlan,
    files: &LocalFiles,
    node: &str,
) -> Result<CommandLine, SwitchError> {
    let o = options(plan, Side::OutOfTree, false)?;
    let mut flags = Flags::parse(&cloud_node_manager::flags(&o));
    flags.set("--node-name", node);
    flags.set("--kubeconfig", &files.kubeconfig.display().to_string());
    flags.overrides(&plan.switch.cnm_flags);
    if flags.get("--use-instance-metadata") == Some("false") {
        flags.set("--cloud-config", &files.cnm_json.display().to_string());
    }
    Ok(CommandLine {
        args: flags.render(),
        dropped: Vec::new(),
    })
}

/// The plan's node CIDR mask sizes in place of the generator's defaults (when it emits them).
fn masks(flags: &mut Flags, plan: &ScenarioPlan) {
    let net = &plan.network;
    for (name, size) in [
        ("--node-cidr-mask-size-ipv4", net.node_cidr_mask_size_ipv4),
        ("--node-cidr-mask-size-ipv6", net.node_cidr_mask_size_ipv6),
    ] {
        if let (Some(size), Some(_)) = (size, flags.get(name)) {
            flags.set(name, &size.to_string());
        }
    }
}

/// An ordered flag list where a later `set` replaces the value in place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flags(Vec<(String, String)>);

impl Flags {
    /// Parses `--name=value` (or bare `--name`, meaning `true`) arguments.
    pub fn parse(args: &[String]) -> Self {
        let mut flags = Flags::default();
        for arg in args {
            match arg.split_once('=') {
                Some((name, value)) => flags.set(name, value),
                None => flags.set(arg, "true"),
            }
        }
        flags
    }

    /// Sets `name` (replacing its value where it is, or appending).
    pub fn set(&mut self, name: &str, value: &str) {
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value.to_owned(),
            None => self.0.push((name.to_owned(), value.to_owned())),
        }
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn timings(&mut self) {
        for (name, value) in ELECTION_TIMINGS {
            self.set(name, value);
        }
    }

    fn overrides(&mut self, overrides: &BTreeMap<String, String>) {
        for (name, value) in overrides {
            let name = if name.starts_with("--") {
                name.clone()
            } else {
                format!("--{name}")
            };
            self.set(&name, value);
        }
    }

    /// `--name=value` each, in order.
    pub fn render(&self) -> Vec<String> {
        self.0.iter().map(|(n, v)| format!("{n}={v}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{load, plan};

    fn plan_of(file: &str) -> ScenarioPlan {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut s = load(&root.join("scenarios").join(file)).unwrap_or_else(|e| panic!("{e}"));
        s.repo_root = Some(PathBuf::from("/repo"));
        plan(&s)
    }

    fn files() -> LocalFiles {
        LocalFiles {
            kubeconfig: "/run/kube/kubeconfig".into(),
            in_tree_json: "/run/azure-json/in-tree.json".into(),
            ccm_json: "/run/switch/cloud-controller-manager.json".into(),
            cnm_json: "/run/azure-json/cloud-node-manager.json".into(),
            kcm_migration: "/run/switch/leader-migration-kube-controller-manager.yaml".into(),
            ccm_migration: "/run/switch/leader-migration-cloud-controller-manager.yaml".into(),
        }
    }

    /// Every command line a procedure of `file` starts, by role.
    fn lines(file: &str) -> BTreeMap<&'static str, CommandLine> {
        let plan = plan_of(file);
        let f = files();
        let mut out = BTreeMap::from([
            (
                "kcm-in-tree",
                kcm(
                    &plan,
                    &f,
                    KcmRole::InTree {
                        leader_migration: false,
                    },
                )
                .unwrap(),
            ),
            ("kcm-external", kcm(&plan, &f, KcmRole::External).unwrap()),
            ("ccm", ccm(&plan, &f).unwrap()),
            ("cnm", cnm(&plan, &f, "node-0").unwrap()),
        ]);
        if migration_flag(&plan) {
            out.insert(
                "kcm-in-tree-migrating",
                kcm(
                    &plan,
                    &f,
                    KcmRole::InTree {
                        leader_migration: true,
                    },
                )
                .unwrap(),
            );
        }
        out
    }

    #[test]
    fn cold_switch_azure_cni() {
        insta::assert_yaml_snapshot!(lines("01-cold-switch-azure-cni.yaml"));
    }

    #[test]
    fn cold_switch_kubenet() {
        insta::assert_yaml_snapshot!(lines("02-cold-switch-kubenet.yaml"));
    }

    #[test]
    fn quiesce() {
        insta::assert_yaml_snapshot!(lines("04-ha-quiesce.yaml"));
    }

    #[test]
    fn leader_migration() {
        insta::assert_yaml_snapshot!(lines("05-leader-migration.yaml"));
    }

    #[test]
    fn rollback() {
        insta::assert_yaml_snapshot!(lines("08-rollback.yaml"));
    }

    #[test]
    fn overrides_come_last_and_win() {
        let mut plan = plan_of("01-cold-switch-no-node-init.yaml");
        let cl = ccm(&plan, &files()).unwrap();
        // nodeInit: cloud-controller-manager enables cloud-node, the override removes it again.
        assert!(cl.args.contains(&"--controllers=*,-cloud-node".to_string()));
        plan.switch.kcm_flags =
            BTreeMap::from([("--leader-elect-retry-period".into(), "3s".into())]);
        let k = kcm(&plan, &files(), KcmRole::External).unwrap();
        assert!(
            k.args
                .contains(&"--leader-elect-retry-period=3s".to_string())
        );
        assert!(k.args.contains(&"--cloud-provider=azure".to_string()));
        assert!(!k.args.iter().any(|a| a == "--leader-elect-retry-period=1s"));
    }

    #[test]
    fn ignored_flag_means_no_migration_on_either_side() {
        let plan = plan_of("07-leader-migration-flag-missing.yaml");
        assert!(!migration_flag(&plan) && !ccm_migrates(&plan));
        let lm = plan_of("06-leader-migration-lease-ignored.yaml");
        assert!(migration_flag(&lm) && !ccm_migrates(&lm));
        let c = ccm(&lm, &files()).unwrap();
        assert!(
            !c.args.iter().any(|a| a.contains("leader-migration")),
            "{c:?}"
        );
    }
}
