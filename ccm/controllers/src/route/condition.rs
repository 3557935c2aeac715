//! The Node condition `NetworkUnavailable` the route controller owns, with upstream's reasons and
//! messages (`route_controller.go` `updateNetworkingCondition`).

use ccm_cloud::NodeView;
use ccm_names::events::{
    NETWORK_UNAVAILABLE, NO_ROUTE_CREATED, NO_ROUTE_CREATED_MESSAGE, ROUTE_CREATED,
    ROUTE_CREATED_MESSAGE,
};
use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

/// The node's current `NetworkUnavailable` status (`"True"`/`"False"`), if it has the condition.
pub fn current(node: &dyn NodeView) -> Option<&str> {
    node.condition_status(NETWORK_UNAVAILABLE)
}

/// Whether the node's condition already says `unavailable` (then nothing is written).
pub fn already(node: &dyn NodeView, unavailable: bool) -> bool {
    current(node) == Some(if unavailable { "True" } else { "False" })
}

/// The strategic merge patch of `status.conditions` (merge key `type`) setting the condition.
pub fn patch(unavailable: bool, now: Timestamp) -> Value {
    let (status, reason, message) = if unavailable {
        ("True", NO_ROUTE_CREATED, NO_ROUTE_CREATED_MESSAGE)
    } else {
        ("False", ROUTE_CREATED, ROUTE_CREATED_MESSAGE)
    };
    let now = now.to_string();
    json!({"status": {"conditions": [{
        "type": NETWORK_UNAVAILABLE,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": now,
        "lastHeartbeatTime": now,
    }]}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_carries_upstream_strings() {
        let now = Timestamp::UNIX_EPOCH;
        let created = patch(false, now);
        let condition = &created["status"]["conditions"][0];
        assert_eq!(condition["status"], "False");
        assert_eq!(condition["reason"], "RouteCreated");
        assert_eq!(condition["message"], "RouteController created a route");
        let failed = patch(true, now);
        let condition = &failed["status"]["conditions"][0];
        assert_eq!(condition["status"], "True");
        assert_eq!(condition["reason"], "NoRouteCreated");
        assert_eq!(
            condition["message"],
            "RouteController failed to create a route"
        );
    }

    #[test]
    fn reads_the_current_value() {
        use k8s_openapi::api::core::v1::Node;
        let node: Node = serde_json::from_value(json!({"status": {"conditions": [
            {"type": "Ready", "status": "True"},
            {"type": "NetworkUnavailable", "status": "False"}]}}))
        .unwrap();
        assert!(already(&node, false));
        assert!(!already(&node, true));
        assert!(!already(&Node::default(), false));
    }
}
