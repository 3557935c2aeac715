//! `meta.k8s.io/v1`: object metadata, label selectors, conditions and delete options.

use crate::protobuf::schema::Kind::{Bool, FieldsV1, Int64, Map, Msg, Str, Time};
use crate::protobuf::schema::{Message, opt, rep, val};

/// Wire fields of `Condition`.
pub static CONDITION: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.Condition",
    fields: &[
        val(1, "type", Str),
        val(2, "status", Str),
        val(3, "observedGeneration", Int64),
        val(4, "lastTransitionTime", Time),
        val(5, "reason", Str),
        val(6, "message", Str),
    ],
};

/// Wire fields of `DeleteOptions`.
pub static DELETE_OPTIONS: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    fields: &[
        opt(1, "gracePeriodSeconds", Int64),
        opt(2, "preconditions", Msg(&PRECONDITIONS)),
        opt(3, "orphanDependents", Bool),
        opt(4, "propagationPolicy", Str),
        rep(5, "dryRun", Str),
        opt(6, "ignoreStoreReadErrorWithClusterBreakingPotential", Bool),
    ],
};

/// Wire fields of `LabelSelector`.
pub static LABEL_SELECTOR: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector",
    fields: &[
        rep(1, "matchLabels", Map(&Str)),
        rep(2, "matchExpressions", Msg(&LABEL_SELECTOR_REQUIREMENT)),
    ],
};

/// Wire fields of `LabelSelectorRequirement`.
pub static LABEL_SELECTOR_REQUIREMENT: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
    fields: &[
        val(1, "key", Str),
        val(2, "operator", Str),
        rep(3, "values", Str),
    ],
};

/// Wire fields of `ManagedFieldsEntry`.
pub static MANAGED_FIELDS_ENTRY: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
    fields: &[
        val(1, "manager", Str),
        val(2, "operation", Str),
        val(3, "apiVersion", Str),
        opt(4, "time", Time),
        val(6, "fieldsType", Str),
        opt(7, "fieldsV1", FieldsV1),
        val(8, "subresource", Str),
    ],
};

/// Wire fields of `ObjectMeta`.
pub static OBJECT_META: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    fields: &[
        val(1, "name", Str),
        val(2, "generateName", Str),
        val(3, "namespace", Str),
        val(4, "selfLink", Str),
        val(5, "uid", Str),
        val(6, "resourceVersion", Str),
        val(7, "generation", Int64),
        val(8, "creationTimestamp", Time),
        opt(9, "deletionTimestamp", Time),
        opt(10, "deletionGracePeriodSeconds", Int64),
        rep(11, "labels", Map(&Str)),
        rep(12, "annotations", Map(&Str)),
        rep(13, "ownerReferences", Msg(&OWNER_REFERENCE)),
        rep(14, "finalizers", Str),
        rep(17, "managedFields", Msg(&MANAGED_FIELDS_ENTRY)),
    ],
};

/// Wire fields of `OwnerReference`.
pub static OWNER_REFERENCE: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference",
    fields: &[
        val(5, "apiVersion", Str),
        val(1, "kind", Str),
        val(3, "name", Str),
        val(4, "uid", Str),
        opt(6, "controller", Bool),
        opt(7, "blockOwnerDeletion", Bool),
    ],
};

/// Wire fields of `Preconditions`.
pub static PRECONDITIONS: Message = Message {
    name: "k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions",
    fields: &[opt(1, "uid", Str), opt(2, "resourceVersion", Str)],
};
