//! [`AzureLoadBalancer`]: `ccm_cloud::LoadBalancer` over the [`LbReconciler`], with errors
//! classified for the service controller (configuration errors are final, ARM faults retry).

use std::sync::Arc;

use ccm_cloud::{CloudError, LoadBalancer, NodeView, Retry};
use k8s_openapi::api::core::v1::{LoadBalancerStatus, Service};

use super::error::LbError;
use super::names;
use super::reconcile::LbReconciler;
use crate::provider::AzureError;

/// The Azure load balancers of a cluster.
#[derive(Debug, Clone)]
pub struct AzureLoadBalancer {
    reconciler: Arc<LbReconciler>,
}

impl AzureLoadBalancer {
    /// Over a reconciler shared by every call.
    pub fn new(reconciler: LbReconciler) -> AzureLoadBalancer {
        AzureLoadBalancer {
            reconciler: Arc::new(reconciler),
        }
    }

    /// The reconciler (tests and the dry-run plan read its settings).
    pub fn reconciler(&self) -> &LbReconciler {
        &self.reconciler
    }
}

/// Classifies an [`LbError`] for the controllers.
pub fn into_cloud(error: LbError) -> CloudError<AzureError> {
    if error.is_throttled() {
        return CloudError::Throttled {
            retry_after: error.retry_after().unwrap_or_default(),
            source: error.into(),
        };
    }
    let retry = if error.is_retryable() {
        error.retry_after().map_or(Retry::Backoff, Retry::After)
    } else {
        Retry::Never
    };
    CloudError::Provider {
        retry,
        source: error.into(),
    }
}

impl LoadBalancer for AzureLoadBalancer {
    type Error = AzureError;

    async fn get_load_balancer(
        &self,
        cluster_name: &str,
        service: &Service,
    ) -> Result<(LoadBalancerStatus, bool), CloudError<AzureError>> {
        match self.reconciler.status_of(cluster_name, service).await {
            Ok(Some(status)) => Ok((status, true)),
            Ok(None) => Ok((LoadBalancerStatus::default(), false)),
            Err(e) => Err(into_cloud(e)),
        }
    }

    fn get_load_balancer_name(&self, _cluster_name: &str, service: &Service) -> String {
        names::base_name(service.metadata.uid.as_deref().unwrap_or_default())
    }

    async fn ensure_load_balancer(
        &self,
        cluster_name: &str,
        service: &Service,
        nodes: &[&dyn NodeView],
    ) -> Result<LoadBalancerStatus, CloudError<AzureError>> {
        self.reconciler
            .ensure(cluster_name, service, nodes)
            .await
            .map_err(into_cloud)
    }

    async fn update_load_balancer(
        &self,
        cluster_name: &str,
        service: &Service,
        nodes: &[&dyn NodeView],
    ) -> Result<(), CloudError<AzureError>> {
        self.reconciler
            .update_hosts(cluster_name, service, nodes)
            .await
            .map_err(into_cloud)
    }

    async fn ensure_load_balancer_deleted(
        &self,
        cluster_name: &str,
        service: &Service,
    ) -> Result<(), CloudError<AzureError>> {
        self.reconciler
            .ensure_deleted(cluster_name, service)
            .await
            .map_err(into_cloud)
    }
}
