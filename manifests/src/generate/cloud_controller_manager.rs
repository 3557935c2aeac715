//! cloud-controller-manager: ServiceAccount, least-privilege RBAC, Deployment and
//! PodDisruptionBudget in one multi-document manifest.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{
    Deployment, DeploymentSpec, DeploymentStrategy, RollingUpdateDeployment,
};
use k8s_openapi::api::core::v1::{
    Affinity, Container, ContainerPort, KeyToPath, PodAffinityTerm, PodAntiAffinity, PodSpec,
    PodTemplateSpec, ProjectedVolumeSource, SecretVolumeSource, ServiceAccountTokenProjection,
    Volume, VolumeMount, VolumeProjection,
};
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use azure_ccm::names::{labels, taints};

use super::args::Args;
use super::paths;
use super::pod::{self, Mount, host_path};
use super::rbac::{self, Scope};
use super::rbac_objects as ro;
use super::yaml::{RenderError, to_yaml};
use crate::cidr;
use crate::component::Component;
use crate::options::{AuthMode, NodeIpam, Options};

/// Name of every CCM object.
pub const NAME: &str = "cloud-controller-manager";
/// Secure port: the binary's own default, `cloudprovider.CloudControllerManagerPort` = 10258
/// (anchor-ccm.md 1.3; `cmd/cloud-controller-manager/app/options/options.go`), next to KCM's 10257
/// and the scheduler's 10259 on the host network. Passed explicitly so the flag and the probes
/// visibly agree; the anchor's examples use 10267 and its Helm chart 10268, which work equally.
pub const SECURE_PORT: i32 = 10258;
/// Audience Entra ID expects on a federated token.
pub const WORKLOAD_IDENTITY_AUDIENCE: &str = "api://AzureADTokenExchange";

/// Path the CCM reads its cloud config from.
pub fn cloud_config_path(o: &Options) -> String {
    match o.auth {
        AuthMode::WorkloadIdentity => format!(
            "{}/{}",
            paths::CCM_CLOUD_CONFIG_DIR,
            paths::CCM_CLOUD_CONFIG_FILE
        ),
        _ => paths::AZURE_JSON.to_string(),
    }
}

/// CCM flags.
///
/// With routes the CCM also allocates pod CIDRs by default (`--allocate-node-cidrs=true`, as in
/// the anchor example and Helm chart; migration.md 1.3 and scenario 2), with the mask flags
/// kube-controller-manager gets ([`cidr::node_mask_flags`]) so new nodes get CIDRs of the same
/// size; `--node-ipam kube-controller-manager` or `--leader-migration` keeps IPAM in KCM
/// instead. Never both (P12).
///
/// Leader migration flags are passed for a CCM that implements KEP-2436; the upstream image
/// accepts and validates them but ignores them (migration.md 2.6, see `leader_migration`).
pub fn flags(o: &Options) -> Vec<String> {
    let routes = o.configure_cloud_routes;
    let ipam = o.allocates(NodeIpam::CloudControllerManager);
    let mut a = Args::new(Component::CloudControllerManager, o.version);
    a.flag("--allocate-node-cidrs", ipam.to_string())
        .flag("--cloud-config", cloud_config_path(o))
        .flag("--cloud-provider", "azure")
        .flag_if(routes, "--cluster-cidr", cidr::join(&o.cluster_cidrs))
        .flag("--cluster-name", &o.cluster_name)
        .flag("--configure-cloud-routes", routes.to_string())
        .flag("--controllers", "*,-cloud-node")
        .flag_if(o.leader_migration, "--enable-leader-migration", "true")
        .flag("--leader-elect", "true")
        .flag_if(
            o.leader_migration,
            "--leader-migration-config",
            paths::LEADER_MIGRATION,
        );
    if ipam {
        for (name, value) in cidr::node_mask_flags(&o.cluster_cidrs) {
            a.flag(name, value);
        }
    }
    a.flag_if(routes, "--route-reconciliation-period", "10s")
        .flag("--secure-port", SECURE_PORT.to_string())
        .flag_if(
            ipam,
            "--service-cluster-ip-range",
            cidr::join(&o.service_cidrs),
        )
        .flag("--v", "2");
    a.build()
}

fn mounts(o: &Options) -> Vec<Mount> {
    let mut m = Vec::new();
    if o.auth == AuthMode::WorkloadIdentity {
        m.push(Mount {
            volume: Volume {
                name: "cloud-config".to_string(),
                secret: Some(SecretVolumeSource {
                    secret_name: Some(paths::CLOUD_CONFIG_SECRET.to_string()),
                    items: Some(vec![KeyToPath {
                        key: paths::CLOUD_CONFIG_SECRET_KEY.to_string(),
                        path: paths::CCM_CLOUD_CONFIG_FILE.to_string(),
                        mode: None,
                    }]),
                    ..Default::default()
                }),
                ..Default::default()
            },
            mount: VolumeMount {
                name: "cloud-config".to_string(),
                mount_path: paths::CCM_CLOUD_CONFIG_DIR.to_string(),
                read_only: Some(true),
                ..Default::default()
            },
        });
        m.push(Mount {
            volume: Volume {
                name: "azure-identity-token".to_string(),
                projected: Some(ProjectedVolumeSource {
                    sources: Some(vec![VolumeProjection {
                        service_account_token: Some(ServiceAccountTokenProjection {
                            audience: Some(WORKLOAD_IDENTITY_AUDIENCE.to_string()),
                            expiration_seconds: Some(3600),
                            path: paths::WORKLOAD_IDENTITY_TOKEN_FILE.to_string(),
                        }),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }),
                ..Default::default()
            },
            mount: VolumeMount {
                name: "azure-identity-token".to_string(),
                mount_path: paths::WORKLOAD_IDENTITY_TOKEN_DIR.to_string(),
                read_only: Some(true),
                ..Default::default()
            },
        });
    } else {
        m.push(host_path("cloud-config", paths::AZURE_JSON, "File"));
    }
    if o.leader_migration {
        m.push(host_path(
            "leader-migration",
            paths::LEADER_MIGRATION,
            "File",
        ));
    }
    m
}

fn selector_labels() -> BTreeMap<String, String> {
    BTreeMap::from([("k8s-app".to_string(), NAME.to_string())])
}

/// The Deployment.
pub fn deployment(o: &Options) -> Deployment {
    let (volumes, volume_mounts) = pod::split(mounts(o));
    let mut command = vec![NAME.to_string()];
    command.extend(flags(o));
    let container = Container {
        name: NAME.to_string(),
        image: Some(super::cloud_provider_image(
            o,
            "azure-cloud-controller-manager",
        )),
        image_pull_policy: Some("IfNotPresent".to_string()),
        command: Some(command),
        ports: Some(vec![ContainerPort {
            name: Some("https".to_string()),
            container_port: SECURE_PORT,
            protocol: Some("TCP".to_string()),
            ..Default::default()
        }]),
        liveness_probe: Some(pod::https_probe(None, "/healthz", SECURE_PORT, 20, 3)),
        readiness_probe: Some(pod::https_probe(None, "/readyz", SECURE_PORT, 5, 3)),
        resources: Some(pod::resources("100m", "128Mi", "512Mi")),
        security_context: Some(pod::restricted_security_context()),
        volume_mounts: Some(volume_mounts),
        ..Default::default()
    };
    let spec = PodSpec {
        affinity: Some(Affinity {
            pod_anti_affinity: Some(PodAntiAffinity {
                required_during_scheduling_ignored_during_execution: Some(vec![PodAffinityTerm {
                    label_selector: Some(LabelSelector {
                        match_labels: Some(selector_labels()),
                        ..Default::default()
                    }),
                    topology_key: "kubernetes.io/hostname".to_string(),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
            ..Default::default()
        }),
        containers: vec![container],
        host_network: Some(true),
        node_selector: Some(BTreeMap::from([(
            labels::ROLE_CONTROL_PLANE.to_string(),
            String::new(),
        )])),
        priority_class_name: Some(pod::PRIORITY_CLASS.to_string()),
        service_account_name: Some(NAME.to_string()),
        tolerations: Some(vec![
            pod::tolerate(Some(taints::CONTROL_PLANE), Some("NoSchedule")),
            pod::tolerate(Some(taints::MASTER), Some("NoSchedule")),
            pod::tolerate(Some(taints::ETCD), Some("NoExecute")),
            pod::tolerate(Some(taints::UNINITIALIZED), Some("NoSchedule")),
            pod::tolerate(Some("node.kubernetes.io/not-ready"), Some("NoSchedule")),
            pod::tolerate(Some(taints::CRITICAL_ADDONS_ONLY), None),
        ]),
        volumes: Some(volumes),
        ..Default::default()
    };
    Deployment {
        metadata: pod::kube_system_meta(NAME, &[("k8s-app", NAME)]),
        spec: Some(DeploymentSpec {
            replicas: Some(i32::from(o.replicas)),
            selector: LabelSelector {
                match_labels: Some(selector_labels()),
                ..Default::default()
            },
            // Host network + one replica per node: a surge pod could never schedule.
            strategy: Some(DeploymentStrategy {
                type_: Some("RollingUpdate".to_string()),
                rolling_update: Some(RollingUpdateDeployment {
                    max_surge: Some(IntOrString::Int(0)),
                    max_unavailable: Some(IntOrString::Int(1)),
                }),
            }),
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(selector_labels()),
                    ..Default::default()
                }),
                spec: Some(spec),
            },
            ..Default::default()
        }),
        status: None,
    }
}

/// Lets node drains evict at most one replica at a time.
pub fn pod_disruption_budget() -> PodDisruptionBudget {
    PodDisruptionBudget {
        metadata: pod::kube_system_meta(NAME, &[("k8s-app", NAME)]),
        spec: Some(PodDisruptionBudgetSpec {
            max_unavailable: Some(IntOrString::Int(1)),
            selector: Some(LabelSelector {
                match_labels: Some(selector_labels()),
                ..Default::default()
            }),
            ..Default::default()
        }),
        status: None,
    }
}

/// All documents of `cloud-controller-manager.manifest`, rendered.
pub fn documents(o: &Options) -> Result<Vec<String>, RenderError> {
    let callers = rbac::ccm_callers(o);
    let lease_role_name = format!("azure:{NAME}:leases");
    let mut docs = ro::identity_documents(NAME, rbac::rules_for(&callers, Scope::Cluster))?;
    docs.push(to_yaml(
        "Role",
        &ro::role(
            &lease_role_name,
            NAME,
            rbac::rules_for(&callers, Scope::KubeSystem),
        ),
    )?);
    docs.push(to_yaml(
        "RoleBinding",
        &ro::role_binding(
            &lease_role_name,
            NAME,
            "Role",
            &lease_role_name,
            ro::sa_subject(NAME),
        ),
    )?);
    docs.extend(ro::delegated_auth_documents(NAME)?);
    docs.push(to_yaml("Deployment", &deployment(o))?);
    docs.push(to_yaml("PodDisruptionBudget", &pod_disruption_budget())?);
    Ok(docs)
}
