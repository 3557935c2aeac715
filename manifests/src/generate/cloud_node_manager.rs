//! cloud-node-manager: ServiceAccount, RBAC and the Linux DaemonSet that initialises each Node
//! from IMDS (so node bring-up costs no ARM reads).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{
    DaemonSet, DaemonSetSpec, DaemonSetUpdateStrategy, RollingUpdateDaemonSet,
};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use azure_ccm::names::{labels, taints};

use super::args::Args;
use super::pod;
use super::rbac::{self, Scope};
use super::rbac_objects as ro;
use super::yaml::{RenderError, to_yaml};
use crate::component::Component;
use crate::options::Options;

/// Name of every CNM object.
pub const NAME: &str = "cloud-node-manager";
/// Secure port for `/healthz`. The CNM's `--secure-port` defaults to 0, which starts no HTTP
/// server at all (anchor-ccm.md 1.4 and 8: "CNM: only when --secure-port != 0: /healthz"), so the
/// flag must be set for the probes to have a target; 10263 is the port the anchor reserves for
/// the CNM (an unused constant in its code), clear of KCM 10257, CCM 10258 and scheduler 10259.
pub const SECURE_PORT: i32 = 10263;

/// CNM flags.
pub fn flags(o: &Options) -> Vec<String> {
    let mut a = Args::new(Component::CloudNodeManager, o.version);
    a.flag("--node-name", "$(NODE_NAME)")
        .flag("--secure-port", SECURE_PORT.to_string())
        .flag("--use-instance-metadata", "true")
        .flag("--v", "2")
        .flag("--wait-routes", o.configure_cloud_routes.to_string());
    a.build()
}

/// The DaemonSet.
pub fn daemon_set(o: &Options) -> DaemonSet {
    let selector = BTreeMap::from([("k8s-app".to_string(), NAME.to_string())]);
    let mut command = vec![NAME.to_string()];
    command.extend(flags(o));
    let container = Container {
        name: NAME.to_string(),
        image: Some(super::cloud_provider_image(o, "azure-cloud-node-manager")),
        image_pull_policy: Some("IfNotPresent".to_string()),
        command: Some(command),
        env: Some(vec![pod::node_name_env()]),
        liveness_probe: Some(pod::https_probe(None, "/healthz", SECURE_PORT, 20, 3)),
        readiness_probe: Some(pod::https_probe(None, "/healthz", SECURE_PORT, 5, 3)),
        resources: Some(pod::resources("50m", "50Mi", "512Mi")),
        security_context: Some(pod::restricted_security_context()),
        ..Default::default()
    };
    DaemonSet {
        metadata: pod::kube_system_meta(NAME, &[("k8s-app", NAME)]),
        spec: Some(DaemonSetSpec {
            selector: LabelSelector {
                match_labels: Some(selector.clone()),
                ..Default::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(selector),
                    annotations: Some(BTreeMap::from([(
                        "cluster-autoscaler.kubernetes.io/daemonset-pod".to_string(),
                        "true".to_string(),
                    )])),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![container],
                    host_network: Some(true),
                    node_selector: Some(BTreeMap::from([(
                        labels::OS.to_string(),
                        "linux".to_string(),
                    )])),
                    priority_class_name: Some(pod::PRIORITY_CLASS.to_string()),
                    service_account_name: Some(NAME.to_string()),
                    // Must run on every node, including tainted and uninitialised ones.
                    tolerations: Some(vec![
                        pod::tolerate(Some(taints::CRITICAL_ADDONS_ONLY), None),
                        pod::tolerate(None, Some("NoSchedule")),
                        pod::tolerate(None, Some("NoExecute")),
                    ]),
                    ..Default::default()
                }),
            },
            update_strategy: Some(DaemonSetUpdateStrategy {
                type_: Some("RollingUpdate".to_string()),
                rolling_update: Some(RollingUpdateDaemonSet {
                    max_unavailable: Some(IntOrString::Int(1)),
                    ..Default::default()
                }),
            }),
            ..Default::default()
        }),
        status: None,
    }
}

/// All documents of `cloud-node-manager.manifest`, rendered.
pub fn documents(o: &Options) -> Result<Vec<String>, RenderError> {
    let mut docs =
        ro::identity_documents(NAME, rbac::rules_for(rbac::CNM_CALLERS, Scope::Cluster))?;
    docs.extend(ro::delegated_auth_documents(NAME)?);
    docs.push(to_yaml("DaemonSet", &daemon_set(o))?);
    Ok(docs)
}
