//! Per-Kubernetes-version behaviour of the in-tree Azure provider inside kube-controller-manager
//! (`k8s.io/legacy-cloud-providers/azure`, Kubernetes ≤ 1.29) where it differs from today's CCM,
//! in the same shape as the kubelet table ([`super::kubelet::profile`]): one entry per fact, the
//! minor versions it holds for, its source and whether the version bound is inferred.
//! [`compat`] turns a version into the ccm-azure knobs the stand-in KCM
//! (`harness kube-controller-manager --in-tree-profile=1.N`) runs with.
//!
//! The in-tree provider was read in kubernetes/kubernetes `staging/src/k8s.io/legacy-cloud-providers/
//! azure/` at commit 01aa0f3f (a tree with `//go:build` lines, so 1.23 or later); that each fact
//! still holds at release-1.27/1.28/1.29 (the tree only took fixes until its removal in 1.30) is
//! inferred, hence `inferred: true` on the version bounds.
//!
//! Looked at and found equal for 1.27–1.29 (no knob):
//! * probe timing: the in-tree code wrote interval 5 s and 2 probes, today's defaults
//!   (`getExpectedLBRules` in the legacy provider; anchor-ccm.md §4.5, §11 item 10);
//! * NotReady nodes stay in backend pools: the service controller's `StableLoadBalancerNodeSet`
//!   gate is beta and on by default from 1.27 (`pkg/features/kube_features.go` at release-1.27
//!   and release-1.28; GA and locked in 1.30), the same stable node set as the CCM's
//!   (`ccm-controllers` `service::predicates`);
//! * names of LBs, frontends, rules, probes, backend pools and PIPs (`<cluster>`,
//!   `a<uid>[:32]`, `<cluster>-a<uid>`), floating IP, TCP reset on standard LBs, `SourceIP` for
//!   ClientIP affinity (legacy `azure_loadbalancer.go`, `azure_standard.go`; anchor-ccm.md §4.3).
//!
//! Found and not reproduced [infer]: the in-tree provider set the LB rule idle timeout only when
//! annotated (ARM then reports its default 4, and rule equality ignores a one-sided timeout), and
//! read only the legacy tag keys (the stand-in also reads the current ones, so a rollback adopts
//! PIPs a CCM tagged).

use std::fmt;

use ccm_azure::config::InTreeCompat;
use thiserror::Error;

use super::kubelet::profile::KubeVersion;

/// The releases the in-tree profiles describe (the in-tree provider was removed in 1.30).
pub const IN_TREE_VERSIONS: [KubeVersion; 3] = [
    KubeVersion { minor: 27 },
    KubeVersion { minor: 28 },
    KubeVersion { minor: 29 },
];

/// The profile used without `--in-tree-profile`: the newest in-tree release.
pub const DEFAULT_VERSION: KubeVersion = KubeVersion { minor: 29 };

/// One in-tree provider behaviour of kube-controller-manager that today's CCM does differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KcmFactId {
    /// PIP ownership tags `service`, `kubernetes-cluster-name`, `kubernetes-dns-label-service`
    /// (today: `k8s-azure-service`, `k8s-azure-cluster-name`, `k8s-azure-dns-label-service`).
    LegacyTagKeys,
    /// One NSG rule per Service, port and source `<a+uid>-<PROTO>-<port>-<source>` (today: rules
    /// shared across Services, `k8s-azure-lb_allow_<family>_<md5>`).
    PerServiceNsgRules,
    /// TCP probe for a `Cluster` Service port with `appProtocol: http/https` (today: HTTP(S) on `/`).
    TcpProbeForAppProtocol,
    /// Probe threshold written as `numberOfProbes` (today: `probeThreshold`).
    NumberOfProbesField,
    /// `externalTrafficPolicy: Local`: one HTTP probe per rule named after it (today: one probe,
    /// named after the health-check NodePort, shared by the Service's rules).
    LocalProbePerRule,
    /// An HTTP(S) probe asked for by the Service's probe-protocol annotation, without a path,
    /// probes `/healthz` (today: `/`).
    HealthzProbePath,
}

impl fmt::Display for KcmFactId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KcmFactId::LegacyTagKeys => "legacy-tag-keys",
            KcmFactId::PerServiceNsgRules => "per-service-nsg-rules",
            KcmFactId::TcpProbeForAppProtocol => "tcp-probe-for-app-protocol",
            KcmFactId::NumberOfProbesField => "number-of-probes-field",
            KcmFactId::LocalProbePerRule => "local-probe-per-rule",
            KcmFactId::HealthzProbePath => "healthz-probe-path",
        })
    }
}

/// A table entry: `fact` holds for minors `from..=until` (open ends are `None`).
#[derive(Debug, Clone, Copy)]
pub struct KcmFact {
    /// Which behaviour.
    pub fact: KcmFactId,
    /// First minor it holds for.
    pub from: Option<u32>,
    /// Last minor it holds for.
    pub until: Option<u32>,
    /// Where this comes from (upstream file at a tag, or a reference doc section).
    pub source: &'static str,
    /// True when the version bound is inferred rather than read at each release tag.
    pub inferred: bool,
}

/// The KCM facts, by version. Extend here (one entry per fact), never in code paths.
pub const FACTS: &[KcmFact] = &[
    KcmFact {
        fact: KcmFactId::LegacyTagKeys,
        from: None,
        until: Some(29),
        source: "kubernetes staging/src/k8s.io/legacy-cloud-providers/azure/azure_loadbalancer.go \
                 at 01aa0f3f (serviceTagKey \"service\", clusterNameKey \"kubernetes-cluster-name\", \
                 serviceUsingDNSKey \"kubernetes-dns-label-service\"; ensurePIPTagged); \
                 cloud-provider-azure pkg/consts/consts.go renamed them k8s-azure-* and keeps \
                 Legacy*Key (anchor-ccm.md §4.8)",
        inferred: true,
    },
    KcmFact {
        fact: KcmFactId::PerServiceNsgRules,
        from: None,
        until: Some(29),
        source: "legacy-cloud-providers/azure azure_loadbalancer.go reconcileSecurityGroup at \
                 01aa0f3f (one rule per port x source named by azure_standard.go \
                 getSecurityRuleName, single sourceAddressPrefix / destinationPortRange / \
                 destinationAddressPrefix, getNextAvailablePriority from 500, the Service's other \
                 rules dropped); consolidated rules only in cloud-provider-azure v1.29+ \
                 (anchor-ccm.md §4.7 \"Legacy (< v1.29)\")",
        inferred: true,
    },
    KcmFact {
        fact: KcmFactId::TcpProbeForAppProtocol,
        from: None,
        until: Some(29),
        source: "legacy-cloud-providers/azure azure_loadbalancer.go reconcileLoadBalancerRule at \
                 01aa0f3f (probe protocol: the azure-load-balancer-health-probe-protocol \
                 annotation, else TCP; appProtocol never read); migration.md §3 P10 and \
                 cloud-provider-azure docs topics/loadbalancer.md (appProtocol drives the probe \
                 out of tree from v1.24)",
        inferred: true,
    },
    KcmFact {
        fact: KcmFactId::NumberOfProbesField,
        from: None,
        until: Some(29),
        source: "legacy-cloud-providers/azure azure_loadbalancer.go reconcileLoadBalancerRule at \
                 01aa0f3f (IntervalInSeconds 5, NumberOfProbes 2, network API 2019-06-01 has no \
                 probeThreshold); today's CCM writes probeThreshold (anchor-ccm.md §4.5)",
        inferred: true,
    },
    KcmFact {
        fact: KcmFactId::LocalProbePerRule,
        from: None,
        until: Some(29),
        source: "legacy-cloud-providers/azure azure_loadbalancer.go reconcileLoadBalancerRule at \
                 01aa0f3f (with NeedsHealthCheck each port's probe is named lbRuleName, HTTP on \
                 the health-check NodePort, and UDP rules use it too); today's CCM shares one \
                 probe named <base>-TCP-<healthCheckNodePort> (anchor-ccm.md §4.3, §4.5)",
        inferred: true,
    },
    KcmFact {
        fact: KcmFactId::HealthzProbePath,
        from: None,
        until: Some(29),
        source: "legacy-cloud-providers/azure azure_loadbalancer.go reconcileLoadBalancerRule at \
                 01aa0f3f (a non-TCP probe protocol from the annotation without a request-path \
                 annotation probes /healthz); today's CCM probes / (anchor-ccm.md §4.5)",
        inferred: true,
    },
];

/// A `--in-tree-profile` version without an in-tree provider profile.
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "--in-tree-profile={version}: no in-tree Azure provider profile for {version} (the in-tree \
     provider was removed in 1.30); accepted: {accepted}"
)]
pub struct NoInTreeProfile {
    /// The version asked for.
    pub version: KubeVersion,
    /// The accepted versions, comma separated.
    pub accepted: String,
}

/// `version` when it has an in-tree profile, else an error naming the accepted versions.
pub fn check(version: KubeVersion) -> Result<KubeVersion, NoInTreeProfile> {
    if IN_TREE_VERSIONS.contains(&version) {
        return Ok(version);
    }
    Err(NoInTreeProfile {
        version,
        accepted: IN_TREE_VERSIONS
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Whether `fact` holds for `version`.
pub fn holds(version: KubeVersion, fact: KcmFactId) -> bool {
    FACTS.iter().filter(|f| f.fact == fact).any(|f| {
        f.from.is_none_or(|from| version.minor >= from)
            && f.until.is_none_or(|until| version.minor <= until)
    })
}

/// The facts holding for `version`, for the start-up log and reports.
pub fn active(version: KubeVersion) -> Vec<&'static KcmFact> {
    FACTS.iter().filter(|f| holds(version, f.fact)).collect()
}

/// The ccm-azure knobs reproducing `version`'s in-tree provider.
pub fn compat(version: KubeVersion) -> InTreeCompat {
    InTreeCompat {
        legacy_tag_keys: holds(version, KcmFactId::LegacyTagKeys),
        per_service_nsg_rules: holds(version, KcmFactId::PerServiceNsgRules),
        tcp_probe_for_app_protocol: holds(version, KcmFactId::TcpProbeForAppProtocol),
        number_of_probes_field: holds(version, KcmFactId::NumberOfProbesField),
        local_probe_per_rule: holds(version, KcmFactId::LocalProbePerRule),
        healthz_probe_path: holds(version, KcmFactId::HealthzProbePath),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(minor: u32) -> KubeVersion {
        KubeVersion { minor }
    }

    #[test]
    fn every_in_tree_release_reproduces_every_difference() {
        for version in IN_TREE_VERSIONS {
            assert_eq!(compat(version), InTreeCompat::ALL, "{version}");
            assert_eq!(active(version).len(), FACTS.len(), "{version}");
        }
    }

    #[test]
    fn without_an_in_tree_provider_nothing_differs() {
        assert_eq!(compat(v(30)), InTreeCompat::default());
    }

    #[test]
    fn only_the_in_tree_releases_are_accepted() {
        assert_eq!(check(v(29)), Ok(v(29)));
        assert_eq!(check(DEFAULT_VERSION), Ok(v(29)));
        let error = check(v(30)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--in-tree-profile=1.30: no in-tree Azure provider profile for 1.30 (the in-tree \
             provider was removed in 1.30); accepted: 1.27, 1.28, 1.29"
        );
        assert!(check(v(26)).is_err());
    }

    #[test]
    fn facts_and_knob_names_agree() {
        let knobs = InTreeCompat::ALL.active();
        for fact in FACTS {
            assert!(!fact.source.is_empty());
            assert!(
                knobs.contains(&fact.fact.to_string().as_str()),
                "{}",
                fact.fact
            );
        }
    }
}
