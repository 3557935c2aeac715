//! `rbac.authorization.k8s.io/v1`: roles, bindings and their rules.

use crate::protobuf::schema::Kind::{Msg, Str};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::meta;

/// Wire fields of `AggregationRule`.
pub static AGGREGATION_RULE: Message = Message {
    name: "k8s.io.api.rbac.v1.AggregationRule",
    fields: &[rep(1, "clusterRoleSelectors", Msg(&meta::LABEL_SELECTOR))],
};

/// Wire fields of `ClusterRole`.
pub static CLUSTER_ROLE: Message = Message {
    name: "k8s.io.api.rbac.v1.ClusterRole",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        rep(2, "rules", Msg(&POLICY_RULE)),
        opt(3, "aggregationRule", Msg(&AGGREGATION_RULE)),
    ],
};

/// Wire fields of `ClusterRoleBinding`.
pub static CLUSTER_ROLE_BINDING: Message = Message {
    name: "k8s.io.api.rbac.v1.ClusterRoleBinding",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        rep(2, "subjects", Msg(&SUBJECT)),
        val(3, "roleRef", Msg(&ROLE_REF)),
    ],
};

/// Wire fields of `PolicyRule`.
pub static POLICY_RULE: Message = Message {
    name: "k8s.io.api.rbac.v1.PolicyRule",
    fields: &[
        rep(1, "verbs", Str),
        rep(2, "apiGroups", Str),
        rep(3, "resources", Str),
        rep(4, "resourceNames", Str),
        rep(5, "nonResourceURLs", Str),
    ],
};

/// Wire fields of `Role`.
pub static ROLE: Message = Message {
    name: "k8s.io.api.rbac.v1.Role",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        rep(2, "rules", Msg(&POLICY_RULE)),
    ],
};

/// Wire fields of `RoleBinding`.
pub static ROLE_BINDING: Message = Message {
    name: "k8s.io.api.rbac.v1.RoleBinding",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        rep(2, "subjects", Msg(&SUBJECT)),
        val(3, "roleRef", Msg(&ROLE_REF)),
    ],
};

/// Wire fields of `RoleRef`.
pub static ROLE_REF: Message = Message {
    name: "k8s.io.api.rbac.v1.RoleRef",
    fields: &[
        val(1, "apiGroup", Str),
        val(2, "kind", Str),
        val(3, "name", Str),
    ],
};

/// Wire fields of `Subject`.
pub static SUBJECT: Message = Message {
    name: "k8s.io.api.rbac.v1.Subject",
    fields: &[
        val(1, "kind", Str),
        val(2, "apiGroup", Str),
        val(3, "name", Str),
        val(4, "namespace", Str),
    ],
};
