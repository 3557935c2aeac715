//! Pure decisions of the service controller: which Services it owns, when they need cleanup,
//! which Nodes back a load balancer, and whether anything relevant changed.

use std::collections::BTreeSet;

use ccm_cloud::NodeView;
use ccm_names::finalizers::LOAD_BALANCER_CLEANUP;
use ccm_names::labels::EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS;
use ccm_names::taints::TO_BE_DELETED_BY_CLUSTER_AUTOSCALER;
use k8s_openapi::api::core::v1::{LoadBalancerIngress, LoadBalancerStatus, Service};
use serde_json::json;

/// True for `type: LoadBalancer` without `spec.loadBalancerClass` (another controller owns
/// classed Services).
pub fn wants_load_balancer(service: &Service) -> bool {
    service.spec.as_ref().is_some_and(|spec| {
        spec.type_.as_deref() == Some("LoadBalancer") && spec.load_balancer_class.is_none()
    })
}

/// True when the Service carries the cleanup finalizer.
pub fn has_finalizer(service: &Service) -> bool {
    service
        .metadata
        .finalizers
        .as_ref()
        .is_some_and(|f| f.iter().any(|f| f == LOAD_BALANCER_CLEANUP))
}

/// True when the Service's load balancer must be deleted: it has the finalizer and is being
/// deleted or no longer wants a load balancer.
pub fn needs_cleanup(service: &Service) -> bool {
    has_finalizer(service)
        && (service.metadata.deletion_timestamp.is_some() || !wants_load_balancer(service))
}

/// Go's `strconv.ParseBool` false spellings: an exclusion label with one of these values does
/// not exclude the node (migration.md 6.3).
fn parses_as_false(value: &str) -> bool {
    matches!(value, "0" | "f" | "F" | "false" | "FALSE" | "False")
}

/// Not labelled `node.kubernetes.io/exclude-from-external-load-balancers` (unless the value
/// parses as false).
pub fn node_included(node: &dyn NodeView) -> bool {
    match node.label(EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS) {
        Some(value) => parses_as_false(value),
        None => true,
    }
}

/// Has a `spec.providerID` (the cloud cannot place a node without one).
pub fn node_has_provider_id(node: &dyn NodeView) -> bool {
    node.provider_id().is_some_and(|id| !id.is_empty())
}

/// Not tainted `ToBeDeletedByClusterAutoscaler`.
pub fn node_untainted(node: &dyn NodeView) -> bool {
    !node.has_taint(TO_BE_DELETED_BY_CLUSTER_AUTOSCALER)
}

/// The stable node-set predicates (`stableNodeSetPredicates`): not being deleted, included,
/// has a providerID, not tainted for autoscaler deletion. Readiness is deliberately not one.
pub fn in_stable_set(node: &dyn NodeView) -> bool {
    node.deletion_timestamp().is_none()
        && node_included(node)
        && node_has_provider_id(node)
        && node_untainted(node)
}

/// The Nodes a load balancer should target, sorted by name; borrowed from the cache as views,
/// not copied (the provider reads them through [`NodeView`]).
pub fn stable_nodes<'a, N: NodeView + 'a>(
    nodes: impl IntoIterator<Item = &'a N>,
) -> Vec<&'a dyn NodeView> {
    let mut stable: Vec<&dyn NodeView> = nodes
        .into_iter()
        .map(|n| n as &dyn NodeView)
        .filter(|n| in_stable_set(*n))
        .collect();
    stable.sort_by(|a, b| a.name().cmp(b.name()));
    stable
}

/// Names of the stable node set, read without copying a Node: what node sync compares on each
/// node event before it does any work.
pub fn stable_node_names<'a, N: NodeView + 'a>(
    nodes: impl IntoIterator<Item = &'a N>,
) -> BTreeSet<String> {
    nodes
        .into_iter()
        .filter(|n| in_stable_set(*n))
        .map(|n| n.name())
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Names of a node list, the identity node sync compares.
pub fn node_names(nodes: &[&dyn NodeView]) -> BTreeSet<String> {
    nodes
        .iter()
        .map(|n| n.name())
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The fields whose change makes upstream's `needsUpdate` resync a Service (type, class, ports,
/// affinity, source ranges, IPs, annotations, UID, traffic policy, health check port, number of
/// IP families), plus whether it is being deleted; equal fingerprints need no new ensure.
pub fn fingerprint(service: &Service) -> Fingerprint {
    let spec = service.spec.clone().unwrap_or_default();
    let print = json!({
        "uid": service.metadata.uid,
        "deleting": service.metadata.deletion_timestamp.is_some(),
        "annotations": service.metadata.annotations,
        "type": spec.type_,
        "class": spec.load_balancer_class,
        "sourceRanges": spec.load_balancer_source_ranges,
        "ports": spec.ports,
        "sessionAffinity": spec.session_affinity,
        "sessionAffinityConfig": spec.session_affinity_config,
        "loadBalancerIP": spec.load_balancer_ip,
        "externalIPs": spec.external_ips,
        "externalTrafficPolicy": spec.external_traffic_policy,
        "healthCheckNodePort": spec.health_check_node_port,
        "ipFamilies": spec.ip_families.map(|f| f.len()).unwrap_or(0),
    });
    Fingerprint(print.to_string().into_boxed_str())
}

/// A [`fingerprint`] kept as its JSON text: one allocation of a few hundred bytes per Service
/// instead of a `serde_json::Value` tree several times that size (1000 Services keep one each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint(Box<str>);

#[cfg(test)]
impl Fingerprint {
    /// A fingerprint of any text (tests of what compares them).
    pub fn from_text(text: &str) -> Fingerprint {
        Fingerprint(text.into())
    }
}

fn ingress_of(status: Option<&LoadBalancerStatus>) -> &[LoadBalancerIngress] {
    status.and_then(|s| s.ingress.as_deref()).unwrap_or(&[])
}

/// Whether two load balancer statuses are equal (`LoadBalancerStatusEqual`: same ingress list;
/// no status and an empty one are equal).
pub fn status_equal(a: Option<&LoadBalancerStatus>, b: Option<&LoadBalancerStatus>) -> bool {
    ingress_of(a) == ingress_of(b)
}

/// The Service's current `status.loadBalancer`.
pub fn current_status(service: &Service) -> Option<&LoadBalancerStatus> {
    service
        .status
        .as_ref()
        .and_then(|s| s.load_balancer.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node_cache::SlimNode;
    use k8s_openapi::api::core::v1::Node;
    use serde_json::Value;

    fn service(value: Value) -> Service {
        serde_json::from_value(value).unwrap()
    }

    fn node(value: Value) -> Node {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn only_unclassed_load_balancers_are_wanted() {
        assert!(wants_load_balancer(&service(
            json!({"spec": {"type": "LoadBalancer"}})
        )));
        assert!(!wants_load_balancer(&service(
            json!({"spec": {"type": "LoadBalancer", "loadBalancerClass": "x/y"}})
        )));
        assert!(!wants_load_balancer(&service(
            json!({"spec": {"type": "ClusterIP"}})
        )));
        assert!(!wants_load_balancer(&service(json!({}))));
    }

    #[test]
    fn cleanup_needs_the_finalizer_and_deletion_or_a_lost_wish() {
        let fin = LOAD_BALANCER_CLEANUP;
        let deleting = service(json!({"metadata": {"finalizers": [fin],
            "deletionTimestamp": "2024-01-01T00:00:00Z"}, "spec": {"type": "LoadBalancer"}}));
        assert!(needs_cleanup(&deleting));
        let retyped =
            service(json!({"metadata": {"finalizers": [fin]}, "spec": {"type": "NodePort"}}));
        assert!(needs_cleanup(&retyped));
        let classed = service(json!({"metadata": {"finalizers": [fin]},
            "spec": {"type": "LoadBalancer", "loadBalancerClass": "x/y"}}));
        assert!(needs_cleanup(&classed));
        let live =
            service(json!({"metadata": {"finalizers": [fin]}, "spec": {"type": "LoadBalancer"}}));
        assert!(!needs_cleanup(&live));
        let foreign = service(json!({"spec": {"type": "NodePort"}}));
        assert!(!needs_cleanup(&foreign));
    }

    #[test]
    fn stable_set_predicates() {
        let ok = json!({"metadata": {"name": "a"}, "spec": {"providerID": "memory:///a"}});
        assert!(in_stable_set(&node(ok.clone())));
        // Readiness does not matter.
        let mut not_ready = ok.clone();
        not_ready["status"] = json!({"conditions": [{"type": "Ready", "status": "False"}]});
        assert!(in_stable_set(&node(not_ready)));
        let mut excluded = ok.clone();
        excluded["metadata"]["labels"] = json!({EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS: ""});
        assert!(!in_stable_set(&node(excluded.clone())));
        excluded["metadata"]["labels"] = json!({EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS: "False"});
        assert!(in_stable_set(&node(excluded.clone())));
        excluded["metadata"]["labels"] = json!({EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS: "no"});
        assert!(!in_stable_set(&node(excluded)));
        let no_id = json!({"metadata": {"name": "a"}});
        assert!(!in_stable_set(&node(no_id)));
        let mut tainted = ok.clone();
        tainted["spec"]["taints"] =
            json!([{"key": TO_BE_DELETED_BY_CLUSTER_AUTOSCALER, "effect": "NoSchedule"}]);
        assert!(!in_stable_set(&node(tainted)));
        let mut deleting = ok;
        deleting["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
        assert!(!in_stable_set(&node(deleting)));
    }

    #[test]
    fn stable_names_are_the_names_of_the_stable_nodes() {
        let nodes: Vec<Node> = [
            json!({"metadata": {"name": "b"}, "spec": {"providerID": "memory:///b"}}),
            json!({"metadata": {"name": "a"}, "spec": {"providerID": "memory:///a"}}),
            json!({"metadata": {"name": "uninitialised"}}),
            json!({"metadata": {"name": "excluded",
                "labels": {EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS: ""}},
                "spec": {"providerID": "memory:///e"}}),
        ]
        .into_iter()
        .map(node)
        .collect();
        let names = stable_node_names(&nodes);
        assert_eq!(names, node_names(&stable_nodes(&nodes)));
        assert_eq!(names, BTreeSet::from(["a".to_owned(), "b".to_owned()]));
        // The cached Nodes read the same through their view, sorted by name.
        let cached: Vec<SlimNode> = nodes.into_iter().map(SlimNode::from).collect();
        assert_eq!(stable_node_names(&cached), names);
        let stable: Vec<&str> = stable_nodes(&cached).iter().map(|n| n.name()).collect();
        assert_eq!(stable, ["a", "b"]);
    }

    #[test]
    fn fingerprint_ignores_status_and_finalizers_but_not_ports() {
        let a = service(
            json!({"metadata": {"uid": "u"}, "spec": {"type": "LoadBalancer",
            "ports": [{"port": 80}]}}),
        );
        let mut b = a.clone();
        b.metadata.finalizers = Some(vec![LOAD_BALANCER_CLEANUP.into()]);
        b.status = Some(Default::default());
        assert_eq!(fingerprint(&a), fingerprint(&b));
        let c = service(
            json!({"metadata": {"uid": "u"}, "spec": {"type": "LoadBalancer",
            "ports": [{"port": 81}]}}),
        );
        assert_ne!(fingerprint(&a), fingerprint(&c));
    }

    #[test]
    fn empty_and_missing_status_are_equal() {
        let empty = LoadBalancerStatus::default();
        assert!(status_equal(None, Some(&empty)));
        let one = LoadBalancerStatus {
            ingress: Some(vec![LoadBalancerIngress {
                ip: Some("1.2.3.4".into()),
                ..Default::default()
            }]),
        };
        assert!(!status_equal(Some(&one), None));
        assert!(status_equal(Some(&one), Some(&one.clone())));
    }
}
