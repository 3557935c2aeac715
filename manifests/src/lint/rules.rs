//! The checks run on one command line.

use std::path::Path;

use super::{Finding, FindingKind, Invocation, Source};
use crate::catalog::gates::{DISABLE_CLOUD_PROVIDERS, DISABLE_KUBELET_CLOUD_CREDENTIAL_PROVIDERS};
use crate::catalog::{Availability, Catalog, ValueMatch};
use crate::component::Component;
use crate::version::KubeVersion;

/// Every finding for one invocation at a target version.
pub fn check(
    file: &Path,
    inv: &Invocation,
    version: KubeVersion,
    catalog: &Catalog,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut add = |kind: FindingKind, subject: &str, message: String| {
        out.push(Finding {
            file: file.to_path_buf(),
            location: inv.location.clone(),
            component: inv.component,
            kind,
            subject: subject.to_string(),
            message,
        });
    };
    for (flag, value) in &inv.flags {
        match catalog.flag_availability(inv.component, flag, value.as_deref(), version) {
            Availability::Available => {}
            Availability::Removed(rule) => {
                let (kind, subject) = match rule.value {
                    ValueMatch::Any => (FindingKind::RemovedFlag, flag.clone()),
                    ValueMatch::Is(_) | ValueMatch::NotIn(_) => (
                        FindingKind::RemovedFlagValue,
                        format!("{flag}={}", value.as_deref().unwrap_or_default().trim()),
                    ),
                };
                let since = rule.removed.unwrap_or_default();
                add(
                    kind,
                    &subject,
                    format!(
                        "not accepted since 1.{since}: {} [{}]",
                        rule.reason, rule.source
                    ),
                );
            }
            Availability::NotYet(rule) => {
                let from = rule.introduced.unwrap_or_default();
                add(
                    FindingKind::FlagNotYetAvailable,
                    flag,
                    format!("only available from 1.{from} [{}]", rule.source),
                );
            }
        }
    }
    let gates = feature_gates(inv);
    for (name, value) in &gates {
        let Some(rule) = catalog.gate(inv.component, name) else {
            continue;
        };
        if let Some(removed) = rule.removed.filter(|m| version.at_least(*m)) {
            add(
                FindingKind::RemovedFeatureGate,
                name,
                format!(
                    "feature gate unknown since 1.{removed}; the component refuses to start: remove it [{}]",
                    rule.source
                ),
            );
        } else if let Some(locked) = rule.locked_from.filter(|m| version.at_least(*m))
            && *value != rule.locked_value
        {
            add(
                FindingKind::LockedFeatureGate,
                name,
                format!(
                    "locked to {} since 1.{locked}; setting {value} fails at start-up [{}]",
                    rule.locked_value, rule.source
                ),
            );
        }
    }
    if let Some(Some(plugins)) = inv.get("--enable-admission-plugins") {
        for plugin in plugins.split(',').map(str::trim) {
            if let Some(rule) = catalog
                .admission_plugin(plugin)
                .filter(|r| version.at_least(r.removed))
            {
                add(
                    FindingKind::RemovedAdmissionPlugin,
                    plugin,
                    rule.reason.to_string(),
                );
            }
        }
    }
    // A configuration file carries no command-line flags; requiring them there would report
    // `--cloud-provider` as missing for every KubeletConfiguration that sets a gate.
    if inv.source == Source::CommandLine {
        for (kind, subject, message) in required(inv, version, &gates) {
            add(kind, &subject, message);
        }
    }
    out
}

fn feature_gates(inv: &Invocation) -> Vec<(String, bool)> {
    inv.flags
        .iter()
        .filter(|(f, _)| f == "--feature-gates")
        .filter_map(|(_, v)| v.as_deref())
        .flat_map(|v| v.split(','))
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            Some((k.trim().to_string(), v.trim().eq_ignore_ascii_case("true")))
        })
        .collect()
}

type Problem = (FindingKind, String, String);

fn missing(flag: &str, why: &str) -> Problem {
    (FindingKind::MissingFlag, flag.to_string(), why.to_string())
}

fn required(inv: &Invocation, version: KubeVersion, gates: &[(String, bool)]) -> Vec<Problem> {
    let mut out = Vec::new();
    let cloud_provider = inv.get("--cloud-provider").flatten().map(str::trim);
    let in_tree = cloud_provider == Some("azure");
    let gate_is_false = |name: &str| {
        gates
            .iter()
            .rev()
            .find(|(g, _)| g == name)
            .is_some_and(|(_, v)| !v)
    };
    let need_gate = |name: &str, out: &mut Vec<Problem>| {
        if !gate_is_false(name) {
            out.push((
                FindingKind::MissingFeatureGate,
                name.to_string(),
                format!("--cloud-provider=azure on 1.29 needs --feature-gates={name}=false (the in-tree provider is off by default from 1.29)"),
            ));
        }
    };
    match inv.component {
        Component::Kubelet => {
            if version.at_least(30) && cloud_provider.is_none_or(str::is_empty) {
                out.push(missing(
                    "--cloud-provider",
                    "set --cloud-provider=external: without it new Nodes are not tainted for cloud-node-manager and never get a provider ID, addresses or topology labels",
                ));
            }
            if in_tree && version.minor() == 29 {
                need_gate(DISABLE_CLOUD_PROVIDERS, &mut out);
                need_gate(DISABLE_KUBELET_CLOUD_CREDENTIAL_PROVIDERS, &mut out);
            }
            let config = inv.get("--image-credential-provider-config").is_some();
            let bin_dir = inv.get("--image-credential-provider-bin-dir").is_some();
            let legacy_acr =
                inv.get("--azure-container-registry-config").is_some() && !version.at_least(29);
            if cloud_provider == Some("external") && !config && !bin_dir && !legacy_acr {
                out.push(missing(
                    "--image-credential-provider-config",
                    "private ACR pulls fail once cached credentials expire: add --image-credential-provider-config and --image-credential-provider-bin-dir with acr-credential-provider",
                ));
            }
            if config && !bin_dir {
                out.push(missing(
                    "--image-credential-provider-bin-dir",
                    "required together with --image-credential-provider-config",
                ));
            }
            if bin_dir && !config {
                out.push(missing(
                    "--image-credential-provider-config",
                    "required together with --image-credential-provider-bin-dir",
                ));
            }
        }
        Component::KubeApiserver | Component::KubeControllerManager => {
            if in_tree && version.minor() == 29 {
                need_gate(DISABLE_CLOUD_PROVIDERS, &mut out);
            }
            if in_tree && inv.get("--cloud-config").is_none() {
                out.push(missing(
                    "--cloud-config",
                    "--cloud-provider=azure needs the path of azure.json",
                ));
            }
            if inv.component == Component::KubeControllerManager {
                if inv.bool("--enable-leader-migration") == Some(true) && !in_tree {
                    out.push((
                        FindingKind::ConflictingFlags,
                        "--enable-leader-migration".to_string(),
                        "only the in-tree (version N) kube-controller-manager takes part in leader migration; with an external cloud provider it must not enable it".to_string(),
                    ));
                }
                out.extend(leader_migration_checks(inv));
            }
        }
        Component::CloudControllerManager => {
            if inv.get("--cloud-config").is_none()
                && inv.bool("--enable-dynamic-reloading") != Some(true)
            {
                out.push(missing("--cloud-config", "the CCM needs azure.json (or --enable-dynamic-reloading with --cloud-config-secret-name)"));
            }
            if inv.get("--cluster-name").is_none() {
                out.push(missing(
                    "--cluster-name",
                    "defaults to `kubernetes`; it must equal kube-controller-manager's --cluster-name or every LoadBalancer Service gets a new load balancer and public IP",
                ));
            }
            if inv.bool("--configure-cloud-routes") != Some(false)
                && inv.get("--cluster-cidr").is_none()
            {
                out.push(missing(
                    "--cluster-cidr",
                    "--configure-cloud-routes defaults to true and needs the pod CIDR(s); pass --cluster-cidr or --configure-cloud-routes=false (Azure CNI)",
                ));
            }
            out.extend(leader_migration_checks(inv));
        }
        Component::KubeScheduler | Component::CloudNodeManager => {}
    }
    out
}

fn leader_migration_checks(inv: &Invocation) -> Vec<Problem> {
    let mut out = Vec::new();
    let enabled = inv.bool("--enable-leader-migration") == Some(true);
    if inv.get("--leader-migration-config").is_some() && !enabled {
        out.push(missing(
            "--enable-leader-migration",
            "--leader-migration-config is silently ignored without --enable-leader-migration",
        ));
    }
    if enabled && inv.bool("--leader-elect") == Some(false) {
        out.push((
            FindingKind::ConflictingFlags,
            "--leader-elect".to_string(),
            "leader migration only works with --leader-elect=true".to_string(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{BUILTIN, FlagRule};
    use crate::lint::FindingKind as K;

    fn v(minor: u32) -> KubeVersion {
        KubeVersion::from_minor(minor).unwrap()
    }

    fn inv(component: Component, flags: &[&str]) -> Invocation {
        let tokens: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        Invocation {
            location: "Pod kube-system/x, container x".to_string(),
            component,
            source: Source::CommandLine,
            flags: tokens
                .iter()
                .map(|t| match t.split_once('=') {
                    Some((f, v)) => (f.to_string(), Some(v.to_string())),
                    None => (t.clone(), None),
                })
                .collect(),
        }
    }

    fn kinds(component: Component, flags: &[&str], minor: u32) -> Vec<(K, String)> {
        check(
            Path::new("f.yaml"),
            &inv(component, flags),
            v(minor),
            &BUILTIN,
        )
        .into_iter()
        .map(|f| (f.kind, f.subject))
        .collect()
    }

    #[test]
    fn removed_flag() {
        let k = kinds(Component::KubeApiserver, &["--cloud-provider=external"], 33);
        assert_eq!(k, [(K::RemovedFlag, "--cloud-provider".to_string())]);
        assert!(kinds(Component::KubeApiserver, &["--cloud-provider=external"], 32).is_empty());
        let k = kinds(
            Component::Kubelet,
            &[
                "--cloud-provider=external",
                "--azure-container-registry-config=/a",
                "--image-credential-provider-config=/c",
                "--image-credential-provider-bin-dir=/b",
            ],
            30,
        );
        assert_eq!(
            k,
            [(
                K::RemovedFlag,
                "--azure-container-registry-config".to_string()
            )]
        );
    }

    #[test]
    fn removed_flag_value() {
        let k = kinds(
            Component::KubeControllerManager,
            &["--cloud-provider=azure", "--cloud-config=/a"],
            30,
        );
        assert_eq!(
            k,
            [(K::RemovedFlagValue, "--cloud-provider=azure".to_string())]
        );
    }

    #[test]
    fn flag_not_yet_available() {
        static LATE: &[FlagRule] = &[FlagRule {
            component: Component::Kubelet,
            flag: "--future-flag",
            value: ValueMatch::Any,
            introduced: Some(34),
            removed: None,
            reason: "test",
            source: "test",
        }];
        let catalog = Catalog {
            flags: LATE,
            ..BUILTIN
        };
        let i = inv(
            Component::Kubelet,
            &[
                "--cloud-provider=external",
                "--future-flag=x",
                "--image-credential-provider-config=/c",
                "--image-credential-provider-bin-dir=/b",
            ],
        );
        let found = check(Path::new("f"), &i, v(33), &catalog);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, K::FlagNotYetAvailable);
        assert!(check(Path::new("f"), &i, v(34), &catalog).is_empty());
    }

    #[test]
    fn removed_and_locked_feature_gates() {
        const ON: &str = "--feature-gates=DisableCloudProviders=true";
        const OFF: &str = "--feature-gates=DisableCloudProviders=false";
        let cases = [
            (ON, 33, Some(K::RemovedFeatureGate)),
            (OFF, 31, Some(K::LockedFeatureGate)),
            (ON, 31, None),
        ];
        for (flag, minor, expected) in cases {
            let want: Vec<(K, String)> = expected
                .into_iter()
                .map(|kind| (kind, "DisableCloudProviders".to_string()))
                .collect();
            assert_eq!(
                kinds(Component::KubeApiserver, &[flag], minor),
                want,
                "{flag} at 1.{minor}"
            );
        }
    }

    #[test]
    fn removed_admission_plugin() {
        let k = kinds(
            Component::KubeApiserver,
            &["--enable-admission-plugins=NodeRestriction,PersistentVolumeLabel"],
            31,
        );
        assert_eq!(
            k,
            [(
                K::RemovedAdmissionPlugin,
                "PersistentVolumeLabel".to_string()
            )]
        );
        assert!(
            kinds(
                Component::KubeApiserver,
                &["--enable-admission-plugins=NodeRestriction,PersistentVolumeLabel"],
                30
            )
            .is_empty()
        );
    }

    #[test]
    fn missing_flags() {
        assert_eq!(
            kinds(Component::Kubelet, &["--config=/c"], 30),
            [(K::MissingFlag, "--cloud-provider".to_string())]
        );
        assert_eq!(
            kinds(Component::Kubelet, &["--cloud-provider=external"], 29),
            [(
                K::MissingFlag,
                "--image-credential-provider-config".to_string()
            )]
        );
        let k = kinds(
            Component::CloudControllerManager,
            &["--cloud-provider=azure"],
            33,
        );
        let subjects: Vec<&str> = k.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(
            subjects,
            ["--cloud-config", "--cluster-name", "--cluster-cidr"]
        );
        assert!(k.iter().all(|(kind, _)| *kind == K::MissingFlag));
        let k = kinds(
            Component::CloudControllerManager,
            &[
                "--cloud-config=/a",
                "--cluster-name=k8s",
                "--configure-cloud-routes=false",
                "--leader-migration-config=/l",
            ],
            33,
        );
        assert_eq!(
            k,
            [(K::MissingFlag, "--enable-leader-migration".to_string())]
        );
    }

    #[test]
    fn missing_feature_gates_on_1_29() {
        let k = kinds(
            Component::Kubelet,
            &["--cloud-provider=azure", "--cloud-config=/a"],
            29,
        );
        let subjects: Vec<&str> = k.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(
            subjects,
            [
                DISABLE_CLOUD_PROVIDERS,
                DISABLE_KUBELET_CLOUD_CREDENTIAL_PROVIDERS
            ]
        );
        assert!(k.iter().all(|(kind, _)| *kind == K::MissingFeatureGate));
        let ok = kinds(
            Component::KubeControllerManager,
            &[
                "--cloud-provider=azure",
                "--cloud-config=/a",
                "--feature-gates=DisableCloudProviders=false",
            ],
            29,
        );
        assert!(ok.is_empty());
        assert!(
            kinds(
                Component::KubeControllerManager,
                &["--cloud-provider=azure", "--cloud-config=/a"],
                28
            )
            .is_empty()
        );
    }

    #[test]
    fn config_file_gates_need_no_command_line_flags() {
        let mut i = inv(
            Component::Kubelet,
            &["--feature-gates=SomeGate=true,DisableCloudProviders=true"],
        );
        let command_line = check(Path::new("f"), &i, v(30), &BUILTIN);
        assert_eq!(
            command_line
                .iter()
                .map(|f| (f.kind, f.subject.as_str()))
                .collect::<Vec<_>>(),
            [(K::MissingFlag, "--cloud-provider")]
        );
        i.source = Source::ConfigFile;
        assert!(check(Path::new("f"), &i, v(30), &BUILTIN).is_empty());
        // What the file does say is still checked: the gate is gone in 1.33.
        let found = check(Path::new("f"), &i, v(33), &BUILTIN);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, K::RemovedFeatureGate);
    }

    #[test]
    fn only_external_or_empty_cloud_provider_from_1_31() {
        for component in [Component::Kubelet, Component::KubeControllerManager] {
            let k = kinds(component, &["--cloud-provider=aws"], 31);
            assert!(
                k.contains(&(K::RemovedFlagValue, "--cloud-provider=aws".to_string())),
                "{component}: {k:?}"
            );
            let ok30 = kinds(component, &["--cloud-provider=aws"], 30);
            assert!(
                !ok30.iter().any(|(kind, _)| *kind == K::RemovedFlagValue),
                "{component}: {ok30:?}"
            );
            let external = kinds(component, &["--cloud-provider=external"], 36);
            assert!(
                !external
                    .iter()
                    .any(|(kind, _)| *kind == K::RemovedFlagValue),
                "{component}: {external:?}"
            );
        }
        // azure keeps its own, more specific message.
        let k = kinds(Component::Kubelet, &["--cloud-provider=azure"], 31);
        assert!(k.contains(&(K::RemovedFlagValue, "--cloud-provider=azure".to_string())));
        let f = check(
            Path::new("f"),
            &inv(Component::Kubelet, &["--cloud-provider=azure"]),
            v(31),
            &BUILTIN,
        );
        assert!(f.iter().any(|f| f.message.contains("kubernetes#122857")));
        // The apiserver flag is gone entirely from 1.33, whatever the value.
        let k = kinds(Component::KubeApiserver, &["--cloud-provider=gce"], 32);
        assert_eq!(
            k,
            [(K::RemovedFlagValue, "--cloud-provider=gce".to_string())]
        );
    }

    #[test]
    fn conflicting_flags() {
        let k = kinds(
            Component::KubeControllerManager,
            &[
                "--cloud-provider=external",
                "--enable-leader-migration",
                "--leader-migration-config=/l",
            ],
            30,
        );
        assert_eq!(
            k,
            [(K::ConflictingFlags, "--enable-leader-migration".to_string())]
        );
        let k = kinds(
            Component::CloudControllerManager,
            &[
                "--cloud-config=/a",
                "--cluster-name=k8s",
                "--configure-cloud-routes=false",
                "--enable-leader-migration=true",
                "--leader-elect=false",
            ],
            33,
        );
        assert_eq!(k, [(K::ConflictingFlags, "--leader-elect".to_string())]);
    }
}
