//! Core `v1` pod volumes and their sources (projected, secret, configMap, CSI, ephemeral...).

use crate::protobuf::schema::Kind::{Bool, Inline, Int32, Int64, Map, Msg, Quantity, Str};
use crate::protobuf::schema::{Message, opt, rep, val};

use super::{core_container, core_objects, meta};

/// Wire fields of `AWSElasticBlockStoreVolumeSource`.
pub static AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource",
    fields: &[
        val(1, "volumeID", Str),
        val(2, "fsType", Str),
        val(3, "partition", Int32),
        val(4, "readOnly", Bool),
    ],
};

/// Wire fields of `AzureDiskVolumeSource`.
pub static AZURE_DISK_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.AzureDiskVolumeSource",
    fields: &[
        val(1, "diskName", Str),
        val(2, "diskURI", Str),
        opt(3, "cachingMode", Str),
        opt(4, "fsType", Str),
        opt(5, "readOnly", Bool),
        opt(6, "kind", Str),
    ],
};

/// Wire fields of `AzureFileVolumeSource`.
pub static AZURE_FILE_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.AzureFileVolumeSource",
    fields: &[
        val(1, "secretName", Str),
        val(2, "shareName", Str),
        val(3, "readOnly", Bool),
    ],
};

/// Wire fields of `CSIVolumeSource`.
pub static CSI_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.CSIVolumeSource",
    fields: &[
        val(1, "driver", Str),
        opt(2, "readOnly", Bool),
        opt(3, "fsType", Str),
        rep(4, "volumeAttributes", Map(&Str)),
        opt(
            5,
            "nodePublishSecretRef",
            Msg(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
    ],
};

/// Wire fields of `CephFSVolumeSource`.
pub static CEPH_FS_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.CephFSVolumeSource",
    fields: &[
        rep(1, "monitors", Str),
        val(2, "path", Str),
        val(3, "user", Str),
        val(4, "secretFile", Str),
        opt(5, "secretRef", Msg(&core_objects::LOCAL_OBJECT_REFERENCE)),
        val(6, "readOnly", Bool),
    ],
};

/// Wire fields of `CinderVolumeSource`.
pub static CINDER_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.CinderVolumeSource",
    fields: &[
        val(1, "volumeID", Str),
        val(2, "fsType", Str),
        val(3, "readOnly", Bool),
        opt(4, "secretRef", Msg(&core_objects::LOCAL_OBJECT_REFERENCE)),
    ],
};

/// Wire fields of `ClusterTrustBundleProjection`.
pub static CLUSTER_TRUST_BUNDLE_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.ClusterTrustBundleProjection",
    fields: &[
        opt(1, "name", Str),
        opt(2, "signerName", Str),
        opt(3, "labelSelector", Msg(&meta::LABEL_SELECTOR)),
        opt(5, "optional", Bool),
        val(4, "path", Str),
    ],
};

/// Wire fields of `ConfigMapProjection`.
pub static CONFIG_MAP_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapProjection",
    fields: &[
        val(
            1,
            "localObjectReference",
            Inline(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
        rep(2, "items", Msg(&KEY_TO_PATH)),
        opt(4, "optional", Bool),
    ],
};

/// Wire fields of `ConfigMapVolumeSource`.
pub static CONFIG_MAP_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ConfigMapVolumeSource",
    fields: &[
        val(
            1,
            "localObjectReference",
            Inline(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
        rep(2, "items", Msg(&KEY_TO_PATH)),
        opt(3, "defaultMode", Int32),
        opt(4, "optional", Bool),
    ],
};

/// Wire fields of `DownwardAPIProjection`.
pub static DOWNWARD_API_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.DownwardAPIProjection",
    fields: &[rep(1, "items", Msg(&DOWNWARD_API_VOLUME_FILE))],
};

/// Wire fields of `DownwardAPIVolumeFile`.
pub static DOWNWARD_API_VOLUME_FILE: Message = Message {
    name: "k8s.io.api.core.v1.DownwardAPIVolumeFile",
    fields: &[
        val(1, "path", Str),
        opt(2, "fieldRef", Msg(&core_container::OBJECT_FIELD_SELECTOR)),
        opt(
            3,
            "resourceFieldRef",
            Msg(&core_container::RESOURCE_FIELD_SELECTOR),
        ),
        opt(4, "mode", Int32),
    ],
};

/// Wire fields of `DownwardAPIVolumeSource`.
pub static DOWNWARD_API_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.DownwardAPIVolumeSource",
    fields: &[
        rep(1, "items", Msg(&DOWNWARD_API_VOLUME_FILE)),
        opt(2, "defaultMode", Int32),
    ],
};

/// Wire fields of `EmptyDirVolumeSource`.
pub static EMPTY_DIR_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EmptyDirVolumeSource",
    fields: &[val(1, "medium", Str), opt(2, "sizeLimit", Quantity)],
};

/// Wire fields of `EphemeralVolumeSource`.
pub static EPHEMERAL_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.EphemeralVolumeSource",
    fields: &[opt(
        1,
        "volumeClaimTemplate",
        Msg(&PERSISTENT_VOLUME_CLAIM_TEMPLATE),
    )],
};

/// Wire fields of `FCVolumeSource`.
pub static FC_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.FCVolumeSource",
    fields: &[
        rep(1, "targetWWNs", Str),
        opt(2, "lun", Int32),
        val(3, "fsType", Str),
        val(4, "readOnly", Bool),
        rep(5, "wwids", Str),
    ],
};

/// Wire fields of `FlexVolumeSource`.
pub static FLEX_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.FlexVolumeSource",
    fields: &[
        val(1, "driver", Str),
        val(2, "fsType", Str),
        opt(3, "secretRef", Msg(&core_objects::LOCAL_OBJECT_REFERENCE)),
        val(4, "readOnly", Bool),
        rep(5, "options", Map(&Str)),
    ],
};

/// Wire fields of `FlockerVolumeSource`.
pub static FLOCKER_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.FlockerVolumeSource",
    fields: &[val(1, "datasetName", Str), val(2, "datasetUUID", Str)],
};

/// Wire fields of `GCEPersistentDiskVolumeSource`.
pub static GCE_PERSISTENT_DISK_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.GCEPersistentDiskVolumeSource",
    fields: &[
        val(1, "pdName", Str),
        val(2, "fsType", Str),
        val(3, "partition", Int32),
        val(4, "readOnly", Bool),
    ],
};

/// Wire fields of `GitRepoVolumeSource`.
pub static GIT_REPO_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.GitRepoVolumeSource",
    fields: &[
        val(1, "repository", Str),
        val(2, "revision", Str),
        val(3, "directory", Str),
    ],
};

/// Wire fields of `GlusterfsVolumeSource`.
pub static GLUSTERFS_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.GlusterfsVolumeSource",
    fields: &[
        val(1, "endpoints", Str),
        val(2, "path", Str),
        val(3, "readOnly", Bool),
    ],
};

/// Wire fields of `HostPathVolumeSource`.
pub static HOST_PATH_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.HostPathVolumeSource",
    fields: &[val(1, "path", Str), opt(2, "type", Str)],
};

/// Wire fields of `ISCSIVolumeSource`.
pub static ISCSI_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ISCSIVolumeSource",
    fields: &[
        val(1, "targetPortal", Str),
        val(2, "iqn", Str),
        val(3, "lun", Int32),
        val(4, "iscsiInterface", Str),
        val(5, "fsType", Str),
        val(6, "readOnly", Bool),
        rep(7, "portals", Str),
        val(8, "chapAuthDiscovery", Bool),
        val(11, "chapAuthSession", Bool),
        opt(10, "secretRef", Msg(&core_objects::LOCAL_OBJECT_REFERENCE)),
        opt(12, "initiatorName", Str),
    ],
};

/// Wire fields of `ImageVolumeSource`.
pub static IMAGE_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ImageVolumeSource",
    fields: &[val(1, "reference", Str), val(2, "pullPolicy", Str)],
};

/// Wire fields of `KeyToPath`.
pub static KEY_TO_PATH: Message = Message {
    name: "k8s.io.api.core.v1.KeyToPath",
    fields: &[
        val(1, "key", Str),
        val(2, "path", Str),
        opt(3, "mode", Int32),
    ],
};

/// Wire fields of `NFSVolumeSource`.
pub static NFS_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.NFSVolumeSource",
    fields: &[
        val(1, "server", Str),
        val(2, "path", Str),
        val(3, "readOnly", Bool),
    ],
};

/// Wire fields of `PersistentVolumeClaimSpec`.
pub static PERSISTENT_VOLUME_CLAIM_SPEC: Message = Message {
    name: "k8s.io.api.core.v1.PersistentVolumeClaimSpec",
    fields: &[
        rep(1, "accessModes", Str),
        opt(4, "selector", Msg(&meta::LABEL_SELECTOR)),
        val(2, "resources", Msg(&VOLUME_RESOURCE_REQUIREMENTS)),
        val(3, "volumeName", Str),
        opt(5, "storageClassName", Str),
        opt(6, "volumeMode", Str),
        opt(7, "dataSource", Msg(&TYPED_LOCAL_OBJECT_REFERENCE)),
        opt(8, "dataSourceRef", Msg(&TYPED_OBJECT_REFERENCE)),
        opt(9, "volumeAttributesClassName", Str),
    ],
};

/// Wire fields of `PersistentVolumeClaimTemplate`.
pub static PERSISTENT_VOLUME_CLAIM_TEMPLATE: Message = Message {
    name: "k8s.io.api.core.v1.PersistentVolumeClaimTemplate",
    fields: &[
        val(1, "metadata", Msg(&meta::OBJECT_META)),
        val(2, "spec", Msg(&PERSISTENT_VOLUME_CLAIM_SPEC)),
    ],
};

/// Wire fields of `PersistentVolumeClaimVolumeSource`.
pub static PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource",
    fields: &[val(1, "claimName", Str), val(2, "readOnly", Bool)],
};

/// Wire fields of `PhotonPersistentDiskVolumeSource`.
pub static PHOTON_PERSISTENT_DISK_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource",
    fields: &[val(1, "pdID", Str), val(2, "fsType", Str)],
};

/// Wire fields of `PortworxVolumeSource`.
pub static PORTWORX_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.PortworxVolumeSource",
    fields: &[
        val(1, "volumeID", Str),
        val(2, "fsType", Str),
        val(3, "readOnly", Bool),
    ],
};

/// Wire fields of `ProjectedVolumeSource`.
pub static PROJECTED_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ProjectedVolumeSource",
    fields: &[
        rep(1, "sources", Msg(&VOLUME_PROJECTION)),
        opt(2, "defaultMode", Int32),
    ],
};

/// Wire fields of `QuobyteVolumeSource`.
pub static QUOBYTE_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.QuobyteVolumeSource",
    fields: &[
        val(1, "registry", Str),
        val(2, "volume", Str),
        val(3, "readOnly", Bool),
        val(4, "user", Str),
        val(5, "group", Str),
        val(6, "tenant", Str),
    ],
};

/// Wire fields of `RBDVolumeSource`.
pub static RBD_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.RBDVolumeSource",
    fields: &[
        rep(1, "monitors", Str),
        val(2, "image", Str),
        val(3, "fsType", Str),
        val(4, "pool", Str),
        val(5, "user", Str),
        val(6, "keyring", Str),
        opt(7, "secretRef", Msg(&core_objects::LOCAL_OBJECT_REFERENCE)),
        val(8, "readOnly", Bool),
    ],
};

/// Wire fields of `ScaleIOVolumeSource`.
pub static SCALE_IO_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.ScaleIOVolumeSource",
    fields: &[
        val(1, "gateway", Str),
        val(2, "system", Str),
        opt(3, "secretRef", Msg(&core_objects::LOCAL_OBJECT_REFERENCE)),
        val(4, "sslEnabled", Bool),
        val(5, "protectionDomain", Str),
        val(6, "storagePool", Str),
        val(7, "storageMode", Str),
        val(8, "volumeName", Str),
        val(9, "fsType", Str),
        val(10, "readOnly", Bool),
    ],
};

/// Wire fields of `SecretProjection`.
pub static SECRET_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.SecretProjection",
    fields: &[
        val(
            1,
            "localObjectReference",
            Inline(&core_objects::LOCAL_OBJECT_REFERENCE),
        ),
        rep(2, "items", Msg(&KEY_TO_PATH)),
        opt(4, "optional", Bool),
    ],
};

/// Wire fields of `SecretVolumeSource`.
pub static SECRET_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.SecretVolumeSource",
    fields: &[
        val(1, "secretName", Str),
        rep(2, "items", Msg(&KEY_TO_PATH)),
        opt(3, "defaultMode", Int32),
        opt(4, "optional", Bool),
    ],
};

/// Wire fields of `ServiceAccountTokenProjection`.
pub static SERVICE_ACCOUNT_TOKEN_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.ServiceAccountTokenProjection",
    fields: &[
        val(1, "audience", Str),
        opt(2, "expirationSeconds", Int64),
        val(3, "path", Str),
    ],
};

/// Wire fields of `StorageOSVolumeSource`.
pub static STORAGE_OS_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.StorageOSVolumeSource",
    fields: &[
        val(1, "volumeName", Str),
        val(2, "volumeNamespace", Str),
        val(3, "fsType", Str),
        val(4, "readOnly", Bool),
        opt(5, "secretRef", Msg(&core_objects::LOCAL_OBJECT_REFERENCE)),
    ],
};

/// Wire fields of `TypedLocalObjectReference`.
pub static TYPED_LOCAL_OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.core.v1.TypedLocalObjectReference",
    fields: &[
        opt(1, "apiGroup", Str),
        val(2, "kind", Str),
        val(3, "name", Str),
    ],
};

/// Wire fields of `TypedObjectReference`.
pub static TYPED_OBJECT_REFERENCE: Message = Message {
    name: "k8s.io.api.core.v1.TypedObjectReference",
    fields: &[
        opt(1, "apiGroup", Str),
        val(2, "kind", Str),
        val(3, "name", Str),
        opt(4, "namespace", Str),
    ],
};

/// Wire fields of `Volume`.
pub static VOLUME: Message = Message {
    name: "k8s.io.api.core.v1.Volume",
    fields: &[
        val(1, "name", Str),
        val(2, "volumeSource", Inline(&VOLUME_SOURCE)),
    ],
};

/// Wire fields of `VolumeProjection`.
pub static VOLUME_PROJECTION: Message = Message {
    name: "k8s.io.api.core.v1.VolumeProjection",
    fields: &[
        opt(1, "secret", Msg(&SECRET_PROJECTION)),
        opt(2, "downwardAPI", Msg(&DOWNWARD_API_PROJECTION)),
        opt(3, "configMap", Msg(&CONFIG_MAP_PROJECTION)),
        opt(
            4,
            "serviceAccountToken",
            Msg(&SERVICE_ACCOUNT_TOKEN_PROJECTION),
        ),
        opt(
            5,
            "clusterTrustBundle",
            Msg(&CLUSTER_TRUST_BUNDLE_PROJECTION),
        ),
    ],
};

/// Wire fields of `VolumeResourceRequirements`.
pub static VOLUME_RESOURCE_REQUIREMENTS: Message = Message {
    name: "k8s.io.api.core.v1.VolumeResourceRequirements",
    fields: &[
        rep(1, "limits", Map(&Quantity)),
        rep(2, "requests", Map(&Quantity)),
    ],
};

/// Wire fields of `VolumeSource`.
pub static VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.VolumeSource",
    fields: &[
        opt(1, "hostPath", Msg(&HOST_PATH_VOLUME_SOURCE)),
        opt(2, "emptyDir", Msg(&EMPTY_DIR_VOLUME_SOURCE)),
        opt(
            3,
            "gcePersistentDisk",
            Msg(&GCE_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        opt(
            4,
            "awsElasticBlockStore",
            Msg(&AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE),
        ),
        opt(5, "gitRepo", Msg(&GIT_REPO_VOLUME_SOURCE)),
        opt(6, "secret", Msg(&SECRET_VOLUME_SOURCE)),
        opt(7, "nfs", Msg(&NFS_VOLUME_SOURCE)),
        opt(8, "iscsi", Msg(&ISCSI_VOLUME_SOURCE)),
        opt(9, "glusterfs", Msg(&GLUSTERFS_VOLUME_SOURCE)),
        opt(
            10,
            "persistentVolumeClaim",
            Msg(&PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE),
        ),
        opt(11, "rbd", Msg(&RBD_VOLUME_SOURCE)),
        opt(12, "flexVolume", Msg(&FLEX_VOLUME_SOURCE)),
        opt(13, "cinder", Msg(&CINDER_VOLUME_SOURCE)),
        opt(14, "cephfs", Msg(&CEPH_FS_VOLUME_SOURCE)),
        opt(15, "flocker", Msg(&FLOCKER_VOLUME_SOURCE)),
        opt(16, "downwardAPI", Msg(&DOWNWARD_API_VOLUME_SOURCE)),
        opt(17, "fc", Msg(&FC_VOLUME_SOURCE)),
        opt(18, "azureFile", Msg(&AZURE_FILE_VOLUME_SOURCE)),
        opt(19, "configMap", Msg(&CONFIG_MAP_VOLUME_SOURCE)),
        opt(
            20,
            "vsphereVolume",
            Msg(&VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE),
        ),
        opt(21, "quobyte", Msg(&QUOBYTE_VOLUME_SOURCE)),
        opt(22, "azureDisk", Msg(&AZURE_DISK_VOLUME_SOURCE)),
        opt(
            23,
            "photonPersistentDisk",
            Msg(&PHOTON_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        opt(26, "projected", Msg(&PROJECTED_VOLUME_SOURCE)),
        opt(24, "portworxVolume", Msg(&PORTWORX_VOLUME_SOURCE)),
        opt(25, "scaleIO", Msg(&SCALE_IO_VOLUME_SOURCE)),
        opt(27, "storageos", Msg(&STORAGE_OS_VOLUME_SOURCE)),
        opt(28, "csi", Msg(&CSI_VOLUME_SOURCE)),
        opt(29, "ephemeral", Msg(&EPHEMERAL_VOLUME_SOURCE)),
        opt(30, "image", Msg(&IMAGE_VOLUME_SOURCE)),
    ],
};

/// Wire fields of `VsphereVirtualDiskVolumeSource`.
pub static VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE: Message = Message {
    name: "k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource",
    fields: &[
        val(1, "volumePath", Str),
        val(2, "fsType", Str),
        val(3, "storagePolicyName", Str),
        val(4, "storagePolicyID", Str),
    ],
};
