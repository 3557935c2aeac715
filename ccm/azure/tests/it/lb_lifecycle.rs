//! Service load balancers against the fake beyond the basic public case: internal frontends,
//! updates, shared IPs, user and in-tree public IPs, adoption by a fresh process, and ARM faults.

use std::sync::Arc;

use ccm_azure::arm::resources::public_ip_address::PublicIpAddress;
use ccm_azure::arm::{ClientKind, Target};
use ccm_azure::loadbalancer::ServiceSource;
use ccm_azure::provider::AzureProvider;
use ccm_cloud::LoadBalancer;
use k8s_openapi::api::core::v1::Service;
use reqwest::Method;
use serde_json::{Value, json};

use crate::lb_services::{Bed, CLUSTER, SMALL, ingress_ips, service, writes};

const UID_A: &str = "0a0a0a0a-1111-2222-3333-444455556666";
const UID_B: &str = "0b0b0b0b-1111-2222-3333-444455556666";

fn base(uid: &str) -> String {
    ccm_azure::loadbalancer::names::base_name(uid)
}

/// Every Service of the test, as a controller cache would hold them.
struct Fixed(Vec<Service>);

impl ServiceSource for Fixed {
    fn services(&self) -> Vec<Arc<Service>> {
        self.0.iter().cloned().map(Arc::new).collect()
    }
}

async fn put_pip(bed: &Bed, name: &str, tags: Value) -> Value {
    let config = bed.cluster.config(SMALL);
    let arm = bed.cluster.fast_arm(&config).await;
    let path = format!("{}/publicIPAddresses/{name}", bed.rg_path());
    let body = json!({"location": bed.cluster.location, "sku": {"name": "Standard"}, "tags": tags,
                      "properties": {"publicIPAllocationMethod": "Static"}});
    let pip: PublicIpAddress = arm
        .put(
            Target::new(ClientKind::PublicIpAddress, &path, "2024-05-01"),
            &body,
            None,
        )
        .await
        .expect("PUT pip");
    serde_json::to_value(pip).expect("json")
}

async fn fault(bed: &Bed, rule: Value) {
    let (status, body) = bed
        .cluster
        .fake
        .admin(Method::POST, "/admin/faults", Some(rule))
        .await;
    assert!(status < 300, "fault refused: {status} {body}");
}

#[tokio::test]
async fn an_internal_service_gets_its_pinned_ip_and_its_lb_goes_with_it() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let svc = service(
        "db",
        UID_A,
        &[
            (
                "service.beta.kubernetes.io/azure-load-balancer-internal",
                "true",
            ),
            (
                "service.beta.kubernetes.io/azure-load-balancer-internal-subnet",
                "k8s-subnet",
            ),
            (
                "service.beta.kubernetes.io/azure-load-balancer-ipv4",
                "10.224.0.200",
            ),
        ],
        &[(5432, 30432)],
    );
    let status = bed.ensure(&svc).await;
    assert_eq!(ingress_ips(&status), vec!["10.224.0.200".to_string()]);
    let internal = format!("{CLUSTER}-internal");
    assert_eq!(
        bed.lb_children(&internal, "frontendIPConfigurations").await,
        vec![format!("{}-k8s-subnet", base(UID_A))]
    );
    assert_eq!(
        bed.lb_children(&internal, "loadBalancingRules").await,
        vec![format!("{}-k8s-subnet-TCP-5432", base(UID_A))]
    );
    assert!(
        bed.pips()
            .await
            .iter()
            .all(|p| p["tags"]["k8s-azure-service"].is_null())
    );
    bed.cluster.clear_journal().await;
    bed.ensure(&svc).await;
    assert!(writes(&bed.cluster).await.is_empty());

    bed.delete(&svc).await;
    let arm = crate::resource_models::Arm::new(&bed.cluster.fake).await;
    let lbs = arm
        .get(&format!(
            "{}/loadBalancers?api-version=2024-05-01",
            bed.rg_path()
        ))
        .await;
    let names: Vec<&str> = lbs["value"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|lb| lb["name"].as_str())
        .collect();
    assert_eq!(
        names,
        vec![CLUSTER],
        "the internal LB went with its last frontend"
    );
}

#[tokio::test]
async fn port_changes_move_rules_probes_and_nsg_and_a_fresh_process_writes_nothing() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let base = base(UID_A);
    let v1 = service("web", UID_A, &[], &[(80, 30080)]);
    bed.ensure(&v1).await;
    let v2 = service(
        "web",
        UID_A,
        &[(
            "service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout",
            "10",
        )],
        &[(8080, 30808)],
    );
    let status = bed.ensure(&v2).await;
    assert_eq!(
        bed.lb_children(CLUSTER, "loadBalancingRules").await,
        vec![format!("{base}-TCP-8080")]
    );
    assert_eq!(
        bed.lb_children(CLUSTER, "probes").await,
        vec![format!("{base}-TCP-8080")]
    );
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    assert_eq!(
        lb["properties"]["loadBalancingRules"][0]["properties"]["idleTimeoutInMinutes"],
        10
    );
    let nsg = serde_json::to_string(&bed.nsg_rules().await).unwrap();
    assert!(nsg.contains("8080") && !nsg.contains("\"80\""), "{nsg}");

    // A new process (cold caches) adopts everything with zero writes.
    let config = bed.cluster.config(SMALL);
    let fresh = AzureProvider::with_arm(&config, bed.cluster.fast_arm(&config).await);
    bed.cluster.clear_journal().await;
    let again = fresh
        .load_balancers()
        .ensure_load_balancer(CLUSTER, &v2, &crate::cluster::refs(&bed.nodes))
        .await
        .expect("ensure");
    assert_eq!(again, status);
    assert!(writes(&bed.cluster).await.is_empty());
}

#[tokio::test]
async fn two_services_share_one_public_ip_until_the_last_one_goes() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let a = service("a", UID_A, &[], &[(80, 30080)]);
    let ip = ingress_ips(&bed.ensure(&a).await)[0].clone();
    let b = service(
        "b",
        UID_B,
        &[(
            "service.beta.kubernetes.io/azure-load-balancer-ipv4",
            ip.as_str(),
        )],
        &[(443, 30443)],
    );
    bed.provider
        .load_balancers()
        .reconciler()
        .set_service_source(Arc::new(Fixed(vec![a.clone(), b.clone()])));
    assert_eq!(ingress_ips(&bed.ensure(&b).await), vec![ip.clone()]);
    let pip_name = format!("{CLUSTER}-{}", base(UID_A));
    let pip = bed.get(&format!("publicIPAddresses/{pip_name}")).await;
    assert_eq!(pip["tags"]["k8s-azure-service"], "default/a,default/b");
    assert_eq!(
        bed.lb_children(CLUSTER, "frontendIPConfigurations").await,
        vec!["outbound".to_string(), base(UID_A)],
        "b reuses a's frontend"
    );

    bed.provider
        .load_balancers()
        .reconciler()
        .set_service_source(Arc::new(Fixed(vec![b.clone()])));
    bed.delete(&a).await;
    let pip = bed.get(&format!("publicIPAddresses/{pip_name}")).await;
    assert_eq!(pip["tags"]["k8s-azure-service"], "default/b");
    assert_eq!(
        bed.lb_children(CLUSTER, "loadBalancingRules").await,
        vec![format!("{}-TCP-443", base(UID_B))]
    );
    let nsg = serde_json::to_string(&bed.nsg_rules().await).unwrap();
    assert!(nsg.contains(&ip), "b's NSG rule keeps the shared IP: {nsg}");

    bed.provider
        .load_balancers()
        .reconciler()
        .set_service_source(Arc::new(Fixed(Vec::new())));
    bed.delete(&b).await;
    assert!(
        bed.pips()
            .await
            .iter()
            .all(|p| p["tags"]["k8s-azure-service"].is_null())
    );
    assert_eq!(
        bed.lb_children(CLUSTER, "frontendIPConfigurations").await,
        vec!["outbound".to_string()]
    );
    assert!(
        !serde_json::to_string(&bed.nsg_rules().await)
            .unwrap()
            .contains(&ip)
    );
}

#[tokio::test]
async fn a_user_pip_is_used_and_survives_and_a_legacy_tagged_pip_is_adopted_in_place() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let user = put_pip(&bed, "my-ip", json!({"owner": "me"})).await;
    let svc = service(
        "web",
        UID_A,
        &[("service.beta.kubernetes.io/azure-pip-name", "my-ip")],
        &[(80, 30080)],
    );
    let status = bed.ensure(&svc).await;
    assert_eq!(
        ingress_ips(&status),
        vec![
            user["properties"]["ipAddress"]
                .as_str()
                .unwrap()
                .to_string()
        ]
    );
    bed.delete(&svc).await;
    let after = bed.get("publicIPAddresses/my-ip").await;
    assert_eq!(after["tags"], json!({"owner": "me"}), "never re-tagged");

    let legacy_name = format!("{CLUSTER}-{}", base(UID_B));
    let legacy = put_pip(
        &bed,
        &legacy_name,
        json!({"service": "default/api", "kubernetes-cluster-name": CLUSTER}),
    )
    .await;
    let api = service("api", UID_B, &[], &[(80, 30081)]);
    let status = bed.ensure(&api).await;
    assert_eq!(
        ingress_ips(&status),
        vec![
            legacy["properties"]["ipAddress"]
                .as_str()
                .unwrap()
                .to_string()
        ],
        "the in-tree PIP keeps serving the Service"
    );
    let adopted = bed.get(&format!("publicIPAddresses/{legacy_name}")).await;
    assert_eq!(adopted["id"], legacy["id"]);
    assert_eq!(adopted["tags"]["k8s-azure-service"], "default/api");
    assert_eq!(adopted["tags"]["k8s-azure-cluster-name"], CLUSTER);
}

#[tokio::test]
async fn faults_from_arm_converge_with_nothing_lost() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let svc = service("web", UID_A, &[], &[(80, 30080)]);
    let lb_path = format!("{}/loadBalancers/{CLUSTER}", bed.rg_path());
    let nsg_path = format!("{}/networkSecurityGroups/k8s-nsg", bed.rg_path());
    let pip_path = format!("{}/publicIPAddresses/*", bed.rg_path());
    fault(
        &bed,
        json!({"method": "PUT", "path": pip_path, "count": 3,
                       "fault": {"kind": "throttle", "retryAfterSecs": 1}}),
    )
    .await;
    fault(
        &bed,
        json!({"method": "PUT", "path": nsg_path, "count": 2,
                       "fault": {"kind": "status", "status": 503}}),
    )
    .await;
    fault(
        &bed,
        json!({"method": "PUT", "path": lb_path, "count": 1,
                       "fault": {"kind": "lroFailed", "code": "InternalServerError"}}),
    )
    .await;
    fault(
        &bed,
        json!({"method": "PUT", "path": lb_path, "count": 1,
                       "fault": {"kind": "preconditionFailed"}}),
    )
    .await;
    let lb = bed.provider.load_balancers();
    let mut failures = Vec::new();
    let mut status = None;
    for _ in 0..12 {
        match lb
            .ensure_load_balancer(CLUSTER, &svc, &crate::cluster::refs(&bed.nodes))
            .await
        {
            Ok(s) => {
                status = Some(s);
                break;
            }
            Err(e) => {
                assert!(e.is_retryable(), "a fault is retryable: {e}");
                failures.push(e.to_string());
                tokio::time::sleep(e.retry_after().unwrap_or_default()).await;
            }
        }
    }
    let status = status.unwrap_or_else(|| panic!("never converged: {failures:#?}"));
    let (_, listing) = bed
        .cluster
        .fake
        .admin(Method::GET, "/admin/faults", None)
        .await;
    for rule in listing["rules"].as_array().expect("fault rules") {
        assert_eq!(
            rule["applied"], rule["count"],
            "every fault was met: {rule}"
        );
    }
    let ip = ingress_ips(&status)[0].clone();
    let managed: Vec<Value> = bed
        .pips()
        .await
        .into_iter()
        .filter(|p| !p["tags"]["k8s-azure-service"].is_null())
        .collect();
    assert_eq!(
        managed.len(),
        1,
        "one PIP, no duplicate from a retried create"
    );
    assert_eq!(
        managed[0]["properties"]["ipAddress"].as_str(),
        Some(ip.as_str())
    );
    assert!(
        serde_json::to_string(&bed.nsg_rules().await)
            .unwrap()
            .contains(&ip)
    );
    assert_eq!(
        bed.lb_children(CLUSTER, "loadBalancingRules").await,
        vec![format!("{}-TCP-80", base(UID_A))]
    );
    bed.cluster.clear_journal().await;
    bed.ensure(&svc).await;
    assert!(writes(&bed.cluster).await.is_empty(), "converged");
}

#[tokio::test]
async fn starred_annotations_reach_azure_and_bad_ones_change_nothing() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let svc = service(
        "shop",
        UID_A,
        &[
            (
                "service.beta.kubernetes.io/azure-dns-label-name",
                "shop-k8s",
            ),
            (
                "service.beta.kubernetes.io/azure-pip-tags",
                "team=web,cost=42",
            ),
            (
                "service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout",
                "15",
            ),
            (
                "service.beta.kubernetes.io/azure-load-balancer-health-probe-protocol",
                "Http",
            ),
            (
                "service.beta.kubernetes.io/azure-load-balancer-health-probe-request-path",
                "/ready",
            ),
            (
                "service.beta.kubernetes.io/azure-allowed-service-tags",
                "AzureFrontDoor.Backend",
            ),
            (
                "service.beta.kubernetes.io/azure-allowed-ip-ranges",
                "203.0.113.0/24",
            ),
            (
                "service.beta.kubernetes.io/azure-disable-load-balancer-floating-ip",
                "true",
            ),
        ],
        &[(80, 30080)],
    );
    bed.ensure(&svc).await;
    let base = base(UID_A);
    let pip = bed
        .get(&format!("publicIPAddresses/{CLUSTER}-{base}"))
        .await;
    assert_eq!(
        pip["properties"]["dnsSettings"]["domainNameLabel"],
        "shop-k8s"
    );
    assert_eq!(pip["tags"]["k8s-azure-dns-label-service"], "default/shop");
    assert_eq!(pip["tags"]["team"], "web");
    assert_eq!(pip["tags"]["cost"], "42");
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    let rule = &lb["properties"]["loadBalancingRules"][0]["properties"];
    assert_eq!(rule["idleTimeoutInMinutes"], 15);
    assert_eq!(rule["enableFloatingIP"], false);
    assert_eq!(
        rule["backendPort"], 30080,
        "floating IP off targets the NodePort"
    );
    let probe = &lb["properties"]["probes"][0]["properties"];
    assert_eq!(probe["protocol"], "Http");
    assert_eq!(probe["requestPath"], "/ready");
    let nsg = serde_json::to_string(&bed.nsg_rules().await).unwrap();
    assert!(nsg.contains("AzureFrontDoor.Backend"), "{nsg}");
    assert!(nsg.contains("203.0.113.0/24"), "{nsg}");
    assert!(
        !nsg.contains("\"Internet\""),
        "restricted sources replace Internet: {nsg}"
    );
    let agent_ip = bed.nodes[1]
        .status
        .as_ref()
        .unwrap()
        .addresses
        .as_ref()
        .unwrap()[0]
        .address
        .clone();
    assert!(
        nsg.contains(&agent_ip),
        "floating IP off opens the node IPs: {nsg}"
    );

    bed.cluster.clear_journal().await;
    for (key, value) in [
        (
            "service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout",
            "200",
        ),
        ("service.beta.kubernetes.io/azure-pls-create", "true"),
        (
            "service.beta.kubernetes.io/azure-load-balancer-internal",
            "yes",
        ),
    ] {
        let bad = service("shop", UID_A, &[(key, value)], &[(80, 30080)]);
        let err = bed
            .lb()
            .ensure_load_balancer(CLUSTER, &bad, &crate::cluster::refs(&bed.nodes))
            .await
            .expect_err("bad annotation refused");
        assert!(!err.is_retryable(), "{err}");
        let text = err.to_string();
        assert!(text.contains(key) && text.contains(value), "{text}");
    }
    assert!(
        bed.cluster.arm_calls().await.is_empty(),
        "a refused Service costs no ARM call"
    );
}

#[tokio::test]
async fn the_dry_run_lists_the_writes_ensure_sends_and_nothing_once_adopted() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let svc = service("web", UID_A, &[], &[(80, 30080)]);
    let reconciler = bed.provider.load_balancers().reconciler();
    bed.cluster.clear_journal().await;
    let plan = reconciler
        .dry_run(CLUSTER, &svc, &bed.nodes)
        .await
        .expect("dry run");
    assert!(
        writes(&bed.cluster).await.is_empty(),
        "a dry run writes nothing"
    );
    let steps: Vec<(&str, String)> = plan
        .writes
        .iter()
        .map(|w| {
            (
                w.method,
                w.resource.rsplit('/').take(2).collect::<Vec<_>>().join("<"),
            )
        })
        .collect();
    assert_eq!(
        steps,
        vec![
            (
                "PUT",
                format!("{CLUSTER}-{}<publicIPAddresses", base(UID_A))
            ),
            ("PUT", format!("{CLUSTER}<loadBalancers")),
        ],
        "{plan:#?}"
    );
    assert!(
        plan.notes.iter().any(|n| n.contains("NSG")),
        "a new PIP has no address yet: {:?}",
        plan.notes
    );
    bed.ensure(&svc).await;
    let plan = reconciler
        .dry_run(CLUSTER, &svc, &bed.nodes)
        .await
        .expect("dry run");
    assert!(plan.writes.is_empty(), "{plan:#?}");
}

/// Names of the NICs whose ipconfigs reference the cluster pool `kubernetes` on LB `kubernetes`.
async fn pool_nics(bed: &Bed) -> Vec<String> {
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    let pools = lb["properties"]["backendAddressPools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut nics: Vec<String> = pools
        .iter()
        .filter(|p| p["name"] == CLUSTER)
        .flat_map(|p| {
            p["properties"]["backendIPConfigurations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|r| {
            let id = r["id"].as_str()?.to_string();
            let at = id.find("/networkInterfaces/")? + "/networkInterfaces/".len();
            Some(id[at..].split('/').next()?.to_string())
        })
        .collect();
    nics.sort();
    nics
}

#[tokio::test]
async fn node_set_changes_update_pool_members_with_writes_only_for_the_changed_node() {
    let mut bed = Bed::start("small.yaml", SMALL).await;
    let svc = service("web", UID_A, &[], &[(80, 30080)]);
    bed.ensure(&svc).await;
    let before = pool_nics(&bed).await;
    assert_eq!(
        before.len(),
        2,
        "the two agents, not the control plane: {before:?}"
    );

    let leaving = bed
        .nodes
        .iter_mut()
        .find(|n| {
            !n.metadata
                .name
                .as_deref()
                .unwrap_or_default()
                .contains("master")
        })
        .expect("an agent");
    leaving
        .metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert(
            "node.kubernetes.io/exclude-from-external-load-balancers".to_string(),
            "true".to_string(),
        );
    bed.cluster.clear_journal().await;
    bed.lb()
        .update_load_balancer(CLUSTER, &svc, &crate::cluster::refs(&bed.nodes))
        .await
        .expect("update");
    let puts: Vec<String> = writes(&bed.cluster)
        .await
        .into_iter()
        .map(|(m, p)| format!("{m} {}", p.rsplit('/').next().unwrap_or_default()))
        .collect();
    assert_eq!(puts.len(), 1, "one NIC PUT for the excluded node: {puts:?}");
    assert_eq!(pool_nics(&bed).await.len(), 1);

    bed.cluster.clear_journal().await;
    bed.lb()
        .update_load_balancer(CLUSTER, &svc, &crate::cluster::refs(&bed.nodes))
        .await
        .expect("update");
    assert!(writes(&bed.cluster).await.is_empty(), "no change, no write");
}

#[tokio::test]
async fn node_ip_pools_list_node_addresses_and_follow_the_node_set() {
    let extra = format!(r#"{SMALL}, "loadBalancerBackendPoolConfigurationType": "nodeIP""#);
    let mut bed = Bed::start("small.yaml", &extra).await;
    let svc = service("web", UID_A, &[], &[(80, 30080)]);
    bed.ensure(&svc).await;
    let members = |lb: &Value| -> Vec<String> {
        lb["properties"]["backendAddressPools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["name"] == CLUSTER)
            .flat_map(|p| {
                p["properties"]["loadBalancerBackendAddresses"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|a| a["properties"]["ipAddress"].as_str().map(str::to_string))
            .collect()
    };
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    assert_eq!(members(&lb).len(), 2, "{lb:#}");

    bed.nodes.retain(|n| {
        !n.metadata
            .name
            .as_deref()
            .unwrap_or_default()
            .ends_with('1')
    });
    bed.cluster.clear_journal().await;
    bed.lb()
        .update_load_balancer(CLUSTER, &svc, &crate::cluster::refs(&bed.nodes))
        .await
        .expect("update");
    let w = writes(&bed.cluster).await;
    assert_eq!(w.len(), 1, "one LB PUT: {w:?}");
    let lb = bed.get(&format!("loadBalancers/{CLUSTER}")).await;
    assert_eq!(members(&lb).len(), 1);
}

/// A leader died after sending a Service's public IP PUT: the next leader reads the PIP while it is
/// still provisioning (no address yet) and it finishes before the load balancer PUT that references
/// it is served. The reconcile must report the PIP's address rather than fail with "no IP address
/// yet" (which sent the Service into a 300 s backoff in the fault-ccm-sigkill scenario).
#[tokio::test]
async fn a_pip_still_provisioning_when_read_gives_its_address_once_the_lb_accepts_it() {
    let bed = Bed::start("small.yaml", SMALL).await;
    let svc = service("web", UID_A, &[], &[(80, 30080)]);
    // The PIP as the CCM writes it, then the Service gone: the PIP and the LB with it.
    bed.ensure(&svc).await;
    let pip_name = format!("{CLUSTER}-{}", base(UID_A));
    let written = bed.get(&format!("publicIPAddresses/{pip_name}")).await;
    bed.delete(&svc).await;
    // The dead leader's PUT: the same body, its operation left running (nobody polls it).
    let body = json!({"location": written["location"], "sku": written["sku"], "tags": written["tags"],
                      "properties": {
                          "publicIPAllocationMethod": written["properties"]["publicIPAllocationMethod"],
                          "publicIPAddressVersion": written["properties"]["publicIPAddressVersion"]}});
    let arm = crate::resource_models::Arm::new(&bed.cluster.fake).await;
    let url = format!(
        "{}{}/publicIPAddresses/{pip_name}?api-version=2024-05-01",
        bed.cluster.fake.base,
        bed.rg_path()
    );
    let response = bed
        .cluster
        .fake
        .http
        .put(&url)
        .bearer_auth(&arm.token)
        .json(&body)
        .send()
        .await
        .expect("PUT pip");
    assert!(response.status().is_success(), "{}", response.status());
    let operation = response
        .headers()
        .get("azure-asyncoperation")
        .and_then(|v| v.to_str().ok())
        .expect("an operation")
        .to_string();
    let pending = bed.get(&format!("publicIPAddresses/{pip_name}")).await;
    assert!(
        pending["properties"]["ipAddress"].is_null(),
        "no address while provisioning: {pending}"
    );
    // The LB PUT is held back long enough for the operation to finish after the CCM's reads.
    let lb_path = format!("{}/loadBalancers/{CLUSTER}", bed.rg_path());
    fault(
        &bed,
        json!({"method": "PUT", "path": lb_path, "count": 1,
               "fault": {"kind": "latency", "ms": 3000}}),
    )
    .await;
    bed.cluster.clear_journal().await;
    let pip_list = format!("{}/publicIPAddresses", bed.rg_path()).to_ascii_lowercase();
    let finish = async {
        // Once the CCM has listed the PIPs (seeing no address), the operation ends.
        loop {
            let calls = bed.cluster.arm_calls().await;
            if calls
                .iter()
                .any(|(m, p)| m == "GET" && p.to_ascii_lowercase() == pip_list)
            {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        loop {
            let op = arm.get(&operation).await;
            if op["status"] != "InProgress" {
                assert_eq!(op["status"], "Succeeded", "{op}");
                break;
            }
        }
    };
    let nodes = crate::cluster::refs(&bed.nodes);
    let (result, ()) = tokio::join!(bed.lb().ensure_load_balancer(CLUSTER, &svc, &nodes), finish);
    let status = result.unwrap_or_else(|e| panic!("ensure: {e}"));
    let pip = bed.get(&format!("publicIPAddresses/{pip_name}")).await;
    assert_eq!(
        ingress_ips(&status),
        vec![
            pip["properties"]["ipAddress"]
                .as_str()
                .expect("address")
                .to_string()
        ]
    );
}
