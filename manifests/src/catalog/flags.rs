//! Flags (or flag values) that appeared or disappeared between Kubernetes minors.

use crate::component::Component;

/// One versioned flag fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagRule {
    /// Component that parses the flag.
    pub component: Component,
    /// Flag name with leading dashes.
    pub flag: &'static str,
    /// When set, the rule applies only to this value (e.g. `--cloud-provider=azure`).
    pub value: Option<&'static str>,
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
    value: Option<&'static str>,
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

/// Every versioned flag fact the generator and the lint know.
pub static FLAGS: &[FlagRule] = &[
    removed(
        Kas,
        "--cloud-provider",
        None,
        33,
        "kube-apiserver refuses to start with `unknown flag: --cloud-provider`; drop the flag (out-of-tree needs nothing on the apiserver)",
        "kubernetes#130162 (deprecated in 1.29 by kubernetes#120903)",
    ),
    removed(
        Kas,
        "--cloud-config",
        None,
        33,
        "removed together with the apiserver --cloud-provider flag; drop it",
        "kubernetes#130162",
    ),
    removed(
        Kas,
        "--cloud-provider",
        Some("azure"),
        30,
        "the in-tree Azure provider was deleted in 1.30; run the out-of-tree cloud-controller-manager",
        "kubernetes#122857",
    ),
    removed(
        Kas,
        "--insecure-port",
        None,
        24,
        "the insecure port is gone; use --secure-port only",
        "migration.md 1.9 (stale anchor example)",
    ),
    removed(
        Kcm,
        "--cloud-provider",
        Some("azure"),
        30,
        "the in-tree Azure provider was deleted in 1.30; use --cloud-provider=external and deploy cloud-controller-manager",
        "kubernetes#122857; only \"\"/external accepted from 1.31",
    ),
    removed(
        Kcm,
        "--pod-eviction-timeout",
        None,
        27,
        "taint-based eviction replaced it; drop the flag",
        "migration.md 1.9",
    ),
    removed(
        Kubelet,
        "--cloud-provider",
        Some("azure"),
        30,
        "the in-tree Azure provider was deleted in 1.30; use --cloud-provider=external with cloud-node-manager",
        "kubernetes#122857; only \"\"/external accepted from 1.31",
    ),
    removed(
        Kubelet,
        "--azure-container-registry-config",
        None,
        30,
        "the in-tree ACR credential provider was deleted; use --image-credential-provider-config with acr-credential-provider",
        "kubernetes#122857",
    ),
    removed(
        Kubelet,
        "--cloud-config",
        None,
        34,
        "the kubelet refuses to start with `unknown flag: --cloud-config`; drop the flag (acr-credential-provider gets azure.json through its args)",
        "kubernetes#130161 (merged May 2025, first released in 1.34; kubernetes#131841)",
    ),
    removed(
        Kubelet,
        "--network-plugin",
        None,
        24,
        "dockershim-era flag; configure the network through the container runtime (CNI)",
        "KEP-2221 dockershim removal",
    ),
    removed(
        Kubelet,
        "--image-pull-progress-deadline",
        None,
        24,
        "dockershim-era flag; drop it",
        "KEP-2221 dockershim removal",
    ),
    removed(
        Kubelet,
        "--keep-terminated-pod-volumes",
        None,
        31,
        "removed after long deprecation; drop it",
        "kubelet 1.31 release notes (AKS and other installers gate it on minor < 31)",
    ),
    FlagRule {
        component: Kubelet,
        flag: "--image-credential-provider-config",
        value: None,
        introduced: Some(20),
        removed: None,
        reason: "kubelet credential provider plugins",
        source: "KEP-2133 (alpha 1.20, GA 1.26)",
    },
    FlagRule {
        component: Kcm,
        flag: "--enable-leader-migration",
        value: None,
        introduced: Some(21),
        removed: None,
        reason: "Leader Migration",
        source: "KEP-2436 (alpha 1.21, GA 1.24)",
    },
];
