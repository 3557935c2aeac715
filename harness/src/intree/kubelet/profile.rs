//! Per-Kubernetes-version kubelet behaviour: one table entry per fact, each with the minor versions
//! it holds for and its source, so the in-tree KCM profiles can extend the same table.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A Kubernetes `1.<minor>` release (patch level never changes kubelet registration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct KubeVersion {
    /// The minor version (`27` for 1.27).
    pub minor: u32,
}

/// A version string that is not `1.N`, `v1.N` or `v1.N.P`.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("bad Kubernetes version {0:?}: expected 1.N, v1.N or v1.N.P (e.g. 1.29)")]
pub struct BadVersion(pub String);

impl FromStr for KubeVersion {
    type Err = BadVersion;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadVersion(text.to_owned());
        let trimmed = text.strip_prefix('v').unwrap_or(text);
        let mut parts = trimmed.split('.');
        if parts.next() != Some("1") {
            return Err(bad());
        }
        let minor = parts.next().and_then(|m| m.parse().ok()).ok_or_else(bad)?;
        match (parts.next(), parts.next()) {
            (None, _) => {}
            (Some(patch), None) if patch.parse::<u32>().is_ok() => {}
            _ => return Err(bad()),
        }
        Ok(KubeVersion { minor })
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

/// One version-dependent behaviour of the kubelet (or of the in-tree provider code it ran).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactId {
    /// `--cloud-provider=azure` works: the in-tree provider code is compiled in and accepted.
    InTreeAzure,
    /// The kubelet writes the GA topology labels (`topology.kubernetes.io/zone|region`,
    /// `node.kubernetes.io/instance-type`) from the cloud.
    GaTopologyLabels,
    /// The kubelet writes the beta topology labels (`failure-domain.beta.kubernetes.io/zone|region`,
    /// `beta.kubernetes.io/instance-type`) from the cloud, beside the GA ones.
    BetaTopologyLabels,
    /// In-tree IMDS addresses: when the instance document has no public IP, the provider looks it
    /// up in `/metadata/loadbalancer` (Standard SKU frontends) for the `ExternalIP` address.
    ImdsLoadBalancerPublicIp,
    /// External mode: a Node without addresses gets `Hostname` (and the `--node-ip` as
    /// `InternalIP`) from the kubelet; before this the kubelet left addresses to the CCM.
    ExternalBootstrapAddresses,
}

/// A table entry: `fact` holds for minors `from..=until` (open ends are `None`).
#[derive(Debug, Clone, Copy)]
pub struct Fact {
    /// Which behaviour.
    pub fact: FactId,
    /// First minor it holds for.
    pub from: Option<u32>,
    /// Last minor it holds for.
    pub until: Option<u32>,
    /// Where this comes from (upstream file at a tag, or a reference doc section).
    pub source: &'static str,
    /// True when the version bound is inferred rather than read from a source.
    pub inferred: bool,
}

/// The kubelet facts, by version. Extend here (one entry per fact), never in code paths.
pub const FACTS: &[Fact] = &[
    Fact {
        fact: FactId::InTreeAzure,
        from: None,
        until: Some(29),
        source: "migration.md §6 (1.29 last release where in-tree Azure can run; code removed \
                 in 1.30 by kubernetes#122857; only \"\"/external legal from 1.31)",
        inferred: false,
    },
    Fact {
        fact: FactId::GaTopologyLabels,
        from: Some(17),
        until: None,
        source: "kubernetes pkg/kubelet/kubelet_node_status.go initialNode (LabelTopologyZone, \
                 LabelTopologyRegion, LabelInstanceTypeStable set beside the beta keys; GA keys \
                 introduced in 1.17)",
        inferred: false,
    },
    Fact {
        fact: FactId::BetaTopologyLabels,
        from: None,
        until: None,
        source: "kubernetes pkg/kubelet/kubelet_node_status.go initialNode and \
                 updateDefaultLabels (LabelFailureDomainBetaZone/Region, LabelInstanceType still \
                 written by every release with a cloud provider)",
        inferred: false,
    },
    Fact {
        fact: FactId::ImdsLoadBalancerPublicIp,
        from: Some(20),
        until: None,
        source: "cloud-provider-azure pkg/provider/azure_instance_metadata.go getMetadata / \
                 fillNetInterfacePublicIPs (shared with legacy-cloud-providers/azure); first \
                 in-tree release carrying it [infer]",
        inferred: true,
    },
    Fact {
        fact: FactId::ExternalBootstrapAddresses,
        from: Some(29),
        until: None,
        source: "kubernetes pkg/kubelet/nodestatus/setters.go NodeAddress (older tags: \
                 \"We rely on the external cloud provider to supply the addresses\"; newer: keep \
                 existing addresses, else Hostname, or --node-ip + Hostname; migration.md §1.4); \
                 the release it changed in [infer]",
        inferred: true,
    },
];

/// What one version's kubelet does, read from [`FACTS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// The version described.
    pub version: KubeVersion,
}

impl Profile {
    /// The profile of `version`.
    pub fn of(version: KubeVersion) -> Profile {
        Profile { version }
    }

    /// Whether `fact` holds for this version.
    pub fn holds(&self, fact: FactId) -> bool {
        FACTS.iter().filter(|f| f.fact == fact).any(|f| {
            f.from.is_none_or(|from| self.version.minor >= from)
                && f.until.is_none_or(|until| self.version.minor <= until)
        })
    }

    /// The source of `fact`, for reports.
    pub fn source(fact: FactId) -> Option<&'static str> {
        FACTS.iter().find(|f| f.fact == fact).map(|f| f.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> KubeVersion {
        text.parse().expect("version")
    }

    #[test]
    fn versions_parse_in_the_usual_spellings() {
        assert_eq!(v("1.27"), KubeVersion { minor: 27 });
        assert_eq!(v("v1.29"), KubeVersion { minor: 29 });
        assert_eq!(v("v1.30.2"), KubeVersion { minor: 30 });
        for bad in ["2.1", "1", "1.x", "1.2.3.4", "v1.2.x", ""] {
            assert_eq!(
                bad.parse::<KubeVersion>(),
                Err(BadVersion(bad.to_owned())),
                "{bad}"
            );
        }
        assert_eq!(v("1.29").to_string(), "1.29");
    }

    #[test]
    fn in_tree_azure_ends_with_1_29() {
        assert!(Profile::of(v("1.29")).holds(FactId::InTreeAzure));
        assert!(!Profile::of(v("1.30")).holds(FactId::InTreeAzure));
    }

    #[test]
    fn external_bootstrap_addresses_start_with_1_29() {
        assert!(!Profile::of(v("1.28")).holds(FactId::ExternalBootstrapAddresses));
        assert!(Profile::of(v("1.29")).holds(FactId::ExternalBootstrapAddresses));
    }

    #[test]
    fn labels_and_lb_lookup_by_version() {
        let old = Profile::of(v("1.16"));
        assert!(!old.holds(FactId::GaTopologyLabels));
        assert!(old.holds(FactId::BetaTopologyLabels));
        assert!(!old.holds(FactId::ImdsLoadBalancerPublicIp));
        let new = Profile::of(v("1.27"));
        assert!(new.holds(FactId::GaTopologyLabels));
        assert!(new.holds(FactId::BetaTopologyLabels));
        assert!(new.holds(FactId::ImdsLoadBalancerPublicIp));
    }

    #[test]
    fn every_fact_has_a_source() {
        for fact in FACTS {
            assert!(!fact.source.is_empty(), "{:?}", fact.fact);
            assert!(Profile::source(fact.fact).is_some());
        }
    }
}
