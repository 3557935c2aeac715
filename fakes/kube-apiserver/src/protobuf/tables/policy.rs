//! `policy/v1`: PodDisruptionBudget.

use crate::protobuf::schema::Kind::{Int32, Int64, IntOrString, Map, Msg, Str, Time};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::meta;

/// Wire fields of `PodDisruptionBudget`.
pub static POD_DISRUPTION_BUDGET: Message = Message {
    name: "k8s.io.api.policy.v1.PodDisruptionBudget",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&POD_DISRUPTION_BUDGET_SPEC)),
        val(3, "status", Msg(&POD_DISRUPTION_BUDGET_STATUS)),
    ],
};

/// Wire fields of `PodDisruptionBudgetSpec`.
pub static POD_DISRUPTION_BUDGET_SPEC: Message = Message {
    name: "k8s.io.api.policy.v1.PodDisruptionBudgetSpec",
    fields: &[
        opt(1, "minAvailable", IntOrString),
        opt(2, "selector", Msg(&meta::LABEL_SELECTOR)),
        opt(3, "maxUnavailable", IntOrString),
        opt(4, "unhealthyPodEvictionPolicy", Str),
    ],
};

/// Wire fields of `PodDisruptionBudgetStatus`.
pub static POD_DISRUPTION_BUDGET_STATUS: Message = Message {
    name: "k8s.io.api.policy.v1.PodDisruptionBudgetStatus",
    fields: &[
        val(1, "observedGeneration", Int64),
        rep(2, "disruptedPods", Map(&Time)),
        val(3, "disruptionsAllowed", Int32),
        val(4, "currentHealthy", Int32),
        val(5, "desiredHealthy", Int32),
        val(6, "expectedPods", Int32),
        rep(7, "conditions", Msg(&meta::CONDITION)),
    ],
};
