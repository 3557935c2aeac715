//! Core `v1` Pod and PodTemplateSpec: pod spec (scheduling, affinity, DNS, security) and status.

use crate::protobuf::schema::Kind::{Bool, Int32, Int64, Map, Msg, Quantity, Str, Time};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::{core_container, core_objects, core_volume, meta};

/// Wire fields of `Affinity`.
pub static AFFINITY: Message = Message {
    name: "k8s.io.api.core.v1.Affinity",
    fields: &[
        opt(1, "nodeAffinity", Msg(&NODE_AFFINITY)),
        opt(2, "podAffinity", Msg(&POD_AFFINITY)),
        opt(3, "podAntiAffinity", Msg(&POD_ANTI_AFFINITY)),
    ],
};

/// Wire fields of `ContainerState`.
pub static CONTAINER_STATE: Message = Message {
    name: "k8s.io.api.core.v1.ContainerState",
    fields: &[
        opt(1, "waiting", Msg(&CONTAINER_STATE_WAITING)),
        opt(2, "running", Msg(&CONTAINER_STATE_RUNNING)),
        opt(3, "terminated", Msg(&CONTAINER_STATE_TERMINATED)),
    ],
};

/// Wire fields of `ContainerStateRunning`.
pub static CONTAINER_STATE_RUNNING: Message = Message {
    name: "k8s.io.api.core.v1.ContainerStateRunning",
    fields: &[val(1, "startedAt", Time)],
};

/// Wire fields of `ContainerStateTerminated`.
pub static CONTAINER_STATE_TERMINATED: Message = Message {
    name: "k8s.io.api.core.v1.ContainerStateTerminated",
    fields: &[
        val(1, "exitCode", Int32),
        val(2, "signal", Int32),
        val(3, "reason", Str),
        val(4, "message", Str),
        val(5, "startedAt", Time),
        val(6, "finishedAt", Time),
        val(7, "containerID", Str),
    ],
};

/// Wire fields of `ContainerStateWaiting`.
pub static CONTAINER_STATE_WAITING: Message = Message {
    name: "k8s.io.api.core.v1.ContainerStateWaiting",
    fields: &[val(1, "reason", Str), val(2, "message", Str)],
};

/// Wire fields of `ContainerStatus`.
pub static CONTAINER_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.ContainerStatus",
    fields: &[
        val(1, "name", Str),
        val(2, "state", Msg(&CONTAINER_STATE)),
        val(3, "lastState", Msg(&CONTAINER_STATE)),
        val(4, "ready", Bool),
        val(5, "restartCount", Int32),
        val(6, "image", Str),
        val(7, "imageID", Str),
        val(8, "containerID", Str),
        opt(9, "started", Bool),
        rep(10, "allocatedResources", Map(&Quantity)),
        opt(11, "resources", Msg(&core_container::RESOURCE_REQUIREMENTS)),
        rep(12, "volumeMounts", Msg(&VOLUME_MOUNT_STATUS)),
        opt(13, "user", Msg(&CONTAINER_USER)),
        rep(14, "allocatedResourcesStatus", Msg(&RESOURCE_STATUS)),
    ],
};

/// Wire fields of `ContainerUser`.
pub static CONTAINER_USER: Message = Message {
    name: "k8s.io.api.core.v1.ContainerUser",
    fields: &[opt(1, "linux", Msg(&LINUX_CONTAINER_USER))],
};

/// Wire fields of `HostAlias`.
pub static HOST_ALIAS: Message = Message {
    name: "k8s.io.api.core.v1.HostAlias",
    fields: &[val(1, "ip", Str), rep(2, "hostnames", Str)],
};

/// Wire fields of `HostIP`.
pub static HOST_IP: Message = Message {
    name: "k8s.io.api.core.v1.HostIP",
    fields: &[val(1, "ip", Str)],
};

/// Wire fields of `LinuxContainerUser`.
pub static LINUX_CONTAINER_USER: Message = Message {
    name: "k8s.io.api.core.v1.LinuxContainerUser",
    fields: &[
        val(1, "uid", Int64),
        val(2, "gid", Int64),
        rep(3, "supplementalGroups", Int64),
    ],
};

/// Wire fields of `NodeAffinity`.
pub static NODE_AFFINITY: Message = Message {
    name: "k8s.io.api.core.v1.NodeAffinity",
    fields: &[
        opt(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Msg(&NODE_SELECTOR),
        ),
        rep(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Msg(&PREFERRED_SCHEDULING_TERM),
        ),
    ],
};

/// Wire fields of `NodeSelector`.
pub static NODE_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.NodeSelector",
    fields: &[rep(1, "nodeSelectorTerms", Msg(&NODE_SELECTOR_TERM))],
};

/// Wire fields of `NodeSelectorRequirement`.
pub static NODE_SELECTOR_REQUIREMENT: Message = Message {
    name: "k8s.io.api.core.v1.NodeSelectorRequirement",
    fields: &[
        val(1, "key", Str),
        val(2, "operator", Str),
        rep(3, "values", Str),
    ],
};

/// Wire fields of `NodeSelectorTerm`.
pub static NODE_SELECTOR_TERM: Message = Message {
    name: "k8s.io.api.core.v1.NodeSelectorTerm",
    fields: &[
        rep(1, "matchExpressions", Msg(&NODE_SELECTOR_REQUIREMENT)),
        rep(2, "matchFields", Msg(&NODE_SELECTOR_REQUIREMENT)),
    ],
};

/// Wire fields of `Pod`.
pub static POD: Message = Message {
    name: "k8s.io.api.core.v1.Pod",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&POD_SPEC)),
        val(3, "status", Msg(&POD_STATUS)),
    ],
};

/// Wire fields of `PodAffinity`.
pub static POD_AFFINITY: Message = Message {
    name: "k8s.io.api.core.v1.PodAffinity",
    fields: &[
        rep(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Msg(&POD_AFFINITY_TERM),
        ),
        rep(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Msg(&WEIGHTED_POD_AFFINITY_TERM),
        ),
    ],
};

/// Wire fields of `PodAffinityTerm`.
pub static POD_AFFINITY_TERM: Message = Message {
    name: "k8s.io.api.core.v1.PodAffinityTerm",
    fields: &[
        opt(1, "labelSelector", Msg(&meta::LABEL_SELECTOR)),
        rep(2, "namespaces", Str),
        val(3, "topologyKey", Str),
        opt(4, "namespaceSelector", Msg(&meta::LABEL_SELECTOR)),
        rep(5, "matchLabelKeys", Str),
        rep(6, "mismatchLabelKeys", Str),
    ],
};

/// Wire fields of `PodAntiAffinity`.
pub static POD_ANTI_AFFINITY: Message = Message {
    name: "k8s.io.api.core.v1.PodAntiAffinity",
    fields: &[
        rep(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Msg(&POD_AFFINITY_TERM),
        ),
        rep(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Msg(&WEIGHTED_POD_AFFINITY_TERM),
        ),
    ],
};

/// Wire fields of `PodCondition`.
pub static POD_CONDITION: Message = Message {
    name: "k8s.io.api.core.v1.PodCondition",
    fields: &[
        val(1, "type", Str),
        val(2, "status", Str),
        val(3, "lastProbeTime", Time),
        val(4, "lastTransitionTime", Time),
        val(5, "reason", Str),
        val(6, "message", Str),
    ],
};

/// Wire fields of `PodDNSConfig`.
pub static POD_DNS_CONFIG: Message = Message {
    name: "k8s.io.api.core.v1.PodDNSConfig",
    fields: &[
        rep(1, "nameservers", Str),
        rep(2, "searches", Str),
        rep(3, "options", Msg(&POD_DNS_CONFIG_OPTION)),
    ],
};

/// Wire fields of `PodDNSConfigOption`.
pub static POD_DNS_CONFIG_OPTION: Message = Message {
    name: "k8s.io.api.core.v1.PodDNSConfigOption",
    fields: &[val(1, "name", Str), opt(2, "value", Str)],
};

/// Wire fields of `PodIP`.
pub static POD_IP: Message = Message {
    name: "k8s.io.api.core.v1.PodIP",
    fields: &[val(1, "ip", Str)],
};

/// Wire fields of `PodOS`.
pub static POD_OS: Message = Message {
    name: "k8s.io.api.core.v1.PodOS",
    fields: &[val(1, "name", Str)],
};

/// Wire fields of `PodReadinessGate`.
pub static POD_READINESS_GATE: Message = Message {
    name: "k8s.io.api.core.v1.PodReadinessGate",
    fields: &[val(1, "conditionType", Str)],
};

/// Wire fields of `PodResourceClaim`.
pub static POD_RESOURCE_CLAIM: Message = Message {
    name: "k8s.io.api.core.v1.PodResourceClaim",
    fields: &[
        val(1, "name", Str),
        opt(3, "resourceClaimName", Str),
        opt(4, "resourceClaimTemplateName", Str),
    ],
};

/// Wire fields of `PodResourceClaimStatus`.
pub static POD_RESOURCE_CLAIM_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.PodResourceClaimStatus",
    fields: &[val(1, "name", Str), opt(2, "resourceClaimName", Str)],
};

/// Wire fields of `PodSchedulingGate`.
pub static POD_SCHEDULING_GATE: Message = Message {
    name: "k8s.io.api.core.v1.PodSchedulingGate",
    fields: &[val(1, "name", Str)],
};

/// Wire fields of `PodSecurityContext`.
pub static POD_SECURITY_CONTEXT: Message = Message {
    name: "k8s.io.api.core.v1.PodSecurityContext",
    fields: &[
        opt(1, "seLinuxOptions", Msg(&core_container::SE_LINUX_OPTIONS)),
        opt(
            8,
            "windowsOptions",
            Msg(&core_container::WINDOWS_SECURITY_CONTEXT_OPTIONS),
        ),
        opt(2, "runAsUser", Int64),
        opt(6, "runAsGroup", Int64),
        opt(3, "runAsNonRoot", Bool),
        rep(4, "supplementalGroups", Int64),
        opt(12, "supplementalGroupsPolicy", Str),
        opt(5, "fsGroup", Int64),
        rep(7, "sysctls", Msg(&SYSCTL)),
        opt(9, "fsGroupChangePolicy", Str),
        opt(10, "seccompProfile", Msg(&core_container::SECCOMP_PROFILE)),
        opt(
            11,
            "appArmorProfile",
            Msg(&core_container::APP_ARMOR_PROFILE),
        ),
        opt(13, "seLinuxChangePolicy", Str),
    ],
};

/// Wire fields of `PodSpec`.
pub static POD_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.PodSpec",
    fields: &[
        rep(1, "volumes", Msg(&core_volume::VOLUME)),
        rep(20, "initContainers", Msg(&core_container::CONTAINER)),
        rep(2, "containers", Msg(&core_container::CONTAINER)),
        rep(
            34,
            "ephemeralContainers",
            Msg(&core_container::EPHEMERAL_CONTAINER),
        ),
        val(3, "restartPolicy", Str),
        opt(4, "terminationGracePeriodSeconds", Int64),
        opt(5, "activeDeadlineSeconds", Int64),
        val(6, "dnsPolicy", Str),
        rep(7, "nodeSelector", Map(&Str)),
        val(8, "serviceAccountName", Str),
        val(9, "serviceAccount", Str),
        opt(21, "automountServiceAccountToken", Bool),
        val(10, "nodeName", Str),
        val(11, "hostNetwork", Bool),
        val(12, "hostPID", Bool),
        val(13, "hostIPC", Bool),
        opt(27, "shareProcessNamespace", Bool),
        opt(14, "securityContext", Msg(&POD_SECURITY_CONTEXT)),
        rep(
            15,
            "imagePullSecrets",
            Msg(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
        val(16, "hostname", Str),
        val(17, "subdomain", Str),
        opt(18, "affinity", Msg(&AFFINITY)),
        val(19, "schedulerName", Str),
        rep(22, "tolerations", Msg(&TOLERATION)),
        rep(23, "hostAliases", Msg(&HOST_ALIAS)),
        val(24, "priorityClassName", Str),
        opt(25, "priority", Int32),
        opt(26, "dnsConfig", Msg(&POD_DNS_CONFIG)),
        rep(28, "readinessGates", Msg(&POD_READINESS_GATE)),
        opt(29, "runtimeClassName", Str),
        opt(30, "enableServiceLinks", Bool),
        opt(31, "preemptionPolicy", Str),
        rep(32, "overhead", Map(&Quantity)),
        rep(
            33,
            "topologySpreadConstraints",
            Msg(&TOPOLOGY_SPREAD_CONSTRAINT),
        ),
        opt(35, "setHostnameAsFQDN", Bool),
        opt(36, "os", Msg(&POD_OS)),
        opt(37, "hostUsers", Bool),
        rep(38, "schedulingGates", Msg(&POD_SCHEDULING_GATE)),
        rep(39, "resourceClaims", Msg(&POD_RESOURCE_CLAIM)),
        opt(40, "resources", Msg(&core_container::RESOURCE_REQUIREMENTS)),
    ],
};

/// Wire fields of `PodStatus`.
pub static POD_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.PodStatus",
    fields: &[
        val(1, "phase", Str),
        rep(2, "conditions", Msg(&POD_CONDITION)),
        val(3, "message", Str),
        val(4, "reason", Str),
        val(11, "nominatedNodeName", Str),
        val(5, "hostIP", Str),
        rep(16, "hostIPs", Msg(&HOST_IP)),
        val(6, "podIP", Str),
        rep(12, "podIPs", Msg(&POD_IP)),
        opt(7, "startTime", Time),
        rep(10, "initContainerStatuses", Msg(&CONTAINER_STATUS)),
        rep(8, "containerStatuses", Msg(&CONTAINER_STATUS)),
        val(9, "qosClass", Str),
        rep(13, "ephemeralContainerStatuses", Msg(&CONTAINER_STATUS)),
        val(14, "resize", Str),
        rep(15, "resourceClaimStatuses", Msg(&POD_RESOURCE_CLAIM_STATUS)),
    ],
};

/// Wire fields of `PodTemplateSpec`.
pub static POD_TEMPLATE_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.PodTemplateSpec",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&POD_SPEC)),
    ],
};

/// Wire fields of `PreferredSchedulingTerm`.
pub static PREFERRED_SCHEDULING_TERM: Message = Message {
    name: "k8s.io.api.core.v1.PreferredSchedulingTerm",
    fields: &[
        val(1, "weight", Int32),
        val(2, "preference", Msg(&NODE_SELECTOR_TERM)),
    ],
};

/// Wire fields of `ResourceHealth`.
pub static RESOURCE_HEALTH: Message = Message {
    name: "k8s.io.api.core.v1.ResourceHealth",
    fields: &[val(1, "resourceID", Str), val(2, "health", Str)],
};

/// Wire fields of `ResourceStatus`.
pub static RESOURCE_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.ResourceStatus",
    fields: &[
        val(1, "name", Str),
        rep(2, "resources", Msg(&RESOURCE_HEALTH)),
    ],
};

/// Wire fields of `Sysctl`.
pub static SYSCTL: Message = Message {
    name: "k8s.io.api.core.v1.Sysctl",
    fields: &[val(1, "name", Str), val(2, "value", Str)],
};

/// Wire fields of `Toleration`.
pub static TOLERATION: Message = Message {
    name: "k8s.io.api.core.v1.Toleration",
    fields: &[
        val(1, "key", Str),
        val(2, "operator", Str),
        val(3, "value", Str),
        val(4, "effect", Str),
        opt(5, "tolerationSeconds", Int64),
    ],
};

/// Wire fields of `TopologySpreadConstraint`.
pub static TOPOLOGY_SPREAD_CONSTRAINT: Message = Message {
    name: "k8s.io.api.core.v1.TopologySpreadConstraint",
    fields: &[
        val(1, "maxSkew", Int32),
        val(2, "topologyKey", Str),
        val(3, "whenUnsatisfiable", Str),
        opt(4, "labelSelector", Msg(&meta::LABEL_SELECTOR)),
        opt(5, "minDomains", Int32),
        opt(6, "nodeAffinityPolicy", Str),
        opt(7, "nodeTaintsPolicy", Str),
        rep(8, "matchLabelKeys", Str),
    ],
};

/// Wire fields of `VolumeMountStatus`.
pub static VOLUME_MOUNT_STATUS: Message = Message {
    name: "k8s.io.api.core.v1.VolumeMountStatus",
    fields: &[
        val(1, "name", Str),
        val(2, "mountPath", Str),
        val(3, "readOnly", Bool),
        opt(4, "recursiveReadOnly", Str),
    ],
};

/// Wire fields of `WeightedPodAffinityTerm`.
pub static WEIGHTED_POD_AFFINITY_TERM: Message = Message {
    name: "k8s.io.api.core.v1.WeightedPodAffinityTerm",
    fields: &[
        val(1, "weight", Int32),
        val(2, "podAffinityTerm", Msg(&POD_AFFINITY_TERM)),
    ],
};
