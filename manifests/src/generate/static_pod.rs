//! The static-pod envelope shared by kube-apiserver, kube-controller-manager and kube-scheduler.

use k8s_openapi::api::core::v1::{
    Container, Pod, PodSecurityContext, PodSpec, Probe, SeccompProfile,
};

use super::pod::{self, Mount};

/// What differs between control-plane static pods.
pub struct StaticPod {
    /// Component (pod, container and binary name).
    pub name: &'static str,
    /// Full image reference.
    pub image: String,
    /// Flags.
    pub args: Vec<String>,
    /// Host mounts.
    pub mounts: Vec<Mount>,
    /// Liveness probe.
    pub liveness: Probe,
    /// Readiness probe, if the component serves one.
    pub readiness: Option<Probe>,
    /// Startup probe.
    pub startup: Probe,
    /// CPU request.
    pub cpu: &'static str,
}

impl StaticPod {
    /// Builds the Pod object the kubelet reads from its static-pod directory.
    pub fn into_pod(self) -> Pod {
        let (volumes, mounts) = pod::split(self.mounts);
        let mut command = vec![self.name.to_string()];
        command.extend(self.args);
        Pod {
            metadata: pod::kube_system_meta(
                self.name,
                &[("component", self.name), ("tier", "control-plane")],
            ),
            spec: Some(PodSpec {
                containers: vec![Container {
                    name: self.name.to_string(),
                    image: Some(self.image),
                    image_pull_policy: Some("IfNotPresent".to_string()),
                    command: Some(command),
                    liveness_probe: Some(self.liveness),
                    readiness_probe: self.readiness,
                    startup_probe: Some(self.startup),
                    resources: Some(k8s_openapi::api::core::v1::ResourceRequirements {
                        requests: Some(
                            [(
                                "cpu".to_string(),
                                k8s_openapi::apimachinery::pkg::api::resource::Quantity(
                                    self.cpu.to_string(),
                                ),
                            )]
                            .into_iter()
                            .collect(),
                        ),
                        ..Default::default()
                    }),
                    volume_mounts: Some(mounts),
                    ..Default::default()
                }],
                host_network: Some(true),
                priority_class_name: Some("system-node-critical".to_string()),
                security_context: Some(PodSecurityContext {
                    seccomp_profile: Some(SeccompProfile {
                        type_: "RuntimeDefault".to_string(),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                volumes: Some(volumes),
                ..Default::default()
            }),
            status: None,
        }
    }
}
