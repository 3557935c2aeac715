//! Small builders for the checks' unit tests: a two-node cluster with one LoadBalancer Service
//! behind a public IP, copied as baseline, switched and final; each test breaks one thing.

use std::collections::BTreeMap;

use super::{CheckInputs, Intent};
use crate::outcome::CheckResult;
use crate::record::{Mark, MarkKind, ObjectRef};
use crate::roster::ManagedProcess;
use crate::scenario::{CheckName, ScenarioPlan};
use crate::snapshot::*;

pub const SUB: &str = "/subscriptions/s/resourcegroups/rg/providers";

/// A Ready, initialised node with GA labels, an InternalIP and a Hostname address.
pub fn node(name: &str, ip: &str) -> NodeState {
    NodeState {
        name: name.into(),
        uid: format!("uid-{name}"),
        provider_id: Some(format!(
            "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/{name}"
        )),
        labels: BTreeMap::from([
            (ccm_names::labels::TOPOLOGY_REGION.into(), "eastus".into()),
            (ccm_names::labels::TOPOLOGY_ZONE.into(), "eastus-1".into()),
            (
                ccm_names::labels::INSTANCE_TYPE.into(),
                "Standard_D2s_v3".into(),
            ),
            ("kubernetes.io/hostname".into(), name.into()),
        ]),
        annotations: BTreeMap::new(),
        taints: vec![],
        pod_cidrs: vec![],
        addresses: vec![
            AddressState {
                type_: "InternalIP".into(),
                address: ip.into(),
            },
            AddressState {
                type_: "Hostname".into(),
                address: name.into(),
            },
        ],
        conditions: vec![ConditionState {
            type_: "Ready".into(),
            status: "True".into(),
            reason: None,
        }],
        created: None,
    }
}

/// A LoadBalancer Service with the cleanup finalizer and one ingress IP.
pub fn service(name: &str, uid: &str, ip: &str) -> ServiceState {
    ServiceState {
        namespace: "default".into(),
        name: name.into(),
        uid: uid.into(),
        annotations: BTreeMap::new(),
        finalizers: vec![ccm_names::finalizers::LOAD_BALANCER_CLEANUP.into()],
        load_balancer_ip: None,
        load_balancer_class: None,
        ports: vec![ServicePortState {
            name: None,
            protocol: "TCP".into(),
            port: 80,
            node_port: Some(30080),
            app_protocol: None,
        }],
        ingress: vec![ip.into()],
        deletion_timestamp: None,
    }
}

/// The ARM a cluster `k8s` has for `services` on `nodes`: one LB with a frontend, rule, probe per
/// Service, one pool holding every node, a PIP per Service named `k8s-<base>` and the NSG rules.
pub fn arm_for(nodes: &[NodeState], services: &[ServiceState]) -> ArmResources {
    let lb = format!("{SUB}/microsoft.network/loadbalancers/k8s");
    let pool = format!("{lb}/backendaddresspools/k8s");
    let mut arm = ArmResources::default();
    let mut balancer = LoadBalancer {
        id: lb.clone(),
        name: "k8s".into(),
        sku: Some("Standard".into()),
        tags: BTreeMap::new(),
        frontends: vec![],
        pools: vec![BackendPool {
            id: pool.clone(),
            name: "k8s".into(),
            members: nodes
                .iter()
                .map(|n| format!("{SUB}/microsoft.network/networkinterfaces/{}-nic/ipconfigurations/ipconfig1", n.name))
                .collect(),
        }],
        rules: vec![],
        probes: vec![],
    };
    for n in nodes {
        arm.ip_configurations.push(IpConfiguration {
            id: format!(
                "{SUB}/microsoft.network/networkinterfaces/{}-nic/ipconfigurations/ipconfig1",
                n.name
            ),
            private_ip: n.internal_ips().next().map(str::to_owned),
        });
    }
    let mut nsg = SecurityGroup {
        id: format!("{SUB}/microsoft.network/networksecuritygroups/k8s-nsg"),
        name: "k8s-nsg".into(),
        rules: vec![],
    };
    for s in services {
        let base = s.base_name();
        let pip = format!("{SUB}/microsoft.network/publicipaddresses/k8s-{base}");
        let frontend = format!("{lb}/frontendipconfigurations/{base}");
        let rule = format!("{base}-TCP-80");
        balancer.frontends.push(Frontend {
            id: frontend.clone(),
            name: base.clone(),
            public_ip_id: Some(pip.clone()),
            private_ip: None,
            subnet_id: None,
        });
        balancer.rules.push(LbRule {
            id: format!("{lb}/loadbalancingrules/{rule}"),
            name: rule.clone(),
            protocol: "Tcp".into(),
            frontend_port: 80,
            backend_port: 80,
            frontend_id: Some(frontend.clone()),
            pool_id: Some(pool.clone()),
            probe_id: Some(format!("{lb}/probes/{rule}")),
        });
        balancer.probes.push(Probe {
            id: format!("{lb}/probes/{rule}"),
            name: rule.clone(),
            protocol: "Tcp".into(),
            port: 30080,
            path: None,
        });
        arm.public_ips.push(PublicIp {
            id: pip.clone(),
            name: format!("k8s-{base}"),
            address: s.ingress.first().cloned(),
            tags: BTreeMap::from([
                (ccm_names::resource_tags::SERVICE.into(), s.key()),
                (ccm_names::resource_tags::CLUSTER_NAME.into(), "k8s".into()),
            ]),
            sku: Some("Standard".into()),
            dns_label: None,
            ip_configuration: Some(frontend),
        });
        nsg.rules.push(SecurityRule {
            id: format!("{}/securityrules/k8s-azure-lb_allow_ipv4_{base}", nsg.id),
            name: format!("k8s-azure-lb_allow_IPv4_{base}"),
            priority: 500,
            access: "Allow".into(),
            direction: "Inbound".into(),
            protocol: "Tcp".into(),
            destination_ports: vec!["80".into()],
            sources: vec!["Internet".into()],
            destinations: s.ingress.clone(),
        });
    }
    arm.load_balancers.push(balancer);
    arm.security_groups.push(nsg);
    arm.sort();
    arm
}

/// A snapshot of `nodes` and `services` with the matching ARM.
pub fn snapshot(label: &str, nodes: Vec<NodeState>, services: Vec<ServiceState>) -> Snapshot {
    let arm = arm_for(&nodes, &services);
    let mut s = Snapshot {
        label: label.into(),
        taken_ms: 0,
        nodes,
        services,
        events: vec![],
        leases: vec![],
        arm,
        journal: vec![],
    };
    s.sort();
    s
}

/// `default/<name>`.
pub fn obj(name: &str) -> ObjectRef {
    ObjectRef {
        namespace: "default".into(),
        name: name.into(),
    }
}

/// A mark.
pub fn mark(at_ms: i64, kind: MarkKind) -> Mark {
    Mark { at_ms, kind }
}

/// The plan of a minimal scenario plus `extra` YAML (appended at top level).
pub fn plan(extra: &str) -> ScenarioPlan {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf();
    let text = format!(
        "name: t\ntopology: {{file: fakes/examples/small.yaml}}\nkubernetesVersion: \"1.29\"\n\
         clusterName: k8s\nswitch:\n  procedure: cold\n{extra}"
    );
    let scenario =
        crate::scenario::load_str(&text, "t.yaml", Some(&root)).unwrap_or_else(|e| panic!("{e}"));
    crate::scenario::plan(&scenario)
}

/// One run's inputs, owned.
pub struct Run {
    pub plan: ScenarioPlan,
    pub baseline: Option<Snapshot>,
    pub switched: Option<Snapshot>,
    pub final_: Option<Snapshot>,
    pub rollback: Option<Snapshot>,
    pub samples: Vec<Sample>,
    pub marks: Vec<Mark>,
    pub roster: Vec<ManagedProcess>,
}

impl Run {
    /// Two nodes and Service `web` (20.1.2.3), unchanged through the run.
    pub fn healthy() -> Run {
        let s = snapshot(
            "baseline",
            vec![node("node-0", "10.0.0.4"), node("node-1", "10.0.0.5")],
            vec![service(
                "web",
                "1a2b3c4d-0000-0000-0000-000000000001",
                "20.1.2.3",
            )],
        );
        Run::same(s)
    }

    /// `s` as baseline, switched and final.
    pub fn same(s: Snapshot) -> Run {
        let mut switched = s.clone();
        switched.label = "switched".into();
        let mut final_ = s.clone();
        final_.label = "final".into();
        Run {
            plan: plan(""),
            baseline: Some(s),
            switched: Some(switched),
            final_: Some(final_),
            rollback: None,
            samples: vec![],
            marks: vec![],
            roster: vec![],
        }
    }

    /// Applies `f` to switched and final.
    pub fn after(mut self, f: impl Fn(&mut Snapshot)) -> Run {
        for s in [self.switched.as_mut(), self.final_.as_mut()]
            .into_iter()
            .flatten()
        {
            f(s);
            s.sort();
        }
        self
    }

    /// The borrowed inputs.
    pub fn inputs(&self) -> CheckInputs<'_> {
        CheckInputs {
            plan: &self.plan,
            baseline: self.baseline.as_ref(),
            switched: self.switched.as_ref(),
            final_: self.final_.as_ref(),
            rollback: self.rollback.as_ref(),
            samples: &self.samples,
            marks: &self.marks,
            roster: &self.roster,
        }
    }

    /// Runs `check` with the plan's budget for it (or none).
    pub fn check(&self, check: CheckName) -> CheckResult {
        let budget = self
            .plan
            .checks
            .iter()
            .find(|c| c.check == check)
            .and_then(|c| c.budget.as_ref());
        let inputs = self.inputs();
        super::run(check, &inputs, &Intent::from_marks(&self.marks), budget)
    }
}

/// `reason` then each detail line, for insta.
pub fn shown(r: &CheckResult) -> String {
    let mut out = format!("{:?}: {}", r.verdict, r.reason);
    for d in &r.details {
        out.push_str("\n  - ");
        out.push_str(d);
    }
    if let Some(m) = &r.measured {
        out.push_str(&format!("\n  measured: {m}"));
    }
    if let Some(b) = &r.budget {
        out.push_str(&format!("\n  budget: {b}"));
    }
    out
}
