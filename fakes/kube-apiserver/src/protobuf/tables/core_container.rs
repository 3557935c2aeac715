//! Core `v1` containers: ports, env, resources, probes, lifecycle hooks, security context.

use crate::protobuf::schema::Kind::{
    Bool, Inline, Int32, Int64, IntOrString, Map, Msg, Quantity, Str,
};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::core_objects;

/// Wire fields of `AppArmorProfile`.
pub static APP_ARMOR_PROFILE: Message = Message {
    name: "k8s.io.api.core.v1.AppArmorProfile",
    fields: &[val(1, "type", Str), opt(2, "localhostProfile", Str)],
};

/// Wire fields of `Capabilities`.
pub static CAPABILITIES: Message = Message {
    name: "k8s.io.api.core.v1.Capabilities",
    fields: &[rep(1, "add", Str), rep(2, "drop", Str)],
};

/// Wire fields of `ConfigMapEnvSource`.
pub static CONFIG_MAP_ENV_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapEnvSource",
    fields: &[
        val(
            1,
            "localObjectReference",
            Inline(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
        opt(2, "optional", Bool),
    ],
};

/// Wire fields of `ConfigMapKeySelector`.
pub static CONFIG_MAP_KEY_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapKeySelector",
    fields: &[
        val(
            1,
            "localObjectReference",
            Inline(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
        val(2, "key", Str),
        opt(3, "optional", Bool),
    ],
};

/// Wire fields of `Container`.
pub static CONTAINER: Message = Message {
    name: "k8s.io.api.core.v1.Container",
    fields: &[
        val(1, "name", Str),
        val(2, "image", Str),
        rep(3, "command", Str),
        rep(4, "args", Str),
        val(5, "workingDir", Str),
        rep(6, "ports", Msg(&CONTAINER_PORT)),
        rep(19, "envFrom", Msg(&ENV_FROM_SOURCE)),
        rep(7, "env", Msg(&ENV_VAR)),
        val(8, "resources", Msg(&RESOURCE_REQUIREMENTS)),
        rep(23, "resizePolicy", Msg(&CONTAINER_RESIZE_POLICY)),
        opt(24, "restartPolicy", Str),
        rep(9, "volumeMounts", Msg(&VOLUME_MOUNT)),
        rep(21, "volumeDevices", Msg(&VOLUME_DEVICE)),
        opt(10, "livenessProbe", Msg(&PROBE)),
        opt(11, "readinessProbe", Msg(&PROBE)),
        opt(22, "startupProbe", Msg(&PROBE)),
        opt(12, "lifecycle", Msg(&LIFECYCLE)),
        val(13, "terminationMessagePath", Str),
        val(20, "terminationMessagePolicy", Str),
        val(14, "imagePullPolicy", Str),
        opt(15, "securityContext", Msg(&SECURITY_CONTEXT)),
        val(16, "stdin", Bool),
        val(17, "stdinOnce", Bool),
        val(18, "tty", Bool),
    ],
};

/// Wire fields of `ContainerPort`.
pub static CONTAINER_PORT: Message = Message {
    name: "k8s.io.api.core.v1.ContainerPort",
    fields: &[
        val(1, "name", Str),
        val(2, "hostPort", Int32),
        val(3, "containerPort", Int32),
        val(4, "protocol", Str),
        val(5, "hostIP", Str),
    ],
};

/// Wire fields of `ContainerResizePolicy`.
pub static CONTAINER_RESIZE_POLICY: Message = Message {
    name: "k8s.io.api.core.v1.ContainerResizePolicy",
    fields: &[val(1, "resourceName", Str), val(2, "restartPolicy", Str)],
};

/// Wire fields of `EnvFromSource`.
pub static ENV_FROM_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EnvFromSource",
    fields: &[
        val(1, "prefix", Str),
        opt(2, "configMapRef", Msg(&CONFIG_MAP_ENV_SOURCE)),
        opt(3, "secretRef", Msg(&SECRET_ENV_SOURCE)),
    ],
};

/// Wire fields of `EnvVar`.
pub static ENV_VAR: Message = Message {
    name: "k8s.io.api.core.v1.EnvVar",
    fields: &[
        val(1, "name", Str),
        val(2, "value", Str),
        opt(3, "valueFrom", Msg(&ENV_VAR_SOURCE)),
    ],
};

/// Wire fields of `EnvVarSource`.
pub static ENV_VAR_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EnvVarSource",
    fields: &[
        opt(1, "fieldRef", Msg(&OBJECT_FIELD_SELECTOR)),
        opt(2, "resourceFieldRef", Msg(&RESOURCE_FIELD_SELECTOR)),
        opt(3, "configMapKeyRef", Msg(&CONFIG_MAP_KEY_SELECTOR)),
        opt(4, "secretKeyRef", Msg(&SECRET_KEY_SELECTOR)),
    ],
};

/// Wire fields of `EphemeralContainer`.
pub static EPHEMERAL_CONTAINER: Message = Message {
    name: "k8s.io.api.core.v1.EphemeralContainer",
    fields: &[
        val(
            1,
            "ephemeralContainerCommon",
            Inline(&EPHEMERAL_CONTAINER_COMMON),
        ),
        val(2, "targetContainerName", Str),
    ],
};

/// Wire fields of `EphemeralContainerCommon`.
pub static EPHEMERAL_CONTAINER_COMMON: Message = Message {
    name: "k8s.io.api.core.v1.EphemeralContainerCommon",
    fields: &[
        val(1, "name", Str),
        val(2, "image", Str),
        rep(3, "command", Str),
        rep(4, "args", Str),
        val(5, "workingDir", Str),
        rep(6, "ports", Msg(&CONTAINER_PORT)),
        rep(19, "envFrom", Msg(&ENV_FROM_SOURCE)),
        rep(7, "env", Msg(&ENV_VAR)),
        val(8, "resources", Msg(&RESOURCE_REQUIREMENTS)),
        rep(23, "resizePolicy", Msg(&CONTAINER_RESIZE_POLICY)),
        opt(24, "restartPolicy", Str),
        rep(9, "volumeMounts", Msg(&VOLUME_MOUNT)),
        rep(21, "volumeDevices", Msg(&VOLUME_DEVICE)),
        opt(10, "livenessProbe", Msg(&PROBE)),
        opt(11, "readinessProbe", Msg(&PROBE)),
        opt(22, "startupProbe", Msg(&PROBE)),
        opt(12, "lifecycle", Msg(&LIFECYCLE)),
        val(13, "terminationMessagePath", Str),
        val(20, "terminationMessagePolicy", Str),
        val(14, "imagePullPolicy", Str),
        opt(15, "securityContext", Msg(&SECURITY_CONTEXT)),
        val(16, "stdin", Bool),
        val(17, "stdinOnce", Bool),
        val(18, "tty", Bool),
    ],
};

/// Wire fields of `ExecAction`.
pub static EXEC_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.ExecAction",
    fields: &[rep(1, "command", Str)],
};

/// Wire fields of `GRPCAction`.
pub static GRPC_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.GRPCAction",
    fields: &[val(1, "port", Int32), opt(2, "service", Str)],
};

/// Wire fields of `HTTPGetAction`.
pub static HTTP_GET_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.HTTPGetAction",
    fields: &[
        val(1, "path", Str),
        val(2, "port", IntOrString),
        val(3, "host", Str),
        val(4, "scheme", Str),
        rep(5, "httpHeaders", Msg(&HTTP_HEADER)),
    ],
};

/// Wire fields of `HTTPHeader`.
pub static HTTP_HEADER: Message = Message {
    name: "k8s.io.api.core.v1.HTTPHeader",
    fields: &[val(1, "name", Str), val(2, "value", Str)],
};

/// Wire fields of `Lifecycle`.
pub static LIFECYCLE: Message = Message {
    name: "k8s.io.api.core.v1.Lifecycle",
    fields: &[
        opt(1, "postStart", Msg(&LIFECYCLE_HANDLER)),
        opt(2, "preStop", Msg(&LIFECYCLE_HANDLER)),
    ],
};

/// Wire fields of `LifecycleHandler`.
pub static LIFECYCLE_HANDLER: Message = Message {
    name: "k8s.io.api.core.v1.LifecycleHandler",
    fields: &[
        opt(1, "exec", Msg(&EXEC_ACTION)),
        opt(2, "httpGet", Msg(&HTTP_GET_ACTION)),
        opt(3, "tcpSocket", Msg(&TCP_SOCKET_ACTION)),
        opt(4, "sleep", Msg(&SLEEP_ACTION)),
    ],
};

/// Wire fields of `ObjectFieldSelector`.
pub static OBJECT_FIELD_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.ObjectFieldSelector",
    fields: &[val(1, "apiVersion", Str), val(2, "fieldPath", Str)],
};

/// Wire fields of `Probe`.
pub static PROBE: Message = Message {
    name: "k8s.io.api.core.v1.Probe",
    fields: &[
        val(1, "handler", Inline(&PROBE_HANDLER)),
        val(2, "initialDelaySeconds", Int32),
        val(3, "timeoutSeconds", Int32),
        val(4, "periodSeconds", Int32),
        val(5, "successThreshold", Int32),
        val(6, "failureThreshold", Int32),
        opt(7, "terminationGracePeriodSeconds", Int64),
    ],
};

/// Wire fields of `ProbeHandler`.
pub static PROBE_HANDLER: Message = Message {
    name: "k8s.io.api.core.v1.ProbeHandler",
    fields: &[
        opt(1, "exec", Msg(&EXEC_ACTION)),
        opt(2, "httpGet", Msg(&HTTP_GET_ACTION)),
        opt(3, "tcpSocket", Msg(&TCP_SOCKET_ACTION)),
        opt(4, "grpc", Msg(&GRPC_ACTION)),
    ],
};

/// Wire fields of `ResourceClaim`.
pub static RESOURCE_CLAIM: Message = Message {
    name: "k8s.io.api.core.v1.ResourceClaim",
    fields: &[val(1, "name", Str), val(2, "request", Str)],
};

/// Wire fields of `ResourceFieldSelector`.
pub static RESOURCE_FIELD_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.ResourceFieldSelector",
    fields: &[
        val(1, "containerName", Str),
        val(2, "resource", Str),
        val(3, "divisor", Quantity),
    ],
};

/// Wire fields of `ResourceRequirements`.
pub static RESOURCE_REQUIREMENTS: Message = Message {
    name: "k8s.io.api.core.v1.ResourceRequirements",
    fields: &[
        rep(1, "limits", Map(&Quantity)),
        rep(2, "requests", Map(&Quantity)),
        rep(3, "claims", Msg(&RESOURCE_CLAIM)),
    ],
};

/// Wire fields of `SELinuxOptions`.
pub static SE_LINUX_OPTIONS: Message = Message {
    name: "k8s.io.api.core.v1.SELinuxOptions",
    fields: &[
        val(1, "user", Str),
        val(2, "role", Str),
        val(3, "type", Str),
        val(4, "level", Str),
    ],
};

/// Wire fields of `SeccompProfile`.
pub static SECCOMP_PROFILE: Message = Message {
    name: "k8s.io.api.core.v1.SeccompProfile",
    fields: &[val(1, "type", Str), opt(2, "localhostProfile", Str)],
};

/// Wire fields of `SecretEnvSource`.
pub static SECRET_ENV_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.SecretEnvSource",
    fields: &[
        val(
            1,
            "localObjectReference",
            Inline(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
        opt(2, "optional", Bool),
    ],
};

/// Wire fields of `SecretKeySelector`.
pub static SECRET_KEY_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.SecretKeySelector",
    fields: &[
        val(
            1,
            "localObjectReference",
            Inline(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
        val(2, "key", Str),
        opt(3, "optional", Bool),
    ],
};

/// Wire fields of `SecurityContext`.
pub static SECURITY_CONTEXT: Message = Message {
    name: "k8s.io.api.core.v1.SecurityContext",
    fields: &[
        opt(1, "capabilities", Msg(&CAPABILITIES)),
        opt(2, "privileged", Bool),
        opt(3, "seLinuxOptions", Msg(&SE_LINUX_OPTIONS)),
        opt(10, "windowsOptions", Msg(&WINDOWS_SECURITY_CONTEXT_OPTIONS)),
        opt(4, "runAsUser", Int64),
        opt(8, "runAsGroup", Int64),
        opt(5, "runAsNonRoot", Bool),
        opt(6, "readOnlyRootFilesystem", Bool),
        opt(7, "allowPrivilegeEscalation", Bool),
        opt(9, "procMount", Str),
        opt(11, "seccompProfile", Msg(&SECCOMP_PROFILE)),
        opt(12, "appArmorProfile", Msg(&APP_ARMOR_PROFILE)),
    ],
};

/// Wire fields of `SleepAction`.
pub static SLEEP_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.SleepAction",
    fields: &[val(1, "seconds", Int64)],
};

/// Wire fields of `TCPSocketAction`.
pub static TCP_SOCKET_ACTION: Message = Message {
    name: "k8s.io.api.core.v1.TCPSocketAction",
    fields: &[val(1, "port", IntOrString), val(2, "host", Str)],
};

/// Wire fields of `VolumeDevice`.
pub static VOLUME_DEVICE: Message = Message {
    name: "k8s.io.api.core.v1.VolumeDevice",
    fields: &[val(1, "name", Str), val(2, "devicePath", Str)],
};

/// Wire fields of `VolumeMount`.
pub static VOLUME_MOUNT: Message = Message {
    name: "k8s.io.api.core.v1.VolumeMount",
    fields: &[
        val(1, "name", Str),
        val(2, "readOnly", Bool),
        opt(7, "recursiveReadOnly", Str),
        val(3, "mountPath", Str),
        val(4, "subPath", Str),
        opt(5, "mountPropagation", Str),
        val(6, "subPathExpr", Str),
    ],
};

/// Wire fields of `WindowsSecurityContextOptions`.
pub static WINDOWS_SECURITY_CONTEXT_OPTIONS: Message = Message {
    name: "k8s.io.api.core.v1.WindowsSecurityContextOptions",
    fields: &[
        opt(1, "gmsaCredentialSpecName", Str),
        opt(2, "gmsaCredentialSpec", Str),
        opt(3, "runAsUserName", Str),
        opt(4, "hostProcess", Bool),
    ],
};
