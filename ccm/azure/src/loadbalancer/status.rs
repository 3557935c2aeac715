//! `status.loadBalancer.ingress` of a Service (anchor-ccm.md §4.10): one `{ip}` per frontend the
//! Service owns, in the LB's frontend order (the public IP's address, or the private address),
//! then each `azure-additional-public-ips` entry. No hostname, no ipMode.

use std::net::IpAddr;

use k8s_openapi::api::core::v1::{LoadBalancerIngress, LoadBalancerStatus};

use super::plan::service_frontends;
use super::service::LbService;
use crate::arm::resources::load_balancer::LoadBalancer;

/// The Service's status on `lb`, with public addresses looked up by PIP id in `pip_addresses`;
/// `None` when the Service owns no frontend with an address there.
pub fn status(
    lb: &LoadBalancer,
    svc: &LbService,
    pip_addresses: &[(String, IpAddr)],
) -> Option<LoadBalancerStatus> {
    let mut ingress: Vec<LoadBalancerIngress> = Vec::new();
    for frontend in service_frontends(lb, svc) {
        let Some(props) = frontend.properties.as_ref() else {
            continue;
        };
        let ip = match (&props.public_ip_address, &props.private_ip_address) {
            (Some(pip), _) => pip.id.as_deref().and_then(|id| {
                pip_addresses
                    .iter()
                    .find(|(known, _)| known.eq_ignore_ascii_case(id))
                    .map(|(_, ip)| ip.to_string())
            }),
            (None, Some(private)) => Some(private.clone()),
            (None, None) => None,
        };
        if let Some(ip) = ip.filter(|ip| !ip.is_empty()) {
            ingress.push(LoadBalancerIngress {
                ip: Some(ip),
                ..Default::default()
            });
        }
    }
    if ingress.is_empty() {
        return None;
    }
    ingress.extend(
        svc.additional_public_ips
            .iter()
            .map(|ip| LoadBalancerIngress {
                ip: Some(ip.to_string()),
                ..Default::default()
            }),
    );
    Some(LoadBalancerStatus {
        ingress: Some(ingress),
    })
}
