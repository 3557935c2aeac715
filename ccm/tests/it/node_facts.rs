//! What node initialisation writes on a Node (providerID, topology labels, addresses, the
//! uninitialized taint), read off a Node or derived from the fake's description of its VM
//! (anchor-ccm.md 3.1-3.5), so runs through different binaries compare field by field.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Node;

use crate::processes::UNINITIALIZED;
use crate::topology::Vm;

/// The GA topology labels and their deprecated beta twins.
pub const TOPOLOGY_LABELS: [(&str, &str); 3] = [
    (
        "node.kubernetes.io/instance-type",
        "beta.kubernetes.io/instance-type",
    ),
    (
        "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/region",
    ),
    (
        "topology.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/zone",
    ),
];

/// The initialisation results of one Node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeFacts {
    /// `spec.providerID`.
    pub provider_id: Option<String>,
    /// The six topology labels present (GA and beta).
    pub labels: BTreeMap<String, String>,
    /// `(type, address)` pairs, sorted: the IMDS and ARM paths list them in different orders
    /// (anchor-ccm.md 3.3).
    pub addresses: Vec<(String, String)>,
    /// Whether `node.cloudprovider.kubernetes.io/uninitialized` is still on the Node.
    pub tainted: bool,
}

impl NodeFacts {
    /// The facts on `node`.
    pub fn of(node: &Node) -> NodeFacts {
        let labels = node.metadata.labels.clone().unwrap_or_default();
        let labels = TOPOLOGY_LABELS
            .iter()
            .flat_map(|(ga, beta)| [*ga, *beta])
            .filter_map(|key| labels.get(key).map(|v| (key.to_owned(), v.clone())))
            .collect();
        let mut addresses: Vec<(String, String)> = node
            .status
            .as_ref()
            .and_then(|s| s.addresses.as_ref())
            .into_iter()
            .flatten()
            .map(|a| (a.type_.clone(), a.address.clone()))
            .collect();
        addresses.sort();
        let spec = node.spec.as_ref();
        NodeFacts {
            provider_id: spec.and_then(|s| s.provider_id.clone()),
            labels,
            addresses,
            tainted: spec
                .and_then(|s| s.taints.as_ref())
                .is_some_and(|t| t.iter().any(|t| t.key == UNINITIALIZED)),
        }
    }

    /// What an initialised Node of `vm` carries in `location`, GA and beta labels both.
    /// `external` are the ExternalIPs when the VM's NIC has no public IP: none on the ARM path,
    /// the IMDS load balancer frontends on the IMDS path (anchor-ccm.md 3.3).
    pub fn expected(vm: &Vm, location: &str, external: &[String]) -> NodeFacts {
        let zone = match vm.zone {
            Some(zone) => format!("{location}-{zone}"),
            None => vm.fault_domain.to_string(),
        };
        let values = [vm.vm_size.clone(), location.to_owned(), zone];
        let labels = TOPOLOGY_LABELS
            .iter()
            .zip(values)
            .flat_map(|((ga, beta), value)| {
                [
                    ((*ga).to_owned(), value.clone()),
                    ((*beta).to_owned(), value),
                ]
            })
            .collect();
        let mut addresses = vec![("Hostname".to_owned(), vm.node_name.clone())];
        addresses.extend(
            vm.private_ips
                .first()
                .map(|ip| ("InternalIP".to_owned(), ip.clone())),
        );
        match &vm.public_ip {
            Some(ip) => addresses.push(("ExternalIP".to_owned(), ip.clone())),
            None => addresses.extend(
                external
                    .iter()
                    .map(|ip| ("ExternalIP".to_owned(), ip.clone())),
            ),
        }
        addresses.sort();
        NodeFacts {
            provider_id: Some(vm.provider_id.clone()),
            labels,
            addresses,
            tainted: false,
        }
    }

    /// The facts without ExternalIPs: what the ARM and IMDS paths agree on.
    pub fn without_external_ips(&self) -> NodeFacts {
        let mut facts = self.clone();
        facts.addresses.retain(|(kind, _)| kind != "ExternalIP");
        facts
    }
}
