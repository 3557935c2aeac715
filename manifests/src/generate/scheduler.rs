//! kube-scheduler static pod: identical in both modes (no cloud flags), emitted so the example
//! set is a complete control plane.

use k8s_openapi::api::core::v1::Pod;

use super::args::Args;
use super::pod::{self, host_path};
use super::static_pod::StaticPod;
use crate::component::Component;
use crate::options::Options;

/// Secure port of kube-scheduler.
pub const SECURE_PORT: i32 = 10259;
const KUBECONFIG: &str = "/etc/kubernetes/scheduler.conf";

/// Builds the kube-scheduler static pod.
pub fn build(o: &Options) -> Pod {
    let mut a = Args::new(Component::KubeScheduler, o.version);
    a.flag("--authentication-kubeconfig", KUBECONFIG)
        .flag("--authorization-kubeconfig", KUBECONFIG)
        .flag("--bind-address", "127.0.0.1")
        .flag("--kubeconfig", KUBECONFIG)
        .flag("--leader-elect", "true");
    StaticPod {
        name: Component::KubeScheduler.name(),
        image: super::kubernetes_image(o, Component::KubeScheduler),
        args: a.build(),
        mounts: vec![host_path("kubeconfig", KUBECONFIG, "File")],
        liveness: pod::https_probe(Some("127.0.0.1"), "/healthz", SECURE_PORT, 10, 8),
        readiness: None,
        startup: pod::https_probe(Some("127.0.0.1"), "/healthz", SECURE_PORT, 10, 24),
        cpu: "100m",
    }
    .into_pod()
}
