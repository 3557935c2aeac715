//! Core `v1` objects other than Pod and Node: Namespace, ConfigMap, Secret, ServiceAccount, Service, Endpoints, Event.

use crate::protobuf::schema::Kind::{
    Bool, Bytes, Int32, IntOrString, Map, MicroTime, Msg, Str, Time,
};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::meta;

/// Wire fields of `ClientIPConfig`.
pub static CLIENT_IP_CONFIG: Message = Message {
    name: "k8s.io.api.core.v1.ClientIPConfig",
    fields: &[opt(1, "timeoutSeconds", Int32)],
};

/// Wire fields of `ConfigMap`.
pub static CONFIG_MAP: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMap",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        opt(4, "immutable", Bool),
        rep(2, "data", Map(&Str)),
        rep(3, "binaryData", Map(&Bytes)),
    ],
};

/// Wire fields of `EndpointAddress`.
pub static ENDPOINT_ADDRESS: Message = Message {
    name: "k8s.io.api.core.v1.EndpointAddress",
    fields: &[
        val(1, "ip", Str),
        val(3, "hostname", Str),
        opt(4, "nodeName", Str),
        opt(2, "targetRef", Msg(&OBJECT_REFERENCE)),
    ],
};

/// Wire fields of `EndpointPort`.
pub static ENDPOINT_PORT: Message = Message {
    name: "k8s.io.api.core.v1.EndpointPort",
    fields: &[
        val(1, "name", Str),
        val(2, "port", Int32),
        val(3, "protocol", Str),
        opt(4, "appProtocol", Str),
    ],
};

/// Wire fields of `EndpointSubset`.
pub static ENDPOINT_SUBSET: Message = Message {
    name: "k8s.io.api.core.v1.EndpointSubset",
    fields: &[
        rep(1, "addresses", Msg(&ENDPOINT_ADDRESS)),
        rep(2, "notReadyAddresses", Msg(&ENDPOINT_ADDRESS)),
        rep(3, "ports", Msg(&ENDPOINT_PORT)),
    ],
};

/// Wire fields of `Endpoints`.
pub static ENDPOINTS: Message = Message {
    name: "k8s.io.api.core.v1.Endpoints",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        rep(2, "subsets", Msg(&ENDPOINT_SUBSET)),
    ],
};

/// Wire fields of `Event`.
pub static EVENT: Message = Message {
    name: "k8s.io.api.core.v1.Event",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "involvedObject", Msg(&OBJECT_REFERENCE)),
        val(3, "reason", Str),
        val(4, "message", Str),
        val(5, "source", Msg(&EVENT_SOURCE)),
        val(6, "firstTimestamp", Time),
        val(7, "lastTimestamp", Time),
        val(8, "count", Int32),
        val(9, "type", Str),
        val(10, "eventTime", MicroTime),
        opt(11, "series", Msg(&EVENT_SERIES)),
        val(12, "action", Str),
        opt(13, "related", Msg(&OBJECT_REFERENCE)),
        val(14, "reportingComponent", Str),
        val(15, "reportingInstance", Str),
    ],
};

/// Wire fields of `EventSeries`.
pub static EVENT_SERIES: Message = Message {
    name: "k8s.io.api.core.v1.EventSeries",
    fields: &[
        val(1, "count", Int32),
        val(2, "lastObservedTime", MicroTime),
    ],
};

/// Wire fields of `EventSource`.
pub static EVENT_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EventSource",
    fields: &[val(1, "component", Str), val(2, "host", Str)],
};

/// Wire fields of `LoadBalancerIngress`.
pub static LOAD_BALANCER_INGRESS: Message = Message {
    name: "k8s.io.api.core.v1.LoadBalancerIngress",
    fields: &[
        val(1, "ip", Str),
        val(2, "hostname", Str),
        opt(3, "ipMode", Str),
        rep(4, "ports", Msg(&PORT_STATUS)),
    ],
};

/// Wire fields of `LoadBalancerStatus`.
pub static LOAD_BALANCER_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.LoadBalancerStatus",
    fields: &[rep(1, "ingress", Msg(&LOAD_BALANCER_INGRESS))],
};

/// Wire fields of `LocalObjectReference`.
pub static LOCAL_OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.core.v1.LocalObjectReference",
    fields: &[val(1, "name", Str)],
};

/// Wire fields of `Namespace`.
pub static NAMESPACE: Message = Message {
    name: "k8s.io.api.core.v1.Namespace",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&NAMESPACE_SPEC)),
        val(3, "status", Msg(&NAMESPACE_STATUS)),
    ],
};

/// Wire fields of `NamespaceCondition`.
pub static NAMESPACE_CONDITION: Message = Message {
    name: "k8s.io.api.core.v1.NamespaceCondition",
    fields: &[
        val(1, "type", Str),
        val(2, "status", Str),
        val(4, "lastTransitionTime", Time),
        val(5, "reason", Str),
        val(6, "message", Str),
    ],
};

/// Wire fields of `NamespaceSpec`.
pub static NAMESPACE_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.NamespaceSpec",
    fields: &[rep(1, "finalizers", Str)],
};

/// Wire fields of `NamespaceStatus`.
pub static NAMESPACE_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.NamespaceStatus",
    fields: &[
        val(1, "phase", Str),
        rep(2, "conditions", Msg(&NAMESPACE_CONDITION)),
    ],
};

/// Wire fields of `ObjectReference`.
pub static OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.core.v1.ObjectReference",
    fields: &[
        val(1, "kind", Str),
        val(2, "namespace", Str),
        val(3, "name", Str),
        val(4, "uid", Str),
        val(5, "apiVersion", Str),
        val(6, "resourceVersion", Str),
        val(7, "fieldPath", Str),
    ],
};

/// Wire fields of `PortStatus`.
pub static PORT_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.PortStatus",
    fields: &[
        val(1, "port", Int32),
        val(2, "protocol", Str),
        opt(3, "error", Str),
    ],
};

/// Wire fields of `Secret`.
pub static SECRET: Message = Message {
    name: "k8s.io.api.core.v1.Secret",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        opt(5, "immutable", Bool),
        rep(2, "data", Map(&Bytes)),
        rep(4, "stringData", Map(&Str)),
        val(3, "type", Str),
    ],
};

/// Wire fields of `Service`.
pub static SERVICE: Message = Message {
    name: "k8s.io.api.core.v1.Service",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&SERVICE_SPEC)),
        val(3, "status", Msg(&SERVICE_STATUS)),
    ],
};

/// Wire fields of `ServiceAccount`.
pub static SERVICE_ACCOUNT: Message = Message {
    name: "k8s.io.api.core.v1.ServiceAccount",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        rep(2, "secrets", Msg(&OBJECT_REFERENCE)),
        rep(3, "imagePullSecrets", Msg(&LOCAL_OBJECT_REFERENCE)),
        opt(4, "automountServiceAccountToken", Bool),
    ],
};

/// Wire fields of `ServicePort`.
pub static SERVICE_PORT: Message = Message {
    name: "k8s.io.api.core.v1.ServicePort",
    fields: &[
        val(1, "name", Str),
        val(2, "protocol", Str),
        opt(6, "appProtocol", Str),
        val(3, "port", Int32),
        val(4, "targetPort", IntOrString),
        val(5, "nodePort", Int32),
    ],
};

/// Wire fields of `ServiceSpec`.
pub static SERVICE_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.ServiceSpec",
    fields: &[
        rep(1, "ports", Msg(&SERVICE_PORT)),
        rep(2, "selector", Map(&Str)),
        val(3, "clusterIP", Str),
        rep(18, "clusterIPs", Str),
        val(4, "type", Str),
        rep(5, "externalIPs", Str),
        val(7, "sessionAffinity", Str),
        val(8, "loadBalancerIP", Str),
        rep(9, "loadBalancerSourceRanges", Str),
        val(10, "externalName", Str),
        val(11, "externalTrafficPolicy", Str),
        val(12, "healthCheckNodePort", Int32),
        val(13, "publishNotReadyAddresses", Bool),
        opt(14, "sessionAffinityConfig", Msg(&SESSION_AFFINITY_CONFIG)),
        rep(19, "ipFamilies", Str),
        opt(17, "ipFamilyPolicy", Str),
        opt(20, "allocateLoadBalancerNodePorts", Bool),
        opt(21, "loadBalancerClass", Str),
        opt(22, "internalTrafficPolicy", Str),
        opt(23, "trafficDistribution", Str),
    ],
};

/// Wire fields of `ServiceStatus`.
pub static SERVICE_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.ServiceStatus",
    fields: &[
        val(1, "loadBalancer", Msg(&LOAD_BALANCER_STATUS)),
        rep(2, "conditions", Msg(&meta::CONDITION)),
    ],
};

/// Wire fields of `SessionAffinityConfig`.
pub static SESSION_AFFINITY_CONFIG: Message = Message {
    name: "k8s.io.api.core.v1.SessionAffinityConfig",
    fields: &[opt(1, "clientIP", Msg(&CLIENT_IP_CONFIG))],
};
