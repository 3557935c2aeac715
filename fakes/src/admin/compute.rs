//! Compute admin API (nested under `/admin` by the admin router): node churn for scenarios. Adds a
//! standalone VM with its NIC, deletes a node's VM (and NICs), scales uniform and flexible scale sets, and
//! sets power states. Every change goes through [`ArmState`], so fake-ARM validations apply; answers
//! describe nodes from ARM state afterwards.
//!
//! | route | method | body |
//! |---|---|---|
//! | `/admin/compute/vms` | POST | `{"name", "computerName"?, "size"?, "zone"?, "availabilitySet"?, "subnet"?, "privateIp"?, "powerState"?, "tags"?, "resourceGroup"?}` |
//! | `/admin/compute/nodes/{node}` | GET / DELETE | – |
//! | `/admin/compute/nodes/{node}/power-state` | POST | `{"state": "running" \| "stopped" \| "deallocated"}` |
//! | `/admin/compute/scale-sets/{name}/scale` | POST | `{"instances": N, "resourceGroup"?}` |

use crate::topology::documents::{self as doc, VmBody};
use crate::topology::lookup::{NodeLookup, NodeVm, describe};
use crate::topology::{
    NodeKind, OsType, PowerStateSpec, SeededCloud, SeededNode, flex_vm_name,
    instance_computer_name, resource_id, system_identity_principal_id,
};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use fake_arm::{ArmError, ArmState};

use super::AdminError;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

/// Where new VMs go unless a request says otherwise (normally the seeded cloud's values).
#[derive(Debug, Clone)]
pub struct ComputeDefaults {
    /// Subscription.
    pub subscription_id: String,
    /// Tenant (system-assigned identities of new flexible members).
    pub tenant_id: String,
    /// Node resource group.
    pub resource_group: String,
    /// Region.
    pub location: String,
    /// VNet resource group.
    pub vnet_resource_group: String,
    /// VNet name.
    pub vnet_name: String,
    /// Default subnet name.
    pub subnet_name: String,
}

impl ComputeDefaults {
    /// Defaults taken from a seeded topology.
    pub fn from_seeded(cloud: &SeededCloud) -> Self {
        Self {
            subscription_id: cloud.subscription_id.clone(),
            tenant_id: cloud.tenant_id.clone(),
            resource_group: cloud.resource_group.clone(),
            location: cloud.location.clone(),
            vnet_resource_group: cloud.vnet_resource_group.clone(),
            vnet_name: cloud.vnet_name.clone(),
            subnet_name: cloud.subnet_name.clone(),
        }
    }
}

/// State of the compute admin routes.
#[derive(Clone)]
pub struct ComputeAdminState {
    arm: ArmState,
    defaults: Arc<ComputeDefaults>,
    lookup: NodeLookup,
}

impl ComputeAdminState {
    /// Admin over `arm` with `defaults` for new resources.
    pub fn new(arm: ArmState, defaults: ComputeDefaults) -> Self {
        Self {
            arm,
            defaults: Arc::new(defaults),
            lookup: NodeLookup::default(),
        }
    }
}

/// Routes (already prefixed with `/admin/compute`).
pub fn router(state: ComputeAdminState) -> Router {
    Router::new()
        .route("/admin/compute/vms", post(add_vm))
        .route(
            "/admin/compute/nodes/{node}",
            get(show_node).delete(delete_node),
        )
        .route("/admin/compute/nodes/{node}/power-state", post(set_power))
        .route("/admin/compute/scale-sets/{name}/scale", post(scale))
        .with_state(state)
}

/// A compute admin failure: the admin API's `{"error": {"code", "message"}}`, or fake ARM's own envelope.
#[derive(Debug, thiserror::Error)]
pub enum ComputeAdminError {
    /// The request body or path was wrong.
    #[error("{0}")]
    BadRequest(String),
    /// No VM has that node name, or the scale set does not exist.
    #[error("{0}")]
    NotFound(String),
    /// Fake ARM refused the change.
    #[error(transparent)]
    Arm(#[from] ArmError),
}

impl IntoResponse for ComputeAdminError {
    fn into_response(self) -> Response {
        match self {
            ComputeAdminError::BadRequest(message) => {
                AdminError::bad_request("BadRequest", message).into_response()
            }
            ComputeAdminError::NotFound(message) => {
                AdminError::not_found("NotFound", message).into_response()
            }
            // ARM's own envelope, status and `x-ms-error-code`.
            ComputeAdminError::Arm(e) => e.into_response(),
        }
    }
}

type Answer<T> = Result<T, ComputeAdminError>;

/// Body of `POST /admin/compute/vms`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddVm {
    /// VM name (= node name unless `computerName`).
    pub name: String,
    /// Computer name.
    #[serde(default)]
    pub computer_name: Option<String>,
    /// Size; default `Standard_D2s_v3`.
    #[serde(default)]
    pub size: Option<String>,
    /// Zone 1-3.
    #[serde(default)]
    pub zone: Option<u32>,
    /// Availability set name (same resource group).
    #[serde(default)]
    pub availability_set: Option<String>,
    /// Subnet name in the cluster VNet; default the first subnet.
    #[serde(default)]
    pub subnet: Option<String>,
    /// Static private IPv4; dynamic when absent.
    #[serde(default)]
    pub private_ip: Option<IpAddr>,
    /// Initial power state; default running.
    #[serde(default)]
    pub power_state: Option<PowerStateSpec>,
    /// Tags.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// Resource group; default the node group.
    #[serde(default)]
    pub resource_group: Option<String>,
}

/// Body of `POST .../power-state`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPower {
    /// `running`, `stopped` or `deallocated`.
    pub state: PowerStateSpec,
}

/// Body of `POST .../scale`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Scale {
    /// Wanted instance count (0-1000).
    pub instances: u32,
    /// Resource group; default the node group.
    #[serde(default)]
    pub resource_group: Option<String>,
}

fn body<T: serde::de::DeserializeOwned>(raw: &[u8]) -> Answer<T> {
    serde_json::from_slice(raw)
        .map_err(|e| ComputeAdminError::BadRequest(format!("request body: {e}")))
}

fn node_of(s: &ComputeAdminState, node: &str) -> Answer<NodeVm> {
    s.lookup
        .find(&s.arm, &s.defaults.subscription_id, node)?
        .ok_or_else(|| ComputeAdminError::NotFound(format!("no VM has node name '{node}'")))
}

async fn show_node(
    State(s): State<ComputeAdminState>,
    Path(node): Path<String>,
) -> Answer<Json<SeededNode>> {
    Ok(Json(describe(&s.arm, &node_of(&s, &node)?)))
}

async fn set_power(
    State(s): State<ComputeAdminState>,
    Path(node): Path<String>,
    raw: axum::body::Bytes,
) -> Answer<Json<SeededNode>> {
    let req: SetPower = body(&raw)?;
    let vm = node_of(&s, &node)?;
    s.arm.set_power_state(&vm.id, doc::power_state(req.state))?;
    Ok(Json(describe(&s.arm, &vm)))
}

/// Deletes a VM and then the NICs it owned (uniform instances: the instance; CRP shrinks the capacity).
fn remove_vm(arm: &ArmState, vm: &NodeVm) -> Answer<Vec<String>> {
    arm.delete(&vm.id)?;
    let mut removed = vec![vm.id.clone()];
    if vm.kind != NodeKind::VmssUniform {
        for nic in vm.nic_ids() {
            arm.delete(&nic)?;
            removed.push(nic);
        }
    }
    Ok(removed)
}

async fn delete_node(
    State(s): State<ComputeAdminState>,
    Path(node): Path<String>,
) -> Answer<Json<Value>> {
    let vm = node_of(&s, &node)?;
    let removed = remove_vm(&s.arm, &vm)?;
    Ok(Json(json!({ "node": node, "deleted": removed })))
}

async fn add_vm(
    State(s): State<ComputeAdminState>,
    raw: axum::body::Bytes,
) -> Answer<(StatusCode, Json<SeededNode>)> {
    let req: AddVm = body(&raw)?;
    let d = &s.defaults;
    let rg = req.resource_group.as_deref().unwrap_or(&d.resource_group);
    if req.zone.is_some_and(|z| !(1..=3).contains(&z)) {
        return Err(ComputeAdminError::BadRequest(
            "zone must be 1, 2 or 3".into(),
        ));
    }
    let vm_id = resource_id(
        &d.subscription_id,
        rg,
        "Microsoft.Compute/virtualMachines",
        &req.name,
    );
    if s.arm.get(&vm_id).is_ok() {
        return Err(ComputeAdminError::BadRequest(format!(
            "VM '{}' already exists",
            req.name
        )));
    }
    let vnet = resource_id(
        &d.subscription_id,
        &d.vnet_resource_group,
        "Microsoft.Network/virtualNetworks",
        &d.vnet_name,
    );
    let subnet_id = format!(
        "{vnet}/subnets/{}",
        req.subnet.as_deref().unwrap_or(&d.subnet_name)
    );
    let avset_id = req.availability_set.as_ref().map(|a| {
        resource_id(
            &d.subscription_id,
            rg,
            "Microsoft.Compute/availabilitySets",
            a,
        )
    });
    let fault_domain = match &avset_id {
        Some(id) => next_fault_domain(&s.arm, &d.subscription_id, rg, id)?,
        None => 0,
    };
    let nic_id = resource_id(
        &d.subscription_id,
        rg,
        "Microsoft.Network/networkInterfaces",
        &format!("{}-nic", req.name),
    );
    s.arm.put(
        &nic_id,
        doc::nic(&d.location, &subnet_id, req.private_ip, None, &[]),
    )?;
    let size = req
        .size
        .clone()
        .unwrap_or_else(|| crate::topology::DEFAULT_VM_SIZE.to_string());
    let computer_name = req
        .computer_name
        .clone()
        .unwrap_or_else(|| req.name.clone());
    let vm_body = doc::vm(&VmBody {
        location: &d.location,
        name: &req.name,
        size: &size,
        computer_name: &computer_name,
        os_type: OsType::Linux,
        nic_id: &nic_id,
        zone: req.zone,
        fault_domain: None,
        availability_set_id: avset_id.as_deref(),
        scale_set_id: None,
        tags: &req.tags,
        identity: None,
    });
    if let Err(e) = s.arm.put(&vm_id, vm_body) {
        // Leave nothing behind when CRP refuses the VM.
        let _ = s.arm.delete(&nic_id);
        return Err(e.into());
    }
    platform_view(
        &s.arm,
        &vm_id,
        fault_domain,
        req.power_state.unwrap_or_default(),
    )?;
    let vm = crate::topology::lookup::load(&s.arm, &vm_id)?
        .ok_or_else(|| ComputeAdminError::NotFound(vm_id.clone()))?;
    Ok((StatusCode::CREATED, Json(describe(&s.arm, &vm))))
}

fn platform_view(
    arm: &ArmState,
    vm_id: &str,
    fault_domain: u32,
    power: PowerStateSpec,
) -> Answer<()> {
    arm.modify_instance_view(vm_id, |iv| iv["platformFaultDomain"] = json!(fault_domain))?;
    arm.set_power_state(vm_id, doc::power_state(power))?;
    Ok(())
}

/// CRP places a new availability-set member in the next fault domain round-robin.
fn next_fault_domain(arm: &ArmState, sub: &str, rg: &str, avset_id: &str) -> Answer<u32> {
    let set = arm.get(avset_id)?;
    let count = set
        .pointer("/properties/platformFaultDomainCount")
        .and_then(Value::as_u64)
        .unwrap_or(2)
        .max(1);
    let members = arm
        .list(&format!(
            "/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachines"
        ))?
        .iter()
        .filter(|v| {
            v.pointer("/properties/availabilitySet/id")
                .and_then(Value::as_str)
                .is_some_and(|id| id.eq_ignore_ascii_case(avset_id))
        })
        .count() as u64;
    Ok((members % count) as u32)
}

async fn scale(
    State(s): State<ComputeAdminState>,
    Path(name): Path<String>,
    raw: axum::body::Bytes,
) -> Answer<Json<Value>> {
    let req: Scale = body(&raw)?;
    if req.instances > crate::topology::MAX_INSTANCES {
        return Err(ComputeAdminError::BadRequest(format!(
            "instances must be 0-{}",
            crate::topology::MAX_INSTANCES
        )));
    }
    let d = &s.defaults;
    let rg = req.resource_group.as_deref().unwrap_or(&d.resource_group);
    let id = resource_id(
        &d.subscription_id,
        rg,
        "Microsoft.Compute/virtualMachineScaleSets",
        &name,
    );
    let set = s.arm.get(&id).map_err(|e| {
        if e.status() == StatusCode::NOT_FOUND {
            ComputeAdminError::NotFound(format!(
                "scale set '{name}' not found in resource group '{rg}'"
            ))
        } else {
            e.into()
        }
    })?;
    let nodes = if set
        .pointer("/properties/orchestrationMode")
        .and_then(Value::as_str)
        == Some("Flexible")
    {
        scale_flexible(&s, &set, rg, req.instances)?
    } else {
        scale_uniform(&s, set, req.instances)?
    };
    Ok(Json(
        json!({ "scaleSet": id, "instances": nodes.len(), "nodes": nodes }),
    ))
}

fn zones_of(set: &Value) -> Vec<u32> {
    set.get("zones")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|z| z.as_str()?.parse().ok())
        .collect()
}

/// Fault domain CRP gives instance `index` (spread inside each zone), as the seeder does.
fn spread_fault_domain(set: &Value, index: u64) -> u32 {
    let zones = zones_of(set).len().max(1) as u64;
    let count = set
        .pointer("/properties/platformFaultDomainCount")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1);
    ((index / zones) % count) as u32
}

fn scale_uniform(s: &ComputeAdminState, mut set: Value, instances: u32) -> Answer<Vec<SeededNode>> {
    let id = set["id"].as_str().unwrap_or_default().to_string();
    let before: Vec<String> = s
        .arm
        .list(&format!("{id}/virtualMachines"))?
        .iter()
        .filter_map(|v| v["id"].as_str().map(str::to_ascii_lowercase))
        .collect();
    set["sku"]["capacity"] = json!(instances);
    s.arm.put(&id, set.clone())?;
    let mut nodes = Vec::new();
    for inst in s.arm.list(&format!("{id}/virtualMachines"))? {
        let inst_id = inst["id"].as_str().unwrap_or_default().to_string();
        if !before.contains(&inst_id.to_ascii_lowercase()) {
            let index = inst["instanceId"]
                .as_str()
                .and_then(|i| i.parse().ok())
                .unwrap_or(0);
            s.arm.modify_instance_view(&inst_id, |iv| {
                iv["platformFaultDomain"] = json!(spread_fault_domain(&set, index))
            })?;
        }
        if let Some(vm) = crate::topology::lookup::load(&s.arm, &inst_id)? {
            nodes.push(describe(&s.arm, &vm));
        }
    }
    Ok(nodes)
}

fn scale_flexible(
    s: &ComputeAdminState,
    set: &Value,
    rg: &str,
    instances: u32,
) -> Answer<Vec<SeededNode>> {
    let d = &s.defaults;
    let set_id = set["id"].as_str().unwrap_or_default();
    let set_name = set["name"].as_str().unwrap_or_default();
    let prefix = set
        .pointer("/properties/virtualMachineProfile/osProfile/computerNamePrefix")
        .and_then(Value::as_str)
        .unwrap_or(set_name)
        .to_ascii_lowercase();
    let members = |arm: &ArmState| -> Answer<Vec<(u64, NodeVm)>> {
        let mut out = Vec::new();
        for v in arm.list(&format!(
            "/subscriptions/{}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachines",
            d.subscription_id
        ))? {
            if !v
                .pointer("/properties/virtualMachineScaleSet/id")
                .and_then(Value::as_str)
                .is_some_and(|x| x.eq_ignore_ascii_case(set_id))
            {
                continue;
            }
            let Some(vm) =
                crate::topology::lookup::load(arm, v["id"].as_str().unwrap_or_default())?
            else {
                continue;
            };
            let index = vm
                .computer_name()
                .to_ascii_lowercase()
                .strip_prefix(&prefix)
                .and_then(|r| u64::from_str_radix(r, 36).ok())
                .unwrap_or(u64::MAX);
            out.push((index, vm));
        }
        out.sort_by_key(|(i, _)| *i);
        Ok(out)
    };
    let mut current = members(&s.arm)?;
    while current.len() > instances as usize {
        if let Some((_, vm)) = current.pop() {
            remove_vm(&s.arm, &vm)?;
        }
    }
    let next = current
        .iter()
        .map(|(i, _)| *i)
        .filter(|i| *i != u64::MAX)
        .max()
        .map_or(0, |m| m + 1);
    let nic_config = set.pointer("/properties/virtualMachineProfile/networkProfile/networkInterfaceConfigurations/0/properties/ipConfigurations/0/properties").cloned().unwrap_or(Value::Null);
    let subnet_id = nic_config
        .pointer("/subnet/id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| {
            ComputeAdminError::BadRequest(format!(
                "scale set '{set_name}' has no subnet in its network profile"
            ))
        })?;
    let pools: Vec<String> = nic_config
        .get("loadBalancerBackendAddressPools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p["id"].as_str().map(str::to_string))
        .collect();
    let zones = zones_of(set);
    let tags: BTreeMap<String, String> =
        serde_json::from_value(set.get("tags").cloned().unwrap_or(json!({}))).unwrap_or_default();
    let os = if set
        .pointer("/properties/virtualMachineProfile/osProfile/windowsConfiguration")
        .is_some()
    {
        OsType::Windows
    } else {
        OsType::Linux
    };
    let size = set
        .pointer("/sku/name")
        .and_then(Value::as_str)
        .unwrap_or(crate::topology::DEFAULT_VM_SIZE)
        .to_string();
    let first = next;
    for next in first..first + (instances as usize - current.len()) as u64 {
        let index = u32::try_from(next)
            .map_err(|_| ComputeAdminError::BadRequest("instance index overflow".into()))?;
        let name = flex_vm_name(set_name, index);
        let vm_id = resource_id(
            &d.subscription_id,
            rg,
            "Microsoft.Compute/virtualMachines",
            &name,
        );
        let nic_id = resource_id(
            &d.subscription_id,
            rg,
            "Microsoft.Network/networkInterfaces",
            &format!("{name}-nic"),
        );
        s.arm.put(
            &nic_id,
            doc::nic(&d.location, &subnet_id, None, None, &pools),
        )?;
        let identity = set.get("identity").cloned().map(|mut i| {
            if i.get("principalId").is_some() {
                i["principalId"] = json!(system_identity_principal_id(&vm_id));
                i["tenantId"] = json!(d.tenant_id);
            }
            i
        });
        let zone = (!zones.is_empty()).then(|| zones[(next % zones.len() as u64) as usize]);
        let fault_domain = spread_fault_domain(set, next);
        let body = doc::vm(&VmBody {
            location: &d.location,
            name: &name,
            size: &size,
            computer_name: &instance_computer_name(&prefix, next),
            os_type: os,
            nic_id: &nic_id,
            zone,
            fault_domain: Some(fault_domain),
            availability_set_id: None,
            scale_set_id: Some(set_id),
            tags: &tags,
            identity,
        });
        if let Err(e) = s.arm.put(&vm_id, body) {
            let _ = s.arm.delete(&nic_id);
            return Err(e.into());
        }
        platform_view(&s.arm, &vm_id, fault_domain, PowerStateSpec::Running)?;
    }
    Ok(members(&s.arm)?
        .iter()
        .map(|(_, vm)| describe(&s.arm, vm))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::ServiceExt;

    async fn call(app: &Router, method: &str, uri: &str, body: Value) -> (StatusCode, Value) {
        let req = axum::http::Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let resp = app.clone().oneshot(req).await.unwrap();
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    fn app() -> (ArmState, Router) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mixed.yaml");
        let plan = crate::topology::load(&path).unwrap();
        let arm = ArmState::new(fake_arm::ArmConfig::default());
        let cloud = crate::topology::seed(&plan, &arm).unwrap();
        let app = router(ComputeAdminState::new(
            arm.clone(),
            ComputeDefaults::from_seeded(&cloud),
        ));
        (arm, app)
    }

    #[tokio::test]
    async fn scale_sets_grow_and_shrink_with_upstream_names() {
        let (_arm, app) = app();
        let (status, body) = call(
            &app,
            "POST",
            "/admin/compute/scale-sets/uniformpool/scale",
            json!({"instances": 5}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let names: Vec<&str> = body["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["nodeName"].as_str())
            .collect();
        assert_eq!(
            names,
            [
                "uniformpool000000",
                "uniformpool000001",
                "uniformpool000002",
                "uniformpool000003",
                "uniformpool000004"
            ]
        );
        assert_eq!(body["nodes"][4]["zone"], 1);
        let (status, body) = call(
            &app,
            "POST",
            "/admin/compute/scale-sets/flexpool/scale",
            json!({"instances": 4}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["nodes"][3]["nodeName"], "flexpool000003");
        assert_eq!(body["nodes"][3]["kind"], "vmss-flex");
        let (_, body) = call(
            &app,
            "POST",
            "/admin/compute/scale-sets/flexpool/scale",
            json!({"instances": 1}),
        )
        .await;
        assert_eq!(body["instances"], 1);
        let (status, body) = call(
            &app,
            "POST",
            "/admin/compute/scale-sets/nope/scale",
            json!({"instances": 1}),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        let (status, _) = call(
            &app,
            "POST",
            "/admin/compute/scale-sets/uniformpool/scale",
            json!({"instances": 5000}),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn vms_are_added_powered_and_deleted_through_arm() {
        let (arm, app) = app();
        let (status, body) = call(&app, "POST", "/admin/compute/vms", json!({"name": "extra-0", "availabilitySet": "vmas-agents", "privateIp": "10.240.0.200"})).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        assert_eq!(body["privateIps"], json!(["10.240.0.200"]));
        assert_eq!(
            body["faultDomain"], 0,
            "fourth member of a 3-FD set wraps to FD 0"
        );
        let (status, body) = call(
            &app,
            "POST",
            "/admin/compute/vms",
            json!({"name": "extra-1", "privateIp": "10.240.0.200"}),
        )
        .await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "ARM refuses a taken address: {body}"
        );
        let nic = "/subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/mixed-nodes-rg/providers/Microsoft.Network/networkInterfaces/extra-1-nic";
        assert!(
            arm.get(nic).is_err(),
            "the NIC of a refused VM is not left behind"
        );
        let (status, body) = call(
            &app,
            "POST",
            "/admin/compute/nodes/extra-0/power-state",
            json!({"state": "deallocated"}),
        )
        .await;
        assert_eq!(
            (status, body["powerState"].as_str()),
            (StatusCode::OK, Some("deallocated"))
        );
        let (status, _) = call(
            &app,
            "POST",
            "/admin/compute/nodes/extra-0/power-state",
            json!({"state": "asleep"}),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let (status, body) =
            call(&app, "DELETE", "/admin/compute/nodes/extra-0", Value::Null).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(
            body["deleted"].as_array().map(Vec::len),
            Some(2),
            "VM and NIC"
        );
        let (status, _) = call(&app, "GET", "/admin/compute/nodes/extra-0", Value::Null).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, _) = call(
            &app,
            "DELETE",
            "/admin/compute/nodes/uniformpool000001",
            Value::Null,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
    }
}
