//! The RBAC the manifests generator writes, checked against the calls the real binaries make:
//! `cloud-controller-manager` (the generated Deployment's flags: default controllers without
//! cloud-node, routes and node IPAM for kubenet, leader election) and one `cloud-node-manager` per
//! agent (the DaemonSet's flags), each authenticating as its ServiceAccount, run against the
//! embedded API server with an audit log. Every call in the log must be allowed by the generated
//! (Cluster)Roles and bindings, evaluated like the RBAC authorizer; generated permissions no call
//! used are listed, and each must have a reason in [`KEPT_UNUSED`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use ccm_manifests::generate::{cloud_controller_manager, cloud_node_manager};
use ccm_manifests::{KubeVersion, Mode, Options};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Node, Service};
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::ccm_services::{create_web_until_served, delete_until_gone};
use crate::cloud_controller_manager::{Manager, wait_for};
use crate::processes::{
    ApiServer, FakeAzure, UNINITIALIZED, cloud_node_manager, example, tainted_node,
};
use fake_kube_apiserver::rbac::audit_calls;
use fake_kube_apiserver::rbac::{Call, Grant, Subject, allows, grants_for, missing_roles, unused};

const CCM_USER: &str = "system:serviceaccount:kube-system:cloud-controller-manager";
const CNM_USER: &str = "system:serviceaccount:kube-system:cloud-node-manager";
/// Taint cloud-node-lifecycle puts on a NotReady Node whose VM is shut down.
const SHUTDOWN_TAINT: &str = "node.cloudprovider.kubernetes.io/shutdown";

/// Generated permissions the test run does not exercise, kept on purpose: (role, verb,
/// `group/resource`, reason). Matching ignores the resource name.
const KEPT_UNUSED: &[(&str, &str, &str, &str)] = &[
    (
        "azure:cloud-controller-manager",
        "get",
        "core/services",
        "the upstream provider's getLatestService reads a Service (the manifests deploy that image)",
    ),
    (
        "azure:cloud-controller-manager",
        "patch",
        "core/services",
        "upstream role parity (migration.md 1.5); both images put the finalizer through services/status",
    ),
    (
        "azure:cloud-controller-manager",
        "get",
        "discovery.k8s.io/endpointslices",
        "upstream image's EndpointSlice informer (azure_local_services.go); ours does not watch them",
    ),
    (
        "azure:cloud-controller-manager",
        "list",
        "discovery.k8s.io/endpointslices",
        "upstream image's EndpointSlice informer (azure_local_services.go); ours does not watch them",
    ),
    (
        "azure:cloud-controller-manager",
        "watch",
        "discovery.k8s.io/endpointslices",
        "upstream image's EndpointSlice informer (azure_local_services.go); ours does not watch them",
    ),
    (
        "azure:cloud-controller-manager",
        "patch",
        "core/events",
        "the upstream image's client-go recorder patches a repeated Event; ours creates each once",
    ),
    (
        "azure:cloud-node-manager",
        "patch",
        "core/events",
        "the upstream image's client-go recorder patches a repeated Event; ours creates each once",
    ),
    (
        "azure:cloud-node-manager",
        "get",
        "core/nodes",
        "the upstream image reads its Node before writing it; ours writes from the watch cache and reads only after a 409 Conflict",
    ),
    (
        "azure:cloud-node-manager",
        "update",
        "core/nodes",
        "the upstream image's cloud-node controller writes the Node with a full update (migration.md 1.6); ours patches it",
    ),
];

/// The manifests under test: out-of-tree 1.33 with kubenet routes (node IPAM in the CCM).
fn options() -> Options {
    let mut o = Options::new(Mode::OutOfTree, KubeVersion::from_minor(33).expect("1.33"));
    o.configure_cloud_routes = true;
    o.cluster_name = "kubernetes".to_string();
    o
}

fn parse(rendered: Vec<String>) -> Vec<Value> {
    rendered
        .iter()
        .map(|d| serde_saphyr::from_str::<Value>(d).expect("generated YAML"))
        .collect()
}

/// The container command of the generated workload of `kind`, without the program name.
fn generated_flags(docs: &[Value], kind: &str) -> Vec<String> {
    let workload = docs
        .iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind}"));
    let command = workload["spec"]["template"]["spec"]["containers"][0]["command"]
        .as_array()
        .expect("command");
    command
        .iter()
        .skip(1)
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The generated flags with the in-cluster paths, ports and verbosity replaced by the test's.
fn adapted(flags: Vec<String>, replace: &[(&str, String)]) -> Vec<String> {
    let mut out: Vec<String> = flags
        .into_iter()
        .filter(|f| {
            !replace
                .iter()
                .any(|(name, _)| f.starts_with(&format!("{name}=")))
        })
        .filter(|f| !f.starts_with("--v="))
        .collect();
    out.extend(
        replace
            .iter()
            .map(|(name, value)| format!("{name}={value}")),
    );
    out
}

/// azure.json for small.yaml with its network and route table (kubenet).
fn azure_json(fake: &FakeAzure, dir: &Path) -> std::path::PathBuf {
    let path = dir.join("azure.json");
    let text = json!({
        "cloud": "AzureStackCloud", "disableAzureStackCloud": true,
        "resourceManagerEndpoint": format!("{}/", fake.base),
        "tenantId": fake.tenant, "subscriptionId": fake.subscription,
        "aadClientId": "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11",
        "aadClientSecret": "fake-secret-not-for-production",
        "resourceGroup": "k8s-small-rg", "location": "eastus", "vmType": "standard",
        "securityGroupName": "k8s-nsg", "vnetName": "k8s-vnet", "subnetName": "k8s-subnet",
        "routeTableName": "k8s-routetable",
        // Route batches every second, released at once (defaults: 30 s each).
        "routeUpdateIntervalInSeconds": 1, "routeUpdateWaitingInSeconds": 1,
        // Power states seen within a second (default 60 s), for the shutdown taint.
        "vmCacheTTLInSeconds": 1,
    });
    std::fs::write(&path, text.to_string()).expect("write azure.json");
    path
}

/// Load balancer PUTs in the fake's journal.
async fn lb_puts(fake: &FakeAzure) -> usize {
    fake.journal().await["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| {
            e["method"] == "PUT"
                && e["path"]
                    .as_str()
                    .is_some_and(|p| p.contains("/loadBalancers/"))
        })
        .count()
}

fn ready(node: &Node) -> bool {
    let spec = node.spec.as_ref();
    let untainted = spec
        .and_then(|s| s.taints.as_ref())
        .is_none_or(|t| t.iter().all(|t| t.key != UNINITIALIZED));
    let routed = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| {
            c.iter()
                .any(|c| c.type_ == "NetworkUnavailable" && c.status == "False")
        });
    untainted
        && routed
        && spec.and_then(|s| s.provider_id.as_ref()).is_some()
        && spec.and_then(|s| s.pod_cidr.as_ref()).is_some()
}

/// A running cloud-node-manager and its log; SIGTERM then reaped on drop.
struct NodeManager(Child, tempfile::NamedTempFile);

impl NodeManager {
    fn logs(&self) -> String {
        std::fs::read_to_string(self.1.path()).unwrap_or_default()
    }
}

impl Drop for NodeManager {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

/// The calls no grant allows.
/// The grants of ServiceAccount `kube-system/<sa>` (the fake API server's RBAC authorizer); every
/// role the manifests bind must exist in them or be built in.
fn sa_grants(docs: &[Value], sa: &str) -> Vec<Grant> {
    let subject = Subject::service_account("kube-system", sa);
    let missing = missing_roles(docs, &subject);
    assert!(missing.is_empty(), "bound but defined nowhere: {missing:?}");
    grants_for(docs, &subject)
}

/// Every distinct call `user` made, from the audit log.
fn calls_by(log: &Path, user: &str) -> BTreeSet<Call> {
    audit_calls::calls_by(log, user).expect("audit log")
}

fn denied<'a>(grants: &[Grant], calls: &'a BTreeSet<Call>) -> Vec<&'a Call> {
    calls
        .iter()
        .filter(|c| !grants.iter().any(|g| allows(g, c)))
        .collect()
}

fn explain(calls: &[&Call]) -> String {
    calls.iter().map(|c| format!("  {c}\n")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_rbac_allows_every_call_the_binaries_make() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.log");
    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let api = ApiServer::start_with(&["--audit-log-path", audit.to_str().expect("utf-8 path")]);
    let config = azure_json(&fake, dir.path());
    let o = options();
    let ccm_docs = parse(cloud_controller_manager::documents(&o).expect("CCM manifest"));
    let cnm_docs = parse(cloud_node_manager::documents(&o).expect("CNM manifest"));

    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    let agents: Vec<(String, String)> = fake
        .imds
        .iter()
        .filter(|(n, _)| n.contains("agentpool"))
        .cloned()
        .collect();
    for (name, _) in &agents {
        nodes
            .create(&PostParams::default(), &tainted_node(name))
            .await
            .expect("node");
    }

    // One cloud-node-manager per agent, with the DaemonSet's flags and its own identity.
    let cnm_kubeconfig = api
        .kubeconfig_for(CNM_USER, Some("system:serviceaccounts"))
        .await;
    let mut node_managers = Vec::new();
    for (name, imds) in &agents {
        let flags = adapted(
            generated_flags(&cnm_docs, "DaemonSet"),
            &[
                ("--node-name", name.clone()),
                ("--secure-port", "0".to_string()),
                ("--kubeconfig", cnm_kubeconfig.display().to_string()),
                ("--imds-endpoint", imds.clone()),
            ],
        );
        let log = tempfile::NamedTempFile::new().expect("log file");
        let child = cloud_node_manager()
            .args(&flags)
            .env("SSL_CERT_FILE", &fake.ca_file)
            .env_remove("AZURE_IMDS_ENDPOINT")
            .stdout(Stdio::null())
            .stderr(log.reopen().expect("log handle"))
            .spawn()
            .expect("spawn cloud-node-manager");
        node_managers.push(NodeManager(child, log));
    }

    // The CCM with the Deployment's flags and its own identity.
    let ccm_kubeconfig = api
        .kubeconfig_for(CCM_USER, Some("system:serviceaccounts"))
        .await;
    let flags = adapted(
        generated_flags(&ccm_docs, "Deployment"),
        &[
            ("--cloud-config", config.display().to_string()),
            ("--kubeconfig", ccm_kubeconfig.display().to_string()),
        ],
    )
    .into_iter()
    // `Manager` serves the secure port on a free loopback port.
    .filter(|f| !f.starts_with("--secure-port="))
    .collect::<Vec<_>>();
    assert!(
        flags.iter().any(|f| f == "--configure-cloud-routes=true"),
        "{flags:?}"
    );
    let flag_refs: Vec<&str> = flags.iter().map(String::as_str).collect();
    let manager = Manager::start_raw(&fake, &flag_refs);

    for (name, _) in &agents {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !nodes.get(name).await.is_ok_and(|n| ready(&n)) {
            let cnm_logs: Vec<String> = node_managers.iter().map(NodeManager::logs).collect();
            assert!(
                std::time::Instant::now() < deadline,
                "{name} not initialised, allocated and routed: {:#?}\nCNM: {cnm_logs:#?}\nCCM: {}\nJOURNAL {}",
                nodes.get(name).await,
                manager.logs(),
                fake.journal().await
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }
    let leases: Api<Lease> = Api::namespaced(client.clone(), "kube-system");
    wait_for("the Lease is held", &[&manager], || async {
        leases
            .get_opt("cloud-controller-manager")
            .await
            .ok()
            .flatten()
            .and_then(|l| l.spec?.holder_identity)
    })
    .await;

    // A LoadBalancer Service: created, updated (second port), deleted.
    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    create_web_until_served(&services, &[&manager]).await;
    let before = lb_puts(&fake).await;
    let second_port = json!({"spec": {"ports": [
        {"name": "http", "protocol": "TCP", "port": 80, "nodePort": 30080},
        {"name": "https", "protocol": "TCP", "port": 443, "nodePort": 30443}]}});
    services
        .patch("web", &PatchParams::default(), &Patch::Merge(&second_port))
        .await
        .expect("update service");
    wait_for(
        "the update reaches the load balancer",
        &[&manager],
        || async { (lb_puts(&fake).await > before).then_some(()) },
    )
    .await;
    delete_until_gone(&services, "web", &[&manager]).await;

    // cloud-node-lifecycle: a NotReady Node whose VM is deallocated gets the shutdown taint, one
    // whose VM is gone is deleted (the kubelet never posted Ready here).
    let (shut, gone) = (&agents[0].0, &agents[1].0);
    let (status, body) = fake
        .admin(
            reqwest::Method::POST,
            &format!("/admin/compute/nodes/{shut}/power-state"),
            Some(json!({"state": "deallocated"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = fake
        .admin(
            reqwest::Method::DELETE,
            &format!("/admin/compute/nodes/{gone}"),
            None,
        )
        .await;
    assert!(status < 300, "{status} {body}");
    wait_for("the shutdown taint", &[&manager], || async {
        nodes.get(shut).await.ok().filter(|n| {
            n.spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .is_some_and(|t| t.iter().any(|t| t.key == SHUTDOWN_TAINT))
        })
    })
    .await;
    wait_for(
        "the Node of the deleted VM is deleted",
        &[&manager],
        || async {
            nodes
                .get_opt(gone)
                .await
                .ok()
                .and_then(|n| n.is_none().then_some(()))
        },
    )
    .await;

    // SIGTERM: the CCM releases its Lease; the CNMs stop.
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
    drop(node_managers);

    let mut report = String::new();
    let mut missing = BTreeMap::new();
    let mut unexplained = Vec::new();
    for (user, docs) in [(CCM_USER, &ccm_docs), (CNM_USER, &cnm_docs)] {
        let sa = user.rsplit(':').next().expect("service account name");
        let calls = calls_by(&audit, user);
        assert!(
            calls
                .iter()
                .any(|c| c.resource == "events" && c.verb == "create"),
            "{user} posted no event: {calls:#?}"
        );
        let grants = sa_grants(docs, sa);
        let denied = denied(&grants, &calls);
        if !denied.is_empty() {
            missing.insert(user, explain(&denied));
        }
        report.push_str(&format!("{user}: {} distinct calls\n", calls.len()));
        for call in &calls {
            report.push_str(&format!("  {call}\n"));
        }
        report.push_str(&format!("{user}: granted but never used\n"));
        for p in unused(&grants, &calls) {
            let resource = format!(
                "{}/{}",
                if p.group.is_empty() { "core" } else { &p.group },
                p.resource
            );
            let kept = KEPT_UNUSED.iter().find(|(r, verb, res, _)| {
                p.role.contains(r) && *verb == p.verb && *res == resource
            });
            match kept {
                Some((_, _, _, why)) => report.push_str(&format!("  {p} (kept: {why})\n")),
                None => {
                    report.push_str(&format!("  {p} (NO REASON)\n"));
                    unexplained.push(p.to_string());
                }
            }
        }
    }
    println!("{report}");
    assert!(
        missing.is_empty(),
        "calls the generated RBAC does not allow:\n{missing:#?}\n{report}"
    );
    assert!(
        unexplained.is_empty(),
        "generated permissions never used and not in KEPT_UNUSED: {unexplained:#?}\n{report}"
    );
}

/// With `--leader-migration` (out-of-tree 1.30, node IPAM left to kube-controller-manager) the
/// CCM campaigns for the migration Lease too, with the generated LeaderMigrationConfiguration.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_rbac_allows_the_leader_migration_leases() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.log");
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let api = ApiServer::start_with(&["--audit-log-path", audit.to_str().expect("utf-8 path")]);
    let config = azure_json(&fake, dir.path());
    let mut o = options();
    o.version = KubeVersion::from_minor(30).expect("1.30");
    o.leader_migration = true;
    let bundle = ccm_manifests::generate(&o).expect("bundle");
    let migration = dir.path().join("leader-migration.yaml");
    let text = &bundle
        .file("leader-migration.yaml")
        .expect("LeaderMigrationConfiguration")
        .contents;
    std::fs::write(&migration, text).expect("write the migration config");
    let docs = parse(cloud_controller_manager::documents(&o).expect("CCM manifest"));
    let kubeconfig = api
        .kubeconfig_for(CCM_USER, Some("system:serviceaccounts"))
        .await;
    let flags: Vec<String> = adapted(
        generated_flags(&docs, "Deployment"),
        &[
            ("--cloud-config", config.display().to_string()),
            ("--kubeconfig", kubeconfig.display().to_string()),
            ("--leader-migration-config", migration.display().to_string()),
        ],
    )
    .into_iter()
    .filter(|f| !f.starts_with("--secure-port="))
    .collect();
    assert!(
        flags.iter().any(|f| f == "--enable-leader-migration=true"),
        "{flags:?}"
    );
    let flag_refs: Vec<&str> = flags.iter().map(String::as_str).collect();
    let manager = Manager::start_raw(&fake, &flag_refs);
    let leases: Api<Lease> = Api::namespaced(api.client().await, "kube-system");
    wait_for("the migration Lease is held", &[&manager], || async {
        leases
            .get_opt("cloud-provider-extraction-migration")
            .await
            .ok()
            .flatten()
            .and_then(|l| l.spec?.holder_identity)
    })
    .await;
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
    let calls = calls_by(&audit, CCM_USER);
    assert!(
        calls
            .iter()
            .any(|c| c.verb == "update" && c.name == "cloud-provider-extraction-migration"),
        "{calls:#?}"
    );
    let grants = sa_grants(&docs, "cloud-controller-manager");
    let denied = denied(&grants, &calls);
    assert!(
        denied.is_empty(),
        "calls the generated RBAC does not allow:\n{}",
        explain(&denied)
    );
}

/// The checker itself: a call outside the generated roles is reported (so the test above can fail).
#[test]
fn a_call_outside_the_generated_roles_is_denied() {
    let docs = parse(cloud_controller_manager::documents(&options()).expect("CCM manifest"));
    let grants = sa_grants(&docs, "cloud-controller-manager");
    let call = |verb: &str, group: &str, resource: &str, sub: &str, ns: &str, name: &str| Call {
        verb: verb.to_string(),
        group: group.to_string(),
        resource: resource.to_string(),
        subresource: sub.to_string(),
        namespace: ns.to_string(),
        name: name.to_string(),
        path: String::new(),
    };
    let allowed = |c: &Call| grants.iter().any(|g| allows(g, c));
    assert!(allowed(&call(
        "patch", "", "services", "status", "default", "web"
    )));
    assert!(allowed(&call(
        "update",
        "coordination.k8s.io",
        "leases",
        "",
        "kube-system",
        "cloud-controller-manager"
    )));
    // Name-restricted: another Lease, or the right one in another namespace, is denied.
    assert!(!allowed(&call(
        "update",
        "coordination.k8s.io",
        "leases",
        "",
        "kube-system",
        "other"
    )));
    assert!(!allowed(&call(
        "update",
        "coordination.k8s.io",
        "leases",
        "",
        "default",
        "cloud-controller-manager"
    )));
    assert!(!allowed(&call(
        "update", "", "services", "", "default", "web"
    )));
    assert!(!allowed(&call(
        "get",
        "",
        "secrets",
        "",
        "kube-system",
        "azure"
    )));
    assert!(!allowed(&call(
        "patch", "", "services", "scale", "default", "web"
    )));
    // Built-in roles the manifests bind: the authentication reader, by name, in kube-system.
    assert!(allowed(&call(
        "get",
        "",
        "configmaps",
        "",
        "kube-system",
        "extension-apiserver-authentication"
    )));
    assert!(!allowed(&call(
        "get",
        "",
        "configmaps",
        "",
        "kube-system",
        "other"
    )));
    let discovery = Call {
        path: "/apis/coordination.k8s.io/v1".to_string(),
        ..call("get", "", "", "", "", "")
    };
    assert!(allowed(&discovery));
}
