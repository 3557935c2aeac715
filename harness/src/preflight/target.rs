//! What the target manifests directory (`harness manifests generate --mode out-of-tree` output, or
//! the operator's own) says about the switch: the CCM's and kube-controller-manager's flags that
//! preflight checks, and the target azure.json laid over the live one.
//!
//! The generated azure.json is a template: values written `<like-this>` are placeholders and the
//! identity keys (cloud, tenant, subscription, credentials) describe the nodes' managed identity,
//! which a laptop cannot use. So the target config is the live `--cloud-config` (with its
//! credentials) with every non-placeholder, non-identity key of the target azure.json laid over
//! it: `vmType`, `resourceGroup`, `loadBalancerSku` and the other cluster-shape keys are the
//! target's.
//! - [infer] a cluster-shape key that is absent from the target azure.json keeps its live value
//!   (the operator deploys the same file with only the keys they changed).

use std::path::{Path, PathBuf};

use ccm_manifests::component::Component;
use ccm_manifests::lint::{Invocation, extract};
use serde_json::{Map, Value};

/// Keys of azure.json that say who the CCM is, not what the cluster looks like.
pub const IDENTITY_KEYS: &[&str] = &[
    "cloud",
    "resourceManagerEndpoint",
    "environmentFilePath",
    "tenantId",
    "subscriptionId",
    "networkResourceTenantID",
    "networkResourceSubscriptionID",
    "identitySystem",
    "aadClientId",
    "aadClientSecret",
    "aadClientCertPath",
    "aadClientCertPassword",
    "useManagedIdentityExtension",
    "userAssignedIdentityID",
    "aadFederatedTokenFile",
    "useFederatedWorkloadIdentityExtension",
    "disableAzureStackCloud",
    "userAgent",
];

/// The flags of one controller-manager of the target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManagerFlags {
    /// File and object it was found in.
    pub location: String,
    /// `--cluster-name` (absent: the binary's default).
    pub cluster_name: Option<String>,
    /// `--allocate-node-cidrs`.
    pub allocate_node_cidrs: bool,
    /// `--configure-cloud-routes` (absent: `None`, the binary's default).
    pub configure_cloud_routes: Option<bool>,
    /// `--enable-leader-migration`.
    pub leader_migration: bool,
    /// `--leader-migration-config`.
    pub leader_migration_config: Option<String>,
    /// `--leader-elect` (absent: true).
    pub leader_elect: bool,
    /// `--cloud-provider`.
    pub cloud_provider: Option<String>,
}

impl ManagerFlags {
    /// The flags of one command line found in `file`.
    pub fn from_invocation(file: &Path, inv: &Invocation) -> Self {
        let value = |flag: &str| inv.get(flag).flatten().map(str::to_owned);
        Self {
            location: format!("{}: {}", file.display(), inv.location),
            cluster_name: value("--cluster-name"),
            allocate_node_cidrs: inv.bool("--allocate-node-cidrs").unwrap_or(false),
            configure_cloud_routes: inv.bool("--configure-cloud-routes"),
            leader_migration: inv.bool("--enable-leader-migration").unwrap_or(false),
            leader_migration_config: value("--leader-migration-config"),
            leader_elect: inv.bool("--leader-elect").unwrap_or(true),
            cloud_provider: value("--cloud-provider"),
        }
    }
}

/// The target manifests, as preflight reads them.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// The directory.
    pub dir: PathBuf,
    /// Every cloud-controller-manager command line.
    pub ccm: Vec<ManagerFlags>,
    /// Every kube-controller-manager command line.
    pub kcm: Vec<ManagerFlags>,
    /// The target azure.json (`azure.json` in the directory), parsed.
    pub azure_json: Option<Value>,
    /// A `LeaderMigrationConfiguration` file is in the directory.
    pub has_migration_config: bool,
    /// Files lint and the flag reader could not understand (`file: reason`).
    pub unreadable: Vec<String>,
    /// Manifest files (everything but JSON), for the lint.
    pub manifest_files: Vec<PathBuf>,
}

/// The CCM's default `--cluster-name` (k8s.io/cloud-provider options, migration.md P1).
pub const DEFAULT_CLUSTER_NAME: &str = "kubernetes";

impl Target {
    /// The `--cluster-name` the CCM will run with.
    pub fn ccm_cluster_name(&self) -> &str {
        self.ccm
            .iter()
            .find_map(|c| c.cluster_name.as_deref())
            .unwrap_or(DEFAULT_CLUSTER_NAME)
    }

    /// Reads `(file, text)` pairs of a directory (pure: the caller read them).
    pub fn from_files(dir: &Path, files: &[(PathBuf, String)]) -> Target {
        let mut target = Target {
            dir: dir.to_path_buf(),
            ..Default::default()
        };
        for (path, text) in files {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.ends_with(".json") {
                if name == "azure.json" {
                    match serde_json::from_str(text) {
                        Ok(v) => target.azure_json = Some(v),
                        Err(e) => target.unreadable.push(format!("{}: {e}", path.display())),
                    }
                }
                continue;
            }
            target.manifest_files.push(path.clone());
            if text.contains("kind: LeaderMigrationConfiguration") {
                target.has_migration_config = true;
                continue;
            }
            match extract(path, text) {
                Ok(invocations) => {
                    for inv in &invocations {
                        match inv.component {
                            Component::CloudControllerManager => {
                                target.ccm.push(ManagerFlags::from_invocation(path, inv))
                            }
                            Component::KubeControllerManager => {
                                target.kcm.push(ManagerFlags::from_invocation(path, inv))
                            }
                            _ => {}
                        }
                    }
                }
                Err(e) => target.unreadable.push(e.to_string()),
            }
        }
        target
    }
}

/// The kube-controller-manager command lines of live Pods (the mirror Pods of static-pod control
/// planes in kube-system), each given as `(name, Pod JSON)`.
pub fn live_kcm(pods: &[(String, String)]) -> Vec<ManagerFlags> {
    let mut out = Vec::new();
    for (name, json) in pods {
        let label = Path::new(name);
        if let Ok(invocations) = extract(label, json) {
            out.extend(
                invocations
                    .iter()
                    .filter(|i| i.component == Component::KubeControllerManager)
                    .map(|i| ManagerFlags::from_invocation(label, i)),
            );
        }
    }
    out
}

/// True for a template placeholder such as `<node-resource-group>`.
pub fn is_placeholder(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| s.starts_with('<') && s.ends_with('>'))
}

/// The live azure.json with the target's cluster-shape keys laid over it (see the module doc).
pub fn overlay(live: &Value, target: &Value) -> Value {
    let mut merged: Map<String, Value> = live.as_object().cloned().unwrap_or_default();
    if let Some(target) = target.as_object() {
        for (key, value) in target {
            if IDENTITY_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)) || is_placeholder(value) {
                continue;
            }
            merged.insert(key.clone(), value.clone());
        }
    }
    Value::Object(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn overlay_keeps_live_identity_and_skips_placeholders() {
        let live = json!({"cloud": "AzureStackCloud", "aadClientId": "app", "aadClientSecret": "s3",
                          "resourceGroup": "rg", "vmType": "vmss", "location": "eastus"});
        let target = json!({"cloud": "AzurePublicCloud", "useManagedIdentityExtension": true,
                            "resourceGroup": "<node-resource-group>", "vmType": "standard",
                            "loadBalancerSku": "standard"});
        let merged = overlay(&live, &target);
        assert_eq!(
            merged,
            json!({"cloud": "AzureStackCloud", "aadClientId": "app", "aadClientSecret": "s3",
                   "resourceGroup": "rg", "vmType": "standard", "location": "eastus",
                   "loadBalancerSku": "standard"})
        );
    }

    #[test]
    fn reads_the_ccm_and_kcm_flags_of_generated_manifests() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifests/examples/out-of-tree");
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("examples") {
            let path = entry.expect("entry").path();
            let text = std::fs::read_to_string(&path).expect("read");
            files.push((path, text));
        }
        files.sort();
        let target = Target::from_files(&dir, &files);
        assert_eq!(target.ccm_cluster_name(), "k8s");
        assert_eq!(target.ccm.len(), 1, "{:?}", target.ccm);
        assert_eq!(target.kcm.len(), 1, "{:?}", target.kcm);
        assert!(!target.ccm[0].allocate_node_cidrs);
        assert!(!target.kcm[0].allocate_node_cidrs);
        assert_eq!(
            target.azure_json.as_ref().expect("azure.json")["vmType"],
            "vmss"
        );
        assert!(target.unreadable.is_empty(), "{:?}", target.unreadable);
    }
}
