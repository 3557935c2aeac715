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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loadbalancer::LbService;

    fn service(name: &str, uid: &str) -> LbService {
        LbService::minimal("default", name, uid)
    }

    fn lb(json: serde_json::Value) -> LoadBalancer {
        serde_json::from_value(json).expect("lb json")
    }

    #[test]
    fn public_addresses_then_additional_ips_and_nothing_else() {
        let mut svc = service("web", "11111111-2222-3333-4444-555555555555");
        svc.additional_public_ips = vec!["198.51.100.7".parse().unwrap()];
        let base = svc.base_name.clone();
        let doc = lb(serde_json::json!({
            "name": "kubernetes",
            "properties": {"frontendIPConfigurations": [
                {"name": "outbound", "properties": {"publicIPAddress": {"id": "/x/publicIPAddresses/out"}}},
                {"name": base, "properties": {"publicIPAddress": {"id": "/X/publicIPAddresses/Mine"}}}
            ]}
        }));
        let known = vec![
            (
                "/x/publicIPAddresses/out".to_string(),
                "20.0.0.1".parse().unwrap(),
            ),
            (
                "/x/publicipaddresses/mine".to_string(),
                "20.0.0.2".parse().unwrap(),
            ),
        ];
        let got = status(&doc, &svc, &known).expect("status");
        let ips: Vec<_> = got
            .ingress
            .unwrap()
            .into_iter()
            .map(|i| (i.ip, i.hostname, i.ip_mode))
            .collect();
        assert_eq!(
            ips,
            vec![
                (Some("20.0.0.2".to_string()), None, None),
                (Some("198.51.100.7".to_string()), None, None)
            ]
        );
    }

    #[test]
    fn internal_frontends_report_their_private_address_and_unknown_ones_none() {
        let mut svc = service("db", "11111111-2222-3333-4444-555555555555");
        svc.internal = true;
        let base = svc.base_name.clone();
        let doc = lb(serde_json::json!({
            "name": "kubernetes-internal",
            "properties": {"frontendIPConfigurations": [
                {"name": base, "properties": {"subnet": {"id": "/s"}, "privateIPAddress": "10.0.0.9"}}
            ]}
        }));
        let got = status(&doc, &svc, &[]).expect("status");
        assert_eq!(got.ingress.unwrap()[0].ip.as_deref(), Some("10.0.0.9"));
        let empty = lb(serde_json::json!({"name": "kubernetes", "properties": {}}));
        assert_eq!(status(&empty, &svc, &[]), None);
    }
}
