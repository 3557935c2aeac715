//! Taking a snapshot: one list per Kubernetes kind, the fake's `/admin/state` and its journal.

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, Node, Service};
use kube::Api;
use kube::api::ListParams;

use super::Snapshot;
use super::arm::ArmResources;
use super::kube::{EventState, LeaseState, NodeState, ServiceState};
use crate::cluster::{AdminError, FakeAdmin};
use crate::record::now_ms;
use azure_fakes::journal::JournalEntry;

/// A snapshot could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// A Kubernetes list failed.
    #[error("snapshot {label}: listing {kind}: {source}")]
    Kube {
        /// Snapshot label.
        label: String,
        /// What was listed.
        kind: &'static str,
        /// The client error.
        source: kube::Error,
    },
    /// The fake's admin API failed.
    #[error("snapshot {label}: {source}")]
    Admin {
        /// Snapshot label.
        label: String,
        /// The admin error.
        source: AdminError,
    },
    /// The journal export was not the fake's shape.
    #[error("snapshot {label}: the fake's journal is not a list of entries: {message}")]
    Journal {
        /// Snapshot label.
        label: String,
        /// The parse error.
        message: String,
    },
}

/// Captures the cluster's Nodes, LoadBalancer Services, Events, kube-system Leases, the fake's ARM
/// state and journal under `label`.
pub async fn capture(
    client: &kube::Client,
    admin: &FakeAdmin,
    label: &str,
) -> Result<Snapshot, SnapshotError> {
    let taken_ms = now_ms();
    let kube_error = |kind: &'static str| {
        let label = label.to_owned();
        move |source| SnapshotError::Kube {
            label,
            kind,
            source,
        }
    };
    let params = ListParams::default();
    let nodes = Api::<Node>::all(client.clone())
        .list(&params)
        .await
        .map_err(kube_error("nodes"))?;
    let services = Api::<Service>::all(client.clone())
        .list(&params)
        .await
        .map_err(kube_error("services"))?;
    let events = Api::<Event>::all(client.clone())
        .list(&params)
        .await
        .map_err(kube_error("events"))?;
    let leases = Api::<Lease>::namespaced(client.clone(), ccm_names::leases::NAMESPACE)
        .list(&params)
        .await
        .map_err(kube_error("leases"))?;
    let admin_error = |source| SnapshotError::Admin {
        label: label.to_owned(),
        source,
    };
    let state = admin.state().await.map_err(admin_error)?;
    let journal = admin.journal().await.map_err(admin_error)?;
    let journal = journal_entries(&journal).map_err(|message| SnapshotError::Journal {
        label: label.to_owned(),
        message,
    })?;
    let mut snapshot = Snapshot {
        label: label.to_owned(),
        taken_ms,
        nodes: nodes.items.iter().map(NodeState::from_api).collect(),
        services: services
            .items
            .iter()
            .filter_map(ServiceState::from_api)
            .collect(),
        events: events.items.iter().map(EventState::from_api).collect(),
        leases: leases.items.iter().map(LeaseState::from_api).collect(),
        arm: ArmResources::from_admin_state(&state),
        journal,
    };
    snapshot.sort();
    Ok(snapshot)
}

/// The entries of a `GET /admin/journal` answer.
pub(crate) fn journal_entries(export: &serde_json::Value) -> Result<Vec<JournalEntry>, String> {
    let entries = export
        .get("entries")
        .cloned()
        .unwrap_or(serde_json::Value::Array(Vec::new()));
    serde_json::from_value(entries).map_err(|e| e.to_string())
}
