//! Read-modify-write of one ARM resource through a [`TtlCache`]: the read is served from the cache,
//! the PUT carries the ETag of what was read as `If-Match`, and a 412 (someone wrote the resource
//! since it was cached) invalidates the entry and retries once from a fresh read. A stale cache
//! therefore never overwrites another writer's change and never fails the caller's reconcile; an
//! edit that changes nothing sends nothing (upstream's "no update when unchanged").

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::calls::Target;
use super::client::ArmClient;
use super::error::ArmError;
use super::resources::envelope::Resource;
use crate::cache::{ReadMode, TtlCache};

/// What [`update`] did, so callers (and their metrics) can tell a no-op from a write.
#[derive(Debug, Clone, PartialEq)]
pub enum Updated<P> {
    /// The edit changed nothing: no write was sent; the (cached or fresh) resource as read.
    Unchanged(Resource<P>),
    /// The resource as the successful PUT left it (also stored in the cache).
    Written(Resource<P>),
}

impl<P> Updated<P> {
    /// The resource after the call, written or not.
    pub fn resource(&self) -> &Resource<P> {
        match self {
            Updated::Unchanged(r) | Updated::Written(r) => r,
        }
    }
}

/// Reads `target` through `cache` (key: the lower-cased resource path), applies `edit` and PUTs
/// the result with `If-Match`; on a 412 the cache entry is dropped and the read, edit and PUT run
/// once more on a fresh copy. Any other error also drops the entry (the next reader re-reads).
pub async fn update<P, F>(
    client: &ArmClient,
    cache: &TtlCache<String, Resource<P>>,
    target: Target<'_>,
    mut edit: F,
) -> Result<Updated<P>, ArmError>
where
    P: Serialize + DeserializeOwned + Clone + PartialEq,
    F: FnMut(&mut Resource<P>),
{
    let key = target.path.to_ascii_lowercase();
    let mut mode = ReadMode::Default;
    loop {
        let current = cache
            .get(&key, mode, || client.get::<Resource<P>>(target))
            .await?;
        let mut desired = current.clone();
        edit(&mut desired);
        if desired == current {
            return Ok(Updated::Unchanged(current));
        }
        match client
            .put::<_, Resource<P>>(target, &desired, current.etag.as_deref())
            .await
        {
            Ok(written) => {
                cache.insert(key, written.clone());
                return Ok(Updated::Written(written));
            }
            Err(e) if e.is_precondition_failed() && mode == ReadMode::Default => {
                tracing::debug!(resource = %target.path, "stale ETag: re-reading before one more PUT");
                cache.invalidate(&key);
                mode = ReadMode::ForceRefresh;
            }
            Err(e) => {
                cache.invalidate(&key);
                return Err(e);
            }
        }
    }
}
