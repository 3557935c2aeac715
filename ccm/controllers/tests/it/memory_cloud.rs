//! A test-only in-memory `ccm_cloud::Provider`: instances keyed by node name, each with its
//! metadata and power state, plus node names whose every call fails.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use ccm_cloud::{CloudError, InstanceMetadata, InstancesV2, NotOffered, Provider, Retry};
use k8s_openapi::api::core::v1::Node;
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
    exists_hook: Mutex<Option<ExistsHook>>,
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
        Ok(self
            .lookup(node)?
            .ok_or(CloudError::InstanceNotFound)?
            .metadata)
    }
}

impl Provider for MemoryCloud {
    type Error = MemoryError;
    type Instances = MemoryCloud;
    type Zones = NotOffered<MemoryError>;
    type LoadBalancer = NotOffered<MemoryError>;
    type Routes = NotOffered<MemoryError>;

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
        None
    }
    fn routes(&self) -> Option<&Self::Routes> {
        None
    }
}
