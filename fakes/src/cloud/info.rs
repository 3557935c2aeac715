//! The document `GET /admin/info` and [`super::FakeCloud::info`] answer: endpoints, ids, the CA
//! path, and one IMDS entry per node ARM currently holds (not the topology's list, which a restore
//! or node churn makes stale).

use std::path::Path;

use fake_arm::ArmState;
use serde_json::{Value, json};

use super::inventory::current_nodes;
use crate::imds;

/// The fixed part of the info document plus what is needed to list the current nodes.
#[derive(Debug, Clone)]
pub struct InfoDocument {
    base: String,
    subscription: String,
    fixed: Value,
}

impl InfoDocument {
    /// Endpoints of the cloud served at `base` (`https://host:port`).
    pub fn new(base: &str, ca: &Path, tenant: &str, subscription: &str, location: &str) -> Self {
        Self {
            base: base.to_string(),
            subscription: subscription.to_string(),
            fixed: json!({
                "arm": format!("{base}/"),
                "authorityHost": format!("{base}/"),
                "token": format!("{base}/{tenant}/oauth2/v2.0/token"),
                "metadata": format!("{base}/metadata/endpoints?api-version=2019-05-01"),
                "admin": format!("{base}/admin/"),
                "caPath": ca,
                "tenantId": tenant,
                "subscriptionId": subscription,
                "location": location,
            }),
        }
    }

    /// The document with `imds` listing every node in `arm` now (empty if ARM cannot be read,
    /// with the reason under `imdsError`).
    pub fn render(&self, arm: &ArmState) -> Value {
        let mut doc = self.fixed.clone();
        let (entries, error) = match current_nodes(arm, &self.subscription) {
            Ok(nodes) => (
                nodes
                    .iter()
                    .map(|n| {
                        json!({
                            "node": n.node_name,
                            "url": format!("{}{}", self.base, imds::vm_base_path(&n.node_name)),
                            "resourceId": n.resource_id,
                            "providerId": n.provider_id,
                        })
                    })
                    .collect(),
                None,
            ),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        doc["imds"] = Value::Array(entries);
        if let Some(error) = error {
            doc["imdsError"] = Value::String(error);
        }
        doc
    }
}
