//! `scheduling.k8s.io/v1`: PriorityClass.

use crate::protobuf::schema::Kind::{Bool, Int32, Msg, Str};
use crate::protobuf::schema::{Message, opt, val};

use super::meta;

/// Wire fields of `PriorityClass`.
pub static PRIORITY_CLASS: Message = Message {
    name: "k8s.io.api.scheduling.v1.PriorityClass",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "value", Int32),
        val(3, "globalDefault", Bool),
        val(4, "description", Str),
        opt(5, "preemptionPolicy", Str),
    ],
};
