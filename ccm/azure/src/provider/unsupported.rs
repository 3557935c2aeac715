//! The placeholder for interfaces the Azure provider does not offer yet (load balancers, routes):
//! `Provider` never hands it out, and every method answers `NotImplemented`.

use ccm_cloud::{CloudError, LoadBalancer, Route, Routes};
use k8s_openapi::api::core::v1::{LoadBalancerStatus, Node, Service};

use crate::instances::InstanceError;

/// An interface not implemented yet; never returned by [`super::AzureProvider`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Unsupported;

fn no<T>(operation: &'static str) -> Result<T, CloudError<InstanceError>> {
    Err(CloudError::NotImplemented { operation })
}

impl LoadBalancer for Unsupported {
    type Error = InstanceError;

    async fn get_load_balancer(
        &self,
        _: &str,
        _: &Service,
    ) -> Result<(LoadBalancerStatus, bool), CloudError<InstanceError>> {
        no("LoadBalancer::get_load_balancer")
    }

    fn get_load_balancer_name(&self, _: &str, _: &Service) -> String {
        String::new()
    }

    async fn ensure_load_balancer(
        &self,
        _: &str,
        _: &Service,
        _: &[Node],
    ) -> Result<LoadBalancerStatus, CloudError<InstanceError>> {
        no("LoadBalancer::ensure_load_balancer")
    }

    async fn update_load_balancer(
        &self,
        _: &str,
        _: &Service,
        _: &[Node],
    ) -> Result<(), CloudError<InstanceError>> {
        no("LoadBalancer::update_load_balancer")
    }

    async fn ensure_load_balancer_deleted(
        &self,
        _: &str,
        _: &Service,
    ) -> Result<(), CloudError<InstanceError>> {
        no("LoadBalancer::ensure_load_balancer_deleted")
    }
}

impl Routes for Unsupported {
    type Error = InstanceError;

    async fn list_routes(&self, _: &str) -> Result<Vec<Route>, CloudError<InstanceError>> {
        no("Routes::list_routes")
    }

    async fn create_route(
        &self,
        _: &str,
        _: &str,
        _: &Route,
    ) -> Result<(), CloudError<InstanceError>> {
        no("Routes::create_route")
    }

    async fn delete_route(&self, _: &str, _: &Route) -> Result<(), CloudError<InstanceError>> {
        no("Routes::delete_route")
    }
}
