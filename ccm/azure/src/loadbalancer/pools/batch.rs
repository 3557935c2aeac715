//! PUTs run a batch at a time: every write of a batch is in flight together, and the next batch
//! starts when the whole batch has answered (upstream's `putVMSSVMBatchSize` semantics).

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::task::JoinSet;

use crate::arm::{ArmClient, ArmError, ClientKind, Target};

use super::error::PoolError;

/// A request body serialized when its PUT is queued: the queued writes of a large first sync (one
/// per scale-set instance) hold their JSON text, not decoded documents several times its size.
/// The bytes sent are the ones serializing the document would send.
pub type Body = Box<serde_json::value::RawValue>;

/// `document` as the [`Body`] of a PUT.
pub fn body<B: Serialize>(document: &B) -> Result<Body, serde_json::Error> {
    serde_json::value::to_raw_value(document)
}

/// One PUT: where, what, the ETag read with it, and what the caller needs back with the answer.
pub struct Put<B, C> {
    /// Full ARM id of the resource.
    pub path: String,
    /// Request body.
    pub body: B,
    /// `If-Match` value (the ETag of the document the edit started from).
    pub etag: Option<String>,
    /// Caller context returned with the answer (e.g. the cached document to patch).
    pub context: C,
}

/// Sends `puts` `batch` at a time (at least one) and returns each answer with its context; a
/// failed PUT becomes an error and does not stop the others; a task that ended without an
/// answer is added to `lost`.
pub async fn run<B, T, C>(
    arm: &ArmClient,
    client: ClientKind,
    api_version: &'static str,
    puts: Vec<Put<B, C>>,
    batch: usize,
    lost: &mut Vec<PoolError>,
) -> Vec<(C, Result<T, PoolError>)>
where
    B: Serialize + Send + Sync + 'static,
    T: DeserializeOwned + Send + 'static,
    C: Send + 'static,
{
    let batch = batch.max(1);
    let mut answers = Vec::with_capacity(puts.len());
    let mut pending = puts.into_iter().peekable();
    while pending.peek().is_some() {
        let mut set = JoinSet::new();
        for put in pending.by_ref().take(batch) {
            let arm = arm.clone();
            set.spawn(async move {
                let target = Target::new(client, &put.path, api_version);
                let answer: Result<T, ArmError> =
                    arm.put(target, &put.body, put.etag.as_deref()).await;
                (put.context, answer.map_err(PoolError::from))
            });
        }
        while let Some(joined) = set.join_next().await {
            match joined {
                Ok(answer) => answers.push(answer),
                Err(e) => lost.push(PoolError::Task(e.to_string())),
            }
        }
    }
    answers
}
