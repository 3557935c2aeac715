//! `events.k8s.io/v1`: Event.

use crate::protobuf::schema::Kind::{Int32, MicroTime, Msg, Str, Time};
use crate::protobuf::schema::{Message, opt, val};

use super::{core_objects, meta};

/// Wire fields of `Event`.
pub static EVENT: Message = Message {
    name: "k8s.io.api.events.v1.Event",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "eventTime", MicroTime),
        opt(3, "series", Msg(&EVENT_SERIES)),
        val(4, "reportingController", Str),
        val(5, "reportingInstance", Str),
        val(6, "action", Str),
        val(7, "reason", Str),
        val(8, "regarding", Msg(&core_objects::OBJECT_REFERENCE)),
        opt(9, "related", Msg(&core_objects::OBJECT_REFERENCE)),
        val(10, "note", Str),
        val(11, "type", Str),
        val(12, "deprecatedSource", Msg(&core_objects::EVENT_SOURCE)),
        val(13, "deprecatedFirstTimestamp", Time),
        val(14, "deprecatedLastTimestamp", Time),
        val(15, "deprecatedCount", Int32),
    ],
};

/// Wire fields of `EventSeries`.
pub static EVENT_SERIES: Message = Message {
    name: "k8s.io.api.events.v1.EventSeries",
    fields: &[
        val(1, "count", Int32),
        val(2, "lastObservedTime", MicroTime),
    ],
};
