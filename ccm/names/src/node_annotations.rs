//! Node annotations relevant to the Azure cloud provider.

use super::access::{Access, Actor};
use super::metadata_key::MetadataKey;

/// IPs the kubelet was told to use (`--node-ip`), comma separated; cloud init refuses addresses
/// that do not contain them.
pub const PROVIDED_NODE_IP: &str = "alpha.kubernetes.io/provided-node-ip";

/// One node annotation and how it is used.
pub type NodeAnnotation = MetadataKey;

/// Every node annotation relevant to the provider (the Azure code itself writes none).
pub static NODE_ANNOTATIONS: &[NodeAnnotation] = &[NodeAnnotation {
    key: PROVIDED_NODE_IP,
    access: Access {
        written_by: &[Actor::Kubelet],
        read_by: &[Actor::CloudNodeManager, Actor::CloudNodeController],
    },
    value: "one IP, or an IPv4 and an IPv6 separated by a comma",
    description: "Written by a kubelet started with `--node-ip` and `--cloud-provider=external` \
                  (deleted when `--node-ip` is absent). Node initialisation fails, and the \
                  uninitialized taint stays, until every listed IP is among the VM's addresses.",
}];
