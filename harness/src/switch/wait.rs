//! Waiting for the facts a procedure step needs before the next one (Nodes Ready and
//! initialised, a Lease held by a process on one of some hosts), polling the API server and failing
//! fast, with the log tail, when a process it depends on dies.

use std::future::Future;
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::ListParams;

use super::error::SwitchError;
use crate::intree::kubelet::is_ready;
use crate::roster::identity_of;

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

/// A running process a Lease may be held by: its host name and when it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its host name (identity `<host>_<uuid>`).
    pub host: String,
    /// Its start, Unix epoch milliseconds.
    pub started_ms: i64,
}

/// `Ok(Some(holder))` once Lease `name` is held by one of `candidates`: the holder identity is
/// on its host and the Lease was renewed since it started (a killed predecessor on the same host
/// leaves its Lease unrenewed); any holder when `candidates` is empty.
pub async fn held_by(
    client: &kube::Client,
    name: &str,
    candidates: &[Candidate],
) -> Result<Option<String>, String> {
    let leases: Api<Lease> = Api::namespaced(client.clone(), ccm_names::leases::NAMESPACE);
    let spec = leases
        .get_opt(name)
        .await
        .map_err(|e| format!("reading Lease {name}: {e}"))?
        .and_then(|l| l.spec);
    let renew_ms = spec
        .as_ref()
        .and_then(|s| s.renew_time.as_ref())
        .map(|t| t.0.as_millisecond());
    let holder = spec
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty());
    let holds = |h: &str, c: &Candidate| {
        identity_of(h, &c.host) && renew_ms.is_some_and(|r| r >= c.started_ms)
    };
    match holder {
        Some(h) if candidates.is_empty() || candidates.iter().any(|c| holds(&h, c)) => Ok(Some(h)),
        Some(h) => Err(format!(
            "Lease {name} held by {h}, not renewed since the start of a process on one of {:?}",
            candidates
                .iter()
                .map(|c| c.host.as_str())
                .collect::<Vec<_>>()
        )),
        None => Err(format!("Lease {name} not held")),
    }
}

/// What became of a Lease some candidates should campaign for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Campaign {
    /// One of them holds it: the holder identity.
    Held(String),
    /// Nobody's term has run for the grace period and none of them took it: why, in words.
    Abandoned(String),
}

/// `Ok(Some(Held))` once one of `candidates` holds Lease `name` (as [`held_by`]);
/// `Ok(Some(Abandoned))` once the last term on it (renewal + `leaseDurationSeconds`, or the wait's
/// start `since_ms` for a Lease without one) ended `grace` ago and none of them holds it: a
/// candidate campaigning every retry period would have taken it by then.
pub async fn held_or_abandoned(
    client: &kube::Client,
    name: &str,
    candidates: &[Candidate],
    grace: Duration,
    since_ms: i64,
) -> Result<Option<Campaign>, String> {
    match held_by(client, name, candidates).await {
        Ok(Some(holder)) => return Ok(Some(Campaign::Held(holder))),
        Ok(None) => return Ok(None),
        Err(_) => {}
    }
    let leases: Api<Lease> = Api::namespaced(client.clone(), ccm_names::leases::NAMESPACE);
    let spec = leases
        .get_opt(name)
        .await
        .map_err(|e| format!("reading Lease {name}: {e}"))?
        .and_then(|l| l.spec);
    let term_end = spec
        .as_ref()
        .and_then(|s| {
            let renew = s.renew_time.as_ref()?.0.as_millisecond();
            Some(renew + i64::from(s.lease_duration_seconds?) * 1000)
        })
        .unwrap_or(since_ms)
        .max(since_ms);
    let grace_ms = i64::try_from(grace.as_millis()).unwrap_or(i64::MAX);
    let now = crate::record::now_ms();
    if now - term_end < grace_ms {
        return Err(format!(
            "Lease {name} not taken yet; its last term ends {} ms before now",
            now - term_end
        ));
    }
    let holder = spec
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "nobody".to_owned());
    Ok(Some(Campaign::Abandoned(format!(
        "Lease {name} (last held by {holder}) free for {} ms, and none of {:?} took it",
        now - term_end,
        candidates
            .iter()
            .map(|c| c.host.as_str())
            .collect::<Vec<_>>()
    ))))
}
