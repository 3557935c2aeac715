//! `apps/v1`: Deployment and DaemonSet.

use crate::protobuf::schema::Kind::{Bool, Int32, Int64, IntOrString, Msg, Str, Time};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::{core_pod, meta};

/// Wire fields of `DaemonSet`.
pub static DAEMON_SET: Message = Message {
    name: "k8s.io.api.apps.v1.DaemonSet",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&DAEMON_SET_SPEC)),
        val(3, "status", Msg(&DAEMON_SET_STATUS)),
    ],
};

/// Wire fields of `DaemonSetCondition`.
pub static DAEMON_SET_CONDITION: Message = Message {
    name: "k8s.io.api.apps.v1.DaemonSetCondition",
    fields: &[
        val(1, "type", Str),
        val(2, "status", Str),
        val(3, "lastTransitionTime", Time),
        val(4, "reason", Str),
        val(5, "message", Str),
    ],
};

/// Wire fields of `DaemonSetSpec`.
pub static DAEMON_SET_SPEC: Message = Message {
    name: "k8s.io.api.apps.v1.DaemonSetSpec",
    fields: &[
        opt(1, "selector", Msg(&meta::LABEL_SELECTOR)),
        val(2, "template", Msg(&core_pod::POD_TEMPLATE_SPEC)),
        val(3, "updateStrategy", Msg(&DAEMON_SET_UPDATE_STRATEGY)),
        val(4, "minReadySeconds", Int32),
        opt(6, "revisionHistoryLimit", Int32),
    ],
};

/// Wire fields of `DaemonSetStatus`.
pub static DAEMON_SET_STATUS: Message = Message {
    name: "k8s.io.api.apps.v1.DaemonSetStatus",
    fields: &[
        val(1, "currentNumberScheduled", Int32),
        val(2, "numberMisscheduled", Int32),
        val(3, "desiredNumberScheduled", Int32),
        val(4, "numberReady", Int32),
        val(5, "observedGeneration", Int64),
        val(6, "updatedNumberScheduled", Int32),
        val(7, "numberAvailable", Int32),
        val(8, "numberUnavailable", Int32),
        opt(9, "collisionCount", Int32),
        rep(10, "conditions", Msg(&DAEMON_SET_CONDITION)),
    ],
};

/// Wire fields of `DaemonSetUpdateStrategy`.
pub static DAEMON_SET_UPDATE_STRATEGY: Message = Message {
    name: "k8s.io.api.apps.v1.DaemonSetUpdateStrategy",
    fields: &[
        val(1, "type", Str),
        opt(2, "rollingUpdate", Msg(&ROLLING_UPDATE_DAEMON_SET)),
    ],
};

/// Wire fields of `Deployment`.
pub static DEPLOYMENT: Message = Message {
    name: "k8s.io.api.apps.v1.Deployment",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&DEPLOYMENT_SPEC)),
        val(3, "status", Msg(&DEPLOYMENT_STATUS)),
    ],
};

/// Wire fields of `DeploymentCondition`.
pub static DEPLOYMENT_CONDITION: Message = Message {
    name: "k8s.io.api.apps.v1.DeploymentCondition",
    fields: &[
        val(1, "type", Str),
        val(2, "status", Str),
        val(6, "lastUpdateTime", Time),
        val(7, "lastTransitionTime", Time),
        val(4, "reason", Str),
        val(5, "message", Str),
    ],
};

/// Wire fields of `DeploymentSpec`.
pub static DEPLOYMENT_SPEC: Message = Message {
    name: "k8s.io.api.apps.v1.DeploymentSpec",
    fields: &[
        opt(1, "replicas", Int32),
        opt(2, "selector", Msg(&meta::LABEL_SELECTOR)),
        val(3, "template", Msg(&core_pod::POD_TEMPLATE_SPEC)),
        val(4, "strategy", Msg(&DEPLOYMENT_STRATEGY)),
        val(5, "minReadySeconds", Int32),
        opt(6, "revisionHistoryLimit", Int32),
        val(7, "paused", Bool),
        opt(9, "progressDeadlineSeconds", Int32),
    ],
};

/// Wire fields of `DeploymentStatus`.
pub static DEPLOYMENT_STATUS: Message = Message {
    name: "k8s.io.api.apps.v1.DeploymentStatus",
    fields: &[
        val(1, "observedGeneration", Int64),
        val(2, "replicas", Int32),
        val(3, "updatedReplicas", Int32),
        val(7, "readyReplicas", Int32),
        val(4, "availableReplicas", Int32),
        val(5, "unavailableReplicas", Int32),
        rep(6, "conditions", Msg(&DEPLOYMENT_CONDITION)),
        opt(8, "collisionCount", Int32),
    ],
};

/// Wire fields of `DeploymentStrategy`.
pub static DEPLOYMENT_STRATEGY: Message = Message {
    name: "k8s.io.api.apps.v1.DeploymentStrategy",
    fields: &[
        val(1, "type", Str),
        opt(2, "rollingUpdate", Msg(&ROLLING_UPDATE_DEPLOYMENT)),
    ],
};

/// Wire fields of `RollingUpdateDaemonSet`.
pub static ROLLING_UPDATE_DAEMON_SET: Message = Message {
    name: "k8s.io.api.apps.v1.RollingUpdateDaemonSet",
    fields: &[
        opt(1, "maxUnavailable", IntOrString),
        opt(2, "maxSurge", IntOrString),
    ],
};

/// Wire fields of `RollingUpdateDeployment`.
pub static ROLLING_UPDATE_DEPLOYMENT: Message = Message {
    name: "k8s.io.api.apps.v1.RollingUpdateDeployment",
    fields: &[
        opt(1, "maxUnavailable", IntOrString),
        opt(2, "maxSurge", IntOrString),
    ],
};
