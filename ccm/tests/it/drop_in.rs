//! Drop-in: `cloud-controller-manager` started exactly as upstream's runs against `azure-fakes`
//! (azure.json with `cloud: AzureStackCloud`, `disableAzureStackCloud: true` and the fake's
//! `resourceManagerEndpoint`; `SSL_CERT_FILE` as the only environment variable; the flags
//! `--cloud-provider=azure --cloud-config=... --kubeconfig=... --controllers=*,-route
//! --cluster-name=kubernetes --secure-port=0 --v=4`, leader election on by default) initialises the
//! nodes as node_init.rs checks them and names a LoadBalancer Service's Azure resources as upstream
//! does (anchor-ccm.md 4.2, 4.3, 4.7), also after a port is added, leaving none behind once the
//! Service is deleted.

use std::collections::BTreeMap;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Service;
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use reqwest::Method;
use serde_json::{Value, json};

use crate::ccm_services::{delete_until_gone, web};
use crate::cloud_controller_manager::{Manager, wait_for};
use crate::lifecycle::set_ready;
use crate::node_facts::NodeFacts;
use crate::node_init::{initialised, register};
use crate::processes::{ApiServer, cloud_controller_manager};
use crate::topology::{Cloud, journal};

const NETWORK_API: &str = "api-version=2024-05-01";

/// The manager with upstream's flags and `SSL_CERT_FILE` as its whole environment.
fn start_as_upstream(cloud: &Cloud, api: &ApiServer) -> Manager {
    let config = cloud.azure_json("");
    let mut command = cloud_controller_manager();
    command
        .env_clear()
        .env("SSL_CERT_FILE", &cloud.fake.ca_file)
        .arg("--cloud-provider=azure")
        .arg(format!("--cloud-config={}", config.display()))
        .arg(format!("--kubeconfig={}", api.kubeconfig().display()))
        .args([
            "--controllers=*,-route",
            "--cluster-name=kubernetes",
            "--secure-port=0",
            "--v=4",
        ]);
    Manager::spawn(command, 0)
}

/// Upstream's per-Service base name: `a` + the UID without dashes, cut to 32 characters.
fn base_name(uid: &str) -> String {
    let mut name = format!("a{}", uid.replace('-', ""));
    name.truncate(32);
    name
}

/// A network resource of the node resource group: `None` on 404.
async fn network(cloud: &Cloud, kind: &str, name: &str) -> Option<Value> {
    let path = format!(
        "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Network/{kind}/{name}?{NETWORK_API}",
        cloud.fake.subscription, cloud.resource_group
    );
    match cloud.arm(Method::GET, &path, None).await {
        (200, body) => Some(body),
        (404, _) => None,
        (status, body) => panic!("GET {kind}/{name}: {status} {body}"),
    }
}

/// Names of the entries of `resource.properties.<list>`.
fn names(resource: &Value, list: &str) -> Vec<String> {
    resource["properties"][list]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["name"].as_str().map(str::to_owned))
        .collect()
}

/// The NSG's managed allow rules (`k8s-azure-lb_allow_*`) whose destinations include `ip`.
async fn rules_for(cloud: &Cloud, ip: &str) -> Vec<Value> {
    let nsg = network(
        cloud,
        "networkSecurityGroups",
        &cloud.network.security_group,
    )
    .await
    .expect("the cluster NSG");
    nsg["properties"]["securityRules"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| {
            let p = &r["properties"];
            let managed = r["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("k8s-azure-lb_allow_"));
            let to_ip = p["destinationAddressPrefixes"]
                .as_array()
                .into_iter()
                .flatten()
                .chain(std::iter::once(&p["destinationAddressPrefix"]))
                .any(|d| *d == ip);
            managed && to_ip
        })
        .cloned()
        .collect()
}

/// The destination ports a security rule allows.
fn ports(rule: &Value) -> Vec<String> {
    let p = &rule["properties"];
    p["destinationPortRanges"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(std::iter::once(&p["destinationPortRange"]))
        .filter_map(|r| r.as_str().map(str::to_owned))
        .collect()
}

async fn runs_unchanged(topology: &str) {
    let cloud = Cloud::start(topology, &["--lro-polls", "0"]).await;
    let vms = cloud.vms().await;
    let api = ApiServer::start();
    let client = api.client().await;
    let nodes = register(&api, &vms).await;
    // The kubelets of running VMs report Ready; a deallocated VM runs none.
    for vm in vms.iter().filter(|vm| vm.power_state == "running") {
        set_ready(&nodes, &vm.node_name, true).await;
    }
    let manager = start_as_upstream(&cloud, &api);

    // Leader election is on by default: the Lease names this manager.
    let leases: Api<Lease> = Api::namespaced(client.clone(), "kube-system");
    wait_for(
        "the manager holds the leader Lease",
        &[&manager],
        || async {
            leases
                .get_opt("cloud-controller-manager")
                .await
                .ok()
                .flatten()
                .and_then(|l| l.spec?.holder_identity)
                .filter(|h| !h.is_empty())
        },
    )
    .await;

    // Nodes: as node_init.rs finds them through the ARM path.
    let facts = wait_for("every node is initialised", &[&manager], || {
        initialised(&nodes, &vms)
    })
    .await;
    for vm in &vms {
        assert_eq!(
            facts[&vm.node_name],
            NodeFacts::expected(vm, &cloud.location, &[]),
            "{} ({})",
            vm.node_name,
            vm.kind
        );
    }
    // cloud-node-lifecycle runs in the default set: a deallocated VM's node (no kubelet, so
    // never Ready) gets the shutdown and out-of-service taints.
    for vm in vms.iter().filter(|vm| vm.power_state != "running") {
        wait_for(
            "a deallocated VM's node is tainted",
            &[&manager],
            || async {
                let taints = nodes.get(&vm.node_name).await.ok()?.spec?.taints?;
                let has = |key: &str, effect: &str| {
                    taints.iter().any(|t| t.key == key && t.effect == effect)
                };
                (has("node.cloudprovider.kubernetes.io/shutdown", "NoSchedule")
                    && has("node.kubernetes.io/out-of-service", "NoExecute"))
                .then_some(())
            },
        )
        .await;
    }
    // Endpoints came from resourceManagerEndpoint's metadata, the token from the fake's Entra ID.
    let surfaces: Vec<String> = journal(&cloud.fake)
        .await
        .iter()
        .filter_map(|e| e["surface"].as_str().map(str::to_owned))
        .collect();
    for surface in ["metadata", "entra", "arm"] {
        assert!(
            surfaces.iter().any(|s| s == surface),
            "no {surface} request: {surfaces:?}"
        );
    }

    // A LoadBalancer Service: upstream's names for every Azure resource.
    let services: Api<Service> = Api::namespaced(client, "default");
    let created = services
        .create(&PostParams::default(), &web())
        .await
        .expect("service");
    let uid = created.metadata.uid.expect("uid");
    let base = base_name(&uid);
    let ingress = wait_for("the Service gets an ingress IP", &[&manager], || async {
        services
            .get("web")
            .await
            .ok()?
            .status?
            .load_balancer?
            .ingress?
            .first()?
            .ip
            .clone()
    })
    .await;
    let pip_name = format!("kubernetes-{base}");
    let pip = network(&cloud, "publicIPAddresses", &pip_name)
        .await
        .unwrap_or_else(|| panic!("no public IP {pip_name}"));
    assert_eq!(pip["properties"]["ipAddress"], ingress.as_str(), "{pip}");
    let tags: BTreeMap<String, String> =
        serde_json::from_value(pip["tags"].clone()).expect("PIP tags");
    assert_eq!(
        tags.get("k8s-azure-service").map(String::as_str),
        Some("default/web")
    );
    assert_eq!(
        tags.get("k8s-azure-cluster-name").map(String::as_str),
        Some("kubernetes")
    );
    let lb = network(&cloud, "loadBalancers", "kubernetes")
        .await
        .expect("LB kubernetes");
    assert!(
        names(&lb, "frontendIPConfigurations").contains(&base),
        "{lb}"
    );
    let rule = format!("{base}-TCP-80");
    assert!(names(&lb, "loadBalancingRules").contains(&rule), "{lb}");
    assert!(names(&lb, "probes").contains(&rule), "{lb}");
    assert!(
        names(&lb, "backendAddressPools").contains(&"kubernetes".to_owned()),
        "{lb}"
    );
    let rules = rules_for(&cloud, &ingress).await;
    assert_eq!(rules.len(), 1, "one allow rule for {ingress}: {rules:#?}");
    let rule_for_service = &rules[0];
    assert_eq!(
        rule_for_service["properties"]["sourceAddressPrefix"], "Internet",
        "{rule_for_service}"
    );
    assert_eq!(ports(rule_for_service), ["80"], "{rule_for_service}");
    let name = rule_for_service["name"].as_str().expect("rule name");
    let hash = name
        .strip_prefix("k8s-azure-lb_allow_IPv4_")
        .unwrap_or_else(|| panic!("{name}"));
    assert!(
        hash.len() == 32 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "{name}"
    );
    let priority = rule_for_service["properties"]["priority"]
        .as_u64()
        .expect("priority");
    assert!((500..=4096).contains(&priority), "{rule_for_service}");

    // Updated with a second port: its own LB rule and probe, and the NSG allows both ports.
    let https = format!("{base}-TCP-443");
    let patch = json!({"spec": {"ports": [
        {"name": "http", "protocol": "TCP", "port": 80, "nodePort": 30080},
        {"name": "https", "protocol": "TCP", "port": 443, "nodePort": 30443},
    ]}});
    services
        .patch("web", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch service");
    wait_for("the second port is load-balanced", &[&manager], || async {
        let lb = network(&cloud, "loadBalancers", "kubernetes").await?;
        let rules = names(&lb, "loadBalancingRules");
        let probes = names(&lb, "probes");
        (rules.contains(&rule)
            && rules.contains(&https)
            && probes.contains(&rule)
            && probes.contains(&https))
        .then_some(())
    })
    .await;
    let rules = wait_for("the NSG allows both ports", &[&manager], || async {
        let rules = rules_for(&cloud, &ingress).await;
        let allowed: Vec<String> = rules.iter().flat_map(ports).collect();
        (allowed.contains(&"80".to_owned()) && allowed.contains(&"443".to_owned())).then_some(rules)
    })
    .await;
    for rule in &rules {
        let name = rule["name"].as_str().expect("rule name");
        assert!(name.starts_with("k8s-azure-lb_allow_IPv4_"), "{name}");
    }

    // Deleted: no public IP, frontend, rule, probe or NSG rule left behind.
    delete_until_gone(&services, "web", &[&manager]).await;
    assert!(
        network(&cloud, "publicIPAddresses", &pip_name)
            .await
            .is_none()
    );
    if let Some(lb) = network(&cloud, "loadBalancers", "kubernetes").await {
        assert!(
            !names(&lb, "frontendIPConfigurations").contains(&base)
                && !names(&lb, "loadBalancingRules")
                    .iter()
                    .any(|r| r.starts_with(&base))
                && !names(&lb, "probes").iter().any(|p| p.starts_with(&base)),
            "{lb}"
        );
    }
    let left = rules_for(&cloud, &ingress).await;
    assert!(left.is_empty(), "{left:#?}");
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_runs_with_upstreams_config_env_and_flags() {
    runs_unchanged("small.yaml").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zonal_vmss_runs_with_upstreams_config_env_and_flags() {
    runs_unchanged("zonal-vmss.yaml").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_runs_with_upstreams_config_env_and_flags() {
    runs_unchanged("mixed.yaml").await;
}
