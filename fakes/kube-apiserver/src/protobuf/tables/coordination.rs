//! `coordination.k8s.io/v1`: Lease.

use crate::protobuf::schema::Kind::{Int32, MicroTime, Msg, Str};
use crate::protobuf::schema::{Message, opt, val};

use super::meta;

/// Wire fields of `Lease`.
pub static LEASE: Message = Message {
    name: "k8s.io.api.coordination.v1.Lease",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&LEASE_SPEC)),
    ],
};

/// Wire fields of `LeaseSpec`.
pub static LEASE_SPEC: Message = Message {
    name: "k8s.io.api.coordination.v1.LeaseSpec",
    fields: &[
        opt(1, "holderIdentity", Str),
        opt(2, "leaseDurationSeconds", Int32),
        opt(3, "acquireTime", MicroTime),
        opt(4, "renewTime", MicroTime),
        opt(5, "leaseTransitions", Int32),
        opt(6, "strategy", Str),
        opt(7, "preferredHolder", Str),
    ],
};
