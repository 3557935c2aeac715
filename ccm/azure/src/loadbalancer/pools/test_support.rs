//! Config and Node builders for the pure tests of this module.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, NodeAddress, NodeSpec, NodeStatus, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};

use crate::config::{Config, Inputs, Origin, SourceText, load};

/// A config from azure.json text (resource group `rg`, plus `extra` members).
pub(super) fn config(extra: &str) -> Config {
    let origin = Origin::File("/etc/kubernetes/azure.json".into());
    let text = format!(
        r#"{{"tenantId": "t", "subscriptionId": "s", "aadClientId": "c", "aadClientSecret": "x",
             "resourceGroup": "RG", "location": "eastus" {extra}}}"#
    );
    load(&Inputs {
        file: Some(SourceText {
            origin: &origin,
            text: &text,
        }),
        secret: None,
        env: BTreeMap::new(),
    })
    .expect("valid azure.json")
    .config
}

/// A node with labels and InternalIP addresses.
pub(super) fn node(name: &str, labels: &[(&str, &str)], ips: &[&str]) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        },
        spec: Some(NodeSpec::default()),
        status: Some(NodeStatus {
            addresses: Some(
                std::iter::once(NodeAddress {
                    type_: "Hostname".into(),
                    address: name.to_string(),
                })
                .chain(ips.iter().map(|ip| NodeAddress {
                    type_: "InternalIP".into(),
                    address: ip.to_string(),
                }))
                .collect(),
            ),
            ..Default::default()
        }),
    }
}

/// `node` marked for deletion.
pub(super) fn deleting(mut node: Node) -> Node {
    node.metadata.deletion_timestamp = Some(Time(jiff_epoch()));
    node
}

fn jiff_epoch() -> k8s_openapi::jiff::Timestamp {
    k8s_openapi::jiff::Timestamp::UNIX_EPOCH
}

/// `node` with the cluster autoscaler's deletion taint.
pub(super) fn autoscaler_tainted(mut node: Node) -> Node {
    if let Some(spec) = node.spec.as_mut() {
        spec.taints = Some(vec![Taint {
            key: super::eligibility::TO_BE_DELETED_TAINT.into(),
            effect: "NoSchedule".into(),
            ..Default::default()
        }]);
    }
    node
}
