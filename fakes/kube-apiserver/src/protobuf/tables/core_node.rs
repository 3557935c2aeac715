//! Core `v1` Node: spec, taints and the status kubelets and cloud node managers write.

use crate::protobuf::schema::Kind::{Bool, Int32, Int64, Map, Msg, Quantity, Str, Time};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::meta;

/// Wire fields of `AttachedVolume`.
pub static ATTACHED_VOLUME: Message = Message {
    name: "k8s.io.api.core.v1.AttachedVolume",
    fields: &[val(1, "name", Str), val(2, "devicePath", Str)],
};

/// Wire fields of `ConfigMapNodeConfigSource`.
pub static CONFIG_MAP_NODE_CONFIG_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapNodeConfigSource",
    fields: &[
        val(1, "namespace", Str),
        val(2, "name", Str),
        val(3, "uid", Str),
        val(4, "resourceVersion", Str),
        val(5, "kubeletConfigKey", Str),
    ],
};

/// Wire fields of `ContainerImage`.
pub static CONTAINER_IMAGE: Message = Message {
    name: "k8s.io.api.core.v1.ContainerImage",
    fields: &[rep(1, "names", Str), val(2, "sizeBytes", Int64)],
};

/// Wire fields of `DaemonEndpoint`.
pub static DAEMON_ENDPOINT: Message = Message {
    name: "k8s.io.api.core.v1.DaemonEndpoint",
    fields: &[val(1, "Port", Int32)],
};

/// Wire fields of `Node`.
pub static NODE: Message = Message {
    name: "k8s.io.api.core.v1.Node",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&NODE_SPEC)),
        val(3, "status", Msg(&NODE_STATUS)),
    ],
};

/// Wire fields of `NodeAddress`.
pub static NODE_ADDRESS: Message = Message {
    name: "k8s.io.api.core.v1.NodeAddress",
    fields: &[val(1, "type", Str), val(2, "address", Str)],
};

/// Wire fields of `NodeCondition`.
pub static NODE_CONDITION: Message = Message {
    name: "k8s.io.api.core.v1.NodeCondition",
    fields: &[
        val(1, "type", Str),
        val(2, "status", Str),
        val(3, "lastHeartbeatTime", Time),
        val(4, "lastTransitionTime", Time),
        val(5, "reason", Str),
        val(6, "message", Str),
    ],
};

/// Wire fields of `NodeConfigSource`.
pub static NODE_CONFIG_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.NodeConfigSource",
    fields: &[opt(2, "configMap", Msg(&CONFIG_MAP_NODE_CONFIG_SOURCE))],
};

/// Wire fields of `NodeConfigStatus`.
pub static NODE_CONFIG_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.NodeConfigStatus",
    fields: &[
        opt(1, "assigned", Msg(&NODE_CONFIG_SOURCE)),
        opt(2, "active", Msg(&NODE_CONFIG_SOURCE)),
        opt(3, "lastKnownGood", Msg(&NODE_CONFIG_SOURCE)),
        val(4, "error", Str),
    ],
};

/// Wire fields of `NodeDaemonEndpoints`.
pub static NODE_DAEMON_ENDPOINTS: Message = Message {
    name: "k8s.io.api.core.v1.NodeDaemonEndpoints",
    fields: &[val(1, "kubeletEndpoint", Msg(&DAEMON_ENDPOINT))],
};

/// Wire fields of `NodeFeatures`.
pub static NODE_FEATURES: Message = Message {
    name: "k8s.io.api.core.v1.NodeFeatures",
    fields: &[opt(1, "supplementalGroupsPolicy", Bool)],
};

/// Wire fields of `NodeRuntimeHandler`.
pub static NODE_RUNTIME_HANDLER: Message = Message {
    name: "k8s.io.api.core.v1.NodeRuntimeHandler",
    fields: &[
        val(1, "name", Str),
        opt(2, "features", Msg(&NODE_RUNTIME_HANDLER_FEATURES)),
    ],
};

/// Wire fields of `NodeRuntimeHandlerFeatures`.
pub static NODE_RUNTIME_HANDLER_FEATURES: Message = Message {
    name: "k8s.io.api.core.v1.NodeRuntimeHandlerFeatures",
    fields: &[
        opt(1, "recursiveReadOnlyMounts", Bool),
        opt(2, "userNamespaces", Bool),
    ],
};

/// Wire fields of `NodeSpec`.
pub static NODE_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.NodeSpec",
    fields: &[
        val(1, "podCIDR", Str),
        rep(7, "podCIDRs", Str),
        val(3, "providerID", Str),
        val(4, "unschedulable", Bool),
        rep(5, "taints", Msg(&TAINT)),
        opt(6, "configSource", Msg(&NODE_CONFIG_SOURCE)),
        val(2, "externalID", Str),
    ],
};

/// Wire fields of `NodeStatus`.
pub static NODE_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.NodeStatus",
    fields: &[
        rep(1, "capacity", Map(&Quantity)),
        rep(2, "allocatable", Map(&Quantity)),
        val(3, "phase", Str),
        rep(4, "conditions", Msg(&NODE_CONDITION)),
        rep(5, "addresses", Msg(&NODE_ADDRESS)),
        val(6, "daemonEndpoints", Msg(&NODE_DAEMON_ENDPOINTS)),
        val(7, "nodeInfo", Msg(&NODE_SYSTEM_INFO)),
        rep(8, "images", Msg(&CONTAINER_IMAGE)),
        rep(9, "volumesInUse", Str),
        rep(10, "volumesAttached", Msg(&ATTACHED_VOLUME)),
        opt(11, "config", Msg(&NODE_CONFIG_STATUS)),
        rep(12, "runtimeHandlers", Msg(&NODE_RUNTIME_HANDLER)),
        opt(13, "features", Msg(&NODE_FEATURES)),
    ],
};

/// Wire fields of `NodeSystemInfo`.
pub static NODE_SYSTEM_INFO: Message = Message {
    name: "k8s.io.api.core.v1.NodeSystemInfo",
    fields: &[
        val(1, "machineID", Str),
        val(2, "systemUUID", Str),
        val(3, "bootID", Str),
        val(4, "kernelVersion", Str),
        val(5, "osImage", Str),
        val(6, "containerRuntimeVersion", Str),
        val(7, "kubeletVersion", Str),
        val(8, "kubeProxyVersion", Str),
        val(9, "operatingSystem", Str),
        val(10, "architecture", Str),
    ],
};

/// Wire fields of `Taint`.
pub static TAINT: Message = Message {
    name: "k8s.io.api.core.v1.Taint",
    fields: &[
        val(1, "key", Str),
        val(2, "value", Str),
        val(3, "effect", Str),
        opt(4, "timeAdded", Time),
    ],
};
