//! The processes a manifest can configure; flags and gates are catalogued per component.

use std::fmt;

/// A Kubernetes or Azure component whose command line the generator writes and the lint reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    /// kube-apiserver.
    KubeApiserver,
    /// kube-controller-manager.
    KubeControllerManager,
    /// kube-scheduler.
    KubeScheduler,
    /// kubelet.
    Kubelet,
    /// Azure cloud-controller-manager.
    CloudControllerManager,
    /// Azure cloud-node-manager.
    CloudNodeManager,
}

impl Component {
    /// Every component, in a stable order.
    pub const ALL: [Component; 6] = [
        Component::KubeApiserver,
        Component::KubeControllerManager,
        Component::KubeScheduler,
        Component::Kubelet,
        Component::CloudControllerManager,
        Component::CloudNodeManager,
    ];

    /// Binary name.
    pub const fn name(self) -> &'static str {
        match self {
            Component::KubeApiserver => "kube-apiserver",
            Component::KubeControllerManager => "kube-controller-manager",
            Component::KubeScheduler => "kube-scheduler",
            Component::Kubelet => "kubelet",
            Component::CloudControllerManager => "cloud-controller-manager",
            Component::CloudNodeManager => "cloud-node-manager",
        }
    }

    /// Recognises a component from a binary path, a container name or an image reference
    /// (`/usr/local/bin/kube-apiserver`, `registry.k8s.io/kube-apiserver:v1.29.0`,
    /// `.../azure-cloud-controller-manager:v1.33.1`, `cloud-node-manager.exe`).
    pub fn detect(text: &str) -> Option<Component> {
        let last = text.rsplit(['/', '\\']).next().unwrap_or(text);
        let last = last.split([':', '@']).next().unwrap_or(last);
        let last = last.strip_suffix(".exe").unwrap_or(last);
        let last = last.strip_prefix("azure-").unwrap_or(last);
        Component::ALL.into_iter().find(|c| c.name() == last)
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_binaries_images_and_windows_names() {
        assert_eq!(
            Component::detect("/usr/bin/kubelet"),
            Some(Component::Kubelet)
        );
        assert_eq!(
            Component::detect("registry.k8s.io/kube-apiserver:v1.29.0"),
            Some(Component::KubeApiserver)
        );
        assert_eq!(
            Component::detect(
                "mcr.microsoft.com/oss/kubernetes/azure-cloud-controller-manager:v1.29.0"
            ),
            Some(Component::CloudControllerManager)
        );
        assert_eq!(
            Component::detect("C:\\k\\cloud-node-manager.exe"),
            Some(Component::CloudNodeManager)
        );
        assert_eq!(Component::detect("etcd"), None);
    }
}
