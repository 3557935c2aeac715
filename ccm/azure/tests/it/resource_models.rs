//! Every document the real `azure-fakes` serves for each example topology goes GET → typed model
//! → JSON and comes back equal as a JSON value: the models drop nothing a PUT would need to send
//! back. Lists (with `nextLink` paging and `$expand=instanceView`), single GETs and the Compute
//! provider metadata are all covered; a subnet is then modified through its model and PUT, and
//! the fields nobody touched survive.

use ccm_azure::arm::api_versions::{CloudFlavor, ResourceType};
use ccm_azure::arm::resource_id::{ProviderId, ResourceId};
use ccm_azure::arm::resources::{
    AvailabilitySet, LoadBalancer, NetworkInterface, NetworkSecurityGroup, Page,
    PrivateLinkService, PublicIpAddress, PublicIpPrefix, ResourceProvider, RouteTable, ScaleSetVm,
    Subnet, VirtualMachine, VirtualMachineScaleSet, VirtualNetwork,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::fake_azure::{FakeAzure, example};

pub(crate) const READER_CLIENT_ID: &str = "5c0ffee0-1d2e-4f30-8a41-b52c63d74e85";
pub(crate) const READER_SECRET: &str = "models-reader-secret";

/// The example topology with one more app (client secret) the test reads ARM with.
pub(crate) fn with_reader_app(name: &str, dir: &std::path::Path) -> std::path::PathBuf {
    with_reader_app_file(&example(name), dir)
}

/// [`with_reader_app`] for a topology file anywhere (the bench's own topologies).
pub(crate) fn with_reader_app_file(
    file: &std::path::Path,
    dir: &std::path::Path,
) -> std::path::PathBuf {
    fake_process::with_app(file, dir, "models-reader", READER_CLIENT_ID, READER_SECRET)
}

/// ARM reader: a token from the fake's Entra ID, then GETs.
pub(crate) struct Arm<'a> {
    pub(crate) fake: &'a FakeAzure,
    pub(crate) token: String,
}

impl<'a> Arm<'a> {
    pub(crate) async fn new(fake: &'a FakeAzure) -> Arm<'a> {
        let response = fake
            .http
            .post(format!("{}/{}/oauth2/v2.0/token", fake.base, fake.tenant))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(
                url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs([
                        ("grant_type", "client_credentials"),
                        ("client_id", READER_CLIENT_ID),
                        ("client_secret", READER_SECRET),
                        ("scope", "https://management.azure.com/.default"),
                    ])
                    .finish(),
            )
            .send()
            .await
            .expect("token request");
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("token JSON");
        let token = body["access_token"].as_str().expect("token").to_string();
        Arm { fake, token }
    }

    /// GET an absolute URL or an ARM path; the body as JSON.
    pub(crate) async fn get(&self, url_or_path: &str) -> Value {
        let url = if url_or_path.starts_with("https://") {
            url_or_path.to_string()
        } else {
            format!("{}{url_or_path}", self.fake.base)
        };
        let response = self
            .fake
            .http
            .get(&url)
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("ARM GET");
        let status = response.status().as_u16();
        let body: Value = response.json().await.expect("ARM JSON");
        assert_eq!(status, 200, "GET {url}: {body}");
        body
    }

    /// Every item of a collection, following `nextLink`; each raw page must round-trip too.
    async fn list<T: DeserializeOwned + Serialize>(&self, path: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let mut next = Some(path.to_string());
        while let Some(url) = next {
            let page = self.get(&url).await;
            round_trip::<Page<T>>(&page, &url);
            next = page["nextLink"].as_str().map(str::to_string);
            items.extend(page["value"].as_array().cloned().unwrap_or_default());
        }
        items
    }
}

/// Deserializes `doc` as `T`, serializes it back and requires the same JSON value, but for the
/// load balancer pools' read-only member lists, which the model skips on purpose.
pub(crate) fn round_trip<T: DeserializeOwned + Serialize>(doc: &Value, what: &str) -> T {
    let typed: T = serde_json::from_value(doc.clone())
        .unwrap_or_else(|e| panic!("{what}: does not deserialize: {e}\n{doc}"));
    let back = serde_json::to_value(&typed).expect("serialize");
    if &back != doc {
        let mut expected = doc.clone();
        without_pool_members(&mut expected);
        assert_eq!(back, expected, "{what}: round trip changed the document");
    }
    typed
}

/// Removes `backendAddressPools[].properties.backendIPConfigurations` at any depth (a load
/// balancer, or a page of them).
fn without_pool_members(doc: &mut Value) {
    match doc {
        Value::Object(map) => {
            if let Some(Value::Array(pools)) = map.get_mut("backendAddressPools") {
                for pool in pools.iter_mut() {
                    if let Some(props) = pool.get_mut("properties").and_then(Value::as_object_mut) {
                        props.remove("backendIPConfigurations");
                    }
                }
            }
            map.values_mut().for_each(without_pool_members);
        }
        Value::Array(items) => items.iter_mut().for_each(without_pool_members),
        _ => {}
    }
}

/// Round-trips one document by its ARM `type`; returns whether the type is one we model.
fn round_trip_by_type(doc: &Value, what: &str) -> bool {
    let kind = doc["type"]
        .as_str()
        .unwrap_or_default()
        .to_ascii_lowercase();
    match kind.as_str() {
        "microsoft.compute/virtualmachines" => drop(round_trip::<VirtualMachine>(doc, what)),
        "microsoft.compute/virtualmachinescalesets" => {
            drop(round_trip::<VirtualMachineScaleSet>(doc, what))
        }
        "microsoft.compute/virtualmachinescalesets/virtualmachines" => {
            drop(round_trip::<ScaleSetVm>(doc, what))
        }
        "microsoft.compute/availabilitysets" => drop(round_trip::<AvailabilitySet>(doc, what)),
        "microsoft.network/networkinterfaces" => drop(round_trip::<NetworkInterface>(doc, what)),
        "microsoft.network/publicipaddresses" => drop(round_trip::<PublicIpAddress>(doc, what)),
        "microsoft.network/publicipprefixes" => drop(round_trip::<PublicIpPrefix>(doc, what)),
        "microsoft.network/loadbalancers" => drop(round_trip::<LoadBalancer>(doc, what)),
        "microsoft.network/networksecuritygroups" => {
            drop(round_trip::<NetworkSecurityGroup>(doc, what))
        }
        "microsoft.network/routetables" => drop(round_trip::<RouteTable>(doc, what)),
        "microsoft.network/virtualnetworks" => drop(round_trip::<VirtualNetwork>(doc, what)),
        "microsoft.network/virtualnetworks/subnets" => drop(round_trip::<Subnet>(doc, what)),
        "microsoft.network/privatelinkservices" => {
            drop(round_trip::<PrivateLinkService>(doc, what))
        }
        _ => return false,
    }
    true
}

fn api(t: ResourceType) -> &'static str {
    t.api_version(CloudFlavor::Public)
}

/// The ARM api-version for a document id, by its type.
fn api_for(id: &ResourceId) -> &'static str {
    let types: Vec<String> = id.types().map(|(t, _)| t.to_ascii_lowercase()).collect();
    let types: Vec<&str> = types.iter().map(String::as_str).collect();
    match (
        id.namespace().to_ascii_lowercase().as_str(),
        types.as_slice(),
    ) {
        ("microsoft.compute", ["virtualmachines"]) => api(ResourceType::VirtualMachines),
        ("microsoft.compute", ["virtualmachinescalesets"]) => {
            api(ResourceType::VirtualMachineScaleSets)
        }
        ("microsoft.compute", ["virtualmachinescalesets", "virtualmachines"]) => {
            api(ResourceType::ScaleSetVms)
        }
        ("microsoft.compute", ["availabilitysets"]) => api(ResourceType::AvailabilitySets),
        ("microsoft.compute", [_, _, ..]) => api(ResourceType::ScaleSetVmNetwork),
        ("microsoft.network", ["networkinterfaces"]) => api(ResourceType::NetworkInterfaces),
        ("microsoft.network", ["publicipaddresses"]) => api(ResourceType::PublicIpAddresses),
        ("microsoft.network", ["publicipprefixes"]) => api(ResourceType::PublicIpPrefixes),
        ("microsoft.network", ["loadbalancers", ..]) => api(ResourceType::LoadBalancers),
        ("microsoft.network", ["networksecuritygroups", ..]) => {
            api(ResourceType::NetworkSecurityGroups)
        }
        ("microsoft.network", ["routetables", ..]) => api(ResourceType::RouteTables),
        ("microsoft.network", ["virtualnetworks", ..]) => api(ResourceType::VirtualNetworks),
        ("microsoft.network", ["privatelinkservices"]) => api(ResourceType::PrivateLinkServices),
        _ => panic!("no api-version for {id}"),
    }
}

/// Collections listed per resource group: (ARM type path, api-version, `$expand`).
const RG_COLLECTIONS: &[(&str, ResourceType, bool)] = &[
    (
        "Microsoft.Compute/virtualMachines",
        ResourceType::VirtualMachines,
        true,
    ),
    (
        "Microsoft.Compute/virtualMachineScaleSets",
        ResourceType::VirtualMachineScaleSets,
        false,
    ),
    (
        "Microsoft.Compute/availabilitySets",
        ResourceType::AvailabilitySets,
        false,
    ),
    (
        "Microsoft.Network/networkInterfaces",
        ResourceType::NetworkInterfaces,
        false,
    ),
    (
        "Microsoft.Network/publicIPAddresses",
        ResourceType::PublicIpAddresses,
        false,
    ),
    (
        "Microsoft.Network/publicIPPrefixes",
        ResourceType::PublicIpPrefixes,
        false,
    ),
    (
        "Microsoft.Network/loadBalancers",
        ResourceType::LoadBalancers,
        false,
    ),
    (
        "Microsoft.Network/networkSecurityGroups",
        ResourceType::NetworkSecurityGroups,
        false,
    ),
    (
        "Microsoft.Network/routeTables",
        ResourceType::RouteTables,
        false,
    ),
    (
        "Microsoft.Network/virtualNetworks",
        ResourceType::VirtualNetworks,
        false,
    ),
    (
        "Microsoft.Network/privateLinkServices",
        ResourceType::PrivateLinkServices,
        false,
    ),
];

/// Single GETs per snapshot kind at most this many (the 1000-node topology is covered by lists).
const GETS_PER_KIND: usize = 25;

/// Round-trips every document of `topology`; returns how many were checked.
async fn round_trip_topology(topology: &str) -> usize {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeAzure::start(&with_reader_app(topology, dir.path()), &[]);
    let arm = Arm::new(&fake).await;
    let sub = fake.subscription.clone();
    let (status, snapshot) = fake.admin(reqwest::Method::GET, "/admin/state", None).await;
    assert_eq!(status, 200);
    let entries = snapshot["arm"]["entries"]
        .as_array()
        .expect("entries")
        .clone();
    let mut checked = 0;

    // Lists, per resource group, with paging.
    let groups: Vec<String> = entries
        .iter()
        .filter(|e| e["kind"] == "ResourceGroup")
        .filter_map(|e| e["doc"]["name"].as_str().map(str::to_string))
        .collect();
    assert!(!groups.is_empty());
    let mut scale_sets = Vec::new();
    for rg in &groups {
        for (path, t, expand) in RG_COLLECTIONS {
            let mut url = format!(
                "/subscriptions/{sub}/resourceGroups/{rg}/providers/{path}?api-version={}",
                api(*t)
            );
            if *expand {
                url.push_str("&$expand=instanceView");
            }
            for doc in arm.list::<Value>(&url).await {
                assert!(
                    round_trip_by_type(&doc, &url),
                    "unmodelled type in {url}: {doc}"
                );
                if *t == ResourceType::VirtualMachineScaleSets {
                    scale_sets.push(doc["id"].as_str().expect("id").to_string());
                }
                if *t == ResourceType::VirtualMachines {
                    // Expanded list documents carry the instance view the power state comes from.
                    let vm: VirtualMachine = serde_json::from_value(doc.clone()).expect("vm");
                    assert!(vm.power_state().is_some(), "{doc}");
                    let id: ResourceId = doc["id"].as_str().expect("id").parse().expect("VM id");
                    let pid = ProviderId::from_resource_id(&id).expect("providerID");
                    assert_eq!(pid.resource_group(), rg.to_lowercase());
                }
                checked += 1;
            }
        }
    }

    // Per scale set: instances (expanded), their NICs and public IPs (the 2018-10-01 API).
    for ss in &scale_sets {
        let vms = format!(
            "{ss}/virtualMachines?api-version={}&$expand=instanceView",
            api(ResourceType::ScaleSetVms)
        );
        for doc in arm.list::<ScaleSetVm>(&vms).await {
            let vm = round_trip::<ScaleSetVm>(&doc, &vms);
            assert!(
                vm.power_state().is_some() && vm.computer_name().is_some(),
                "{doc}"
            );
            // Uniform instances: upstream's providerID, resource group lower-cased.
            let id: ResourceId = vm.id.as_deref().expect("id").parse().expect("instance id");
            let pid = ProviderId::from_resource_id(&id).expect("providerID");
            let instance = vm.instance_id.as_deref().expect("instanceId");
            let ss_id: ResourceId = ss.parse().expect("scale set id");
            let expected = format!(
                "azure:///subscriptions/{sub}/resourceGroups/{}/providers/Microsoft.Compute/virtualMachineScaleSets/{}/virtualMachines/{instance}",
                ss_id.resource_group().expect("rg").to_lowercase(),
                ss_id.name()
            );
            assert_eq!(pid.to_string(), expected);
            assert_eq!(pid.scale_set_instance(), Some((ss_id.name(), instance)));
            checked += 1;
        }
        for child in ["networkInterfaces", "publicIPAddresses"] {
            let url = format!(
                "{ss}/{child}?api-version={}",
                api(ResourceType::ScaleSetVmNetwork)
            );
            for doc in arm.list::<Value>(&url).await {
                assert!(round_trip_by_type(&doc, &url), "{doc}");
                checked += 1;
            }
        }
    }

    // Single GETs of what the snapshot holds (bounded per kind), instance views expanded.
    let mut per_kind = std::collections::HashMap::<String, usize>::new();
    for entry in &entries {
        let kind = entry["kind"].as_str().unwrap_or_default().to_string();
        let Some(id) = entry["doc"]["id"].as_str() else {
            continue;
        };
        if kind == "ResourceGroup" {
            continue;
        }
        let seen = per_kind.entry(kind.clone()).or_default();
        *seen += 1;
        if *seen > GETS_PER_KIND {
            continue;
        }
        let rid: ResourceId = id.parse().unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(rid.to_string(), id, "ids print back as ARM wrote them");
        let mut url = format!("{id}?api-version={}", api_for(&rid));
        if matches!(kind.as_str(), "Vm" | "VmssVm") {
            url.push_str("&$expand=instanceView");
        }
        let doc = arm.get(&url).await;
        assert!(round_trip_by_type(&doc, &url), "unmodelled {kind}: {doc}");
        checked += 1;
        // Children embedded in networks: each subnet on its own.
        if kind == "Vnet" {
            for subnet in doc["properties"]["subnets"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let sid = subnet["id"].as_str().expect("subnet id");
                let url = format!("{sid}?api-version={}", api(ResourceType::VirtualNetworks));
                round_trip::<Subnet>(&arm.get(&url).await, &url);
                checked += 1;
            }
        }
    }

    // Compute provider metadata (zones).
    let url = format!(
        "/subscriptions/{sub}/providers/Microsoft.Compute?api-version={}",
        api(ResourceType::ProviderMetadata)
    );
    let provider = round_trip::<ResourceProvider>(&arm.get(&url).await, &url);
    let location = entries
        .iter()
        .find_map(|e| e["doc"]["location"].as_str())
        .expect("a location");
    let zones = provider.vm_zones(location);
    assert!(!zones.is_empty(), "{location} has zones in the fake");
    checked + 1
}

#[tokio::test]
async fn small_topology_documents_round_trip() {
    assert!(round_trip_topology("small.yaml").await > 10);
}

#[tokio::test]
async fn mixed_topology_documents_round_trip() {
    assert!(round_trip_topology("mixed.yaml").await > 30);
}

#[tokio::test]
async fn zonal_vmss_topology_documents_round_trip() {
    assert!(round_trip_topology("zonal-vmss.yaml").await > 5);
}

#[tokio::test]
async fn thousand_node_topology_documents_round_trip() {
    assert!(round_trip_topology("1000-nodes.yaml").await > 1000);
}
