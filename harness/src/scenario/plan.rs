//! Scenario → [`ScenarioPlan`]: the plain, ordered description the runner executes (topology to start
//! the fake with, network and switch settings, each phase's actions in order, checks with their
//! budgets). Pure: no I/O, so it is snapshot-tested.
//!
//! Order inside a phase: fault rules installed, Services created, updated, deleted (file order), node
//! churn (file order), process disruptions (file order). Fault rules are cleared when their phase ends.

use super::check::CheckName;
use super::duration::Duration;
use super::model::Scenario;
use super::spec::*;
use azure_fakes::faults::FaultRule;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Default `downtime` budget (project choice, documented in scenarios/README.md).
pub const DEFAULT_DOWNTIME: Duration = Duration::from_millis(10_000);
/// Default `time-to-ingress` p99 budget (the KEP-2395 initialisation SLO, p99 < 60 s).
pub const DEFAULT_TIME_TO_INGRESS: Duration = Duration::from_millis(60_000);
/// Default `taint-removal-delay` p99 budget (KEP-2395: p99 < 60 s).
pub const DEFAULT_TAINT_REMOVAL_DELAY: Duration = Duration::from_millis(60_000);
/// Default ARM calls per node during the switch (project choice).
pub const DEFAULT_ARM_CALLS_PER_NODE: u32 = 10;
/// Default ARM calls per Service during the switch (project choice).
pub const DEFAULT_ARM_CALLS_PER_SERVICE: u32 = 20;

/// Everything the runner needs, with defaults filled in.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioPlan {
    /// Scenario name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Kubernetes minor, `1.N`.
    pub kubernetes_version: String,
    /// Cluster name of the in-tree KCM.
    pub cluster_name: String,
    /// Topology the fake starts with.
    pub topology: TopologySource,
    /// Network settings.
    pub network: NetworkPlan,
    /// Switch settings.
    pub switch: SwitchPlan,
    /// Seed of the fake's fault draws.
    pub fault_seed: u64,
    /// Phases in order, each with its actions in order.
    pub phases: Vec<PhasePlan>,
    /// Checks that run, with their budgets.
    pub checks: Vec<CheckPlan>,
    /// `pass` or the check that must fail.
    pub expect: Expect,
    /// Set when `expect` is the tested build's, not the scenario's own: why, and where in the
    /// build's source (see `crate::expectations`).
    pub expected_for_build: Option<String>,
    /// Checks the tested build may fail without missing its expectation (its timing decides).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub may_fail: Vec<CheckName>,
}

impl ScenarioPlan {
    /// The Kubernetes minor (`29` for 1.29); the plan only holds validated `1.N` versions.
    pub fn minor(&self) -> u32 {
        self.kubernetes_version
            .strip_prefix("1.")
            .and_then(|m| m.parse().ok())
            .unwrap_or(super::validate::LAST_IN_TREE_MINOR)
    }
}

/// The topology as the fake takes it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TopologySource {
    /// A file: `path` is resolved against the repository root (equals `relative` when none is known).
    File {
        /// As written in the scenario.
        relative: String,
        /// Resolved path for `azure-fakes serve --topology`.
        path: PathBuf,
    },
    /// Inline topology, rendered as text to write to a file for the fake.
    Inline {
        /// The document in JSON form (which YAML parsers read as is).
        yaml: String,
    },
}

/// Network settings with defaults.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkPlan {
    /// Mode.
    pub mode: NetworkMode,
    /// `--cluster-cidr` (kubenet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_cidr: Option<String>,
    /// `--node-cidr-mask-size-ipv4` (kubenet with an IPv4 cluster CIDR).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_cidr_mask_size_ipv4: Option<u8>,
    /// `--node-cidr-mask-size-ipv6` (kubenet with an IPv6 cluster CIDR).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_cidr_mask_size_ipv6: Option<u8>,
    /// Who allocates node CIDRs after the switch (kubenet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cidr_allocator: Option<CidrAllocator>,
    /// The CCM configures routes (`--configure-cloud-routes`).
    pub configure_routes: bool,
}

/// Switch settings with defaults.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SwitchPlan {
    /// Procedure.
    pub procedure: Procedure,
    /// KCM replicas.
    pub kcm_replicas: u32,
    /// CCM replicas.
    pub ccm_replicas: u32,
    /// Leader Migration options (leader-migration only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_migration: Option<LeaderMigrationSpec>,
    /// Quiesce every KCM before the CCM starts (quiesce only; false = the P2 negative).
    pub quiesce: bool,
    /// Node initialisation after the switch.
    pub node_init: NodeInit,
    /// `--cluster-name` of the CCM.
    pub ccm_cluster_name: String,
    /// CCM flag overrides.
    pub ccm_flags: BTreeMap<String, String>,
    /// CNM flag overrides.
    pub cnm_flags: BTreeMap<String, String>,
    /// KCM flag overrides.
    pub kcm_flags: BTreeMap<String, String>,
    /// Kubelet flags at the flip to external.
    pub kubelet_flags: BTreeMap<String, String>,
    /// azure.json overrides.
    pub azure_json: BTreeMap<String, serde_json::Value>,
    /// Go back to in-tree after the `after` phase.
    pub rollback: bool,
}

/// One phase and its actions.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhasePlan {
    /// Phase.
    pub phase: Phase,
    /// Actions in order (during `during`, they run while the switch does).
    pub actions: Vec<Action>,
}

/// One step the runner performs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// Install fault rules in the fake (cleared at the end of the phase).
    InstallFaults {
        /// Rules, as the fake's admin API takes them.
        rules: Vec<FaultRule>,
    },
    /// Create a LoadBalancer Service.
    CreateService(ServicePlan),
    /// Change a Service.
    UpdateService {
        /// Namespace.
        namespace: String,
        /// Name.
        name: String,
        /// The change.
        change: ServiceUpdate,
    },
    /// Delete a Service.
    DeleteService {
        /// Namespace.
        namespace: String,
        /// Name.
        name: String,
    },
    /// Scale a scale set.
    ScaleSet(ScaleSetChurn),
    /// Add a VM.
    AddVm(AddVmChurn),
    /// Delete a node's VM.
    DeleteVm(NodeRef),
    /// Change a VM's power state.
    PowerState(PowerChurn),
    /// Stop a kubelet.
    StopKubelet(NodeRef),
    /// Start a kubelet.
    StartKubelet(NodeRef),
    /// Disrupt a process.
    Process(ProcessFault),
    /// Remove the rules installed at the start of the phase.
    ClearFaults,
}

/// A Service to create.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePlan {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Annotations.
    pub annotations: BTreeMap<String, String>,
    /// Ports.
    pub ports: Vec<PortSpec>,
    /// `externalTrafficPolicy`.
    pub external_traffic_policy: TrafficPolicy,
    /// `spec.loadBalancerIP`.
    #[serde(rename = "loadBalancerIP", skip_serializing_if = "Option::is_none")]
    pub load_balancer_ip: Option<String>,
    /// `spec.loadBalancerClass`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancer_class: Option<String>,
    /// `spec.loadBalancerSourceRanges`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub load_balancer_source_ranges: Vec<String>,
}

/// A check and its budget.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckPlan {
    /// Check.
    pub check: CheckName,
    /// Threshold (only for checks that take one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
}

/// A check's threshold.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Budget {
    /// A duration (downtime, p99 delays).
    Duration(Duration),
    /// ARM calls per node and per Service.
    ArmCalls {
        /// Per node.
        per_node: u32,
        /// Per Service.
        per_service: u32,
    },
}

/// Turns a validated scenario into its plan.
pub fn plan(s: &Scenario) -> ScenarioPlan {
    let spec = &s.spec;
    ScenarioPlan {
        name: spec.name.value.clone(),
        description: spec.description.trim().to_string(),
        kubernetes_version: format!("1.{}", s.version.minor()),
        cluster_name: spec.cluster_name.value.clone(),
        topology: topology(s),
        network: network(&spec.network),
        switch: switch(&spec.switch, &spec.cluster_name.value),
        fault_seed: spec.faults.as_ref().map_or(0, |f| f.value.seed),
        phases: [Phase::Before, Phase::During, Phase::After]
            .into_iter()
            .map(|phase| PhasePlan {
                phase,
                actions: actions(spec, phase),
            })
            .collect(),
        checks: s
            .checks
            .iter()
            .map(|&check| CheckPlan {
                check,
                budget: budget(check, &spec.budgets),
            })
            .collect(),
        expect: s.expect,
        expected_for_build: None,
        may_fail: Vec::new(),
    }
}

fn topology(s: &Scenario) -> TopologySource {
    match &s.spec.topology.value {
        TopologyRef::File(rel) => TopologySource::File {
            relative: rel.clone(),
            path: s
                .repo_root
                .as_ref()
                .map_or_else(|| PathBuf::from(rel), |root| root.join(rel)),
        },
        // JSON is YAML: the fake's topology parser reads it as is.
        TopologyRef::Inline(value) => TopologySource::Inline {
            yaml: value.to_string(),
        },
    }
}

fn network(n: &NetworkSpec) -> NetworkPlan {
    let mode = n.mode.as_ref().map(|m| m.value).unwrap_or_default();
    if mode == NetworkMode::AzureCni {
        return NetworkPlan {
            mode,
            cluster_cidr: None,
            node_cidr_mask_size_ipv4: None,
            node_cidr_mask_size_ipv6: None,
            cidr_allocator: None,
            configure_routes: false,
        };
    }
    let cidr = n.cluster_cidr.as_ref().map(|c| c.value.clone());
    let has = |v6: bool| {
        cidr.as_deref()
            .is_some_and(|c| c.split(',').any(|p| p.contains(':') == v6))
    };
    NetworkPlan {
        mode,
        node_cidr_mask_size_ipv4: has(false)
            .then(|| n.node_cidr_mask_size_ipv4.as_ref().map_or(24, |m| m.value)),
        node_cidr_mask_size_ipv6: has(true)
            .then(|| n.node_cidr_mask_size_ipv6.as_ref().map_or(64, |m| m.value)),
        cluster_cidr: cidr,
        cidr_allocator: Some(
            n.cidr_allocator
                .as_ref()
                .map(|a| a.value)
                .unwrap_or_default(),
        ),
        configure_routes: true,
    }
}

fn switch(s: &SwitchSpec, cluster_name: &str) -> SwitchPlan {
    let procedure = s.procedure.value;
    let kcm_default = match procedure {
        Procedure::Quiesce => 3,
        Procedure::LeaderMigration => 2,
        Procedure::Cold | Procedure::Rollback => 1,
    };
    let ccm_default = if procedure == Procedure::LeaderMigration {
        2
    } else {
        1
    };
    let flags = |f: &Option<serde_saphyr::Spanned<BTreeMap<String, String>>>| {
        f.as_ref().map(|f| f.value.clone()).unwrap_or_default()
    };
    SwitchPlan {
        procedure,
        kcm_replicas: s.kcm_replicas.as_ref().map_or(kcm_default, |r| r.value),
        ccm_replicas: s.ccm_replicas.as_ref().map_or(ccm_default, |r| r.value),
        leader_migration: (procedure == Procedure::LeaderMigration).then(|| {
            s.leader_migration.as_ref().map_or(
                LeaderMigrationSpec {
                    enable_flag: true,
                    wildcard: false,
                    config: None,
                    ccm_honours_lease: true,
                },
                |l| l.value.clone(),
            )
        }),
        quiesce: procedure == Procedure::Quiesce
            && !s.skip_quiesce.as_ref().is_some_and(|q| q.value),
        node_init: s.node_init,
        ccm_cluster_name: s
            .ccm_cluster_name
            .as_ref()
            .map_or_else(|| cluster_name.to_string(), |n| n.value.clone()),
        ccm_flags: flags(&s.ccm_flags),
        cnm_flags: flags(&s.cnm_flags),
        kcm_flags: flags(&s.kcm_flags),
        kubelet_flags: flags(&s.kubelet_flags),
        azure_json: s.azure_json.clone(),
        rollback: procedure == Procedure::Rollback,
    }
}

fn actions(spec: &ScenarioSpec, phase: Phase) -> Vec<Action> {
    let mut out = Vec::new();
    let faults = spec.faults.as_ref().map(|f| &f.value);
    let fault_rules = faults.filter(|f| f.phase == phase && !f.rules.is_empty());
    if let Some(f) = fault_rules {
        out.push(Action::InstallFaults {
            rules: f.rules.iter().map(|r| r.value.clone()).collect(),
        });
    }
    let services = &spec.workload.services;
    for s in services
        .iter()
        .map(|s| &s.value)
        .filter(|s| s.create == phase)
    {
        out.push(Action::CreateService(ServicePlan {
            namespace: s.namespace.clone(),
            name: s.name.clone(),
            annotations: s.annotations.clone(),
            ports: s.ports.clone(),
            external_traffic_policy: s.external_traffic_policy,
            load_balancer_ip: s.load_balancer_ip.clone(),
            load_balancer_class: s.load_balancer_class.clone(),
            load_balancer_source_ranges: s.load_balancer_source_ranges.clone(),
        }));
    }
    for s in services.iter().map(|s| &s.value) {
        for u in s.updates.iter().filter(|u| u.phase == phase) {
            out.push(Action::UpdateService {
                namespace: s.namespace.clone(),
                name: s.name.clone(),
                change: u.clone(),
            });
        }
    }
    for s in services
        .iter()
        .map(|s| &s.value)
        .filter(|s| s.delete == Some(phase))
    {
        out.push(Action::DeleteService {
            namespace: s.namespace.clone(),
            name: s.name.clone(),
        });
    }
    // Process faults before the node churn, so a manager can restart as nodes join (churn and
    // then a fault is churn one phase earlier).
    if let Some(f) = faults {
        out.extend(
            f.processes
                .iter()
                .filter(|p| p.phase == phase)
                .map(|p| Action::Process(p.clone())),
        );
    }
    for c in spec
        .workload
        .node_churn
        .iter()
        .map(|c| &c.value)
        .filter(|c| c.phase == phase)
    {
        out.extend(churn(c));
    }
    if fault_rules.is_some() {
        out.push(Action::ClearFaults);
    }
    out
}

fn churn(c: &ChurnSpec) -> Option<Action> {
    c.scale_set
        .clone()
        .map(Action::ScaleSet)
        .or_else(|| c.add_vm.clone().map(Action::AddVm))
        .or_else(|| c.delete_vm.clone().map(Action::DeleteVm))
        .or_else(|| c.power_state.clone().map(Action::PowerState))
        .or_else(|| c.stop_kubelet.clone().map(Action::StopKubelet))
        .or_else(|| c.start_kubelet.clone().map(Action::StartKubelet))
}

fn budget(check: CheckName, b: &Budgets) -> Option<Budget> {
    let d = |v: &Option<serde_saphyr::Spanned<Duration>>, default| {
        Some(Budget::Duration(v.as_ref().map_or(default, |x| x.value)))
    };
    match check {
        CheckName::Downtime => d(&b.downtime, DEFAULT_DOWNTIME),
        CheckName::TimeToIngress => d(&b.time_to_ingress, DEFAULT_TIME_TO_INGRESS),
        CheckName::TaintRemovalDelay => d(&b.taint_removal_delay, DEFAULT_TAINT_REMOVAL_DELAY),
        CheckName::ArmCallBudget => Some(Budget::ArmCalls {
            per_node: b
                .arm_calls_per_node
                .as_ref()
                .map_or(DEFAULT_ARM_CALLS_PER_NODE, |v| v.value),
            per_service: b
                .arm_calls_per_service
                .as_ref()
                .map_or(DEFAULT_ARM_CALLS_PER_SERVICE, |v| v.value),
        }),
        _ => None,
    }
}
