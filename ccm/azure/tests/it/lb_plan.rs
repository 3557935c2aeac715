//! The LB plan against the real `azure-fakes`: the planned document is accepted by the fake's
//! NRP validation, and the document ARM returns afterwards (defaults filled in, read-only
//! back-references, etags) plans to `Unchanged`, so a second reconcile writes nothing.

use std::collections::BTreeMap;

use ccm_azure::arm::api_versions::{CloudFlavor, ResourceType};
use ccm_azure::arm::resources::LoadBalancer;
use ccm_azure::config::{LoadBalancerSku, ProbeMode};
use ccm_azure::loadbalancer::plan::{
    FrontendSource, LbChange, LbTarget, plan_ensure, plan_remove, service_frontends,
};
use ccm_azure::loadbalancer::service::{LbPort, LbService, PerFamily, Protocol};

use crate::fake_azure::FakeAzure;
use crate::resource_models::{Arm, round_trip, with_reader_app};

fn port(protocol: Protocol, port: u16, node_port: u16) -> LbPort {
    LbPort::new(protocol, port, Some(node_port))
}

fn internal_service() -> LbService {
    LbService {
        internal: true,
        internal_subnet: Some("ilb".into()),
        ports: vec![
            port(Protocol::Tcp, 80, 30080),
            port(Protocol::Udp, 53, 30053),
        ],
        ..LbService::minimal("default", "ilb", "0f0e0d0c-0b0a-4909-8807-060504030201")
    }
}

/// A standard LB of cluster `kubernetes` with upstream's defaults and no tags.
fn target(subscription: &str, resource_group: &str, name: &str, location: &str) -> LbTarget {
    LbTarget {
        subscription: subscription.to_string(),
        resource_group: resource_group.into(),
        name: name.into(),
        location: location.into(),
        cluster_name: "kubernetes".into(),
        sku: LoadBalancerSku::Standard,
        disable_outbound_snat: false,
        probe_mode: ProbeMode::ServiceNodePort,
        shared_probe_port: 10256,
        shared_probe_path: "/healthz".into(),
        internal_frontend_zones: Vec::new(),
        tags: BTreeMap::new(),
        system_tags: Vec::new(),
        in_tree: ccm_azure::config::InTreeCompat::default(),
    }
}

fn plan_put(change: LbChange) -> LoadBalancer {
    match change {
        LbChange::Put(lb) => lb,
        other => panic!("expected a PUT, got {other:?}"),
    }
}

#[tokio::test]
async fn planned_documents_are_accepted_and_replan_to_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeAzure::start(&with_reader_app("mixed.yaml", dir.path()), &[]);
    let arm = Arm::new(&fake).await;
    let sub = &fake.subscription;
    let lb_id = format!(
        "/subscriptions/{sub}/resourceGroups/mixed-nodes-rg/providers/Microsoft.Network/loadBalancers/kubernetes-internal"
    );
    let url = format!(
        "{lb_id}?api-version={}",
        ResourceType::LoadBalancers.api_version(CloudFlavor::Public)
    );
    let target = target(sub, "mixed-nodes-rg", "kubernetes-internal", "eastus2");
    let svc = internal_service();
    let sources = PerFamily {
        v4: Some(FrontendSource::Internal {
            subnet_id: format!(
                "/subscriptions/{sub}/resourceGroups/mixed-network-rg/providers/Microsoft.Network/virtualNetworks/mixed-vnet/subnets/ilb"
            ),
            private_ip: None,
        }),
        v6: None,
    };

    let before: LoadBalancer = round_trip(&arm.get(&url).await, "lb before");
    let planned = plan_put(plan_ensure(Some(&before), &target, &svc, &sources).expect("plan"));
    let written = arm
        .put_and_wait(&url, &planned, planned.etag.as_deref())
        .await;
    let after: LoadBalancer = round_trip(&written, "lb after");
    assert_eq!(
        plan_ensure(Some(&after), &target, &svc, &sources).expect("replan"),
        LbChange::Unchanged,
        "the document ARM returned must plan to no write: {written}"
    );
    assert_eq!(service_frontends(&after, &svc).len(), 1);

    let removed = plan_put(plan_remove(&after, &target, &svc));
    let written = arm
        .put_and_wait(&url, &removed, removed.etag.as_deref())
        .await;
    let cleaned: LoadBalancer = round_trip(&written, "lb cleaned");
    assert!(service_frontends(&cleaned, &svc).is_empty());
    let names = |lb: &LoadBalancer| -> Vec<String> {
        lb.properties
            .as_ref()
            .and_then(|p| p.frontend_ip_configurations.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|f| f.name.clone())
            .collect()
    };
    assert_eq!(
        names(&cleaned),
        names(&before),
        "only the Service's frontend went"
    );
    assert_eq!(
        plan_remove(&cleaned, &target, &svc),
        LbChange::Unchanged,
        "removing again writes nothing"
    );
}

#[tokio::test]
async fn public_local_service_beside_the_outbound_frontend() {
    use ccm_azure::arm::resources::public_ip_address::PublicIpAddressProperties;
    use ccm_azure::arm::resources::{PublicIpAddress, Sku};

    let dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeAzure::start(&with_reader_app("small.yaml", dir.path()), &[]);
    let arm = Arm::new(&fake).await;
    let sub = &fake.subscription;
    let rg =
        format!("/subscriptions/{sub}/resourceGroups/k8s-small-rg/providers/Microsoft.Network");
    let mut svc = internal_service();
    svc.internal = false;
    svc.internal_subnet = None;
    svc.ports = vec![port(Protocol::Tcp, 443, 30443)];
    svc.local_health_check_node_port = Some(32443);

    let pip_id = format!("{rg}/publicIPAddresses/kubernetes-{}", svc.base_name);
    let pip = PublicIpAddress {
        location: Some("eastus".into()),
        sku: Some(Sku {
            name: Some("Standard".into()),
            ..Default::default()
        }),
        properties: Some(PublicIpAddressProperties {
            public_ip_allocation_method: Some("Static".into()),
            public_ip_address_version: Some("IPv4".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let pip_url = format!(
        "{pip_id}?api-version={}",
        ResourceType::PublicIpAddresses.api_version(CloudFlavor::Public)
    );
    arm.put_and_wait(&pip_url, &pip, None).await;

    let url = format!(
        "{rg}/loadBalancers/kubernetes?api-version={}",
        ResourceType::LoadBalancers.api_version(CloudFlavor::Public)
    );
    let target = target(sub, "k8s-small-rg", "kubernetes", "eastus");
    let sources = PerFamily {
        v4: Some(FrontendSource::Public { pip_id }),
        v6: None,
    };

    let before: LoadBalancer = round_trip(&arm.get(&url).await, "lb before");
    let planned = plan_put(plan_ensure(Some(&before), &target, &svc, &sources).expect("plan"));
    let written = arm
        .put_and_wait(&url, &planned, planned.etag.as_deref())
        .await;
    let after: LoadBalancer = round_trip(&written, "lb after");
    assert_eq!(
        plan_ensure(Some(&after), &target, &svc, &sources).expect("replan"),
        LbChange::Unchanged,
        "the document ARM returned must plan to no write: {written}"
    );

    let removed = plan_put(plan_remove(&after, &target, &svc));
    let written = arm
        .put_and_wait(&url, &removed, removed.etag.as_deref())
        .await;
    let cleaned: LoadBalancer = round_trip(&written, "lb cleaned");
    let frontends = |lb: &LoadBalancer| -> Vec<String> {
        lb.properties
            .as_ref()
            .and_then(|p| p.frontend_ip_configurations.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|f| f.name.clone())
            .collect()
    };
    assert_eq!(frontends(&cleaned), vec!["outbound".to_string()]);
}
