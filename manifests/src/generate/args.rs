//! Command-line builder that consults the version catalog, so a flag removed in the target
//! release is never emitted.

use crate::catalog::{Availability, BUILTIN};
use crate::component::Component;
use crate::version::KubeVersion;

/// Ordered `--flag=value` list for one component at one version.
#[derive(Debug, Clone)]
pub struct Args {
    component: Component,
    version: KubeVersion,
    items: Vec<String>,
}

impl Args {
    /// Starts an empty list.
    pub fn new(component: Component, version: KubeVersion) -> Self {
        Self {
            component,
            version,
            items: Vec::new(),
        }
    }

    /// Adds `--name=value` if the target version accepts it.
    pub fn flag(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
        let value = value.into();
        if self.accepts(name, Some(&value)) {
            self.items.push(format!("{name}={value}"));
        }
        self
    }

    /// Adds `--name=value` only when `cond` holds.
    pub fn flag_if(&mut self, cond: bool, name: &str, value: impl Into<String>) -> &mut Self {
        if cond {
            self.flag(name, value);
        }
        self
    }

    /// Adds `--feature-gates=A=x,B=y` when the list is not empty.
    pub fn feature_gates(&mut self, gates: &[(&str, bool)]) -> &mut Self {
        let usable: Vec<String> = gates
            .iter()
            .filter(|(name, value)| {
                BUILTIN.gate(self.component, name).is_none_or(|g| {
                    let since =
                        |minor: Option<u32>| minor.is_some_and(|m| self.version.at_least(m));
                    let removed = since(g.removed);
                    let locked_elsewhere = since(g.locked_from) && *value != g.locked_value;
                    !removed && !locked_elsewhere
                })
            })
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        if !usable.is_empty() {
            self.flag("--feature-gates", usable.join(","));
        }
        self
    }

    fn accepts(&self, name: &str, value: Option<&str>) -> bool {
        matches!(
            BUILTIN.flag_availability(self.component, name, value, self.version),
            Availability::Available
        )
    }

    /// The finished list.
    pub fn build(&self) -> Vec<String> {
        self.items.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_flags_and_gates_are_dropped() {
        let v33 = KubeVersion::from_minor(33).unwrap();
        let mut a = Args::new(Component::KubeApiserver, v33);
        a.flag("--cloud-provider", "external")
            .flag("--secure-port", "6443");
        a.feature_gates(&[("DisableCloudProviders", false)]);
        assert_eq!(a.build(), vec!["--secure-port=6443".to_string()]);
        let v29 = KubeVersion::from_minor(29).unwrap();
        let mut a = Args::new(Component::Kubelet, v29);
        a.flag("--cloud-provider", "azure")
            .feature_gates(&[("DisableCloudProviders", false)]);
        assert_eq!(
            a.build(),
            vec![
                "--cloud-provider=azure",
                "--feature-gates=DisableCloudProviders=false"
            ]
        );
    }
}
