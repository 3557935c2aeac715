//! The handle over many simulated kubelets: start them from the fake's node list, stop, start
//! and flip one, shut all down, and read what each did.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use thiserror::Error;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

use super::agent::{self, KubeletSpec, NodeIp, Shared, Timing};
use super::imds::{ImdsClient, ImdsError};
use super::log::{Activity, Log};
use super::profile::{FactId, KubeVersion, Profile};
use super::registration::Mode;

/// Kubelet steps (registration, one status post, one Lease renewal) running at once across a
/// handle: enough to keep the API server busy, few enough that a thousand kubelets queue
/// instead of opening a thousand connections.
const MAX_IN_FLIGHT: usize = 32;

/// Why a kubelet operation was refused.
#[derive(Debug, Error)]
pub enum KubeletError {
    /// The IMDS client could not be built.
    #[error(transparent)]
    Imds(#[from] ImdsError),
    /// No kubelet of that name.
    #[error("no simulated kubelet for node {0:?}")]
    Unknown(String),
    /// A kubelet of that name exists already.
    #[error("a simulated kubelet for node {0:?} exists already")]
    Duplicate(String),
    /// `--cloud-provider=azure` on a release without the in-tree provider.
    #[error("kubelet {version} has no in-tree Azure provider (last release with it: 1.29)")]
    NoInTree {
        /// The version asked for.
        version: KubeVersion,
    },
    /// Marking the Node as the node-lifecycle controller would failed.
    #[error("node {node}: {reason}")]
    Api {
        /// The node.
        node: String,
        /// What failed.
        reason: String,
    },
}

/// A snapshot of one kubelet for the harness's samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeletState {
    /// Its flags.
    pub spec: KubeletSpec,
    /// True while its task runs.
    pub running: bool,
    /// What it did.
    pub log: Log,
}

struct Agent {
    spec: KubeletSpec,
    log: Arc<Mutex<Log>>,
    task: Option<(watch::Sender<bool>, JoinHandle<()>)>,
}

/// Many simulated kubelets sharing one kube client: one tokio task each.
pub struct Kubelets {
    shared: Shared,
    agents: BTreeMap<String, Agent>,
}

impl Kubelets {
    /// A handle with no kubelets; IMDS is reached over HTTPS trusting the PEM CA at `ca_file`.
    pub fn new(client: kube::Client, ca_file: &Path, timing: Timing) -> Result<Self, KubeletError> {
        Ok(Kubelets {
            shared: Shared {
                client,
                imds: ImdsClient::new(ca_file)?,
                timing,
                in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
            },
            agents: BTreeMap::new(),
        })
    }

    /// Starts one kubelet per `(node, imds_url)` (the fake's `imds <node>: URL` lines).
    pub fn start_all(
        &mut self,
        nodes: &[(String, String)],
        mode: Mode,
        version: KubeVersion,
        node_ip: NodeIp,
    ) -> Result<(), KubeletError> {
        for (node, imds_url) in nodes {
            self.add(KubeletSpec {
                node: node.clone(),
                imds_url: imds_url.clone(),
                mode,
                version,
                node_ip: node_ip.clone(),
            })?;
        }
        Ok(())
    }

    /// Adds and starts one kubelet.
    pub fn add(&mut self, spec: KubeletSpec) -> Result<(), KubeletError> {
        check_mode(spec.mode, spec.version)?;
        if self.agents.contains_key(&spec.node) {
            return Err(KubeletError::Duplicate(spec.node));
        }
        let name = spec.node.clone();
        let mut agent = Agent {
            spec,
            log: Arc::new(Mutex::new(Log::default())),
            task: None,
        };
        launch(&self.shared, &mut agent);
        self.agents.insert(name, agent);
        Ok(())
    }

    /// Stops `node`'s kubelet: no more Lease renewals or status posts. With `mark_unreachable`,
    /// the Node is then marked as the node-lifecycle controller does once the grace period ran
    /// out (Ready Unknown, unreachable taints); the harness compresses that wait to nothing.
    pub async fn stop(&mut self, node: &str, mark_unreachable: bool) -> Result<(), KubeletError> {
        let agent = self
            .agents
            .get_mut(node)
            .ok_or_else(|| KubeletError::Unknown(node.to_owned()))?;
        halt(agent).await;
        if mark_unreachable {
            agent::mark_unreachable(&self.shared.client, node)
                .await
                .map_err(|reason| KubeletError::Api {
                    node: node.to_owned(),
                    reason,
                })?;
            push(&agent.log, Activity::MarkedUnreachable);
        }
        Ok(())
    }

    /// Starts `node`'s stopped kubelet again (no-op when running); it re-registers and posts Ready.
    pub fn start(&mut self, node: &str) -> Result<(), KubeletError> {
        let agent = self
            .agents
            .get_mut(node)
            .ok_or_else(|| KubeletError::Unknown(node.to_owned()))?;
        if agent.task.is_none() {
            launch(&self.shared, agent);
        }
        Ok(())
    }

    /// Restarts `node`'s kubelet with `--cloud-provider` set to `mode` (the switch's "flip
    /// kubelets to external one by one"); the Node is not marked unreachable in between.
    pub async fn flip(&mut self, node: &str, mode: Mode) -> Result<(), KubeletError> {
        let agent = self
            .agents
            .get_mut(node)
            .ok_or_else(|| KubeletError::Unknown(node.to_owned()))?;
        check_mode(mode, agent.spec.version)?;
        halt(agent).await;
        agent.spec.mode = mode;
        launch(&self.shared, agent);
        Ok(())
    }

    /// Changes `node`'s `--cloud-provider` and `--node-ip` for its next start, without starting
    /// it (a node whose kubelet is down gets the new flags when it comes back); a running kubelet
    /// keeps its flags until [`Kubelets::flip`] restarts it.
    pub fn reconfigure(
        &mut self,
        node: &str,
        mode: Mode,
        node_ip: NodeIp,
    ) -> Result<(), KubeletError> {
        let agent = self
            .agents
            .get_mut(node)
            .ok_or_else(|| KubeletError::Unknown(node.to_owned()))?;
        check_mode(mode, agent.spec.version)?;
        agent.spec.mode = mode;
        agent.spec.node_ip = node_ip;
        Ok(())
    }

    /// Stops every kubelet (all at once) and waits for their tasks to end.
    pub async fn shutdown(&mut self) {
        for agent in self.agents.values() {
            if let Some((stop, _)) = &agent.task {
                let _ = stop.send(true);
            }
        }
        for agent in self.agents.values_mut() {
            halt(agent).await;
        }
    }

    /// What each kubelet did, by node name.
    pub fn states(&self) -> Vec<KubeletState> {
        self.agents
            .values()
            .map(|agent| KubeletState {
                spec: agent.spec.clone(),
                running: agent.task.as_ref().is_some_and(|(_, t)| !t.is_finished()),
                log: agent
                    .log
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone(),
            })
            .collect()
    }

    /// One kubelet's state.
    pub fn state(&self, node: &str) -> Option<KubeletState> {
        self.states().into_iter().find(|s| s.spec.node == node)
    }
}

impl Drop for Kubelets {
    fn drop(&mut self) {
        for agent in self.agents.values_mut() {
            if let Some((_, task)) = agent.task.take() {
                task.abort();
            }
        }
    }
}

fn check_mode(mode: Mode, version: KubeVersion) -> Result<(), KubeletError> {
    if mode == Mode::InTree && !Profile::of(version).holds(FactId::InTreeAzure) {
        return Err(KubeletError::NoInTree { version });
    }
    Ok(())
}

fn push(log: &Mutex<Log>, activity: Activity) {
    log.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(activity);
}

fn launch(shared: &Shared, agent: &mut Agent) {
    let (stop, stopped) = watch::channel(false);
    push(&agent.log, Activity::Started(agent.spec.mode));
    let task = tokio::spawn(agent::run(
        shared.clone(),
        agent.spec.clone(),
        agent.log.clone(),
        stopped,
    ));
    agent.task = Some((stop, task));
}

async fn halt(agent: &mut Agent) {
    if let Some((stop, task)) = agent.task.take() {
        let _ = stop.send(true);
        // A task that panicked is as stopped as one that returned.
        let _ = task.await;
        push(&agent.log, Activity::Stopped);
    }
}
