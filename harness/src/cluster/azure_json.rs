//! The azure.json (cloud provider config) each component of an embedded cluster runs with: the
//! fake's ARM endpoint and ids, the component's own Entra app, and the network names read back
//! from the fake's state (the first VNet and its first subnet's NSG and route table).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::apps::EntraApp;
use super::printed::PrintedFake;

/// Cluster-wide azure.json settings, the same for every component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloudSettings {
    /// Node resource group (from the first node's resource id).
    pub resource_group: String,
    /// Region.
    pub location: String,
    /// `vmss` when the cloud holds any scale set (uniform or flexible), else `standard`.
    pub vm_type: &'static str,
    /// VNet name.
    pub vnet: String,
    /// VNet resource group.
    pub vnet_resource_group: String,
    /// Subnet of the nodes.
    pub subnet: String,
    /// NSG on that subnet, if any.
    pub security_group: Option<String>,
    /// Route table on that subnet and its resource group, if any (kubenet).
    pub route_table: Option<(String, String)>,
}

impl CloudSettings {
    /// Reads the settings from `GET /admin/info` and `GET /admin/state`; `Err` says what is missing.
    pub fn from_fake(info: &Value, state: &Value) -> Result<Self, String> {
        let location = info["location"]
            .as_str()
            .ok_or("no location in /admin/info")?
            .to_lowercase();
        let nodes = info["imds"].as_array().cloned().unwrap_or_default();
        let first_id = nodes
            .first()
            .and_then(|n| n["resourceId"].as_str())
            .ok_or("no node in /admin/info")?;
        let resource_group =
            segment(first_id, "resourceGroups").ok_or("no resource group in a node id")?;
        let entries = state["arm"]["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        // vmType vmss also serves availability-set and flexible nodes (anchor-ccm.md 2.2).
        let vm_type = if entries.iter().any(|e| e["kind"] == "Vmss") {
            "vmss"
        } else {
            "standard"
        };
        let vnet = entries
            .iter()
            .find(|e| e["kind"] == "Vnet")
            .map(|e| &e["doc"])
            .ok_or("no VNet in the fake's state")?;
        let vnet_id = vnet["id"].as_str().ok_or("VNet without id")?;
        let subnet = &vnet["properties"]["subnets"][0];
        let id_of = |key: &str| subnet["properties"][key]["id"].as_str();
        Ok(Self {
            resource_group: resource_group.to_string(),
            location,
            vm_type,
            vnet: vnet["name"]
                .as_str()
                .ok_or("VNet without name")?
                .to_string(),
            vnet_resource_group: segment(vnet_id, "resourceGroups")
                .ok_or("VNet id without resource group")?
                .to_string(),
            subnet: subnet["name"]
                .as_str()
                .ok_or("VNet without subnet")?
                .to_string(),
            security_group: id_of("networkSecurityGroup")
                .and_then(|id| segment(id, "networkSecurityGroups"))
                .map(str::to_string),
            route_table: id_of("routeTable").and_then(|id| {
                Some((
                    segment(id, "routeTables")?.to_string(),
                    segment(id, "resourceGroups")?.to_string(),
                ))
            }),
        })
    }

    /// The azure.json document for `app` against the fake described by `printed`. The CA is not
    /// in it: components get `SSL_CERT_FILE` pointing at the fake's CA.
    pub fn document(&self, printed: &PrintedFake, app: &EntraApp) -> Value {
        let mut doc = json!({
            "cloud": "AzureStackCloud",
            "disableAzureStackCloud": true,
            "resourceManagerEndpoint": format!("{}/", printed.base()),
            "tenantId": printed.tenant,
            "subscriptionId": printed.subscription,
            "aadClientId": app.client_id,
            "aadClientSecret": app.secret,
            "resourceGroup": self.resource_group,
            "location": self.location,
            "vmType": self.vm_type,
            "vnetName": self.vnet,
            "vnetResourceGroup": self.vnet_resource_group,
            "subnetName": self.subnet,
            "loadBalancerSku": "standard",
        });
        if let Some(nsg) = &self.security_group {
            doc["securityGroupName"] = nsg.as_str().into();
        }
        if let Some((table, group)) = &self.route_table {
            doc["routeTableName"] = table.as_str().into();
            doc["routeTableResourceGroup"] = group.as_str().into();
            // Speed only: route changes are batched and flushed every
            // `routeUpdateIntervalInSeconds`, and each flush then waits
            // `routeUpdateWaitingInSeconds` (30 s each by default, anchor-ccm.md §5, in the in-tree
            // provider as out of tree), so a node's route would take up to a minute; a parity run
            // shortens both for every component alike.
            doc["routeUpdateIntervalInSeconds"] = 1.into();
            doc["routeUpdateWaitingInSeconds"] = 1.into();
        }
        doc
    }
}

/// Writes `doc` as `dir/<name>.json`.
pub fn write_json(dir: &Path, name: &str, doc: &Value) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(doc).map_err(std::io::Error::other)?;
    std::fs::write(&path, text)?;
    Ok(path)
}

/// The segment after `/{key}/` in an ARM id (case-insensitive key).
fn segment<'a>(id: &'a str, key: &str) -> Option<&'a str> {
    let marker = format!("/{}/", key.to_ascii_lowercase());
    let start = id.to_ascii_lowercase().find(&marker)? + marker.len();
    id.get(start..)?.split('/').next().filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_come_from_info_and_state() {
        let info = json!({"location": "EastUS", "imds": [{"node": "n", "resourceId":
            "/subscriptions/s/resourceGroups/RG-1/providers/Microsoft.Compute/virtualMachines/n"}]});
        let state = json!({"arm": {"entries": [{"kind": "Vnet", "doc": {
        "id": "/subscriptions/s/resourceGroups/net-rg/providers/Microsoft.Network/virtualNetworks/v",
        "name": "v",
        "properties": {"subnets": [{"name": "sn", "properties": {
            "networkSecurityGroup": {"id": "/subscriptions/s/resourceGroups/RG-1/providers/Microsoft.Network/networkSecurityGroups/nsg"},
            "routeTable": {"id": "/subscriptions/s/resourceGroups/rt-rg/providers/Microsoft.Network/routeTables/rt"}
        }}]}}}]}});
        let settings = CloudSettings::from_fake(&info, &state).unwrap();
        let mut with_set = state.clone();
        with_set["arm"]["entries"]
            .as_array_mut()
            .unwrap()
            .push(json!({"kind": "Vmss", "doc": {}}));
        assert_eq!(
            CloudSettings::from_fake(&info, &with_set).unwrap().vm_type,
            "vmss"
        );
        assert_eq!(
            settings,
            CloudSettings {
                resource_group: "RG-1".into(),
                location: "eastus".into(),
                vm_type: "standard",
                vnet: "v".into(),
                vnet_resource_group: "net-rg".into(),
                subnet: "sn".into(),
                security_group: Some("nsg".into()),
                route_table: Some(("rt".into(), "rt-rg".into())),
            }
        );
        let missing = CloudSettings::from_fake(&info, &json!({})).unwrap_err();
        assert!(missing.contains("VNet"), "{missing}");
    }
}
