//! Waiting for the facts a procedure step needs before the next one (Nodes Ready and
//! initialised, a Lease held by one of some identities), polling the API server and failing
//! fast, with the log tail, when a process it depends on dies.

use std::future::Future;
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::ListParams;

use super::error::SwitchError;
use crate::intree::kubelet::is_ready;

/// Poll period.
const POLL: Duration = Duration::from_millis(200);
/// Default wait for a fact.
pub const DEADLINE: Duration = Duration::from_secs(90);

/// Polls `probe` until it answers `Some`, `alive` fails, or `deadline` passes.
pub async fn until<T, F, Fut>(
    what: &str,
    deadline: Duration,
    alive: impl Fn() -> Result<(), String>,
    mut probe: F,
) -> Result<T, SwitchError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>, String>>,
{
    let start = Instant::now();
    let mut last = String::from("nothing observed yet");
    loop {
        alive().map_err(|reason| SwitchError::Timeout {
            what: what.to_owned(),
            reason,
        })?;
        match probe().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(e) => last = e,
        }
        if start.elapsed() >= deadline {
            return Err(SwitchError::Timeout {
                what: what.to_owned(),
                reason: format!("not within {deadline:?}; last: {last}"),
            });
        }
        tokio::time::sleep(POLL).await;
    }
}

/// `Ok(None)` until every node of `names` exists, is Ready and has a providerID; the error
/// names the nodes still missing.
pub async fn nodes_initialised(
    client: &kube::Client,
    names: &[String],
) -> Result<Option<()>, String> {
    let nodes: Api<Node> = Api::all(client.clone());
    let list = nodes
        .list(&ListParams::default())
        .await
        .map_err(|e| format!("listing Nodes: {e}"))?;
    let missing: Vec<&str> = names
        .iter()
        .filter(|name| {
            !list.items.iter().any(|n| {
                n.metadata.name.as_deref() == Some(name.as_str())
                    && is_ready(n)
                    && n.spec
                        .as_ref()
                        .and_then(|s| s.provider_id.as_deref())
                        .is_some_and(|p| !p.is_empty())
            })
        })
        .map(String::as_str)
        .collect();
    if missing.is_empty() {
        Ok(Some(()))
    } else {
        Err(format!(
            "not Ready with a providerID yet: {}",
            missing.join(", ")
        ))
    }
}

/// The holder of Lease `kube-system/<name>` while its term runs (`None`: absent, released).
pub async fn lease_holder(client: &kube::Client, name: &str) -> Result<Option<String>, String> {
    let leases: Api<Lease> = Api::namespaced(client.clone(), ccm_names::leases::NAMESPACE);
    let lease = leases
        .get_opt(name)
        .await
        .map_err(|e| format!("reading Lease {name}: {e}"))?;
    Ok(lease
        .and_then(|l| l.spec)
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty()))
}

/// `Ok(Some(holder))` once Lease `name` is held by one of `identities` (any holder when empty).
pub async fn held_by(
    client: &kube::Client,
    name: &str,
    identities: &[String],
) -> Result<Option<String>, String> {
    match lease_holder(client, name).await? {
        Some(h) if identities.is_empty() || identities.contains(&h) => Ok(Some(h)),
        Some(h) => Err(format!(
            "Lease {name} held by {h}, not by one of {identities:?}"
        )),
        None => Err(format!("Lease {name} not held")),
    }
}
