//! Small builders for pod-spec pieces that every manifest repeats (host-path volumes, probes,
//! tolerations), so each component file only states what is specific to it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Capabilities, EnvVar, EnvVarSource, HTTPGetAction, HostPathVolumeSource, ObjectFieldSelector,
    Probe, ResourceRequirements, SeccompProfile, SecurityContext, Toleration, Volume, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// Priority class of the CCM Deployment and the CNM DaemonSet: upstream uses
/// `system-node-critical` for both (migration.md 1.5, 1.6; Helm chart and anchor example).
pub const PRIORITY_CLASS: &str = "system-node-critical";

/// A volume plus where it is mounted, kept together so they cannot drift apart.
#[derive(Debug, Clone)]
pub struct Mount {
    /// Pod volume.
    pub volume: Volume,
    /// Container mount.
    pub mount: VolumeMount,
}

/// Mounts a host file or directory read-only at the same path in the container.
pub fn host_path(name: &str, path: &str, kind: &str) -> Mount {
    Mount {
        volume: Volume {
            name: name.to_string(),
            host_path: Some(HostPathVolumeSource {
                path: path.to_string(),
                type_: Some(kind.to_string()),
            }),
            ..Default::default()
        },
        mount: VolumeMount {
            name: name.to_string(),
            mount_path: path.to_string(),
            read_only: Some(true),
            ..Default::default()
        },
    }
}

/// Splits mounts into the pod's volumes and the container's mounts.
pub fn split(mounts: Vec<Mount>) -> (Vec<Volume>, Vec<VolumeMount>) {
    mounts.into_iter().map(|m| (m.volume, m.mount)).unzip()
}

/// HTTPS GET probe (all control-plane health endpoints are on secure ports).
pub fn https_probe(
    host: Option<&str>,
    path: &str,
    port: i32,
    initial_delay: i32,
    failure_threshold: i32,
) -> Probe {
    Probe {
        http_get: Some(HTTPGetAction {
            host: host.map(str::to_string),
            path: Some(path.to_string()),
            port: IntOrString::Int(port),
            scheme: Some("HTTPS".to_string()),
            ..Default::default()
        }),
        initial_delay_seconds: Some(initial_delay),
        period_seconds: Some(10),
        timeout_seconds: Some(15),
        failure_threshold: Some(failure_threshold),
        ..Default::default()
    }
}

/// Toleration `key:effect` with operator `Exists` (empty key = every taint with that effect).
pub fn tolerate(key: Option<&str>, effect: Option<&str>) -> Toleration {
    Toleration {
        key: key.map(str::to_string),
        operator: Some("Exists".to_string()),
        effect: effect.map(str::to_string),
        ..Default::default()
    }
}

/// CPU/memory requests with a memory limit.
pub fn resources(cpu: &str, memory: &str, memory_limit: &str) -> ResourceRequirements {
    ResourceRequirements {
        requests: Some(BTreeMap::from([
            ("cpu".to_string(), Quantity(cpu.to_string())),
            ("memory".to_string(), Quantity(memory.to_string())),
        ])),
        limits: Some(BTreeMap::from([(
            "memory".to_string(),
            Quantity(memory_limit.to_string()),
        )])),
        ..Default::default()
    }
}

/// Container hardening shared by CCM and CNM: no privilege escalation, no capabilities,
/// read-only root, runtime-default seccomp.
pub fn restricted_security_context() -> SecurityContext {
    SecurityContext {
        allow_privilege_escalation: Some(false),
        capabilities: Some(Capabilities {
            drop: Some(vec!["ALL".to_string()]),
            ..Default::default()
        }),
        read_only_root_filesystem: Some(true),
        seccomp_profile: Some(SeccompProfile {
            type_: "RuntimeDefault".to_string(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `NODE_NAME` from the downward API.
pub fn node_name_env() -> EnvVar {
    EnvVar {
        name: "NODE_NAME".to_string(),
        value_from: Some(EnvVarSource {
            field_ref: Some(ObjectFieldSelector {
                field_path: "spec.nodeName".to_string(),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Metadata in `kube-system` with the given labels.
pub fn kube_system_meta(name: &str, labels: &[(&str, &str)]) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: Some(azure_ccm::names::leases::NAMESPACE.to_string()),
        labels: labels_map(labels),
        ..Default::default()
    }
}

/// Label map, or None when empty (keeps output free of `labels: {}`).
pub fn labels_map(labels: &[(&str, &str)]) -> Option<BTreeMap<String, String>> {
    if labels.is_empty() {
        None
    } else {
        Some(
            labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }
}
