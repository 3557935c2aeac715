//! The placeholder a provider names for an interface it does not offer (its `Provider` method
//! returns `None` for it): every method answers `NotImplemented`, so one type serves every provider
//! instead of each writing its own.

use std::marker::PhantomData;

use k8s_openapi::api::core::v1::{LoadBalancerStatus, Service};

use crate::{CloudError, LoadBalancer, NodeView, Route, Routes, Zone, Zones};

/// An interface the provider with error type `E` does not offer.
#[derive(Debug)]
pub struct NotOffered<E>(PhantomData<fn() -> E>);

impl<E> Default for NotOffered<E> {
    fn default() -> Self {
        NotOffered(PhantomData)
    }
}

fn no<T, E>(operation: &'static str) -> Result<T, CloudError<E>>
where
    E: std::error::Error + Send + Sync + 'static,
{
    Err(CloudError::NotImplemented { operation })
}

impl<E> Zones for NotOffered<E>
where
    E: std::error::Error + Send + Sync + 'static,
{
    type Error = E;

    async fn get_zone(&self) -> Result<Zone, CloudError<E>> {
        no("Zones::get_zone")
    }

    async fn get_zone_by_provider_id(&self, _: &str) -> Result<Zone, CloudError<E>> {
        no("Zones::get_zone_by_provider_id")
    }

    async fn get_zone_by_node_name(&self, _: &str) -> Result<Zone, CloudError<E>> {
        no("Zones::get_zone_by_node_name")
    }
}

impl<E> LoadBalancer for NotOffered<E>
where
    E: std::error::Error + Send + Sync + 'static,
{
    type Error = E;

    async fn get_load_balancer(
        &self,
        _: &str,
        _: &Service,
    ) -> Result<(LoadBalancerStatus, bool), CloudError<E>> {
        no("LoadBalancer::get_load_balancer")
    }

    fn get_load_balancer_name(&self, _: &str, _: &Service) -> String {
        String::new()
    }

    async fn ensure_load_balancer(
        &self,
        _: &str,
        _: &Service,
        _: &[&dyn NodeView],
    ) -> Result<LoadBalancerStatus, CloudError<E>> {
        no("LoadBalancer::ensure_load_balancer")
    }

    async fn update_load_balancer(
        &self,
        _: &str,
        _: &Service,
        _: &[&dyn NodeView],
    ) -> Result<(), CloudError<E>> {
        no("LoadBalancer::update_load_balancer")
    }

    async fn ensure_load_balancer_deleted(
        &self,
        _: &str,
        _: &Service,
    ) -> Result<(), CloudError<E>> {
        no("LoadBalancer::ensure_load_balancer_deleted")
    }
}

impl<E> Routes for NotOffered<E>
where
    E: std::error::Error + Send + Sync + 'static,
{
    type Error = E;

    async fn list_routes(&self, _: &str) -> Result<Vec<Route>, CloudError<E>> {
        no("Routes::list_routes")
    }

    async fn create_route(&self, _: &str, _: &str, _: &Route) -> Result<(), CloudError<E>> {
        no("Routes::create_route")
    }

    async fn delete_route(&self, _: &str, _: &Route) -> Result<(), CloudError<E>> {
        no("Routes::delete_route")
    }
}
