//! Backend pool membership against the real `azure-fakes` (which validates NIC, scale-set and
//! load-balancer references like NRP/CRP): the writes `PoolMembership` sends, read back from the
//! fake's journal and documents.

use ccm_azure::arm::api_versions::{CloudFlavor, ResourceType};
use ccm_azure::arm::{ArmClient, ClientKind, Target};
use ccm_azure::config::Config;
use ccm_azure::loadbalancer::pools::{PoolError, PoolMembership, PoolWrites};
use ccm_azure::provider::AzureProvider;
use k8s_openapi::api::core::v1::Node;
use serde_json::{Value, json};

use crate::cluster::{Cluster, node, refs};

fn api(t: ResourceType) -> &'static str {
    t.api_version(CloudFlavor::Public)
}

/// A fake, the config, an ARM client and the membership over the provider's cached reads.
struct Setup {
    cluster: Cluster,
    config: Config,
    arm: ArmClient,
    membership: PoolMembership,
}

impl Setup {
    async fn start(topology: &str, extra: &str) -> Setup {
        let cluster = Cluster::start(topology);
        let config = cluster.config(extra);
        let arm = cluster.fast_arm(&config).await;
        let provider = AzureProvider::with_arm(&config, arm.clone());
        let membership = PoolMembership::new(provider.instances().clone(), &config);
        Setup {
            cluster,
            config,
            arm,
            membership,
        }
    }

    /// Membership with other config keys over the same fake (fresh caches).
    fn membership_with(&self, extra: &str) -> PoolMembership {
        let config = self.cluster.config(extra);
        let provider = AzureProvider::with_arm(&config, self.arm.clone());
        PoolMembership::new(provider.instances().clone(), &config)
    }

    fn rg_path(&self) -> String {
        format!(
            "/subscriptions/{}/resourceGroups/{}/providers",
            self.cluster.fake.subscription, self.config.cluster.resource_group
        )
    }

    async fn get(&self, client: ClientKind, path: &str, t: ResourceType) -> Value {
        self.arm
            .get(Target::new(client, path, api(t)))
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"))
    }

    async fn list(&self, client: ClientKind, path: &str, t: ResourceType) -> Vec<Value> {
        self.arm
            .list(Target::new(client, path, api(t)))
            .await
            .unwrap_or_else(|e| panic!("list {path}: {e}"))
    }

    /// Creates the internal LB `kubernetes-internal` with a frontend in `vnet/subnet` and the pool
    /// `kubernetes` (a plain LB PUT: NICs may only reference an existing pool); its pool id.
    async fn internal_pool(&self, vnet: &str, subnet: &str) -> String {
        let lb_path = format!(
            "{}/Microsoft.Network/loadBalancers/kubernetes-internal",
            self.rg_path()
        );
        let subnet_id = format!(
            "{}/Microsoft.Network/virtualNetworks/{vnet}/subnets/{subnet}",
            self.rg_path()
        );
        let body = json!({
            "location": self.config.cluster.location,
            "sku": { "name": "Standard" },
            "properties": {
                "frontendIPConfigurations": [{ "name": "ilb", "properties": {
                    "subnet": { "id": subnet_id }, "privateIPAllocationMethod": "Dynamic" } }],
                "backendAddressPools": [{ "name": "kubernetes" }]
            }
        });
        let _: Value = self
            .arm
            .put(
                Target::new(
                    ClientKind::LoadBalancer,
                    &lb_path,
                    api(ResourceType::LoadBalancers),
                ),
                &body,
                None,
            )
            .await
            .expect("internal LB PUT");
        format!("{lb_path}/backendAddressPools/kubernetes")
    }

    /// ARM writes (method, path) in the journal since the last clear.
    async fn writes(&self) -> Vec<(String, String)> {
        self.cluster
            .arm_calls()
            .await
            .into_iter()
            .filter(|(m, _)| m != "GET")
            .collect()
    }
}

fn nodes(names: &[String], control_plane: &[&str]) -> Vec<Node> {
    names
        .iter()
        .map(|n| {
            if control_plane.contains(&n.as_str()) {
                node(n, &[("node-role.kubernetes.io/control-plane", "")])
            } else {
                node(n, &[])
            }
        })
        .collect()
}

/// Every `loadBalancerBackendAddressPools` id anywhere in `doc`.
fn pool_refs(doc: &Value, out: &mut Vec<String>) {
    match doc {
        Value::Object(map) => {
            if let Some(Value::Array(pools)) = map.get("loadBalancerBackendAddressPools") {
                out.extend(
                    pools
                        .iter()
                        .filter_map(|p| p["id"].as_str().map(str::to_string)),
                );
            }
            map.values().for_each(|v| pool_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| pool_refs(v, out)),
        _ => {}
    }
}

fn references(doc: &Value, pool: &str) -> bool {
    let mut out = Vec::new();
    pool_refs(doc, &mut out);
    out.iter().any(|p| p.eq_ignore_ascii_case(pool))
}

#[tokio::test]
async fn availability_set_nics_join_by_nic_put_and_the_control_plane_stays_out() {
    let s = Setup::start("small.yaml", "").await;
    let pool = s.internal_pool("k8s-vnet", "k8s-subnet").await;
    let names = s.cluster.node_names();
    let master = names
        .iter()
        .find(|n| n.contains("master"))
        .expect("a control-plane VM")
        .clone();
    let all = nodes(&names, &[&master]);
    let pools = [pool.clone()];
    s.cluster.clear_journal().await;

    let written = s
        .membership
        .ensure(&pools, &refs(&all))
        .await
        .expect("ensure");
    assert_eq!(
        written,
        PoolWrites {
            nics: names.len() - 1,
            scale_sets: 0,
            instances: 0
        }
    );
    let puts = s.writes().await;
    assert_eq!(puts.len(), names.len() - 1, "{puts:?}");
    assert!(
        puts.iter()
            .all(|(m, p)| m == "PUT" && p.contains("/networkInterfaces/") && !p.contains(&master)),
        "{puts:?}"
    );
    let nics = s
        .list(
            ClientKind::Interface,
            &format!("{}/Microsoft.Network/networkInterfaces", s.rg_path()),
            ResourceType::NetworkInterfaces,
        )
        .await;
    for nic in &nics {
        let name = nic["name"].as_str().unwrap_or_default();
        assert_eq!(references(nic, &pool), !name.contains(&master), "{nic}");
    }
    // The LB sees the members (NRP back-references).
    let lb_path = pool
        .rsplit_once("/backendAddressPools/")
        .unwrap()
        .0
        .to_string();
    let lb = s
        .get(
            ClientKind::LoadBalancer,
            &lb_path,
            ResourceType::LoadBalancers,
        )
        .await;
    let members =
        lb["properties"]["backendAddressPools"][0]["properties"]["backendIPConfigurations"]
            .as_array()
            .map_or(0, Vec::len);
    assert_eq!(members, names.len() - 1, "{lb}");

    // Same nodes again: no write at all.
    s.cluster.clear_journal().await;
    let again = s
        .membership
        .ensure(&pools, &refs(&all))
        .await
        .expect("ensure");
    assert_eq!(again, PoolWrites::default());
    assert_eq!(
        s.cluster.arm_calls().await,
        vec![],
        "our writes are in the cached lists: no read, no write"
    );

    // With excludeMasterFromStandardLB off, the control-plane NIC joins: one NIC PUT.
    let with_master = s.membership_with(r#", "excludeMasterFromStandardLB": false"#);
    s.cluster.clear_journal().await;
    let joined = with_master
        .ensure(&pools, &refs(&all))
        .await
        .expect("ensure");
    assert_eq!(joined.nics, 1);
    let puts = s.writes().await;
    assert_eq!(puts.len(), 1, "{puts:?}");
    assert!(puts[0].1.contains(&master), "{puts:?}");

    // An excluded node leaves: its NIC drops the pool, the others are untouched.
    let mut labelled = all.clone();
    let leaving = names.iter().find(|n| **n != master).unwrap().clone();
    for n in &mut labelled {
        if n.metadata.name.as_deref() == Some(leaving.as_str()) {
            n.metadata
                .labels
                .get_or_insert_with(Default::default)
                .insert(
                    "node.kubernetes.io/exclude-from-external-load-balancers".into(),
                    "true".into(),
                );
        }
    }
    s.cluster.clear_journal().await;
    let left = with_master
        .ensure(&pools, &refs(&labelled))
        .await
        .expect("ensure");
    assert_eq!(left.nics, 1);
    let puts = s.writes().await;
    assert!(puts.len() == 1 && puts[0].1.contains(&leaving), "{puts:?}");

    // Detach everything: no NIC references the pool afterwards; the LB can go.
    let detached = with_master.detach_all(&pools).await.expect("detach");
    assert_eq!(detached.nics, 2, "the control plane and the agent still in");
    let nics = s
        .list(
            ClientKind::Interface,
            &format!("{}/Microsoft.Network/networkInterfaces", s.rg_path()),
            ResourceType::NetworkInterfaces,
        )
        .await;
    assert!(nics.iter().all(|n| !references(n, &pool)), "{nics:?}");
    // The cluster LB's own pool (outbound) is untouched by all of this.
    let outbound = format!(
        "{}/Microsoft.Network/loadBalancers/kubernetes/backendAddressPools/kubernetes",
        s.rg_path()
    );
    let in_outbound = nics.iter().filter(|n| references(n, &outbound)).count();
    assert_eq!(in_outbound, names.len() - 1);
}

#[tokio::test]
async fn uniform_scale_set_model_then_instances_in_batches() {
    let s = Setup::start("zonal-vmss.yaml", r#", "putVMSSVMBatchSize": 3"#).await;
    let pool = s.internal_pool("aks-vnet-12345678", "aks-subnet").await;
    let mut names = s.cluster.node_names();
    names.sort();
    assert_eq!(names.len(), 6);
    let all = nodes(&names, &[]);
    let pools = [pool.clone()];
    let ss_path = format!(
        "{}/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-12345678-vmss",
        s.rg_path()
    );

    // Five nodes first: the model and five instances.
    s.cluster.clear_journal().await;
    let first = s
        .membership
        .ensure(&pools, &refs(&all[..5]))
        .await
        .expect("ensure");
    assert_eq!(
        first,
        PoolWrites {
            nics: 0,
            scale_sets: 1,
            instances: 5
        }
    );
    let calls = s.cluster.arm_calls().await;
    let puts: Vec<&(String, String)> = calls.iter().filter(|(m, _)| m == "PUT").collect();
    assert_eq!(puts.len(), 6, "{puts:?}");
    assert!(
        puts[0].1.eq_ignore_ascii_case(&ss_path),
        "model first: {puts:?}"
    );
    assert!(
        puts[1..]
            .iter()
            .all(|(_, p)| p.to_ascii_lowercase().starts_with(&format!(
                "{}/virtualmachines/",
                ss_path.to_ascii_lowercase()
            ))),
        "{puts:?}"
    );
    // Batches of 3: at most 3 instance PUTs are ever unanswered (an instance PUT is done when
    // the client reads the instance back after its operation), and the first batch overlaps.
    let mut in_flight: i64 = 0;
    let mut most = 0;
    for (method, path) in &calls {
        let instance = path.to_ascii_lowercase().contains("/virtualmachines/");
        if !instance || path.contains("operations") {
            continue;
        }
        match method.as_str() {
            "PUT" => in_flight += 1,
            "GET" if in_flight > 0 => in_flight -= 1,
            _ => {}
        }
        most = most.max(in_flight);
    }
    assert!(
        (2..=3).contains(&most),
        "at most a batch in flight, got {most}: {calls:?}"
    );

    // The same five again: nothing to write.
    s.cluster.clear_journal().await;
    let again = s
        .membership
        .ensure(&pools, &refs(&all[..5]))
        .await
        .expect("ensure");
    assert_eq!(again, PoolWrites::default());
    assert_eq!(
        s.cluster.arm_calls().await,
        vec![],
        "our writes are in the cached lists: no read, no write"
    );

    // The sixth node joins: one instance PUT, the model is already right.
    s.cluster.clear_journal().await;
    let joined = s
        .membership
        .ensure(&pools, &refs(&all))
        .await
        .expect("ensure");
    assert_eq!(
        joined,
        PoolWrites {
            nics: 0,
            scale_sets: 0,
            instances: 1
        }
    );
    let puts = s.writes().await;
    assert_eq!(puts.len(), 1, "{puts:?}");

    let instances = s
        .list(
            ClientKind::VirtualMachineScaleSetVm,
            &format!("{ss_path}/virtualMachines"),
            ResourceType::ScaleSetVms,
        )
        .await;
    assert_eq!(instances.len(), 6);
    for vm in &instances {
        assert!(
            references(&vm["properties"]["networkProfileConfiguration"], &pool),
            "{vm}"
        );
    }

    // Detach before deleting the LB: the model and every instance drop the pool, and the LB
    // (which a scale-set model reference would block) can be deleted.
    let detached = s.membership.detach_all(&pools).await.expect("detach");
    assert_eq!(
        detached,
        PoolWrites {
            nics: 0,
            scale_sets: 1,
            instances: 6
        }
    );
    let model = s
        .get(
            ClientKind::VirtualMachineScaleSet,
            &ss_path,
            ResourceType::VirtualMachineScaleSets,
        )
        .await;
    assert!(!references(&model, &pool), "{model}");
    let outbound = format!(
        "{}/Microsoft.Network/loadBalancers/kubernetes/backendAddressPools/kubernetes",
        s.rg_path()
    );
    assert!(references(&model, &outbound), "other pools stay: {model}");
    let instances = s
        .list(
            ClientKind::VirtualMachineScaleSetVm,
            &format!("{ss_path}/virtualMachines"),
            ResourceType::ScaleSetVms,
        )
        .await;
    for vm in &instances {
        assert!(!references(vm, &pool), "{vm}");
    }
    let lb_path = pool
        .rsplit_once("/backendAddressPools/")
        .unwrap()
        .0
        .to_string();
    s.arm
        .delete(
            Target::new(
                ClientKind::LoadBalancer,
                &lb_path,
                api(ResourceType::LoadBalancers),
            ),
            None,
        )
        .await
        .expect("LB delete after detach");
}

#[tokio::test]
async fn preconfigured_pools_and_node_ip_pools_cost_no_write() {
    let s = Setup::start(
        "small.yaml",
        r#", "preConfiguredBackendPoolLoadBalancerTypes": "internal""#,
    )
    .await;
    let pool = s.internal_pool("k8s-vnet", "k8s-subnet").await;
    let all = nodes(&s.cluster.node_names(), &[]);
    let pools = [pool];
    s.cluster.clear_journal().await;
    let none = s
        .membership
        .ensure(&pools, &refs(&all))
        .await
        .expect("ensure");
    assert_eq!(none, PoolWrites::default());
    let node_ip = s.membership_with(r#", "loadBalancerBackendPoolConfigurationType": "nodeIP""#);
    assert_eq!(
        node_ip.ensure(&pools, &refs(&all)).await.expect("ensure"),
        PoolWrites::default()
    );
    assert_eq!(s.cluster.arm_calls().await, vec![], "not even a read");
}

#[tokio::test]
async fn mixed_cluster_every_node_model_joins_its_own_way() {
    let s = Setup::start("mixed.yaml", "").await;
    // The topology's internal LB already has the VMAS agents in its pool.
    let pool = format!(
        "{}/Microsoft.Network/loadBalancers/kubernetes-internal/backendAddressPools/kubernetes",
        s.rg_path()
    );
    let names = s.cluster.node_names();
    let master = names.iter().find(|n| n.contains("master")).unwrap().clone();
    let all = nodes(&names, &[&master]);
    let pools = [pool.clone()];
    s.cluster.clear_journal().await;
    let written = s
        .membership
        .ensure(&pools, &refs(&all))
        .await
        .expect("ensure");
    let calls = s.cluster.arm_calls().await;
    // Each list (VMs, NICs, scale sets, each scale set's instances) is read once, and no single
    // NIC or VM is read on its own (the only GETs of one resource read back a PUT's result).
    let reads: Vec<&String> = calls
        .iter()
        .filter(|(m, p)| m == "GET" && !p.to_ascii_lowercase().contains("operation"))
        .map(|(_, p)| p)
        .collect();
    let mut distinct = reads.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), reads.len(), "a list read twice: {reads:#?}");
    let puts = s.writes().await;
    for read in &reads {
        let collection = [
            "networkInterfaces",
            "virtualMachines",
            "virtualMachineScaleSets",
        ]
        .iter()
        .any(|c| read.ends_with(c));
        assert!(
            collection || puts.iter().any(|(_, p)| p == *read),
            "a per-resource read: {read}"
        );
    }
    assert_eq!(written.total(), puts.len());
    let lower: Vec<String> = puts.iter().map(|(_, p)| p.to_ascii_lowercase()).collect();
    // Uniform: model then its instances; flexible: its model and its members' NICs; the
    // stopped standalone VM: its NIC; VMAS agents already in: nothing; the control plane: nothing.
    assert_eq!(
        written,
        PoolWrites {
            nics: 4,
            scale_sets: 2,
            instances: 3
        }
    );
    assert!(lower.iter().all(|p| !p.contains("master")), "{puts:?}");
    assert!(lower.iter().all(|p| !p.contains("vmas-agent")), "{puts:?}");

    s.cluster.clear_journal().await;
    assert_eq!(
        s.membership
            .ensure(&pools, &refs(&all))
            .await
            .expect("ensure"),
        PoolWrites::default()
    );
    assert_eq!(
        s.cluster.arm_calls().await,
        vec![],
        "our writes are in the cached lists: no read, no write"
    );
}

#[tokio::test]
async fn a_deallocated_uniform_instance_is_left_as_it_is() {
    let s = Setup::start("zonal-vmss.yaml", "").await;
    let pool = s.internal_pool("aks-vnet-12345678", "aks-subnet").await;
    let mut names = s.cluster.node_names();
    names.sort();
    let (status, body) = s
        .cluster
        .fake
        .admin(
            reqwest::Method::POST,
            &format!("/admin/compute/nodes/{}/power-state", names[0]),
            Some(json!({ "state": "deallocated" })),
        )
        .await;
    assert!(status < 300, "{body}");
    let all = nodes(&names, &[]);
    let written = s
        .membership
        .ensure(std::slice::from_ref(&pool), &refs(&all))
        .await
        .expect("ensure");
    assert_eq!(
        written,
        PoolWrites {
            nics: 0,
            scale_sets: 1,
            instances: names.len() - 1
        }
    );
}

#[tokio::test]
async fn a_node_that_cannot_be_resolved_detaches_nobody() {
    let s = Setup::start("small.yaml", "").await;
    let pool = s.internal_pool("k8s-vnet", "k8s-subnet").await;
    let all = nodes(&s.cluster.node_names(), &[]);
    let pools = [pool.clone()];
    let joined = s
        .membership
        .ensure(&pools, &refs(&all))
        .await
        .expect("ensure");
    assert!(joined.nics > 0);

    // Cold caches, and the VM list fails: no node resolves, yet the NIC list reads fine.
    let cold = s.membership_with("");
    let rule = json!({ "method": "GET", "fault": { "kind": "status", "status": 400, "code": "BadRequest" },
        "path": "/subscriptions/*/resourceGroups/*/providers/Microsoft.Compute/virtualMachines" });
    let (status, body) = s
        .cluster
        .fake
        .admin(reqwest::Method::POST, "/admin/faults", Some(rule))
        .await;
    assert!(status < 300, "{body}");
    s.cluster.clear_journal().await;
    let failed = cold.ensure(&pools, &refs(&all)).await;
    assert!(
        matches!(&failed, Err(PoolError::Incomplete { done, .. }) if *done == PoolWrites::default()),
        "{failed:?}"
    );
    assert_eq!(s.writes().await, vec![], "nobody detached");
}

#[tokio::test]
async fn a_stale_etag_fails_once_then_the_next_call_reads_again() {
    let s = Setup::start("small.yaml", "").await;
    let pool = s.internal_pool("k8s-vnet", "k8s-subnet").await;
    let mut names = s.cluster.node_names();
    names.retain(|n| !n.contains("master"));
    names.sort();
    let all = nodes(&names, &[]);
    let pools = [pool.clone()];
    // The first agent joins; the lists (with the second agent's NIC and its ETag) are cached.
    let first = s
        .membership
        .ensure(&pools, &refs(&all[..1]))
        .await
        .expect("ensure");
    assert_eq!(first.nics, 1);

    // Someone else changes the second agent's NIC: our cached ETag is stale now.
    let nics = s
        .list(
            ClientKind::Interface,
            &format!("{}/Microsoft.Network/networkInterfaces", s.rg_path()),
            ResourceType::NetworkInterfaces,
        )
        .await;
    let mut other = nics
        .into_iter()
        .find(|n| {
            n["properties"]["virtualMachine"]["id"]
                .as_str()
                .is_some_and(|v| v.ends_with(&names[1]))
        })
        .expect("second agent's NIC");
    other["tags"] = json!({ "owner": "someone-else" });
    let path = other["id"].as_str().unwrap().to_string();
    let _: Value = s
        .arm
        .put(
            Target::new(
                ClientKind::Interface,
                &path,
                api(ResourceType::NetworkInterfaces),
            ),
            &other,
            None,
        )
        .await
        .expect("out-of-band NIC write");

    let stale = s.membership.ensure(&pools, &refs(&all)).await;
    let precondition_failed = match &stale {
        Err(PoolError::Incomplete { errors, .. }) => {
            matches!(errors.as_slice(), [PoolError::Arm(e)] if e.is_precondition_failed())
        }
        _ => false,
    };
    assert!(precondition_failed, "{stale:?}");
    let retried = s
        .membership
        .ensure(&pools, &refs(&all))
        .await
        .expect("second try");
    assert_eq!(retried.nics, 1);
    let nic = s
        .get(
            ClientKind::Interface,
            &path,
            ResourceType::NetworkInterfaces,
        )
        .await;
    assert!(references(&nic, &pool), "{nic}");
    assert_eq!(
        nic["tags"]["owner"], "someone-else",
        "the other writer's change is kept"
    );
}
