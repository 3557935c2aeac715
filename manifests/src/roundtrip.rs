//! Proof that generated files are what they claim to be: every document is decoded into its
//! typed Kubernetes (or config) struct, encoded again, and must equal the original JSON, so an
//! unknown or misspelled field — which typed decoders drop silently — is caught.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
use k8s_openapi::api::core::v1::{Pod, Secret, ServiceAccount};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};

use crate::generate::cloud_config::CloudConfig;
use crate::generate::kubelet::{CredentialProviderConfig, KubeletConfiguration};
use crate::generate::leader_migration::LeaderMigrationConfiguration;
use crate::generate::{Bundle, FileKind, GeneratedFile};

/// A file failed the check.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {reason}")]
pub struct RoundTripError {
    /// File name.
    pub file: String,
    /// What differed or failed.
    pub reason: String,
}

fn typed<T: DeserializeOwned + Serialize>(doc: &Value) -> Result<(), String> {
    let decoded: T =
        serde_json::from_value(doc.clone()).map_err(|e| format!("does not decode: {e}"))?;
    let again = serde_json::to_value(&decoded).map_err(|e| format!("does not encode: {e}"))?;
    if &again == doc {
        Ok(())
    } else {
        Err(format!(
            "fields lost in a typed round trip (unknown or misspelled):\noriginal: {doc}\ntyped:    {again}"
        ))
    }
}

fn object(doc: &Value) -> Result<(), String> {
    match doc.get("kind").and_then(Value::as_str) {
        Some("Pod") => typed::<Pod>(doc),
        Some("Deployment") => typed::<Deployment>(doc),
        Some("DaemonSet") => typed::<DaemonSet>(doc),
        Some("ServiceAccount") => typed::<ServiceAccount>(doc),
        Some("Secret") => typed::<Secret>(doc),
        Some("ClusterRole") => typed::<ClusterRole>(doc),
        Some("ClusterRoleBinding") => typed::<ClusterRoleBinding>(doc),
        Some("Role") => typed::<Role>(doc),
        Some("RoleBinding") => typed::<RoleBinding>(doc),
        Some("PodDisruptionBudget") => typed::<PodDisruptionBudget>(doc),
        other => Err(format!("unexpected kind {other:?}")),
    }
}

/// Kinds of every YAML document in a file, in order.
pub fn kinds(f: &GeneratedFile) -> Result<Vec<String>, RoundTripError> {
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&f.contents).map_err(|e| RoundTripError {
            file: f.name.clone(),
            reason: format!("not YAML: {e}"),
        })?;
    Ok(docs
        .iter()
        .map(|d| {
            d.get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect())
}

/// Checks one file according to its kind.
pub fn check_file(f: &GeneratedFile) -> Result<(), RoundTripError> {
    let fail = |reason: String| RoundTripError {
        file: f.name.clone(),
        reason,
    };
    let yaml_docs = || -> Result<Vec<Value>, RoundTripError> {
        serde_saphyr::from_multiple(&f.contents).map_err(|e| fail(format!("not YAML: {e}")))
    };
    match f.kind {
        FileKind::StaticPod => {
            let docs = yaml_docs()?;
            match docs.as_slice() {
                [doc] if doc.get("kind").and_then(Value::as_str) == Some("Pod") => {
                    typed::<Pod>(doc).map_err(fail)
                }
                _ => Err(fail(
                    "a static-pod manifest must hold exactly one Pod".to_string(),
                )),
            }
        }
        FileKind::Objects => yaml_docs()?
            .iter()
            .try_for_each(|d| object(d).map_err(fail)),
        FileKind::KubeletConfiguration => single::<KubeletConfiguration>(f, yaml_docs()?),
        FileKind::CredentialProviderConfig => single::<CredentialProviderConfig>(f, yaml_docs()?),
        FileKind::LeaderMigrationConfiguration => {
            single::<LeaderMigrationConfiguration>(f, yaml_docs()?)
        }
        FileKind::CloudConfig => {
            let doc: Value =
                serde_json::from_str(&f.contents).map_err(|e| fail(format!("not JSON: {e}")))?;
            typed::<CloudConfig>(&doc).map_err(fail)
        }
        FileKind::KubeletFlags | FileKind::Markdown => Ok(()),
    }
}

fn single<T: DeserializeOwned + Serialize>(
    f: &GeneratedFile,
    docs: Vec<Value>,
) -> Result<(), RoundTripError> {
    match docs.as_slice() {
        [doc] => typed::<T>(doc).map_err(|reason| RoundTripError {
            file: f.name.clone(),
            reason,
        }),
        _ => Err(RoundTripError {
            file: f.name.clone(),
            reason: "expected exactly one document".to_string(),
        }),
    }
}

/// Checks every file of a bundle.
pub fn check_bundle(b: &Bundle) -> Result<(), RoundTripError> {
    b.files.iter().try_for_each(check_file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelled_field_is_caught() {
        let f = GeneratedFile {
            name: "x".to_string(),
            kind: FileKind::StaticPod,
            contents: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  hostNetwrk: true\n  containers:\n  - name: x\n".to_string(),
        };
        let err = check_file(&f).unwrap_err();
        assert!(err.reason.contains("round trip"), "{err}");
        let ok = GeneratedFile {
            contents: f.contents.replace("hostNetwrk", "hostNetwork"),
            ..f
        };
        check_file(&ok).unwrap();
    }

    #[test]
    fn unknown_config_field_is_caught() {
        let f = GeneratedFile {
            name: "lm".to_string(),
            kind: FileKind::LeaderMigrationConfiguration,
            contents: "apiVersion: controllermanager.config.k8s.io/v1\nkind: LeaderMigrationConfiguration\nleaderName: x\nresourceLock: leases\ncontrollerLeaders: []\n".to_string(),
        };
        assert!(check_file(&f).is_err());
    }
}
