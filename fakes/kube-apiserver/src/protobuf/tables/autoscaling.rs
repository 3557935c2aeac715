//! `autoscaling/v1`: Scale (the `/scale` subresource).

use crate::protobuf::schema::Kind::{Int32, Msg, Str};
use crate::protobuf::schema::{Message, val};

use super::meta;

/// Wire fields of `Scale`.
pub static SCALE: Message = Message {
    name: "k8s.io.api.autoscaling.v1.Scale",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&SCALE_SPEC)),
        val(3, "status", Msg(&SCALE_STATUS)),
    ],
};

/// Wire fields of `ScaleSpec`.
pub static SCALE_SPEC: Message = Message {
    name: "k8s.io.api.autoscaling.v1.ScaleSpec",
    fields: &[val(1, "replicas", Int32)],
};

/// Wire fields of `ScaleStatus`.
pub static SCALE_STATUS: Message = Message {
    name: "k8s.io.api.autoscaling.v1.ScaleStatus",
    fields: &[val(1, "replicas", Int32), val(2, "selector", Str)],
};
