//! The YAML schema of a scenario file, exactly as written (before validation).
//!
//! Every struct denies unknown fields so a typo is an error that lists the accepted names, and values
//! whose problems only cross-field validation finds are [`Spanned`] so those errors name their line.

use super::check::CheckName;
use super::duration::Duration;
use azure_fakes::faults::FaultRule;
use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// Root of a scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScenarioSpec {
    /// Scenario name; equals the file name without `.yaml` (the runner and the reports use it).
    pub name: Spanned<String>,
    /// What the scenario proves, for humans and the HTML report.
    #[serde(default)]
    pub description: String,
    /// The fake cloud: a `fakes/examples` file or an inline topology.
    pub topology: Spanned<TopologyRef>,
    /// Kubernetes minor the cluster runs (`"1.29"`); picks the in-tree profile and the manifests.
    pub kubernetes_version: Spanned<String>,
    /// `--cluster-name` the in-tree kube-controller-manager runs with.
    pub cluster_name: Spanned<String>,
    /// Pod networking: Azure CNI (no routes) or kubenet (routes + node IPAM).
    #[serde(default)]
    pub network: NetworkSpec,
    /// Services and node churn applied around the switch.
    #[serde(default)]
    pub workload: WorkloadSpec,
    /// How the cloud loops move from the in-tree KCM to the CCM.
    pub switch: SwitchSpec,
    /// Fault rules for the fake cloud and process disruptions.
    #[serde(default)]
    pub faults: Option<Spanned<FaultsSpec>>,
    /// Checks to run (replaces the default of every check); exclusive with `skipChecks`.
    #[serde(default)]
    pub checks: Option<Spanned<Vec<CheckName>>>,
    /// Checks removed from the default set; exclusive with `checks`.
    #[serde(default)]
    pub skip_checks: Option<Spanned<Vec<CheckName>>>,
    /// Thresholds of the checks that take one.
    #[serde(default)]
    pub budgets: Budgets,
    /// `pass` (default), or `{fail: <check>}` for a negative scenario.
    #[serde(default)]
    pub expect: Option<Spanned<Expect>>,
}

/// Where the topology comes from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub enum TopologyRef {
    /// Path relative to the repository root, e.g. `fakes/examples/small.yaml`.
    File(String),
    /// A topology document inline; kept opaque here and validated by the fake when it starts.
    Inline(serde_json::Value),
}

/// A workload phase, relative to the switch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// In-tree cluster, before the switch starts.
    #[default]
    Before,
    /// While the switch runs.
    During,
    /// After the switch has finished.
    After,
}

/// Pod network mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkMode {
    /// Pod IPs from the VNet: no routes, no node IPAM in the cloud controllers.
    #[default]
    AzureCni,
    /// Routes in the route table and node CIDR allocation.
    Kubenet,
}

/// Which managers allocate node pod CIDRs after the switch (kubenet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CidrAllocator {
    /// The cloud-controller-manager takes `--allocate-node-cidrs` over (the documented move).
    #[default]
    CloudControllerManager,
    /// The kube-controller-manager keeps allocating; the CCM does not.
    KubeControllerManager,
    /// Both allocate (the pitfall P12; negative scenarios only).
    Both,
}

/// `network:` block.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkSpec {
    /// `azure-cni` (default) or `kubenet`.
    #[serde(default)]
    pub mode: Option<Spanned<NetworkMode>>,
    /// `--cluster-cidr`: one CIDR, or an IPv4 and an IPv6 CIDR separated by a comma (kubenet only).
    #[serde(default, rename = "clusterCIDR")]
    pub cluster_cidr: Option<Spanned<String>>,
    /// `--node-cidr-mask-size-ipv4` (kubenet only; default 24).
    #[serde(default, rename = "nodeCIDRMaskSizeIPv4")]
    pub node_cidr_mask_size_ipv4: Option<Spanned<u8>>,
    /// `--node-cidr-mask-size-ipv6` (kubenet only; default 64).
    #[serde(default, rename = "nodeCIDRMaskSizeIPv6")]
    pub node_cidr_mask_size_ipv6: Option<Spanned<u8>>,
    /// Who allocates node CIDRs after the switch (kubenet only).
    #[serde(default)]
    pub cidr_allocator: Option<Spanned<CidrAllocator>>,
}

/// `workload:` block.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// LoadBalancer Services and when they are created, updated and deleted.
    #[serde(default)]
    pub services: Vec<Spanned<ServiceSpec>>,
    /// Node churn steps.
    #[serde(default)]
    pub node_churn: Vec<Spanned<ChurnSpec>>,
}

/// `externalTrafficPolicy`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum TrafficPolicy {
    /// Any node forwards (probe on the node port).
    #[default]
    Cluster,
    /// Only nodes with a local endpoint (health-check node port).
    Local,
}

/// Service port protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[allow(clippy::upper_case_acronyms)]
pub enum Protocol {
    /// TCP.
    #[default]
    TCP,
    /// UDP.
    UDP,
}

/// One Service port.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PortSpec {
    /// Port name (required when a Service has several ports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Service port.
    pub port: u16,
    /// `TCP` (default) or `UDP`.
    #[serde(default)]
    pub protocol: Protocol,
    /// Container port (defaults to `port`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_port: Option<u16>,
    /// `appProtocol` (e.g. `http`: the probe protocol differs between releases, pitfall P10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_protocol: Option<String>,
}

/// One LoadBalancer Service of the workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ServiceSpec {
    /// Service name.
    pub name: String,
    /// Namespace (default `default`).
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// Annotations (`service.beta.kubernetes.io/azure-...`).
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// Ports (at least one).
    pub ports: Vec<PortSpec>,
    /// `Cluster` (default) or `Local`.
    #[serde(default)]
    pub external_traffic_policy: TrafficPolicy,
    /// `spec.loadBalancerIP` (static address).
    #[serde(default, rename = "loadBalancerIP")]
    pub load_balancer_ip: Option<String>,
    /// `spec.loadBalancerClass` (a Service with a class is not the cloud provider's).
    #[serde(default)]
    pub load_balancer_class: Option<String>,
    /// `spec.loadBalancerSourceRanges`.
    #[serde(default)]
    pub load_balancer_source_ranges: Vec<String>,
    /// Phase the Service is created in (default `before`).
    #[serde(default)]
    pub create: Phase,
    /// Changes applied later.
    #[serde(default)]
    pub updates: Vec<ServiceUpdate>,
    /// Phase the Service is deleted in (kept when absent).
    #[serde(default)]
    pub delete: Option<Phase>,
}

fn default_namespace() -> String {
    "default".into()
}

/// A change to a Service in a later phase.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ServiceUpdate {
    /// Phase of the change.
    pub phase: Phase,
    /// Annotations to set (merged into the existing ones).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Annotations to remove.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_annotations: Vec<String>,
    /// New ports (replace the old list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<PortSpec>>,
    /// New `externalTrafficPolicy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_traffic_policy: Option<TrafficPolicy>,
}

/// One node churn step: `phase` plus exactly one action.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChurnSpec {
    /// When the step runs.
    pub phase: Phase,
    /// Scale a (uniform or flexible) scale set to `instances`.
    #[serde(default)]
    pub scale_set: Option<ScaleSetChurn>,
    /// Add a standalone VM (its kubelet registers a Node).
    #[serde(default)]
    pub add_vm: Option<AddVmChurn>,
    /// Delete a node's VM (and NICs) in ARM; the Node stays until cloud-node-lifecycle removes it.
    #[serde(default)]
    pub delete_vm: Option<NodeRef>,
    /// Change a node VM's power state.
    #[serde(default)]
    pub power_state: Option<PowerChurn>,
    /// Stop a node's kubelet (Node goes NotReady; the VM keeps running).
    #[serde(default)]
    pub stop_kubelet: Option<NodeRef>,
    /// Start a stopped kubelet again.
    #[serde(default)]
    pub start_kubelet: Option<NodeRef>,
}

/// `scaleSet:` churn.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScaleSetChurn {
    /// Scale set name in the topology.
    pub name: String,
    /// New instance count.
    pub instances: u32,
}

/// `addVm:` churn (fields of the fake's `POST /admin/compute/vms`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddVmChurn {
    /// VM (and node) name.
    pub name: String,
    /// VM size (fake default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// Availability zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<u32>,
    /// Availability set to join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_set: Option<String>,
    /// Subnet (the topology's first when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnet: Option<String>,
}

/// A node by name.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodeRef {
    /// Node (computer) name.
    pub node: String,
}

/// VM power states the fake can set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PowerState {
    /// Running.
    Running,
    /// Stopped (still allocated).
    Stopped,
    /// Deallocated.
    Deallocated,
}

/// `powerState:` churn.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PowerChurn {
    /// Node name.
    pub node: String,
    /// New state.
    pub state: PowerState,
}

/// Switch procedures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Procedure {
    /// Stop the in-tree cloud loops, start the CCM and the CNMs, flip kubelets one by one.
    Cold,
    /// HA: every KCM replica switched to external first, then the CCM scaled from 0.
    Quiesce,
    /// KCM and CCM replicas share a LeaderMigrationConfiguration; rolling replacement.
    LeaderMigration,
    /// A cold switch, then back to in-tree (Kubernetes 1.29 and older).
    Rollback,
}

/// Which process initialises nodes after the switch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeInit {
    /// One cloud-node-manager per node (IMDS).
    #[default]
    CloudNodeManager,
    /// The CCM's cloud-node controller (ARM).
    CloudControllerManager,
}

/// `switch:` block.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SwitchSpec {
    /// `cold`, `quiesce`, `leader-migration` or `rollback`.
    pub procedure: Spanned<Procedure>,
    /// KCM replicas (`quiesce`, `leader-migration`; default 1 for cold/rollback, 3 for quiesce, 2 for leader-migration).
    #[serde(default)]
    pub kcm_replicas: Option<Spanned<u32>>,
    /// CCM replicas (`leader-migration`; default 1 elsewhere).
    #[serde(default)]
    pub ccm_replicas: Option<Spanned<u32>>,
    /// Leader Migration options (`leader-migration` only).
    #[serde(default)]
    pub leader_migration: Option<Spanned<LeaderMigrationSpec>>,
    /// `quiesce` only: start the CCM before every KCM is switched (pitfall P2; negative scenarios).
    #[serde(default)]
    pub skip_quiesce: Option<Spanned<bool>>,
    /// Who initialises nodes after the switch.
    #[serde(default)]
    pub node_init: NodeInit,
    /// `--cluster-name` given to the CCM when it must differ from `clusterName` (pitfall P1; negatives).
    #[serde(default)]
    pub ccm_cluster_name: Option<Spanned<String>>,
    /// Flags added to or overriding the generated cloud-controller-manager flags (`--flag: value`).
    #[serde(default)]
    pub ccm_flags: Option<Spanned<BTreeMap<String, String>>>,
    /// Flags for every cloud-node-manager.
    #[serde(default)]
    pub cnm_flags: Option<Spanned<BTreeMap<String, String>>>,
    /// Flags for the in-tree kube-controller-manager host.
    #[serde(default)]
    pub kcm_flags: Option<Spanned<BTreeMap<String, String>>>,
    /// Flags every kubelet gets when it flips to `--cloud-provider=external` (e.g. `--node-ip`).
    #[serde(default)]
    pub kubelet_flags: Option<Spanned<BTreeMap<String, String>>>,
    /// azure.json keys overriding the generated cloud config of the CCM (e.g. a wrong `vmType`).
    #[serde(default)]
    pub azure_json: BTreeMap<String, serde_json::Value>,
}

/// `switch.leaderMigration:` block.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LeaderMigrationSpec {
    /// Pass `--enable-leader-migration` (default true; false = config file silently ignored).
    #[serde(default = "yes")]
    pub enable_flag: bool,
    /// Use the `*` wildcard component (default false: component names per process).
    #[serde(default)]
    pub wildcard: bool,
    /// A LeaderMigrationConfiguration document given verbatim instead of the generated one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// The CCM honours the migration lease (false = a stand-in that ignores it, like the anchor).
    #[serde(default = "yes")]
    pub ccm_honours_lease: bool,
}

fn yes() -> bool {
    true
}

/// `faults:` block.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FaultsSpec {
    /// Seed of the fake's probability draws.
    #[serde(default)]
    pub seed: u64,
    /// Phase the rules are installed at the start of (and cleared at the end of); default `during`.
    #[serde(default = "during")]
    pub phase: Phase,
    /// Fault rules in the fake's format (`azure-fakes --faults`, `POST /admin/faults`).
    #[serde(default)]
    pub rules: Vec<Spanned<FaultRule>>,
    /// Process disruptions.
    #[serde(default)]
    pub processes: Vec<ProcessFault>,
}

fn during() -> Phase {
    Phase::During
}

/// A process disruption.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProcessFault {
    /// Phase it happens in.
    pub phase: Phase,
    /// What happens.
    pub action: ProcessAction,
    /// Delay before it, after the phase's Service actions and earlier process faults (default 0s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Duration>,
}

/// Process disruptions the harness can cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProcessAction {
    /// SIGKILL the CCM leader; the supervisor restarts it.
    KillCloudControllerManager,
    /// SIGKILL one cloud-node-manager; the supervisor restarts it.
    KillCloudNodeManager,
    /// SIGKILL the kube-controller-manager leader (a crash, or an upgrade's Pod replacement);
    /// the supervisor restarts it with a new identity, which waits for the old Lease to expire.
    KillKubeControllerManager,
    /// Stop the embedded API server and start it again on the same port and state.
    RestartKubeApiserver,
}

/// `budgets:` block: thresholds of the checks that take one.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Budgets {
    /// `downtime`: longest time a Service frontend had no rule or no Ready backend.
    #[serde(default)]
    pub downtime: Option<Spanned<Duration>>,
    /// `time-to-ingress`: p99 time from Service creation to ingress IP.
    #[serde(default)]
    pub time_to_ingress: Option<Spanned<Duration>>,
    /// `taint-removal-delay`: p99 time a node keeps the uninitialized taint.
    #[serde(default)]
    pub taint_removal_delay: Option<Spanned<Duration>>,
    /// `arm-call-budget`: ARM calls per node during the switch.
    #[serde(default)]
    pub arm_calls_per_node: Option<Spanned<u32>>,
    /// `arm-call-budget`: ARM calls per Service during the switch.
    #[serde(default)]
    pub arm_calls_per_service: Option<Spanned<u32>>,
}

/// What the scenario must end with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub enum Expect {
    /// Every check passes.
    #[default]
    Pass,
    /// This check fails (and the scenario is a negative test of that pitfall).
    Fail(CheckName),
}
