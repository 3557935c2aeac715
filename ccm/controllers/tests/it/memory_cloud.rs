//! A test-only in-memory `ccm_cloud::Provider`: instances keyed by node name, each with its
//! metadata and power state, plus node names whose every call fails; load balancers keyed by
//! Service (`namespace/name`) with a call log and scripted failures; a route table.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use ccm_cloud::{
    CloudError, InstanceMetadata, InstancesV2, LoadBalancer, NodeView, NotOffered, Provider, Retry,
    Route, Routes,
};
use k8s_openapi::api::core::v1::{LoadBalancerIngress, LoadBalancerStatus, Node, Service};
use kube::ResourceExt;

/// The memory cloud's error.
#[derive(Debug, thiserror::Error)]
#[error("memory cloud: {0}")]
pub struct MemoryError(pub String);

type Result<T> = std::result::Result<T, CloudError<MemoryError>>;

/// One instance.
#[derive(Clone)]
pub struct Instance {
    /// What `instance_metadata` returns.
    pub metadata: InstanceMetadata,
    /// What `instance_shutdown` returns.
    pub shutdown: bool,
}

/// Instances by node name and the names whose calls fail.
#[derive(Default)]
pub struct MemoryCloud {
    instances: Mutex<HashMap<String, Instance>>,
    failing: Mutex<HashSet<String>>,
    metadata_calls: Mutex<HashMap<String, usize>>,
    metadata_hold: Mutex<Option<tokio::sync::watch::Receiver<bool>>>,
    metadata_in_flight: Mutex<(usize, usize)>,
    exists_hook: Mutex<Option<ExistsHook>>,
    balancers: Mutex<HashMap<String, LoadBalancerStatus>>,
    lb_calls: Mutex<Vec<LbCall>>,
    lb_failures: Mutex<HashMap<String, VecDeque<Retry>>>,
    routes: Mutex<Vec<Route>>,
    failing_routes: Mutex<HashSet<String>>,
}

/// One mutating load-balancer call, with the Service key and the node names it was given.
#[derive(Debug, Clone, PartialEq)]
pub enum LbCall {
    /// `ensure_load_balancer`.
    Ensure(String, Vec<String>),
    /// `update_load_balancer`.
    Update(String, Vec<String>),
    /// `ensure_load_balancer_deleted`.
    Delete(String),
}

fn service_key(service: &Service) -> String {
    format!(
        "{}/{}",
        service.namespace().unwrap_or_default(),
        service.name_any()
    )
}

fn names(nodes: &[&dyn NodeView]) -> Vec<String> {
    nodes.iter().map(|n| n.name().to_owned()).collect()
}

/// Runs inside `instance_exists` (with the node name) before it answers.
pub type ExistsHook = Arc<dyn Fn(&str) + Send + Sync>;

impl MemoryCloud {
    /// Adds or replaces the instance backing `node`.
    pub fn put(&self, node: &str, instance: Instance) {
        self.instances
            .lock()
            .unwrap()
            .insert(node.to_owned(), instance);
    }

    /// Makes every call about `node` fail with a retryable error.
    pub fn fail(&self, node: &str) {
        self.failing.lock().unwrap().insert(node.to_owned());
    }

    /// Sets the hook run inside every `instance_exists` call.
    pub fn on_exists(&self, hook: ExistsHook) {
        *self.exists_hook.lock().unwrap() = Some(hook);
    }

    /// How many times `instance_metadata` was asked about `node`.
    pub fn metadata_calls(&self, node: &str) -> usize {
        self.metadata_calls
            .lock()
            .unwrap()
            .get(node)
            .copied()
            .unwrap_or(0)
    }

    /// Makes `instance_metadata` wait until the returned sender sends `true`.
    pub fn hold_metadata(&self) -> tokio::sync::watch::Sender<bool> {
        let (release, held) = tokio::sync::watch::channel(false);
        *self.metadata_hold.lock().unwrap() = Some(held);
        release
    }

    /// `instance_metadata` calls running now, and the most that ever ran at once.
    pub fn metadata_in_flight(&self) -> (usize, usize) {
        *self.metadata_in_flight.lock().unwrap()
    }

    /// Every mutating load-balancer call so far, in order.
    pub fn lb_calls(&self) -> Vec<LbCall> {
        self.lb_calls.lock().unwrap().clone()
    }

    /// The next `count` mutating load-balancer calls for `service` fail with `retry`.
    pub fn fail_lb(&self, service: &str, count: usize, retry: Retry) {
        self.lb_failures
            .lock()
            .unwrap()
            .entry(service.to_owned())
            .or_default()
            .extend(std::iter::repeat_n(retry, count));
    }

    /// Whether the cloud holds a load balancer for `service`.
    pub fn has_lb(&self, service: &str) -> bool {
        self.balancers.lock().unwrap().contains_key(service)
    }

    /// The route table.
    pub fn routes(&self) -> Vec<Route> {
        self.routes.lock().unwrap().clone()
    }

    /// Adds a route directly (as if created earlier or by someone else).
    pub fn put_route(&self, route: Route) {
        self.routes.lock().unwrap().push(route);
    }

    /// Makes every `create_route` for `node` fail (not retryable).
    pub fn fail_routes(&self, node: &str) {
        self.failing_routes.lock().unwrap().insert(node.to_owned());
    }

    /// Lets `create_route` for `node` succeed again.
    pub fn heal_routes(&self, node: &str) {
        self.failing_routes.lock().unwrap().remove(node);
    }

    fn lb_call(&self, call: LbCall, key: &str) -> Result<()> {
        self.lb_calls.lock().unwrap().push(call);
        let failure = self
            .lb_failures
            .lock()
            .unwrap()
            .get_mut(key)
            .and_then(VecDeque::pop_front);
        match failure {
            Some(retry) => Err(CloudError::Provider {
                retry,
                source: MemoryError(format!("load balancer of {key} failed")),
            }),
            None => Ok(()),
        }
    }

    fn lookup(&self, node: &Node) -> Result<Option<Instance>> {
        let name = node.name_any();
        if self.failing.lock().unwrap().contains(&name) {
            return Err(CloudError::Provider {
                retry: Retry::Backoff,
                source: MemoryError(format!("lookup of {name} failed")),
            });
        }
        Ok(self.instances.lock().unwrap().get(&name).cloned())
    }
}

impl InstancesV2 for MemoryCloud {
    type Error = MemoryError;

    async fn instance_exists(&self, node: &Node) -> Result<bool> {
        let hook = self.exists_hook.lock().unwrap().clone();
        if let Some(hook) = hook {
            hook(&node.name_any());
        }
        Ok(self.lookup(node)?.is_some())
    }

    async fn instance_shutdown(&self, node: &Node) -> Result<bool> {
        Ok(self
            .lookup(node)?
            .ok_or(CloudError::InstanceNotFound)?
            .shutdown)
    }

    async fn instance_metadata(&self, node: &Node) -> Result<InstanceMetadata> {
        *self
            .metadata_calls
            .lock()
            .unwrap()
            .entry(node.name_any())
            .or_default() += 1;
        let held = self.metadata_hold.lock().unwrap().clone();
        if let Some(mut held) = held {
            {
                let mut counts = self.metadata_in_flight.lock().unwrap();
                counts.0 += 1;
                counts.1 = counts.1.max(counts.0);
            }
            let _ = held.wait_for(|released| *released).await;
            self.metadata_in_flight.lock().unwrap().0 -= 1;
        }
        Ok(self
            .lookup(node)?
            .ok_or(CloudError::InstanceNotFound)?
            .metadata)
    }
}

impl LoadBalancer for MemoryCloud {
    type Error = MemoryError;

    async fn get_load_balancer(
        &self,
        _cluster: &str,
        service: &Service,
    ) -> Result<(LoadBalancerStatus, bool)> {
        let balancers = self.balancers.lock().unwrap();
        let status = balancers.get(&service_key(service));
        Ok((status.cloned().unwrap_or_default(), status.is_some()))
    }

    fn get_load_balancer_name(&self, cluster: &str, service: &Service) -> String {
        format!("{cluster}-{}", service_key(service))
    }

    async fn ensure_load_balancer(
        &self,
        _cluster: &str,
        service: &Service,
        nodes: &[&dyn NodeView],
    ) -> Result<LoadBalancerStatus> {
        let key = service_key(service);
        self.lb_call(LbCall::Ensure(key.clone(), names(nodes)), &key)?;
        let mut balancers = self.balancers.lock().unwrap();
        let next = balancers.len() + 1;
        let status = balancers.entry(key).or_insert_with(|| LoadBalancerStatus {
            ingress: Some(vec![LoadBalancerIngress {
                ip: Some(format!("20.0.0.{next}")),
                ..LoadBalancerIngress::default()
            }]),
        });
        Ok(status.clone())
    }

    async fn update_load_balancer(
        &self,
        _cluster: &str,
        service: &Service,
        nodes: &[&dyn NodeView],
    ) -> Result<()> {
        let key = service_key(service);
        self.lb_call(LbCall::Update(key.clone(), names(nodes)), &key)
    }

    async fn ensure_load_balancer_deleted(&self, _cluster: &str, service: &Service) -> Result<()> {
        let key = service_key(service);
        self.lb_call(LbCall::Delete(key.clone()), &key)?;
        self.balancers.lock().unwrap().remove(&key);
        Ok(())
    }
}

impl Routes for MemoryCloud {
    type Error = MemoryError;

    async fn list_routes(&self, _cluster: &str) -> Result<Vec<Route>> {
        Ok(self.routes())
    }

    async fn create_route(&self, _cluster: &str, name_hint: &str, route: &Route) -> Result<()> {
        if self
            .failing_routes
            .lock()
            .unwrap()
            .contains(&route.target_node)
        {
            return Err(CloudError::Provider {
                retry: Retry::Never,
                source: MemoryError(format!("route for {} refused", route.target_node)),
            });
        }
        let mut created = route.clone();
        created.name = format!("{}-{name_hint}", route.target_node);
        self.routes.lock().unwrap().push(created);
        Ok(())
    }

    async fn delete_route(&self, _cluster: &str, route: &Route) -> Result<()> {
        self.routes
            .lock()
            .unwrap()
            .retain(|r| r.name != route.name || r.destination_cidr != route.destination_cidr);
        Ok(())
    }
}

impl Provider for MemoryCloud {
    type Error = MemoryError;
    type Instances = MemoryCloud;
    type Zones = NotOffered<MemoryError>;
    type LoadBalancer = MemoryCloud;
    type Routes = MemoryCloud;

    fn provider_name(&self) -> &'static str {
        "memory"
    }
    fn instances_v2(&self) -> Option<&Self::Instances> {
        Some(self)
    }
    fn zones(&self) -> Option<&Self::Zones> {
        None
    }
    fn load_balancer(&self) -> Option<&Self::LoadBalancer> {
        Some(self)
    }
    fn routes(&self) -> Option<&Self::Routes> {
        Some(self)
    }
}
