//! `discovery.k8s.io/v1`: EndpointSlice.

use crate::protobuf::schema::Kind::{Bool, Int32, Map, Msg, Str};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::{core_objects, meta};

/// Wire fields of `Endpoint`.
pub static ENDPOINT: Message = Message {
    name: "k8s.io.api.discovery.v1.Endpoint",
    fields: &[
        rep(1, "addresses", Str),
        val(2, "conditions", Msg(&ENDPOINT_CONDITIONS)),
        opt(3, "hostname", Str),
        opt(4, "targetRef", Msg(&core_objects::OBJECT_REFERENCE)),
        rep(5, "deprecatedTopology", Map(&Str)),
        opt(6, "nodeName", Str),
        opt(7, "zone", Str),
        opt(8, "hints", Msg(&ENDPOINT_HINTS)),
    ],
};

/// Wire fields of `EndpointConditions`.
pub static ENDPOINT_CONDITIONS: Message = Message {
    name: "k8s.io.api.discovery.v1.EndpointConditions",
    fields: &[
        opt(1, "ready", Bool),
        opt(2, "serving", Bool),
        opt(3, "terminating", Bool),
    ],
};

/// Wire fields of `EndpointHints`.
pub static ENDPOINT_HINTS: Message = Message {
    name: "k8s.io.api.discovery.v1.EndpointHints",
    fields: &[rep(1, "forZones", Msg(&FOR_ZONE))],
};

/// Wire fields of `EndpointPort`.
pub static ENDPOINT_PORT: Message = Message {
    name: "k8s.io.api.discovery.v1.EndpointPort",
    fields: &[
        opt(1, "name", Str),
        opt(2, "protocol", Str),
        opt(3, "port", Int32),
        opt(4, "appProtocol", Str),
    ],
};

/// Wire fields of `EndpointSlice`.
pub static ENDPOINT_SLICE: Message = Message {
    name: "k8s.io.api.discovery.v1.EndpointSlice",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(4, "addressType", Str),
        rep(2, "endpoints", Msg(&ENDPOINT)),
        rep(3, "ports", Msg(&ENDPOINT_PORT)),
    ],
};

/// Wire fields of `ForZone`.
pub static FOR_ZONE: Message = Message {
    name: "k8s.io.api.discovery.v1.ForZone",
    fields: &[val(1, "name", Str)],
};
