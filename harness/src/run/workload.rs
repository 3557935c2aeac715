//! The scenario's actions against the cluster: Services through the Kubernetes API, node churn and
//! fault rules through the fake's admin API, and the follow-ups the deployment owes them (a kubelet
//! for a new VM, a kubelet stopped with its VM, a process disruption).
//!
//! Each action is a cluster-side step ([`Workload::cloud_step`]: the API server and the fake) and
//! the [`FollowUp`]s the deployment owes it ([`Workload::follow_up`]); [`Workload::apply`] runs
//! both. In the `during` phase they run while the switch procedure does (the deployment is shared).

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Namespace, Service};
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::{Value, json};

use super::service;
use crate::cluster::{AdminError, EmbeddedCluster, FakeAdmin};
use crate::record::{MarkKind, ObjectRef, RunRecord};
use crate::scenario::{Action, PowerState, ProcessFault};
use crate::switch::{Deployment, SwitchError};

/// An action could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// A Kubernetes call failed.
    #[error("{what}: {source}")]
    Kube {
        /// What was being done.
        what: String,
        /// The error.
        source: kube::Error,
    },
    /// A call to the fake's admin API failed.
    #[error("{what}: {source}")]
    Admin {
        /// What was being done.
        what: String,
        /// The error.
        source: AdminError,
    },
    /// The deployment could not follow up.
    #[error("{what}: {source}")]
    Switch {
        /// What was being done.
        what: String,
        /// The error.
        source: SwitchError,
    },
}

/// What the deployment must do after a cloud-side step.
#[derive(Debug, Clone)]
pub enum FollowUp {
    /// A VM joined: start its kubelet (and CNM).
    AddNode(String),
    /// A VM is gone: stop its kubelet (and CNM).
    RemoveNode(String),
    /// Stop a kubelet (its VM stopped, or the scenario says so).
    StopKubelet(String),
    /// Start a kubelet again.
    StartKubelet(String),
    /// Disrupt a process.
    Disrupt(ProcessFault),
}

/// Applies actions for one scenario run.
#[derive(Clone)]
pub struct Workload {
    client: kube::Client,
    admin: FakeAdmin,
    record: RunRecord,
    fault_seed: u64,
}

impl Workload {
    /// A workload applier for the cluster behind `client` and `admin`.
    pub fn new(client: kube::Client, admin: FakeAdmin, record: RunRecord, fault_seed: u64) -> Self {
        Self {
            client,
            admin,
            record,
            fault_seed,
        }
    }

    /// The cluster-side part of `action`; the follow-ups the deployment owes it.
    pub async fn cloud_step(&self, action: &Action) -> Result<Vec<FollowUp>, WorkloadError> {
        let admin_error = |what: String| move |source| WorkloadError::Admin { what, source };
        match action {
            Action::InstallFaults { rules } => {
                let schedule = json!({"seed": self.fault_seed, "rules": rules});
                self.admin
                    .replace_faults(schedule)
                    .await
                    .map_err(admin_error("installing fault rules".into()))?;
                self.record
                    .mark(MarkKind::FaultsInstalled { rules: rules.len() });
                Ok(vec![])
            }
            Action::ClearFaults => {
                self.admin
                    .clear_faults()
                    .await
                    .map_err(admin_error("clearing fault rules".into()))?;
                self.record.mark(MarkKind::FaultsCleared);
                Ok(vec![])
            }
            Action::CreateService(plan) => {
                self.ensure_namespace(&plan.namespace).await?;
                let api: Api<Service> = Api::namespaced(self.client.clone(), &plan.namespace);
                api.create(&PostParams::default(), &service::service(plan))
                    .await
                    .map_err(|source| WorkloadError::Kube {
                        what: format!("creating Service {}/{}", plan.namespace, plan.name),
                        source,
                    })?;
                self.record.mark(MarkKind::ServiceCreated(object(
                    &plan.namespace,
                    &plan.name,
                )));
                Ok(vec![])
            }
            Action::UpdateService {
                namespace,
                name,
                change,
            } => {
                let api: Api<Service> = Api::namespaced(self.client.clone(), namespace);
                let what = format!("updating Service {namespace}/{name}");
                // Conflicts with the controllers' status and finalizer writes: re-read and retry.
                let mut attempts = 0;
                loop {
                    attempts += 1;
                    let existing = api.get(name).await.map_err(|source| WorkloadError::Kube {
                        what: what.clone(),
                        source,
                    })?;
                    let next = service::updated(&existing, change);
                    match api.replace(name, &PostParams::default(), &next).await {
                        Ok(_) => break,
                        Err(kube::Error::Api(e)) if e.code == 409 && attempts < 5 => continue,
                        Err(source) => return Err(WorkloadError::Kube { what, source }),
                    }
                }
                self.record
                    .mark(MarkKind::ServiceUpdated(object(namespace, name)));
                Ok(vec![])
            }
            Action::DeleteService { namespace, name } => {
                let api: Api<Service> = Api::namespaced(self.client.clone(), namespace);
                api.delete(name, &DeleteParams::default())
                    .await
                    .map_err(|source| WorkloadError::Kube {
                        what: format!("deleting Service {namespace}/{name}"),
                        source,
                    })?;
                self.record
                    .mark(MarkKind::ServiceDeleted(object(namespace, name)));
                Ok(vec![])
            }
            Action::ScaleSet(scale) => {
                let before = self.arm_nodes().await?;
                self.admin
                    .scale(&scale.name, scale.instances)
                    .await
                    .map_err(admin_error(format!(
                        "scaling {} to {}",
                        scale.name, scale.instances
                    )))?;
                let after = self.arm_nodes().await?;
                let mut follow = Vec::new();
                for node in after.difference(&before) {
                    self.record.mark(MarkKind::NodeAdded { node: node.clone() });
                    follow.push(FollowUp::AddNode(node.clone()));
                }
                for node in before.difference(&after) {
                    self.record.mark(MarkKind::VmDeleted { node: node.clone() });
                    follow.push(FollowUp::RemoveNode(node.clone()));
                }
                Ok(follow)
            }
            Action::AddVm(vm) => {
                let body = serde_json::to_value(vm).unwrap_or(Value::Null);
                self.admin
                    .add_vm(body)
                    .await
                    .map_err(admin_error(format!("adding VM {}", vm.name)))?;
                self.record.mark(MarkKind::NodeAdded {
                    node: vm.name.clone(),
                });
                Ok(vec![FollowUp::AddNode(vm.name.clone())])
            }
            Action::DeleteVm(node) => {
                self.admin
                    .delete_node(&node.node)
                    .await
                    .map_err(admin_error(format!("deleting the VM of {}", node.node)))?;
                self.record.mark(MarkKind::VmDeleted {
                    node: node.node.clone(),
                });
                Ok(vec![FollowUp::RemoveNode(node.node.clone())])
            }
            Action::PowerState(change) => {
                let state = match change.state {
                    PowerState::Running => "running",
                    PowerState::Stopped => "stopped",
                    PowerState::Deallocated => "deallocated",
                };
                self.admin
                    .set_power_state(&change.node, state)
                    .await
                    .map_err(admin_error(format!("setting {} to {state}", change.node)))?;
                self.record.mark(MarkKind::PowerState {
                    node: change.node.clone(),
                    state: state.to_owned(),
                });
                // A stopped VM's kubelet stops posting status; a started one resumes.
                Ok(vec![if change.state == PowerState::Running {
                    FollowUp::StartKubelet(change.node.clone())
                } else {
                    FollowUp::StopKubelet(change.node.clone())
                }])
            }
            Action::StopKubelet(node) => Ok(vec![FollowUp::StopKubelet(node.node.clone())]),
            Action::StartKubelet(node) => Ok(vec![FollowUp::StartKubelet(node.node.clone())]),
            Action::Process(fault) => Ok(vec![FollowUp::Disrupt(fault.clone())]),
        }
    }

    /// Performs a follow-up on the deployment (which marks kubelet stops and starts itself).
    pub async fn follow_up(
        &self,
        follow: FollowUp,
        deployment: &Deployment,
        cluster: &EmbeddedCluster,
    ) -> Result<(), WorkloadError> {
        let switch_error = |what: String| move |source| WorkloadError::Switch { what, source };
        match follow {
            FollowUp::AddNode(node) => deployment
                .add_node(cluster, &node)
                .await
                .map_err(switch_error(format!("starting the kubelet of {node}"))),
            FollowUp::RemoveNode(node) => deployment
                .remove_node(&node)
                .await
                .map_err(switch_error(format!("stopping the kubelet of {node}"))),
            FollowUp::StopKubelet(node) => deployment
                .stop_kubelet(&node)
                .await
                .map_err(switch_error(format!("stopping the kubelet of {node}"))),
            FollowUp::StartKubelet(node) => deployment
                .start_kubelet(&node)
                .await
                .map_err(switch_error(format!("starting the kubelet of {node}"))),
            FollowUp::Disrupt(fault) => {
                if let Some(after) = fault.after {
                    tokio::time::sleep(after.to_std()).await;
                }
                deployment
                    .disrupt(cluster, fault.action)
                    .await
                    .map_err(switch_error(format!("process fault {:?}", fault.action)))
            }
        }
    }

    /// The whole of `action`: its cluster-side step, then the deployment's follow-ups.
    pub async fn apply(
        &self,
        action: &Action,
        deployment: &Deployment,
        cluster: &EmbeddedCluster,
    ) -> Result<(), WorkloadError> {
        for step in self.cloud_step(action).await? {
            self.follow_up(step, deployment, cluster).await?;
        }
        Ok(())
    }

    async fn ensure_namespace(&self, name: &str) -> Result<(), WorkloadError> {
        let api: Api<Namespace> = Api::all(self.client.clone());
        let namespace = Namespace {
            metadata: kube::api::ObjectMeta {
                name: Some(name.to_owned()),
                ..Default::default()
            },
            ..Default::default()
        };
        match api.create(&PostParams::default(), &namespace).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(e)) if e.code == 409 => Ok(()),
            Err(source) => Err(WorkloadError::Kube {
                what: format!("creating namespace {name}"),
                source,
            }),
        }
    }

    async fn arm_nodes(&self) -> Result<BTreeSet<String>, WorkloadError> {
        let info = self
            .admin
            .info()
            .await
            .map_err(|source| WorkloadError::Admin {
                what: "listing the fake's nodes".into(),
                source,
            })?;
        Ok(info["imds"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n["node"].as_str().map(str::to_owned))
            .collect())
    }
}

fn object(namespace: &str, name: &str) -> ObjectRef {
    ObjectRef {
        namespace: namespace.to_owned(),
        name: name.to_owned(),
    }
}
