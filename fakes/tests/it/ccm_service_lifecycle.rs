//! Replays, over HTTPS against the real binaries, the calls a production cloud-controller-manager makes
//! across the life of two `type: LoadBalancer` Services (one public, one internal) on an availability-set
//! topology and on a uniform scale-set topology: the cleanup finalizer added through `/status`, the public
//! IP and load balancer PUTs (with `If-Match`), the internal pool joined through NIC PUTs or a sparse scale-set
//! PUT plus instance PUTs, a port removed, and deletion (one LB PUT dropping rule, frontend and probe
//! together; the internal LB deleted while NICs still reference its pool; the public IP deleted), and the
//! finalizer removed through `/status`. Afterwards every VM and scale-set instance is still there and no
//! Service resource is left in Azure or Kubernetes.

use reqwest::Method;
use serde_json::{Value, json};

use crate::api_server::ApiServer;
use crate::support::{Session, app_registration, header};

const CLUSTER: &str = "kubernetes";
const CLEANUP: &str = "service.kubernetes.io/load-balancer-cleanup";
const SERVICE_TAG: &str = "k8s-azure-service";

const SERVICES: &str = "apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  type: LoadBalancer
  selector: {app: web}
  ports:
    - {name: http, port: 80, targetPort: 8080, protocol: TCP}
    - {name: https, port: 443, targetPort: 8443, protocol: TCP}
---
apiVersion: v1
kind: Service
metadata:
  name: internal
  namespace: default
  annotations:
    service.beta.kubernetes.io/azure-load-balancer-internal: \"true\"
spec:
  type: LoadBalancer
  selector: {app: internal}
  ports:
    - {name: grpc, port: 9000, targetPort: 9000, protocol: TCP}
";

/// How the cluster's nodes join a load balancer's backend pool.
enum Members {
    /// Availability-set VMs: each NIC's primary ipconfig, one NIC PUT per node.
    Nics(Vec<String>),
    /// A uniform scale set: the model (sparse PUT) and then each instance.
    ScaleSet(String),
}

/// One fake cloud, one embedded API server, and the topology facts the replay needs.
struct Replay {
    arm: Session,
    kube: ApiServer,
    _kube_dir: tempfile::TempDir,
    location: String,
    subnet: String,
    members: Members,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_life_on_an_availability_set_cluster_leaves_nothing_behind() {
    let arm = Session::small(&["--lro-polls", "1"]).await;
    let vms = arm
        .get(&arm.id("Microsoft.Compute/virtualMachines"))
        .await
        .body;
    let nics: Vec<String> = vms["value"]
        .as_array()
        .expect("VM list")
        .iter()
        .filter(|vm| !vm["properties"]["availabilitySet"].is_null())
        .map(|vm| {
            vm["properties"]["networkProfile"]["networkInterfaces"][0]["id"]
                .as_str()
                .expect("NIC id")
                .to_string()
        })
        .collect();
    assert_eq!(nics.len(), 2, "small.yaml has two availability-set agents");
    let subnet = arm.id("Microsoft.Network/virtualNetworks/k8s-vnet/subnets/k8s-subnet");
    let replay = Replay::new(arm, "eastus", subnet, Members::Nics(nics));
    replay.run().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_life_on_a_scale_set_cluster_keeps_every_instance() {
    let topology = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/zonal-vmss.yaml"),
    )
    .expect("zonal-vmss.yaml");
    let topology = format!("{topology}\n{}", app_registration());
    let rg = "MC_zonal_cluster_westeurope";
    let arm = Session::with_topology(&topology, rg, &["--lro-polls", "1"]).await;
    let vmss = arm.id("Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-12345678-vmss");
    let subnet = arm.id("Microsoft.Network/virtualNetworks/aks-vnet-12345678/subnets/aks-subnet");
    let replay = Replay::new(arm, "westeurope", subnet, Members::ScaleSet(vmss));
    replay.run().await;
}

impl Replay {
    fn new(arm: Session, location: &str, subnet: String, members: Members) -> Replay {
        let kube_dir = tempfile::tempdir().expect("tempdir");
        let kube = ApiServer::start(kube_dir.path());
        Replay {
            arm,
            kube,
            _kube_dir: kube_dir,
            location: location.to_string(),
            subnet,
            members,
        }
    }

    async fn run(&self) {
        let fleet_before = self.fleet().await;
        self.kube.kubectl_ok(&["apply", "-f", "-"], Some(SERVICES));

        // Public Service: finalizer first, then PIP, then the cluster LB.
        let web = self.uid("web");
        self.add_finalizer("web");
        let web_node_ports = self.node_ports("web");
        let pip_id = self.arm.id(&format!(
            "Microsoft.Network/publicIPAddresses/{CLUSTER}-a{web}"
        ));
        let pip = self
            .arm
            .put_ok(
                &pip_id,
                json!({"location": self.location, "sku": {"name": "Standard", "tier": "Regional"},
                    "tags": {SERVICE_TAG: "default/web", "k8s-azure-cluster-name": CLUSTER},
                    "properties": {"publicIPAllocationMethod": "Static", "publicIPAddressVersion": "IPv4"}}),
            )
            .await;
        let public_ip = pip["properties"]["ipAddress"]
            .as_str()
            .expect("a Standard static PIP has its address once created")
            .to_string();
        let public_lb = self
            .arm
            .id(&format!("Microsoft.Network/loadBalancers/{CLUSTER}"));
        self.edit(&public_lb, |lb| {
            let frontend = json!({"publicIPAddress": {"id": pip_id}});
            add_service(
                lb,
                &public_lb,
                &web,
                frontend,
                &[(80, web_node_ports[0]), (443, web_node_ports[1])],
            );
        })
        .await;
        self.patch_ingress("web", json!({"ip": public_ip}));

        // Internal Service: a new internal LB, then the nodes join its pool.
        let internal = self.uid("internal");
        self.add_finalizer("internal");
        let internal_node_port = self.node_ports("internal")[0];
        let internal_lb = self.arm.id(&format!(
            "Microsoft.Network/loadBalancers/{CLUSTER}-internal"
        ));
        assert_eq!(self.arm.get(&internal_lb).await.status, 404);
        let mut lb = json!({"location": self.location, "sku": {"name": "Standard"},
            "properties": {"backendAddressPools": [{"name": CLUSTER}]}});
        let frontend =
            json!({"privateIPAllocationMethod": "Dynamic", "subnet": {"id": self.subnet}});
        add_service(
            &mut lb,
            &internal_lb,
            &internal,
            frontend,
            &[(9000, internal_node_port)],
        );
        let created = self.arm.put_ok(&internal_lb, lb).await;
        let private_ip =
            created["properties"]["frontendIPConfigurations"][0]["properties"]["privateIPAddress"]
                .as_str()
                .expect("internal frontend address")
                .to_string();
        let internal_pool = format!("{internal_lb}/backendAddressPools/{CLUSTER}");
        self.join_pool(&internal_pool, true).await;
        assert_eq!(
            self.fleet().await,
            fleet_before,
            "joining a pool keeps every VM and instance (and the scale set's capacity)"
        );
        self.patch_ingress("internal", json!({"ip": private_ip}));

        // Port removal: the 443 rule and its probe go in one PUT, the frontend stays.
        self.kube.kubectl_ok(
            &[
                "patch",
                "service",
                "web",
                "--type=json",
                "-p",
                r#"[{"op":"remove","path":"/spec/ports/1"}]"#,
            ],
            None,
        );
        self.edit(&public_lb, |lb| {
            remove_named(lb, &format!("a{web}-TCP-443"))
        })
        .await;

        // Deleting the public Service: rule, frontend and probe leave in one LB PUT, then the PIP goes.
        self.kube
            .kubectl_ok(&["delete", "service", "web", "--wait=false"], None);
        assert!(self.terminating("web"), "the finalizer holds the Service");
        self.edit(&public_lb, |lb| remove_named(lb, &format!("a{web}")))
            .await;
        self.delete(&pip_id).await;
        self.remove_finalizer("web");

        // Deleting the internal Service: scale sets leave the pool first (their model references block
        // the LB delete); availability-set NICs still reference it when the whole LB is deleted.
        self.kube
            .kubectl_ok(&["delete", "service", "internal", "--wait=false"], None);
        assert!(self.terminating("internal"));
        if matches!(self.members, Members::ScaleSet(_)) {
            self.join_pool(&internal_pool, false).await;
        }
        self.delete(&internal_lb).await;
        self.remove_finalizer("internal");

        self.assert_nothing_left(&public_lb, &internal_lb, &fleet_before)
            .await;
    }

    /// The Service's UID, as the CCM names its Azure resources by it (`a` + UID without dashes).
    fn uid(&self, service: &str) -> String {
        self.kube
            .kubectl_ok(
                &["get", "service", service, "-o", "jsonpath={.metadata.uid}"],
                None,
            )
            .replace('-', "")
    }

    fn node_ports(&self, service: &str) -> Vec<u64> {
        let out = self.kube.kubectl_ok(
            &[
                "get",
                "service",
                service,
                "-o",
                "jsonpath={.spec.ports[*].nodePort}",
            ],
            None,
        );
        out.split_whitespace()
            .map(|p| p.parse().expect("nodePort"))
            .collect()
    }

    fn finalizers(&self, service: &str) -> String {
        self.kube.kubectl_ok(
            &[
                "get",
                "service",
                service,
                "-o",
                "jsonpath={.metadata.finalizers}",
            ],
            None,
        )
    }

    /// `kubectl patch --subresource=status` of a Service with a patch of `kind` (strategic, merge).
    fn patch_status(&self, service: &str, kind: &str, patch: &str) {
        let kind = format!("--type={kind}");
        self.kube.kubectl_ok(
            &[
                "patch",
                "service",
                service,
                "--subresource=status",
                &kind,
                "-p",
                patch,
            ],
            None,
        );
    }

    /// What `servicehelper.PatchService` sends: a strategic merge patch of metadata to `/status`.
    fn add_finalizer(&self, service: &str) {
        let patch = json!({"metadata": {"finalizers": [CLEANUP]}}).to_string();
        self.patch_status(service, "strategic", &patch);
        assert!(
            self.finalizers(service).contains(CLEANUP),
            "finalizer written through /status is kept"
        );
    }

    fn remove_finalizer(&self, service: &str) {
        let patch =
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [CLEANUP]}}).to_string();
        self.patch_status(service, "strategic", &patch);
        let (found, out) = self.kube.kubectl(&["get", "service", service], None);
        assert!(
            !found && out.contains("NotFound"),
            "removing the last finalizer of a deleted Service completes its deletion: {out}"
        );
    }

    fn terminating(&self, service: &str) -> bool {
        !self
            .kube
            .kubectl_ok(
                &[
                    "get",
                    "service",
                    service,
                    "-o",
                    "jsonpath={.metadata.deletionTimestamp}",
                ],
                None,
            )
            .trim()
            .is_empty()
    }

    fn patch_ingress(&self, service: &str, ingress: Value) {
        let patch = json!({"status": {"loadBalancer": {"ingress": [ingress.clone()]}}}).to_string();
        self.patch_status(service, "merge", &patch);
        let ip = self.kube.kubectl_ok(
            &[
                "get",
                "service",
                service,
                "-o",
                "jsonpath={.status.loadBalancer.ingress[0].ip}",
            ],
            None,
        );
        assert_eq!(ip, ingress["ip"].as_str().expect("ip"));
        assert!(
            self.finalizers(service).contains(CLEANUP),
            "a status patch keeps the finalizer"
        );
    }

    /// GET, edit, PUT with `If-Match` of the ETag read, and wait for the operation (if the kind starts one).
    async fn edit(&self, id: &str, edit: impl FnOnce(&mut Value)) {
        let current = self.arm.get(id).await;
        assert_eq!(current.status, 200, "GET {id}: {}", current.body);
        let mut doc = current.body;
        let etag = doc["etag"].as_str().expect("etag").to_string();
        edit(&mut doc);
        self.put_if_match(id, doc, &etag).await;
    }

    async fn put_if_match(&self, id: &str, body: Value, etag: &str) {
        let api = if id.to_ascii_lowercase().contains("/microsoft.compute/") {
            crate::support::COMPUTE_API
        } else {
            crate::support::NET_API
        };
        let response = self
            .arm
            .fake
            .arm_with(
                &self.arm.token,
                Method::PUT,
                &format!("{id}?{api}"),
                Some(body),
                &[("if-match", etag)],
            )
            .await;
        let status = response.status().as_u16();
        let operation = header(&response, "azure-asyncoperation");
        let text = response.text().await.expect("PUT body");
        assert!(matches!(status, 200 | 201), "PUT {id}: {status} {text}");
        if !operation.is_empty() {
            let done = self.arm.fake.poll(&self.arm.token, &operation).await;
            assert_eq!(done["status"], "Succeeded", "PUT {id}: {done}");
        }
        let now = self.arm.get(id).await;
        assert_eq!(
            now.body["properties"]["provisioningState"], "Succeeded",
            "{id}"
        );
    }

    async fn delete(&self, id: &str) {
        let reply = self.arm.send(Method::DELETE, id, None).await;
        assert!(
            matches!(reply.status, 200 | 202 | 204),
            "DELETE {id}: {} {}",
            reply.status,
            reply.body
        );
        self.arm.settle(&reply).await;
        assert_eq!(self.arm.get(id).await.status, 404, "{id} is gone");
    }

    /// Adds (`join`) or removes the cluster's nodes from `pool` the way the CCM does for each VM kind.
    async fn join_pool(&self, pool: &str, join: bool) {
        let set = |ipconfig: &mut Value| {
            let props = &mut ipconfig["properties"];
            let mut pools: Vec<Value> = props["loadBalancerBackendAddressPools"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            pools.retain(|p| {
                !p["id"]
                    .as_str()
                    .unwrap_or_default()
                    .eq_ignore_ascii_case(pool)
            });
            if join {
                pools.push(json!({"id": pool}));
            }
            props["loadBalancerBackendAddressPools"] = Value::Array(pools);
        };
        match &self.members {
            Members::Nics(nics) => {
                for nic in nics {
                    self.edit(
                        nic,
                        |doc| set(&mut doc["properties"]["ipConfigurations"][0]),
                    )
                    .await;
                }
            }
            Members::ScaleSet(vmss) => {
                // The model: only location, etag and the network profile, as the CCM sends it.
                let current = self.arm.get(vmss).await.body;
                let etag = current["etag"].as_str().expect("VMSS etag").to_string();
                let mut network =
                    current["properties"]["virtualMachineProfile"]["networkProfile"].clone();
                set(
                    &mut network["networkInterfaceConfigurations"][0]["properties"]["ipConfigurations"]
                        [0],
                );
                let sparse = json!({"location": current["location"], "etag": etag,
                    "properties": {"virtualMachineProfile": {"networkProfile": network}}});
                self.put_if_match(vmss, sparse, &etag).await;
                // Then each instance's own network profile.
                let instances = self.arm.get(&format!("{vmss}/virtualMachines")).await.body;
                for instance in instances["value"].as_array().expect("instances") {
                    let id = instance["id"].as_str().expect("instance id");
                    self.edit(id, |doc| {
                        set(&mut doc["properties"]["networkProfileConfiguration"]["networkInterfaceConfigurations"][0]
                            ["properties"]["ipConfigurations"][0]);
                    })
                    .await;
                }
            }
        }
    }

    /// Every VM and scale-set instance id, and the scale set's capacity, zones, tags and identity.
    async fn fleet(&self) -> Value {
        match &self.members {
            Members::Nics(_) => {
                let vms = self
                    .arm
                    .get(&self.arm.id("Microsoft.Compute/virtualMachines"))
                    .await
                    .body;
                let mut ids: Vec<&str> = vms["value"]
                    .as_array()
                    .expect("VM list")
                    .iter()
                    .map(|vm| vm["id"].as_str().expect("id"))
                    .collect();
                ids.sort_unstable();
                json!(ids)
            }
            Members::ScaleSet(vmss) => {
                let model = self.arm.get(vmss).await.body;
                let instances = self.arm.get(&format!("{vmss}/virtualMachines")).await.body;
                let mut ids: Vec<&str> = instances["value"]
                    .as_array()
                    .expect("instances")
                    .iter()
                    .map(|i| i["id"].as_str().expect("id"))
                    .collect();
                ids.sort_unstable();
                json!({"sku": model["sku"], "zones": model["zones"], "tags": model["tags"],
                    "identity": model["identity"], "instances": ids})
            }
        }
    }

    async fn assert_nothing_left(&self, public_lb: &str, internal_lb: &str, fleet_before: &Value) {
        let services = self
            .kube
            .kubectl_ok(&["get", "services", "-o", "name"], None);
        assert!(
            !services.contains("service/web") && !services.contains("service/internal"),
            "{services}"
        );
        assert_eq!(
            &self.fleet().await,
            fleet_before,
            "every VM and instance survives"
        );
        assert_eq!(self.arm.get(internal_lb).await.status, 404);

        let lb = self.arm.get(public_lb).await.body;
        let props = &lb["properties"];
        let frontends: Vec<&str> = props["frontendIPConfigurations"]
            .as_array()
            .expect("frontends")
            .iter()
            .map(|f| f["name"].as_str().expect("name"))
            .collect();
        assert_eq!(
            frontends,
            ["outbound"],
            "only the topology's frontend is left"
        );
        for collection in ["loadBalancingRules", "probes"] {
            assert!(
                props[collection].as_array().is_none_or(Vec::is_empty),
                "{collection} left: {}",
                props[collection]
            );
        }

        let pips = self
            .arm
            .get(&self.arm.id("Microsoft.Network/publicIPAddresses"))
            .await
            .body;
        for pip in pips["value"].as_array().expect("PIP list") {
            assert!(
                pip["tags"][SERVICE_TAG].is_null(),
                "service PIP left: {}",
                pip["id"]
            );
        }

        let nics = self
            .arm
            .get(&self.arm.id("Microsoft.Network/networkInterfaces"))
            .await
            .body;
        let text = nics.to_string().to_ascii_lowercase();
        assert!(
            !text.contains(&format!("/loadbalancers/{CLUSTER}-internal/")),
            "no NIC references the deleted internal LB"
        );
        if let Members::ScaleSet(vmss) = &self.members {
            let model = self
                .arm
                .get(vmss)
                .await
                .body
                .to_string()
                .to_ascii_lowercase();
            assert!(!model.contains(&format!("/loadbalancers/{CLUSTER}-internal/")));
            let instances = self
                .arm
                .get(&format!("{vmss}/virtualMachines"))
                .await
                .body
                .to_string()
                .to_ascii_lowercase();
            assert!(!instances.contains(&format!("/loadbalancers/{CLUSTER}-internal/")));
        }
    }
}

/// Adds a Service's frontend, and a probe and rule per (port, nodePort), named as the CCM names them.
fn add_service(lb: &mut Value, lb_id: &str, uid: &str, frontend: Value, ports: &[(u64, u64)]) {
    let props = &mut lb["properties"];
    let name = format!("a{uid}");
    push(
        props,
        "frontendIPConfigurations",
        json!({"name": name, "properties": frontend}),
    );
    for (port, node_port) in ports {
        let rule = format!("a{uid}-TCP-{port}");
        push(
            props,
            "probes",
            json!({"name": rule, "properties": {"protocol": "Tcp", "port": node_port,
                "intervalInSeconds": 5, "numberOfProbes": 2, "probeThreshold": 2}}),
        );
        let pool = format!("{lb_id}/backendAddressPools/{CLUSTER}");
        push(
            props,
            "loadBalancingRules",
            json!({"name": rule, "properties": {
                "protocol": "Tcp", "frontendPort": port, "backendPort": port,
                "frontendIPConfiguration": {"id": format!("{lb_id}/frontendIPConfigurations/{name}")},
                "backendAddressPool": {"id": pool}, "backendAddressPools": [{"id": pool}],
                "probe": {"id": format!("{lb_id}/probes/{rule}")},
                "enableFloatingIP": true, "enableTcpReset": true, "disableOutboundSnat": true,
                "idleTimeoutInMinutes": 4, "loadDistribution": "Default"}}),
        );
    }
}

fn push(props: &mut Value, collection: &str, item: Value) {
    if !props[collection].is_array() {
        props[collection] = json!([]);
    }
    props[collection].as_array_mut().expect("array").push(item);
}

/// Drops every frontend, rule and probe whose name is `prefix` or starts with `prefix-`.
fn remove_named(lb: &mut Value, prefix: &str) {
    for collection in ["frontendIPConfigurations", "loadBalancingRules", "probes"] {
        if let Some(items) = lb["properties"][collection].as_array_mut() {
            items.retain(|item| {
                let name = item["name"].as_str().unwrap_or_default();
                name != prefix && !name.starts_with(&format!("{prefix}-"))
            });
        }
    }
}
