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
    pub fn flag_availability(
        &self,
        component: Component,
        flag: &str,
        value: Option<&str>,
        version: KubeVersion,
    ) -> Availability {
        for rule in self
            .flags
            .iter()
            .filter(|r| r.component == component && r.flag == flag)
        {
            if !rule.value.matches(value) {
                continue;
            }
            if rule.removed.is_some_and(|m| version.at_least(m)) {
                return Availability::Removed(rule);
            }
            if rule.introduced.is_some_and(|m| !version.at_least(m)) {
                return Availability::NotYet(rule);
            }
        }
        Availability::Available
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
