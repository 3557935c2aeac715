//! Tests of the LB plan: fixtures shared by the snapshot, removal, adoption and property tests.

mod adoption;
mod ensure;
mod in_tree;
mod property;
mod removal;
mod snapshots;

use std::collections::BTreeMap;
use std::net::IpAddr;

use crate::arm::resources::load_balancer::LoadBalancer;
use crate::config::{LoadBalancerSku, ProbeMode};
use crate::loadbalancer::service::{LbPort, LbService, PerFamily, Protocol};

use super::{FrontendSource, LbChange, LbTarget, plan_ensure, plan_remove};

pub(super) const SUBNET_ID: &str = "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/snet";

/// The public standard LB `kubernetes` of cluster `kubernetes`.
pub(super) fn target() -> LbTarget {
    LbTarget {
        subscription: "sub".into(),
        resource_group: "rg".into(),
        name: "kubernetes".into(),
        location: "eastus2".into(),
        cluster_name: "kubernetes".into(),
        sku: LoadBalancerSku::Standard,
        disable_outbound_snat: false,
        probe_mode: ProbeMode::ServiceNodePort,
        shared_probe_port: 10256,
        shared_probe_path: "/healthz".into(),
        internal_frontend_zones: Vec::new(),
        tags: BTreeMap::new(),
        system_tags: Vec::new(),
        in_tree: crate::config::InTreeCompat::default(),
    }
}

/// The internal LB `kubernetes-internal` in a zonal region.
pub(super) fn internal_target() -> LbTarget {
    LbTarget {
        name: "kubernetes-internal".into(),
        internal_frontend_zones: vec!["1".into(), "2".into(), "3".into()],
        ..target()
    }
}

/// A TCP port with a NodePort.
pub(super) fn tcp(port: u16, node_port: u16) -> LbPort {
    LbPort::new(Protocol::Tcp, port, Some(node_port))
}

/// A UDP port with a NodePort.
pub(super) fn udp(port: u16, node_port: u16) -> LbPort {
    LbPort {
        protocol: Protocol::Udp,
        ..tcp(port, node_port)
    }
}

/// A public IPv4 Service `default/<name>` with UID `<uid>` and `ports`.
pub(super) fn service(name: &str, uid: &str, ports: Vec<LbPort>) -> LbService {
    LbService {
        ports,
        ..LbService::minimal("default", name, uid)
    }
}

pub(super) const UID_A: &str = "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809";
pub(super) const UID_B: &str = "bbbbbbbb-0000-4000-8000-000000000002";
pub(super) const UID_C: &str = "cccccccc-0000-4000-8000-000000000003";

/// A PIP id in the cluster resource group.
pub(super) fn pip_id(name: &str) -> String {
    format!(
        "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/{name}"
    )
}

/// A public source on PIP `name`.
pub(super) fn pip(name: &str) -> FrontendSource {
    FrontendSource::Public {
        pip_id: pip_id(name),
    }
}

/// An internal source in `snet`, pinned or not.
pub(super) fn internal(ip: Option<&str>) -> FrontendSource {
    FrontendSource::Internal {
        subnet_id: SUBNET_ID.into(),
        private_ip: ip.map(|ip| ip.parse::<IpAddr>().expect("test IP")),
    }
}

/// Only an IPv4 source.
pub(super) fn v4(source: FrontendSource) -> PerFamily<Option<FrontendSource>> {
    PerFamily {
        v4: Some(source),
        v6: None,
    }
}

/// The PUT body of a change that must be a PUT.
pub(super) fn put(change: LbChange) -> LoadBalancer {
    match change {
        LbChange::Put(lb) => lb,
        other => panic!("expected a PUT, got {other:?}"),
    }
}

/// Ensures `svc` on `current` and checks that ensuring again on the result writes nothing.
pub(super) fn ensure(
    current: Option<&LoadBalancer>,
    target: &LbTarget,
    svc: &LbService,
    sources: &PerFamily<Option<FrontendSource>>,
) -> LoadBalancer {
    let lb = put(plan_ensure(current, target, svc, sources).expect("plan"));
    assert_eq!(
        plan_ensure(Some(&lb), target, svc, sources).expect("plan again"),
        LbChange::Unchanged,
        "a second ensure must not write"
    );
    lb
}

/// Removes `svc` from `lb`.
pub(super) fn remove(lb: &LoadBalancer, target: &LbTarget, svc: &LbService) -> LbChange {
    plan_remove(lb, target, svc)
}

/// Names of one child list.
pub(super) fn names<P>(list: Option<&Vec<crate::arm::resources::Child<P>>>) -> Vec<String> {
    list.into_iter()
        .flatten()
        .map(|c| c.name.clone().unwrap_or_default())
        .collect()
}
