//! Flags (or flag values) that appeared or disappeared between Kubernetes minors.

use crate::component::Component;

/// Which values of a flag a rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueMatch {
    /// The flag itself, whatever its value.
    Any,
    /// Only this value (e.g. `--cloud-provider=azure`).
    Is(&'static str),
    /// Every value except these (e.g. `--cloud-provider` other than `""` and `external`).
    NotIn(&'static [&'static str]),
}

impl ValueMatch {
    /// True when the rule covers this (trimmed) value; a bare flag counts as the empty string.
    pub fn matches(self, value: Option<&str>) -> bool {
        let value = value.map_or("", str::trim);
        match self {
            ValueMatch::Any => true,
            ValueMatch::Is(only) => value == only,
            ValueMatch::NotIn(allowed) => !allowed.contains(&value),
        }
    }
}

/// One versioned flag fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagRule {
    /// Component that parses the flag.
    pub component: Component,
    /// Flag name with leading dashes.
    pub flag: &'static str,
    /// Values the rule applies to.
    pub value: ValueMatch,
    /// First minor that accepts it (None: older than 1.27).
    pub introduced: Option<u32>,
    /// First minor that refuses it.
    pub removed: Option<u32>,
    /// What breaks and what to use instead.
    pub reason: &'static str,
    /// Where the fact comes from.
    pub source: &'static str,
}

const fn removed(
    component: Component,
    flag: &'static str,
    value: ValueMatch,
    minor: u32,
    reason: &'static str,
    source: &'static str,
) -> FlagRule {
    FlagRule {
        component,
        flag,
        value,
        introduced: None,
        removed: Some(minor),
        reason,
        source,
    }
}

use Component::{KubeApiserver as Kas, KubeControllerManager as Kcm, Kubelet};
use ValueMatch::{Any, Is, NotIn};

/// The only `--cloud-provider` values accepted from 1.31, when `DisableCloudProviders` is locked
/// on: the empty string (no cloud) and `external`.
const EXTERNAL_ONLY: &[&str] = &["", "external"];
/// Source of [`EXTERNAL_ONLY`].
const EXTERNAL_ONLY_SOURCE: &str = "DisableCloudProviders feature-gate page (\"In Kubernetes v1.31 and later, the only valid values for --cloud-provider are the empty string ... or external\"); kubernetes#121367 keeps the kubelet flag for exactly these two values";

/// Every versioned flag fact the generator and the lint know.
pub static FLAGS: &[FlagRule] = &[
    removed(
        Kas,
        "--cloud-provider",
        Any,
        33,
        "kube-apiserver refuses to start with `unknown flag: --cloud-provider`; drop the flag (out-of-tree needs nothing on the apiserver)",
        "kubernetes#130162 (deprecated in 1.29 by kubernetes#120903)",
    ),
    removed(
        Kas,
        "--cloud-config",
        Any,
        33,
        "removed together with the apiserver --cloud-provider flag; drop it",
        "kubernetes#130162",
    ),
    removed(
        Kas,
        "--cloud-provider",
        Is("azure"),
        30,
        "the in-tree Azure provider was deleted in 1.30; run the out-of-tree cloud-controller-manager",
        "kubernetes#122857",
    ),
    removed(
        Kas,
        "--insecure-port",
        Any,
        24,
        "the insecure port is gone; use --secure-port only",
        "migration.md 1.9 (stale anchor example)",
    ),
    removed(
        Kcm,
        "--cloud-provider",
        Is("azure"),
        30,
        "the in-tree Azure provider was deleted in 1.30; use --cloud-provider=external and deploy cloud-controller-manager",
        "kubernetes#122857",
    ),
    removed(
        Kcm,
        "--pod-eviction-timeout",
        Any,
        27,
        "taint-based eviction replaced it; drop the flag",
        "migration.md 1.9",
    ),
    removed(
        Kubelet,
        "--cloud-provider",
        Is("azure"),
        30,
        "the in-tree Azure provider was deleted in 1.30; use --cloud-provider=external with cloud-node-manager",
        "kubernetes#122857",
    ),
    removed(
        Kubelet,
        "--azure-container-registry-config",
        Any,
        30,
        "the in-tree ACR credential provider was deleted; use --image-credential-provider-config with acr-credential-provider",
        "kubernetes#122857",
    ),
    removed(
        Kubelet,
        "--cloud-config",
        Any,
        34,
        "the kubelet refuses to start with `unknown flag: --cloud-config`; drop the flag (acr-credential-provider gets azure.json through its args)",
        "kubernetes#130161 (merged May 2025, first released in 1.34; kubernetes#131841 dropped the flag from local-up-cluster because the kubelet no longer starts with it; rke2#8926: removed as of 1.34)",
    ),
    removed(
        Kubelet,
        "--network-plugin",
        Any,
        24,
        "dockershim-era flag; configure the network through the container runtime (CNI)",
        "KEP-2221 dockershim removal",
    ),
    removed(
        Kubelet,
        "--image-pull-progress-deadline",
        Any,
        24,
        "dockershim-era flag; drop it",
        "KEP-2221 dockershim removal",
    ),
    removed(
        Kubelet,
        "--keep-terminated-pod-volumes",
        Any,
        31,
        "removed after long deprecation; drop it",
        "kubernetes#122082, CHANGELOG-1.31 \"Urgent Upgrade Notes\" (deprecated since 1.8 by kubernetes#47539)",
    ),
    removed(
        Kubelet,
        "--cloud-provider",
        NotIn(EXTERNAL_ONLY),
        31,
        "only --cloud-provider=external (or empty, no cloud at all) is accepted; run the cloud's external cloud-controller-manager and cloud-node-manager",
        EXTERNAL_ONLY_SOURCE,
    ),
    removed(
        Kcm,
        "--cloud-provider",
        NotIn(EXTERNAL_ONLY),
        31,
        "only --cloud-provider=external (or empty) is accepted; the cloud controllers run in the cloud-controller-manager",
        EXTERNAL_ONLY_SOURCE,
    ),
    removed(
        Kas,
        "--cloud-provider",
        NotIn(EXTERNAL_ONLY),
        31,
        "only --cloud-provider=external (or empty) is accepted until the flag goes in 1.33; drop it",
        EXTERNAL_ONLY_SOURCE,
    ),
    FlagRule {
        component: Kubelet,
        flag: "--image-credential-provider-config",
        value: Any,
        introduced: Some(20),
        removed: None,
        reason: "kubelet credential provider plugins",
        source: "KEP-2133 (alpha 1.20, GA 1.26)",
    },
    FlagRule {
        component: Kcm,
        flag: "--enable-leader-migration",
        value: Any,
        introduced: Some(21),
        removed: None,
        reason: "Leader Migration",
        source: "KEP-2436 (alpha 1.21, GA 1.24)",
    },
];
