//! The Node status a kubelet posts (conditions, addresses, capacity, node info), and the status
//! the node-lifecycle controller writes once a kubelet stops posting.

use k8s_openapi::api::core::v1::{Node, NodeAddress, NodeCondition, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use super::profile::{FactId, KubeVersion, Profile};
use super::registration::Mode;

/// Taint the node-lifecycle controller puts on a Node whose Ready condition is Unknown.
pub const UNREACHABLE_TAINT: &str = "node.kubernetes.io/unreachable";
/// Message the node-lifecycle controller writes on each condition of a silent kubelet.
pub const STOPPED_POSTING: &str = "Kubelet stopped posting node status.";

/// The four conditions a healthy kubelet posts (`pkg/kubelet/nodestatus/setters.go`:
/// MemoryPressureCondition, DiskPressureCondition, PIDPressureCondition, ReadyCondition; Ready
/// last), with `since` as the transition time.
pub fn healthy_conditions(now: Timestamp, since: Timestamp) -> Vec<NodeCondition> {
    [
        (
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
        ),
        (
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
        ),
        (
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
        ),
        (
            "Ready",
            "True",
            "KubeletReady",
            "kubelet is posting ready status",
        ),
    ]
    .into_iter()
    .map(|(type_, status, reason, message)| NodeCondition {
        type_: type_.to_owned(),
        status: status.to_owned(),
        reason: Some(reason.to_owned()),
        message: Some(message.to_owned()),
        last_heartbeat_time: Some(Time(now)),
        last_transition_time: Some(Time(since)),
    })
    .collect()
}

/// What the node-lifecycle controller makes of a kubelet that stopped posting
/// (`pkg/controller/nodelifecycle/node_lifecycle_controller.go` `tryUpdateNodeHealth`): every
/// condition Unknown, reason `NodeStatusUnknown`, heartbeat kept, transition now.
pub fn silent_conditions(existing: &[NodeCondition], now: Timestamp) -> Vec<NodeCondition> {
    let mut conditions: Vec<NodeCondition> = existing.to_vec();
    for kind in ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"] {
        let old = existing.iter().find(|c| c.type_ == kind);
        let unchanged = old.is_some_and(|c| c.status == "Unknown");
        let condition = NodeCondition {
            type_: kind.to_owned(),
            status: "Unknown".to_owned(),
            reason: Some("NodeStatusUnknown".to_owned()),
            message: Some(STOPPED_POSTING.to_owned()),
            last_heartbeat_time: old.and_then(|c| c.last_heartbeat_time.clone()),
            last_transition_time: if unchanged {
                old.and_then(|c| c.last_transition_time.clone())
            } else {
                Some(Time(now))
            },
        };
        match conditions.iter_mut().find(|c| c.type_ == kind) {
            Some(slot) => *slot = condition,
            None => conditions.push(condition),
        }
    }
    conditions
}

/// The unreachable taints the node-lifecycle controller adds to a Node whose Ready is Unknown
/// (NoSchedule from `doNoScheduleTaintingPass`, NoExecute from the taint-based eviction pass).
pub fn unreachable_taints(now: Timestamp) -> [Taint; 2] {
    [
        Taint {
            key: UNREACHABLE_TAINT.to_owned(),
            value: None,
            effect: "NoSchedule".to_owned(),
            time_added: None,
        },
        Taint {
            key: UNREACHABLE_TAINT.to_owned(),
            value: None,
            effect: "NoExecute".to_owned(),
            time_added: Some(Time(now)),
        },
    ]
}

/// `--node-ip` handling in the kubelet's NodeAddress setter, before the cloud is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressError {
    /// In-tree: no cloud address equals `--node-ip`; the kubelet fails the status update.
    NodeIpNotInCloud,
}

/// The addresses the kubelet posts, or `None` to leave the Node's as they are
/// (`setters.go` NodeAddress, migration.md §1.4).
/// - in-tree: the cloud's list; with `--node-ip`, the matching address first, then addresses of
///   other types, then `Hostname`;
/// - external: nothing before [`FactId::ExternalBootstrapAddresses`]; after it, existing addresses
///   are kept, else `--node-ip`(s) as InternalIP plus Hostname, or only Hostname.
pub fn addresses(
    mode: Mode,
    profile: &Profile,
    cloud: Option<&[NodeAddress]>,
    existing: &[NodeAddress],
    node_ips: &[String],
    hostname: &str,
) -> Result<Option<Vec<NodeAddress>>, AddressError> {
    let hostname_address = NodeAddress {
        type_: "Hostname".to_owned(),
        address: hostname.to_owned(),
    };
    match mode {
        Mode::InTree => {
            let cloud = cloud.unwrap_or_default();
            let Some(node_ip) = node_ips.first() else {
                if cloud.is_empty() {
                    return Ok(Some(vec![hostname_address]));
                }
                return Ok(Some(cloud.to_vec()));
            };
            let matched = cloud
                .iter()
                .find(|a| &a.address == node_ip)
                .ok_or(AddressError::NodeIpNotInCloud)?;
            let mut out = vec![matched.clone()];
            out.extend(
                cloud
                    .iter()
                    .filter(|a| a.type_ != matched.type_ && a.type_ != "Hostname")
                    .cloned(),
            );
            out.push(hostname_address);
            Ok(Some(out))
        }
        Mode::External => {
            if !profile.holds(FactId::ExternalBootstrapAddresses) || !existing.is_empty() {
                return Ok(None);
            }
            let mut out: Vec<NodeAddress> = node_ips
                .iter()
                .map(|ip| NodeAddress {
                    type_: "InternalIP".to_owned(),
                    address: ip.clone(),
                })
                .collect();
            out.push(hostname_address);
            Ok(Some(out))
        }
    }
}

/// The `alpha.kubernetes.io/provided-node-ip` value the kubelet wants: `ip[,ip2]` in external
/// mode with `--node-ip`, else absent (migration.md §1.4: "else deletes it").
pub fn provided_node_ip(mode: Mode, node_ips: &[String]) -> Option<String> {
    (mode == Mode::External && !node_ips.is_empty()).then(|| node_ips.join(","))
}

/// The Node status a kubelet of `version` reports: `conditions`, `addresses` when given, and
/// fixed capacity and node info.
pub fn status_fields(
    conditions: &[NodeCondition],
    addresses: Option<&[NodeAddress]>,
    version: KubeVersion,
) -> Value {
    let mut status = json!({
        "conditions": conditions,
        "capacity": {"cpu": "4", "memory": "16393440Ki", "pods": "110", "ephemeral-storage": "129886128Ki"},
        "allocatable": {"cpu": "3860m", "memory": "12880864Ki", "pods": "110", "ephemeral-storage": "119703055367"},
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "machineID": "", "systemUUID": "", "bootID": "", "kernelVersion": "5.15.0-simulated",
            "osImage": "Simulated kubelet", "containerRuntimeVersion": "containerd://1.7.0",
            "kubeletVersion": format!("v{version}.0"), "kubeProxyVersion": format!("v{version}.0"),
            "operatingSystem": "linux", "architecture": "amd64"
        }
    });
    if let Some(addresses) = addresses {
        status["addresses"] = json!(addresses);
    }
    status
}

/// The strategic-merge patch of `nodes/<name>/status` one status post sends: conditions merge
/// by type (so CNM's NetworkUnavailable stays), addresses replace the whole list when given.
pub fn status_patch(
    conditions: &[NodeCondition],
    addresses: Option<&[NodeAddress]>,
    version: KubeVersion,
) -> Value {
    let mut status = status_fields(conditions, addresses, version);
    if let Some(list) = status.get_mut("addresses").and_then(Value::as_array_mut) {
        list.insert(0, json!({"$patch": "replace"}));
    }
    json!({ "status": status })
}

/// True when `node`'s Ready condition is `True`.
pub fn is_ready(node: &Node) -> bool {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .any(|c| c.type_ == "Ready" && c.status == "True")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(kind: &str, value: &str) -> NodeAddress {
        NodeAddress {
            type_: kind.into(),
            address: value.into(),
        }
    }

    fn p(v: &str) -> Profile {
        Profile::of(v.parse().expect("version"))
    }

    #[test]
    fn in_tree_node_ip_goes_first_and_hostname_last() {
        let cloud = [
            a("Hostname", "n1"),
            a("InternalIP", "10.0.0.4"),
            a("ExternalIP", "20.0.0.4"),
        ];
        let out = addresses(
            Mode::InTree,
            &p("1.27"),
            Some(&cloud),
            &[],
            &["10.0.0.4".into()],
            "n1",
        );
        assert_eq!(
            out,
            Ok(Some(vec![
                a("InternalIP", "10.0.0.4"),
                a("ExternalIP", "20.0.0.4"),
                a("Hostname", "n1")
            ]))
        );
        let wrong = addresses(
            Mode::InTree,
            &p("1.27"),
            Some(&cloud),
            &[],
            &["10.9.9.9".into()],
            "n1",
        );
        assert_eq!(wrong, Err(AddressError::NodeIpNotInCloud));
        let plain = addresses(Mode::InTree, &p("1.27"), Some(&cloud), &[], &[], "n1");
        assert_eq!(plain, Ok(Some(cloud.to_vec())));
    }

    #[test]
    fn external_addresses_depend_on_version_and_existing_ones() {
        let none = addresses(
            Mode::External,
            &p("1.28"),
            None,
            &[],
            &["10.0.0.4".into()],
            "n1",
        );
        assert_eq!(none, Ok(None));
        let boot = addresses(
            Mode::External,
            &p("1.29"),
            None,
            &[],
            &["10.0.0.4".into()],
            "n1",
        );
        assert_eq!(
            boot,
            Ok(Some(vec![a("InternalIP", "10.0.0.4"), a("Hostname", "n1")]))
        );
        let only_host = addresses(Mode::External, &p("1.30"), None, &[], &[], "n1");
        assert_eq!(only_host, Ok(Some(vec![a("Hostname", "n1")])));
        let kept = addresses(
            Mode::External,
            &p("1.30"),
            None,
            &[a("InternalIP", "10.0.0.4")],
            &[],
            "n1",
        );
        assert_eq!(kept, Ok(None));
    }

    #[test]
    fn provided_node_ip_only_in_external_mode_with_node_ip() {
        let ips = ["10.0.0.4".to_owned(), "fd00::4".to_owned()];
        assert_eq!(
            provided_node_ip(Mode::External, &ips).as_deref(),
            Some("10.0.0.4,fd00::4")
        );
        assert_eq!(provided_node_ip(Mode::External, &[]), None);
        assert_eq!(provided_node_ip(Mode::InTree, &ips), None);
    }

    #[test]
    fn silence_makes_every_condition_unknown_keeping_the_heartbeat() {
        let t0 = Timestamp::from_second(1_000).expect("t0");
        let t1 = Timestamp::from_second(2_000).expect("t1");
        let t2 = Timestamp::from_second(3_000).expect("t2");
        let healthy = healthy_conditions(t1, t0);
        let silent = silent_conditions(&healthy, t2);
        assert_eq!(silent.len(), 4);
        let ready = silent.iter().find(|c| c.type_ == "Ready").expect("ready");
        assert_eq!(ready.status, "Unknown");
        assert_eq!(ready.reason.as_deref(), Some("NodeStatusUnknown"));
        assert_eq!(ready.message.as_deref(), Some(STOPPED_POSTING));
        assert_eq!(ready.last_heartbeat_time, Some(Time(t1)));
        assert_eq!(ready.last_transition_time, Some(Time(t2)));
        let again = silent_conditions(&silent, t1);
        assert_eq!(
            again[3].last_transition_time,
            Some(Time(t2)),
            "no new transition"
        );
    }

    #[test]
    fn status_patch_replaces_addresses_only_when_given() {
        let v: KubeVersion = "1.27".parse().expect("version");
        let t = Timestamp::from_second(1).expect("t");
        let with = status_patch(&healthy_conditions(t, t), Some(&[a("Hostname", "n1")]), v);
        assert_eq!(with["status"]["addresses"][0], json!({"$patch": "replace"}));
        assert_eq!(with["status"]["nodeInfo"]["kubeletVersion"], "v1.27.0");
        let without = status_patch(&healthy_conditions(t, t), None, v);
        assert!(without["status"].get("addresses").is_none());
        let plain = status_fields(&healthy_conditions(t, t), Some(&[a("Hostname", "n1")]), v);
        assert_eq!(
            plain["addresses"],
            json!([{"type": "Hostname", "address": "n1"}])
        );
        let typed: k8s_openapi::api::core::v1::NodeStatus =
            serde_json::from_value(plain).expect("a NodeStatus");
        assert_eq!(typed.conditions.map(|c| c.len()), Some(4));
    }
}
