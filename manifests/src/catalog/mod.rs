//! Version data: which flags, flag values, feature gates and admission plugins exist in which
//! Kubernetes minor. The generator consults it before emitting anything and the lint checks user
//! manifests against it, so both follow one table.

mod admission;
mod flags;
pub mod gates;

pub use admission::{ADMISSION_PLUGINS, AdmissionPluginRule};
pub use flags::{FLAGS, FlagRule, ValueMatch};
pub use gates::{FEATURE_GATES, GateRule};

use crate::component::Component;
use crate::version::KubeVersion;

/// The whole version table; tests can swap in a synthetic one.
#[derive(Debug, Clone, Copy)]
pub struct Catalog {
    /// Flag (and flag value) rules.
    pub flags: &'static [FlagRule],
    /// Feature gate rules.
    pub gates: &'static [GateRule],
    /// Admission plugin rules.
    pub admission_plugins: &'static [AdmissionPluginRule],
}

/// The catalog built from the reference facts.
pub const BUILTIN: Catalog = Catalog {
    flags: FLAGS,
    gates: FEATURE_GATES,
    admission_plugins: ADMISSION_PLUGINS,
};

/// Whether a flag (with a value) can be passed to a component at a version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// Accepted.
    Available,
    /// Not yet there; the rule says when it arrives.
    NotYet(&'static FlagRule),
    /// Gone; the rule says since when and why.
    Removed(&'static FlagRule),
}

impl Catalog {
    /// Checks one `--flag[=value]` for a component at a version.
    ///
    /// Several rules may match one value (kube-apiserver `--cloud-provider=azure`: any value
    /// from 1.33, `azure` from 1.30, not `""`/`external` from 1.31). The choice does not depend on
    /// table order: a removal beats a not-yet, and among removals in force the one with the
    /// earliest removal minor wins, so "not accepted since" names the first release that refused
    /// the value; among not-yets the latest introduction wins (the first release accepting it).
    pub fn flag_availability(
        &self,
        component: Component,
        flag: &str,
        value: Option<&str>,
        version: KubeVersion,
    ) -> Availability {
        let matching = || {
            self.flags
                .iter()
                .filter(move |r| r.component == component && r.flag == flag)
                .filter(move |r| r.value.matches(value))
        };
        let removed = matching()
            .filter_map(|r| r.removed.filter(|m| version.at_least(*m)).map(|m| (m, r)))
            .min_by_key(|(m, _)| *m);
        if let Some((_, rule)) = removed {
            return Availability::Removed(rule);
        }
        let not_yet = matching()
            .filter_map(|r| {
                r.introduced
                    .filter(|m| !version.at_least(*m))
                    .map(|m| (m, r))
            })
            .max_by_key(|(m, _)| *m);
        match not_yet {
            Some((_, rule)) => Availability::NotYet(rule),
            None => Availability::Available,
        }
    }

    /// Rule for a feature gate on a component, if the gate is catalogued.
    pub fn gate(&self, component: Component, name: &str) -> Option<&'static GateRule> {
        self.gates
            .iter()
            .find(|g| g.name == name && g.components.contains(&component))
    }

    /// Rule for an admission plugin, if catalogued.
    pub fn admission_plugin(&self, name: &str) -> Option<&'static AdmissionPluginRule> {
        self.admission_plugins.iter().find(|p| p.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(minor: u32) -> KubeVersion {
        KubeVersion::from_minor(minor).unwrap()
    }

    #[test]
    fn apiserver_cloud_provider_is_gone_in_1_33_only() {
        let check = |minor, value| {
            BUILTIN.flag_availability(
                Component::KubeApiserver,
                "--cloud-provider",
                value,
                v(minor),
            )
        };
        assert_eq!(check(32, Some("external")), Availability::Available);
        assert!(matches!(
            check(33, Some("external")),
            Availability::Removed(_)
        ));
        assert!(matches!(check(30, Some("azure")), Availability::Removed(_)));
        assert_eq!(check(29, Some("azure")), Availability::Available);
    }

    /// A catalog whose overlapping rules are listed latest-removal first.
    static OVERLAPPING: &[FlagRule] = &[
        FlagRule {
            component: Component::KubeApiserver,
            flag: "--x",
            value: ValueMatch::Any,
            introduced: None,
            removed: Some(33),
            reason: "any",
            source: "test",
        },
        FlagRule {
            component: Component::KubeApiserver,
            flag: "--x",
            value: ValueMatch::NotIn(&["", "external"]),
            introduced: None,
            removed: Some(31),
            reason: "not external",
            source: "test",
        },
        FlagRule {
            component: Component::KubeApiserver,
            flag: "--x",
            value: ValueMatch::Is("azure"),
            introduced: None,
            removed: Some(30),
            reason: "azure",
            source: "test",
        },
        FlagRule {
            component: Component::KubeApiserver,
            flag: "--y",
            value: ValueMatch::Any,
            introduced: Some(28),
            removed: None,
            reason: "y from 28",
            source: "test",
        },
        FlagRule {
            component: Component::KubeApiserver,
            flag: "--y",
            value: ValueMatch::Is("new"),
            introduced: Some(30),
            removed: None,
            reason: "y=new from 30",
            source: "test",
        },
        FlagRule {
            component: Component::KubeApiserver,
            flag: "--y",
            value: ValueMatch::Is("old"),
            introduced: None,
            removed: Some(27),
            reason: "y=old gone in 27",
            source: "test",
        },
    ];

    #[test]
    fn earliest_removal_wins_whatever_the_table_order() {
        let catalog = Catalog {
            flags: OVERLAPPING,
            gates: &[],
            admission_plugins: &[],
        };
        let reason = |flag, value, minor| match catalog.flag_availability(
            Component::KubeApiserver,
            flag,
            Some(value),
            v(minor),
        ) {
            Availability::Removed(r) => format!("removed: {}", r.reason),
            Availability::NotYet(r) => format!("not yet: {}", r.reason),
            Availability::Available => "available".to_string(),
        };
        assert_eq!(reason("--x", "azure", 36), "removed: azure");
        assert_eq!(reason("--x", "azure", 30), "removed: azure");
        assert_eq!(reason("--x", "azure", 29), "available");
        assert_eq!(reason("--x", "gce", 36), "removed: not external");
        assert_eq!(reason("--x", "external", 36), "removed: any");
        assert_eq!(reason("--x", "external", 32), "available");
        assert_eq!(reason("--y", "new", 27), "not yet: y=new from 30");
        assert_eq!(reason("--y", "new", 29), "not yet: y=new from 30");
        assert_eq!(reason("--y", "other", 27), "not yet: y from 28");
        assert_eq!(reason("--y", "old", 27), "removed: y=old gone in 27");
        assert_eq!(reason("--y", "new", 30), "available");
    }

    #[test]
    fn builtin_apiserver_azure_reports_the_1_30_removal_after_1_33() {
        let rule = match BUILTIN.flag_availability(
            Component::KubeApiserver,
            "--cloud-provider",
            Some("azure"),
            v(36),
        ) {
            Availability::Removed(r) => Some(r),
            _ => None,
        };
        assert_eq!(
            rule.map(|r| (r.value, r.removed)),
            Some((ValueMatch::Is("azure"), Some(30)))
        );
    }

    #[test]
    fn value_rules_only_match_their_value() {
        let kubelet =
            |value| BUILTIN.flag_availability(Component::Kubelet, "--cloud-provider", value, v(30));
        assert!(matches!(kubelet(Some("azure")), Availability::Removed(_)));
        assert_eq!(kubelet(Some("external")), Availability::Available);
        let ccm = BUILTIN.flag_availability(
            Component::CloudControllerManager,
            "--cloud-provider",
            Some("azure"),
            v(36),
        );
        assert_eq!(ccm, Availability::Available);
    }

    #[test]
    fn kubelet_cloud_config_is_gone_in_1_34_not_1_33() {
        let kubelet = |minor| {
            BUILTIN.flag_availability(Component::Kubelet, "--cloud-config", Some("/x"), v(minor))
        };
        assert_eq!(kubelet(33), Availability::Available);
        assert!(matches!(kubelet(34), Availability::Removed(_)));
        let gate = BUILTIN
            .gate(
                Component::Kubelet,
                gates::DISABLE_KUBELET_CLOUD_CREDENTIAL_PROVIDERS,
            )
            .map(|g| g.removed);
        assert_eq!(gate, Some(Some(33)));
    }

    #[test]
    fn every_rule_has_a_source_and_a_sane_range() {
        for r in FLAGS {
            assert!(!r.source.is_empty() && !r.reason.is_empty(), "{}", r.flag);
            assert!(r.flag.starts_with("--"), "{}", r.flag);
            if let (Some(a), Some(b)) = (r.introduced, r.removed) {
                assert!(a < b, "{}", r.flag);
            }
        }
        for g in FEATURE_GATES {
            assert!(!g.source.is_empty(), "{}", g.name);
            if let (Some(l), Some(r)) = (g.locked_from, g.removed) {
                assert!(l < r, "{}", g.name);
            }
        }
    }
}
