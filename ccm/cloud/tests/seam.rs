//! An in-memory provider written with plain `async fn` satisfies the traits, and generic callers
//! can spawn its futures on tokio's multi-threaded runtime (the `Send` bound holds).

use std::time::Duration;

use ccm_cloud::{CloudError, InstanceMetadata, InstancesV2, Retry};
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(Debug, thiserror::Error)]
#[error("memory provider: {0}")]
struct MemoryError(&'static str);

struct MemoryInstances;

impl InstancesV2 for MemoryInstances {
    type Error = MemoryError;

    async fn instance_exists(&self, node: &Node) -> Result<bool, CloudError<MemoryError>> {
        Ok(node.metadata.name.as_deref() == Some("present"))
    }

    async fn instance_shutdown(&self, _node: &Node) -> Result<bool, CloudError<MemoryError>> {
        Err(CloudError::Provider {
            retry: Retry::After(Duration::from_secs(2)),
            source: MemoryError("busy"),
        })
    }

    async fn instance_metadata(
        &self,
        node: &Node,
    ) -> Result<InstanceMetadata, CloudError<MemoryError>> {
        match node.metadata.name.as_deref() {
            Some("present") => Ok(InstanceMetadata {
                provider_id: "memory:///present".to_string(),
                ..InstanceMetadata::default()
            }),
            _ => Err(CloudError::InstanceNotFound),
        }
    }
}

fn node(name: &str) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..ObjectMeta::default()
        },
        ..Node::default()
    }
}

async fn metadata_on_worker<I: InstancesV2 + 'static>(
    instances: std::sync::Arc<I>,
    node: Node,
) -> Result<InstanceMetadata, CloudError<I::Error>> {
    tokio::spawn(async move { instances.instance_metadata(&node).await })
        .await
        .expect("task joined")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generic_callers_spawn_provider_futures() {
    let instances = std::sync::Arc::new(MemoryInstances);
    let found = metadata_on_worker(instances.clone(), node("present"))
        .await
        .expect("present node has metadata");
    assert_eq!(found.provider_id, "memory:///present");
    let missing = metadata_on_worker(instances.clone(), node("gone")).await;
    assert!(matches!(missing, Err(e) if e.is_instance_not_found()));
    assert!(
        instances
            .instance_exists(&node("present"))
            .await
            .expect("exists")
    );
    let shutdown = instances.instance_shutdown(&node("present")).await;
    let err = shutdown.expect_err("busy");
    assert!(err.is_retryable());
    assert_eq!(err.retry_after(), Some(Duration::from_secs(2)));
}
