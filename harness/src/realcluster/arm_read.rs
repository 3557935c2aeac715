//! The ARM half of a real cluster's snapshot, read through ARM's REST API (list calls only) and
//! reduced by the same code as the embedded fake's state export, so both give one
//! [`ArmResources`] shape and the same checks apply.
//!
//! What is read, per resource group (the azure.json's node, security group, route table and load
//! balancer groups, plus every group named in a node's providerID): load balancers, public IPs,
//! NSGs, route tables, NICs, VMs and scale sets; per uniform scale set its instances, their NICs
//! and their public IPs. A group that does not exist (404) is skipped.
//!
//! - [infer] every LB, PIP, NSG and route table the cloud loops own lives in one of those groups
//!   (Services with `azure-pip-resource-group` or `azure-load-balancer-resource-group` annotations
//!   pointing elsewhere are not read).

use std::collections::BTreeSet;

use ccm_azure::arm::api_versions::ResourceType;
use ccm_azure::arm::{ArmClient, ClientKind, Target};
use serde_json::{Value, json};

use super::azure::{RealAzure, flavor};
use super::error::RealClusterError;
use crate::snapshot::ArmResources;

/// The resource groups to read: the azure.json's and the nodes' (from their providerIDs),
/// lower-cased and sorted.
pub fn resource_groups<'a>(
    configured: impl IntoIterator<Item = &'a str>,
    provider_ids: impl IntoIterator<Item = &'a str>,
) -> BTreeSet<String> {
    let mut groups: BTreeSet<String> = configured
        .into_iter()
        .filter(|g| !g.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    for id in provider_ids {
        let lower = id.to_ascii_lowercase();
        if let Some(rest) = lower.split("/resourcegroups/").nth(1)
            && let Some(group) = rest.split('/').next()
            && !group.is_empty()
        {
            groups.insert(group.to_owned());
        }
    }
    groups
}

struct Reader<'a> {
    arm: &'a ArmClient,
    subscription: &'a str,
    azure: &'a RealAzure,
    entries: Vec<Value>,
}

impl Reader<'_> {
    async fn list(
        &self,
        client: ClientKind,
        path: &str,
        api: ResourceType,
    ) -> Result<Option<Vec<Value>>, RealClusterError> {
        let version = api.api_version(flavor(&self.azure.config));
        match self
            .arm
            .list::<Value>(Target::new(client, path, version))
            .await
        {
            Ok(items) => Ok(Some(items)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(RealClusterError::Arm {
                what: path.to_owned(),
                reason: e.to_string(),
            }),
        }
    }

    fn push(&mut self, kind: &str, items: Vec<Value>) {
        self.entries.extend(
            items
                .into_iter()
                .map(|doc| json!({"kind": kind, "doc": doc})),
        );
    }

    async fn group(&mut self, group: &str) -> Result<(), RealClusterError> {
        let base = format!(
            "/subscriptions/{}/resourceGroups/{group}/providers",
            self.subscription
        );
        let collections = [
            (
                "LoadBalancer",
                ClientKind::LoadBalancer,
                "Microsoft.Network/loadBalancers",
                ResourceType::LoadBalancers,
            ),
            (
                "PublicIp",
                ClientKind::PublicIpAddress,
                "Microsoft.Network/publicIPAddresses",
                ResourceType::PublicIpAddresses,
            ),
            (
                "Nsg",
                ClientKind::SecurityGroup,
                "Microsoft.Network/networkSecurityGroups",
                ResourceType::NetworkSecurityGroups,
            ),
            (
                "RouteTable",
                ClientKind::RouteTable,
                "Microsoft.Network/routeTables",
                ResourceType::RouteTables,
            ),
            (
                "Nic",
                ClientKind::Interface,
                "Microsoft.Network/networkInterfaces",
                ResourceType::NetworkInterfaces,
            ),
            (
                "Vm",
                ClientKind::VirtualMachine,
                "Microsoft.Compute/virtualMachines",
                ResourceType::VirtualMachines,
            ),
        ];
        for (kind, client, collection, api) in collections {
            match self
                .list(client, &format!("{base}/{collection}"), api)
                .await?
            {
                Some(items) => self.push(kind, items),
                // The group does not exist: nothing else to read in it.
                None => return Ok(()),
            }
        }
        let sets = self
            .list(
                ClientKind::VirtualMachineScaleSet,
                &format!("{base}/Microsoft.Compute/virtualMachineScaleSets"),
                ResourceType::VirtualMachineScaleSets,
            )
            .await?
            .unwrap_or_default();
        for set in sets {
            let Some(name) = set["name"].as_str() else {
                continue;
            };
            let flexible = set
                .pointer("/properties/orchestrationMode")
                .and_then(Value::as_str)
                .is_some_and(|m| m.eq_ignore_ascii_case("Flexible"));
            if flexible {
                // Flexible members are plain VMs and NICs, read above.
                continue;
            }
            let set_path = format!("{base}/Microsoft.Compute/virtualMachineScaleSets/{name}");
            let children = [
                (
                    "VmssVm",
                    ClientKind::VirtualMachineScaleSetVm,
                    "virtualMachines",
                    ResourceType::ScaleSetVms,
                ),
                (
                    "VmssNic",
                    ClientKind::Interface,
                    "networkInterfaces",
                    ResourceType::ScaleSetVmNetwork,
                ),
                (
                    "VmssPip",
                    ClientKind::PublicIpAddress,
                    "publicIPAddresses",
                    ResourceType::ScaleSetVmNetwork,
                ),
            ];
            for (kind, client, child, api) in children {
                let items = self
                    .list(client, &format!("{set_path}/{child}"), api)
                    .await?
                    .unwrap_or_default();
                self.push(kind, items);
            }
        }
        Ok(())
    }
}

/// Reads the ARM resources of `groups` into the snapshot's shape.
pub async fn read_arm(
    azure: &RealAzure,
    groups: &BTreeSet<String>,
) -> Result<ArmResources, RealClusterError> {
    let mut reader = Reader {
        arm: &azure.arm,
        subscription: &azure.config.identity.subscription_id,
        azure,
        entries: Vec::new(),
    };
    for group in groups {
        reader.group(group).await?;
    }
    Ok(ArmResources::from_admin_state(
        &json!({"arm": {"entries": reader.entries}}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_come_from_the_config_and_the_provider_ids_lower_cased() {
        let groups = resource_groups(
            ["K8s-RG", "", "net-rg"],
            [
                "azure:///subscriptions/s/resourceGroups/MC_Nodes/providers/Microsoft.Compute/virtualMachines/a",
                "not-azure",
            ],
        );
        assert_eq!(
            groups.into_iter().collect::<Vec<_>>(),
            ["k8s-rg", "mc_nodes", "net-rg"]
        );
    }
}
