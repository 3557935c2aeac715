//! The Node a kubelet registers, and how it reconciles an existing one, per mode and version
//! (kubernetes `pkg/kubelet/kubelet_node_status.go` `initialNode`, `tryRegisterWithAPIServer`,
//! `updateDefaultLabels`; the Azure values from the in-tree provider's IMDS path).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, NodeAddress, NodeSpec, Taint};
use kube::api::ObjectMeta;

use super::imds::Instance;
use super::profile::{FactId, Profile};

/// The taint an external-mode kubelet registers with (`cloudproviderapi.TaintExternalCloudProvider`).
pub const UNINITIALIZED_TAINT: &str = "node.cloudprovider.kubernetes.io/uninitialized";
/// Node annotation carrying `--node-ip` to the external cloud provider.
pub const PROVIDED_NODE_IP: &str = "alpha.kubernetes.io/provided-node-ip";
/// Annotation the kubelet sets when the attach/detach controller manages volumes (default on).
pub const CONTROLLER_MANAGED_ATTACH: &str =
    "volumes.kubernetes.io/controller-managed-attach-detach";

/// Which `--cloud-provider` the kubelet runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `--cloud-provider=azure`: the kubelet initialises its own Node from IMDS.
    InTree,
    /// `--cloud-provider=external`: the CCM / cloud-node-manager initialises the Node.
    External,
}

/// The labels `updateDefaultLabels` keeps equal to a fresh `initialNode` on re-registration.
const DEFAULT_LABELS: [&str; 11] = [
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
];

/// What the in-tree provider told the kubelet about its VM.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudFacts {
    /// `spec.providerID`.
    pub provider_id: String,
    /// Zone, region and instance-type labels.
    pub labels: BTreeMap<String, String>,
    /// `NodeAddresses` of the IMDS path, before the kubelet's `--node-ip` filtering.
    pub addresses: Vec<NodeAddress>,
}

fn address(kind: &str, value: &str) -> NodeAddress {
    NodeAddress {
        type_: kind.to_owned(),
        address: value.to_owned(),
    }
}

/// The in-tree provider's answers for the local VM (legacy azure `InstanceID`, `InstanceType`,
/// `GetZone`, `NodeAddresses`, IMDS path; anchor-ccm.md §3.1, §3.3, §3.4, §3.7).
pub fn cloud_facts(instance: &Instance, node: &str, profile: &Profile) -> CloudFacts {
    let sub = instance.subscription.to_lowercase();
    let rg = instance.resource_group.to_lowercase();
    let prefix =
        format!("azure:///subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Compute");
    // A uniform scale-set VM is named `<scaleSet>_<instanceId>`; anything else is a standard VM
    // named after the node ([infer] flex VMs were unknown to the in-tree provider).
    let vmss = (!instance.scale_set.is_empty())
        .then(|| instance.name.rsplit_once('_'))
        .flatten();
    let provider_id = match vmss {
        Some((set, id)) => format!("{prefix}/virtualMachineScaleSets/{set}/virtualMachines/{id}"),
        None => format!("{prefix}/virtualMachines/{node}"),
    };
    let mut labels = BTreeMap::new();
    let zone = if instance.zone.is_empty() {
        instance.fault_domain.clone()
    } else {
        format!("{}-{}", instance.location, instance.zone)
    }
    .to_lowercase();
    let region = instance.location.to_lowercase();
    let pairs = [
        (
            "topology.kubernetes.io/zone",
            "failure-domain.beta.kubernetes.io/zone",
            zone,
        ),
        (
            "topology.kubernetes.io/region",
            "failure-domain.beta.kubernetes.io/region",
            region,
        ),
        (
            "node.kubernetes.io/instance-type",
            "beta.kubernetes.io/instance-type",
            instance.vm_size.clone(),
        ),
    ];
    for (ga, beta, value) in pairs {
        if value.is_empty() {
            continue;
        }
        if profile.holds(FactId::GaTopologyLabels) {
            labels.insert(ga.to_owned(), value.clone());
        }
        if profile.holds(FactId::BetaTopologyLabels) {
            labels.insert(beta.to_owned(), value);
        }
    }
    let mut addresses = vec![address("Hostname", node)];
    for (private, public) in [&instance.ipv4, &instance.ipv6].into_iter().flatten() {
        addresses.push(address("InternalIP", private));
        if !public.is_empty() {
            addresses.push(address("ExternalIP", public));
        }
    }
    CloudFacts {
        provider_id,
        labels,
        addresses,
    }
}

/// The kubelet's own labels (`initialNode`: hostname, GA and beta os/arch).
fn kubelet_labels(hostname: &str) -> BTreeMap<String, String> {
    [
        ("kubernetes.io/hostname", hostname),
        ("kubernetes.io/os", "linux"),
        ("kubernetes.io/arch", "amd64"),
        ("beta.kubernetes.io/os", "linux"),
        ("beta.kubernetes.io/arch", "amd64"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

/// `initialNode`: the Node object a kubelet of `mode` creates (status comes later, see `status`).
pub fn initial_node(name: &str, mode: Mode, cloud: Option<&CloudFacts>) -> Node {
    let mut labels = kubelet_labels(name);
    let mut spec = NodeSpec::default();
    match (mode, cloud) {
        (Mode::InTree, Some(cloud)) => {
            labels.extend(cloud.labels.clone());
            spec.provider_id = Some(cloud.provider_id.clone());
        }
        (Mode::External, _) => {
            spec.taints = Some(vec![Taint {
                key: UNINITIALIZED_TAINT.to_owned(),
                value: Some("true".to_owned()),
                effect: "NoSchedule".to_owned(),
                time_added: None,
            }]);
        }
        (Mode::InTree, None) => {}
    }
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            labels: Some(labels),
            annotations: Some(BTreeMap::from([(
                CONTROLLER_MANAGED_ATTACH.to_owned(),
                "true".to_owned(),
            )])),
            ..Default::default()
        },
        spec: Some(spec),
        status: None,
    }
}

/// `updateDefaultLabels` + the attach/detach annotation: what a restarted kubelet changes on the
/// Node it finds already registered. Taints, providerID and other labels stay as they are (so a
/// kubelet restarted with `--cloud-provider=external` does not re-taint its Node). True if changed.
pub fn reconcile_existing(initial: &Node, existing: &mut Node) -> bool {
    let mut changed = false;
    let wanted = initial.metadata.labels.clone().unwrap_or_default();
    let labels = existing.metadata.labels.get_or_insert_with(BTreeMap::new);
    for key in DEFAULT_LABELS {
        let Some(value) = wanted.get(key) else {
            continue;
        };
        if labels.get(key) != Some(value) {
            labels.insert(key.to_owned(), value.clone());
            changed = true;
        }
        if value.is_empty() {
            labels.remove(key);
        }
    }
    let annotations = existing
        .metadata
        .annotations
        .get_or_insert_with(BTreeMap::new);
    if annotations
        .get(CONTROLLER_MANAGED_ATTACH)
        .map(String::as_str)
        != Some("true")
    {
        annotations.insert(CONTROLLER_MANAGED_ATTACH.to_owned(), "true".to_owned());
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intree::kubelet::profile::KubeVersion;

    fn profile(v: &str) -> Profile {
        Profile::of(v.parse::<KubeVersion>().expect("version"))
    }

    fn vmss_instance() -> Instance {
        Instance {
            name: "aks-np-vmss_10".into(),
            location: "WestEurope".into(),
            zone: "2".into(),
            fault_domain: "0".into(),
            vm_size: "Standard_D4ds_v5".into(),
            subscription: "0B1F".into(),
            resource_group: "MC_Zonal".into(),
            scale_set: "aks-np-vmss".into(),
            ipv4: Some(("10.224.0.5".into(), String::new())),
            ipv6: None,
        }
    }

    #[test]
    fn vmss_facts_use_the_scale_set_form_and_zonal_labels() {
        let facts = cloud_facts(&vmss_instance(), "aks-np-vmss00000a", &profile("1.27"));
        assert_eq!(
            facts.provider_id,
            "azure:///subscriptions/0b1f/resourceGroups/mc_zonal/providers/Microsoft.Compute/\
             virtualMachineScaleSets/aks-np-vmss/virtualMachines/10"
        );
        assert_eq!(facts.labels["topology.kubernetes.io/zone"], "westeurope-2");
        assert_eq!(
            facts.labels["failure-domain.beta.kubernetes.io/zone"],
            "westeurope-2"
        );
        assert_eq!(facts.labels["topology.kubernetes.io/region"], "westeurope");
        assert_eq!(
            facts.labels["beta.kubernetes.io/instance-type"],
            "Standard_D4ds_v5"
        );
        assert_eq!(
            facts.addresses,
            vec![
                address("Hostname", "aks-np-vmss00000a"),
                address("InternalIP", "10.224.0.5")
            ]
        );
    }

    #[test]
    fn standard_vm_uses_the_node_name_and_the_fault_domain() {
        let mut instance = vmss_instance();
        instance.scale_set.clear();
        instance.zone.clear();
        instance.fault_domain = "1".into();
        instance.ipv4 = Some(("10.0.0.4".into(), "20.0.0.4".into()));
        let facts = cloud_facts(&instance, "agent-0", &profile("1.16"));
        assert!(
            facts.provider_id.ends_with("/virtualMachines/agent-0"),
            "{}",
            facts.provider_id
        );
        assert_eq!(
            facts.labels.get("topology.kubernetes.io/zone"),
            None,
            "no GA keys in 1.16"
        );
        assert_eq!(facts.labels["failure-domain.beta.kubernetes.io/zone"], "1");
        assert_eq!(facts.addresses[2], address("ExternalIP", "20.0.0.4"));
    }

    #[test]
    fn external_registration_is_tainted_without_provider_id() {
        let node = initial_node("n1", Mode::External, None);
        let spec = node.spec.expect("spec");
        assert_eq!(spec.provider_id, None);
        let taints = spec.taints.expect("taints");
        assert_eq!(taints[0].key, UNINITIALIZED_TAINT);
        assert_eq!(taints[0].value.as_deref(), Some("true"));
        assert_eq!(taints[0].effect, "NoSchedule");
        assert_eq!(
            node.metadata.labels.expect("labels")["kubernetes.io/hostname"],
            "n1"
        );
    }

    #[test]
    fn restart_in_external_mode_keeps_cloud_labels_taints_and_provider_id() {
        let facts = cloud_facts(&vmss_instance(), "n1", &profile("1.27"));
        let mut existing = initial_node("n1", Mode::InTree, Some(&facts));
        let before = existing.clone();
        let flipped = initial_node("n1", Mode::External, None);
        assert!(!reconcile_existing(&flipped, &mut existing));
        assert_eq!(existing, before);
    }

    #[test]
    fn restart_restores_a_changed_default_label() {
        let mut existing = initial_node("n1", Mode::External, None);
        existing
            .metadata
            .labels
            .as_mut()
            .expect("labels")
            .insert("kubernetes.io/os".into(), "windows".into());
        assert!(reconcile_existing(
            &initial_node("n1", Mode::External, None),
            &mut existing
        ));
        assert_eq!(
            existing.metadata.labels.expect("labels")["kubernetes.io/os"],
            "linux"
        );
    }
}
