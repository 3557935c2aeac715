//! The components that talk to Azure in a parity run, each with its own Entra app and azure.json
//! so the fake's journal names the caller of every ARM request.

use super::apps::EntraApp;

/// A component configured with its own azure.json.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    /// The in-tree provider: the kube-controller-manager host and the simulated kubelets.
    InTree,
    /// The out-of-tree cloud-controller-manager.
    CloudControllerManager,
    /// The out-of-tree cloud-node-manager (one per node, one app for all).
    CloudNodeManager,
}

impl Component {
    /// Every component, in a stable order.
    pub const ALL: [Component; 3] = [
        Component::InTree,
        Component::CloudControllerManager,
        Component::CloudNodeManager,
    ];

    /// Short name (file names, app names).
    pub fn as_str(self) -> &'static str {
        match self {
            Component::InTree => "in-tree",
            Component::CloudControllerManager => "cloud-controller-manager",
            Component::CloudNodeManager => "cloud-node-manager",
        }
    }

    /// Its Entra app in the embedded cluster's fake (fixed ids, so journals of two runs compare).
    pub fn app(self) -> EntraApp {
        let (client_id, secret) = match self {
            Component::InTree => (
                "1a7e0c31-5b2d-4e8f-9a10-3c4d5e6f7a81",
                "harness-in-tree-secret-not-for-production",
            ),
            Component::CloudControllerManager => (
                "2b8f1d42-6c3e-4f90-8b21-4d5e6f7a8b92",
                "harness-ccm-secret-not-for-production",
            ),
            Component::CloudNodeManager => (
                "3c902e53-7d4f-4a01-9c32-5e6f7a8b9ca3",
                "harness-cnm-secret-not-for-production",
            ),
        };
        EntraApp::new(&format!("harness-{}", self.as_str()), client_id, secret)
    }
}

impl std::fmt::Display for Component {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
