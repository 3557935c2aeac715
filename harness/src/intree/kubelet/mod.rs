//! Simulated kubelets: many per process (one tokio task each, one shared kube client) that do to
//! the API server what a real kubelet of a given version and `--cloud-provider` mode does for
//! the cloud integration: register the Node, renew its Lease, post its status.
//!
//! Verified behaviours (source in brackets):
//! - in-tree (`--cloud-provider=azure`) registration: providerID, instance-type, zone and region
//!   labels (beta and GA keys) from the cloud, no taint [kubernetes `pkg/kubelet/kubelet_node_status.go`
//!   `initialNode`]; Azure values from IMDS: providerID with lower-cased subscription and resource
//!   group, VMSS form from `compute.name` `<set>_<id>` when `vmScaleSetName` is set, else
//!   `.../virtualMachines/<node>`; zone `<location>-<zone>` or the fault domain; region the
//!   lower-cased location; instance type `vmSize` [anchor-ccm.md §3.1, §3.4, §3.7];
//! - in-tree addresses: Hostname, InternalIP, ExternalIP (v4 then v6), public IP from
//!   `/metadata/loadbalancer` when the instance has none [anchor-ccm.md §3.3, cloud-provider-azure
//!   `azure_instance_metadata.go`]; with `--node-ip`: the matching address, others of other types,
//!   then Hostname; no match fails that setter only: the status goes out without addresses
//!   [`pkg/kubelet/nodestatus/setters.go`, `setNodeStatus` logs setter errors and goes on];
//! - the Node is created with its status (conditions, addresses) already set, so a watcher never
//!   sees an in-tree Node without providerID or addresses [`initialNode` ends with `setNodeStatus`];
//! - external registration: taint `node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule`,
//!   no providerID, no cloud labels; `alpha.kubernetes.io/provided-node-ip` = `--node-ip` (comma
//!   joined), already on the Node the kubelet creates, and removed without it [`initialNode`,
//!   setters.go, migration.md §1.4]; addresses: none up to 1.28, then Hostname (plus
//!   `--node-ip` as InternalIP) only while the Node has none;
//! - the kubelet's own labels `kubernetes.io/hostname|os|arch` and beta `os|arch`, annotation
//!   `volumes.kubernetes.io/controller-managed-attach-detach=true` [`initialNode`];
//! - restart on an existing Node (the flip to external): create answers AlreadyExists, then only
//!   the default labels and the attach/detach annotation are reconciled; taints and providerID
//!   are left alone, so a flipped Node is not re-tainted [`tryRegisterWithAPIServer`,
//!   `updateDefaultLabels`]; labels a fresh external `initialNode` lacks (zone, region,
//!   instance type) are kept;
//! - Lease `kube-node-lease/<node>`, holder the node name, 40 s, owned by the Node, renewed every
//!   10 s [kubelet `nodeLeaseDurationSeconds` default, renew interval = duration / 4];
//! - conditions MemoryPressure, DiskPressure, PIDPressure False and Ready True with the kubelet's
//!   reasons, every `nodeStatusUpdateFrequency` (10 s) [setters.go];
//! - a silent kubelet: the node-lifecycle controller sets every condition Unknown
//!   (`NodeStatusUnknown`, "Kubelet stopped posting node status.") and adds
//!   `node.kubernetes.io/unreachable` NoSchedule and NoExecute; Ready again removes them
//!   [`pkg/controller/nodelifecycle/node_lifecycle_controller.go`].
//!
//! Inferred or simplified ([infer]):
//! - the releases where version-dependent facts start ([`profile::FACTS`] marks them);
//! - in-tree addresses are read from IMDS at each (re)start, not refreshed every status period;
//! - a VM that is powered off answers IMDS 503: its in-tree kubelet keeps retrying registration
//!   (whoever powers a VM off should stop its kubelet too);
//! - `NetworkUnavailable` is never set by the kubelet (in-tree it was GCE only);
//! - the node-lifecycle marking happens right when a kubelet is stopped (no 40 s grace), and the
//!   unreachable taints are removed by the kubelet task itself after its first Ready post;
//! - status posts are strategic-merge patches of `nodes/<name>/status` every period (a real
//!   kubelet skips unchanged posts up to `nodeStatusReportFrequency`), capacity and node info
//!   are fixed fake values;
//! - flex scale-set VMs get the `.../virtualMachines/<node>` form (unknown to the in-tree code).

mod agent;
mod imds;
mod kubelets;
mod lease;
mod log;
pub mod profile;
mod registration;
mod status;

pub use agent::{KubeletSpec, NodeIp, Timing};
pub use imds::{ImdsError, Instance};
pub use kubelets::{KubeletError, KubeletState, Kubelets};
pub use lease::{DURATION_SECONDS as LEASE_DURATION_SECONDS, NAMESPACE as LEASE_NAMESPACE};
pub use log::{Activity, Event, Log};
pub use profile::{KubeVersion, Profile};
pub use registration::{CONTROLLER_MANAGED_ATTACH, Mode, PROVIDED_NODE_IP, UNINITIALIZED_TAINT};
pub use status::{STOPPED_POSTING, UNREACHABLE_TAINT, is_ready};
