//! The files the managers read, under `<artifacts>/switch/`: the CCM's azure.json (a copy of the
//! cluster's, with the plan's `azureJson` keys merged over it, so a scenario can break only the
//! CCM's cloud config) and the LeaderMigrationConfiguration of each side.

use std::path::Path;

use serde_json::Value;

use super::error::SwitchError;
use super::flags::{LocalFiles, migration_flag};
use super::migration;
use crate::cluster::{ClusterProvider, Component, EmbeddedCluster};
use crate::scenario::ScenarioPlan;

/// Writes the deployment's files and returns every path the managers read.
pub fn prepare(cluster: &EmbeddedCluster, plan: &ScenarioPlan) -> Result<LocalFiles, SwitchError> {
    let dir = cluster.artifacts().join("switch");
    let io = |what, path: &Path| {
        let path = path.to_path_buf();
        move |source| SwitchError::Io { what, path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io("creating", &dir))?;
    let json = |component: Component| {
        cluster
            .azure_json(component)
            .map(Path::to_path_buf)
            .ok_or_else(|| {
                SwitchError::State(format!("the cluster wrote no azure.json for {component}"))
            })
    };
    let cluster_ccm = json(Component::CloudControllerManager)?;
    let text = std::fs::read_to_string(&cluster_ccm).map_err(io("reading", &cluster_ccm))?;
    let mut doc: Value = serde_json::from_str(&text).map_err(|e| SwitchError::Io {
        what: "parsing",
        path: cluster_ccm.clone(),
        source: std::io::Error::other(e),
    })?;
    merge(&mut doc, &plan.switch.azure_json);
    let files = LocalFiles {
        kubeconfig: cluster.kubeconfig().to_path_buf(),
        in_tree_json: json(Component::InTree)?,
        ccm_json: dir.join("cloud-controller-manager.json"),
        cnm_json: json(Component::CloudNodeManager)?,
        kcm_migration: dir.join("leader-migration-kube-controller-manager.yaml"),
        ccm_migration: dir.join("leader-migration-cloud-controller-manager.yaml"),
    };
    let rendered = serde_json::to_string_pretty(&doc).unwrap_or(text);
    std::fs::write(&files.ccm_json, rendered).map_err(io("writing", &files.ccm_json))?;
    if migration_flag(plan) {
        for (path, component) in [
            (&files.kcm_migration, "kube-controller-manager"),
            (&files.ccm_migration, "cloud-controller-manager"),
        ] {
            let text = migration::document(plan, component)?;
            std::fs::write(path, text).map_err(io("writing", path))?;
        }
    }
    Ok(files)
}

/// `overrides` keys set over `doc`'s (top level, as azure.json is flat).
fn merge(doc: &mut Value, overrides: &std::collections::BTreeMap<String, Value>) {
    if let Some(map) = doc.as_object_mut() {
        for (key, value) in overrides {
            map.insert(key.clone(), value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_and_add_keys() {
        let mut doc = serde_json::json!({"vmType": "vmss", "resourceGroup": "rg"});
        merge(
            &mut doc,
            &[
                ("resourceGroup".to_string(), Value::from("wrong-rg")),
                ("loadBalancerSku".to_string(), Value::from("basic")),
            ]
            .into_iter()
            .collect(),
        );
        assert_eq!(
            doc,
            serde_json::json!({"vmType": "vmss", "resourceGroup": "wrong-rg", "loadBalancerSku": "basic"})
        );
    }
}
