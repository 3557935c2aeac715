//! Backend pools exist (anchor-ccm.md §4.6): the rules reference `<cluster>` / `<cluster>-IPv6`,
//! so the plan adds a missing pool, empty; membership and pool removal belong to the pool
//! reconcile.

use crate::arm::resources::load_balancer::{
    BackendAddressPool, BackendAddressPoolProperties, LoadBalancerProperties,
};
use crate::loadbalancer::names::backend_pool_name;
use crate::loadbalancer::service::LbService;

use super::LbTarget;
use super::ids::LbIds;
use super::merge::{put_back, take};
use super::ownership::name_of;

/// Adds the backend pool of every family the Service uses, empty, when missing.
pub(crate) fn ensure_pools(
    props: &mut LoadBalancerProperties,
    target: &LbTarget,
    ids: &LbIds,
    svc: &LbService,
) {
    let (mut pools, was_none) = take(&mut props.backend_address_pools);
    for &family in &svc.families {
        let name = backend_pool_name(&target.cluster_name, family);
        if !pools.iter().any(|p| name_of(p).eq_ignore_ascii_case(&name)) {
            pools.push(BackendAddressPool {
                id: Some(ids.pool(&name)),
                name: Some(name),
                properties: Some(BackendAddressPoolProperties::default()),
                ..Default::default()
            });
        }
    }
    put_back(&mut props.backend_address_pools, pools, was_none);
}
