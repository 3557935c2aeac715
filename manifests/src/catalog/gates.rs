//! Feature gates whose lifecycle matters to an Azure migration.

use crate::component::Component;

/// One feature gate fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateRule {
    /// Gate name.
    pub name: &'static str,
    /// Components where setting it matters.
    pub components: &'static [Component],
    /// First minor where the gate is locked to `locked_value` (setting anything else fails).
    pub locked_from: Option<u32>,
    /// Value it is locked to.
    pub locked_value: bool,
    /// First minor that no longer knows the gate (setting it fails).
    pub removed: Option<u32>,
    /// Where the fact comes from.
    pub source: &'static str,
}

const CLOUD_GATE_COMPONENTS: &[Component] = &[
    Component::KubeApiserver,
    Component::KubeControllerManager,
    Component::Kubelet,
];

/// Name of the gate that turns the in-tree cloud providers off (default true from 1.29).
pub const DISABLE_CLOUD_PROVIDERS: &str = "DisableCloudProviders";
/// Name of the gate that turns the kubelet's in-tree credential providers off.
pub const DISABLE_KUBELET_CLOUD_CREDENTIAL_PROVIDERS: &str =
    "DisableKubeletCloudCredentialProviders";

/// Every feature gate the generator and the lint know.
pub static FEATURE_GATES: &[GateRule] = &[
    GateRule {
        name: DISABLE_CLOUD_PROVIDERS,
        components: CLOUD_GATE_COMPONENTS,
        locked_from: Some(31),
        locked_value: true,
        removed: Some(33),
        source: "kube_features versioned specs: alpha 1.22, beta (true) 1.29, GA locked 1.31; removed in 1.33 (kubernetes#130162; migration.md 5)",
    },
    GateRule {
        name: DISABLE_KUBELET_CLOUD_CREDENTIAL_PROVIDERS,
        components: CLOUD_GATE_COMPONENTS,
        locked_from: Some(31),
        locked_value: true,
        removed: Some(33),
        source: "kube_features versioned specs: alpha 1.23, beta (true) 1.29, GA locked 1.31; removed in 1.33 together with DisableCloudProviders by kubernetes#130162 (website#49817 marks it stable 1.31-1.32, removed; test-infra#34399 drops it from jobs)",
    },
    GateRule {
        name: "CSIMigrationAzureDisk",
        components: CLOUD_GATE_COMPONENTS,
        locked_from: None,
        locked_value: true,
        removed: Some(27),
        source: "feature-gate pages: GA 1.24-1.26, removed 1.27 (migration.md 1.8)",
    },
    GateRule {
        name: "CSIMigrationAzureFile",
        components: CLOUD_GATE_COMPONENTS,
        locked_from: None,
        locked_value: true,
        removed: Some(30),
        source: "feature-gate pages: GA 1.26-1.29, removed 1.30 (migration.md 1.8)",
    },
    GateRule {
        name: "ControllerManagerLeaderMigration",
        components: &[
            Component::KubeControllerManager,
            Component::CloudControllerManager,
        ],
        locked_from: None,
        locked_value: true,
        removed: Some(27),
        source: "feature-gate pages: GA 1.24-1.26, removed 1.27 (migration.md 2.3)",
    },
];
