//! The Lease lock: get, create and compare-and-swap update of the leader record.

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{ObjectMeta, PostParams};
use kube::{Api, Client};

use super::record::LeaderRecord;

/// One `coordination.k8s.io/v1` Lease, remembering the last version seen so updates are
/// optimistic on `metadata.resourceVersion` (a concurrent writer makes ours fail with 409).
pub struct LeaseLock {
    api: Api<Lease>,
    name: String,
    last: Option<Lease>,
}

impl LeaseLock {
    /// A lock on `namespace/name`.
    pub fn new(client: Client, namespace: &str, name: &str) -> Self {
        LeaseLock {
            api: Api::namespaced(client, namespace),
            name: name.to_string(),
            last: None,
        }
    }

    /// Reads the record; `Ok(None)` when the Lease does not exist yet.
    pub async fn get(&mut self) -> Result<Option<LeaderRecord>, kube::Error> {
        let lease = self.api.get_opt(&self.name).await?;
        let record = lease.as_ref().map(LeaderRecord::from_lease);
        if lease.is_some() {
            self.last = lease;
        }
        Ok(record)
    }

    /// Creates the Lease holding `record` (fails with 409 if someone else created it first).
    pub async fn create(&mut self, record: &LeaderRecord) -> Result<(), kube::Error> {
        let mut lease = Lease {
            metadata: ObjectMeta {
                name: Some(self.name.clone()),
                ..ObjectMeta::default()
            },
            spec: None,
        };
        record.apply_to(&mut lease);
        let created = self.api.create(&PostParams::default(), &lease).await?;
        self.last = Some(created);
        Ok(())
    }

    /// Replaces the record on top of the last version seen; 409 when it changed meanwhile.
    pub async fn update(&mut self, record: &LeaderRecord) -> Result<(), LockError> {
        let mut lease = self.last.clone().ok_or(LockError::NotObserved)?;
        record.apply_to(&mut lease);
        let updated = self
            .api
            .replace(&self.name, &PostParams::default(), &lease)
            .await?;
        self.last = Some(updated);
        Ok(())
    }

    /// `namespace/name`, for logs.
    pub fn describe(&self) -> String {
        format!(
            "{}/{}",
            self.last
                .as_ref()
                .and_then(|l| l.metadata.namespace.clone())
                .unwrap_or_default(),
            self.name
        )
    }
}

/// Why an update of the lock failed.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Update before any get or create: there is no resourceVersion to update on.
    #[error("lease not read yet")]
    NotObserved,
    /// The API server refused or could not be reached.
    #[error(transparent)]
    Api(#[from] kube::Error),
}
