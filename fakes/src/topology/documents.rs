//! ARM request bodies for the resources a topology (or the admin API) creates. They carry only what a
//! client would send on PUT; fake ARM fills in the read-only parts (ids, etags, vmId, addresses, MACs).

use super::spec::{LbSku, OsType, PowerStateSpec};
use fake_arm::PowerState;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::net::IpAddr;

/// Admin user every seeded VM gets (IMDS reports it as `osProfile.adminUsername`).
pub(crate) const ADMIN_USERNAME: &str = "azureuser";

/// The fake-ARM power state a topology power state maps to.
pub(crate) fn power_state(p: PowerStateSpec) -> PowerState {
    match p {
        PowerStateSpec::Running => PowerState::Running,
        PowerStateSpec::Stopped => PowerState::Stopped,
        PowerStateSpec::Deallocated => PowerState::Deallocated,
    }
}

/// Lower-case name of a topology power state (as reported in [`super::SeededNode::power_state`]).
pub(crate) fn power_state_name(p: PowerStateSpec) -> &'static str {
    match p {
        PowerStateSpec::Running => "running",
        PowerStateSpec::Stopped => "stopped",
        PowerStateSpec::Deallocated => "deallocated",
    }
}

/// `{"id": ...}` sub-resource reference.
pub(crate) fn sub(id: &str) -> Value {
    json!({ "id": id })
}

fn tags(t: &BTreeMap<String, String>) -> Value {
    json!(t)
}

/// A resource group.
pub(crate) fn resource_group(location: &str, t: &BTreeMap<String, String>) -> Value {
    json!({ "location": location, "tags": tags(t), "properties": {} })
}

/// An empty NSG (NRP adds the default rules).
pub(crate) fn security_group(location: &str) -> Value {
    json!({ "location": location, "properties": { "securityRules": [] } })
}

/// An empty route table (the route controller fills it).
pub(crate) fn route_table(location: &str) -> Value {
    json!({ "location": location, "properties": { "routes": [], "disableBgpRoutePropagation": false } })
}

/// One subnet inside a VNet body.
pub(crate) fn subnet(
    name: &str,
    prefixes: &[String],
    nsg_id: Option<&str>,
    route_table_id: Option<&str>,
) -> Value {
    let mut p = Map::new();
    if prefixes.len() == 1 {
        p.insert("addressPrefix".into(), json!(prefixes[0]));
    } else {
        p.insert("addressPrefixes".into(), json!(prefixes));
    }
    if let Some(id) = nsg_id {
        p.insert("networkSecurityGroup".into(), sub(id));
    }
    if let Some(id) = route_table_id {
        p.insert("routeTable".into(), sub(id));
    }
    p.insert("privateEndpointNetworkPolicies".into(), json!("Disabled"));
    p.insert("privateLinkServiceNetworkPolicies".into(), json!("Enabled"));
    json!({ "name": name, "properties": p })
}

/// A VNet with its subnets inline.
pub(crate) fn vnet(location: &str, address_space: &[String], subnets: Vec<Value>) -> Value {
    json!({ "location": location, "properties": { "addressSpace": { "addressPrefixes": address_space }, "subnets": subnets } })
}

/// A static public IP (Standard and Basic alike, so the address exists from creation).
pub(crate) fn public_ip(location: &str, sku: LbSku, address: Option<IpAddr>) -> Value {
    let mut doc = json!({
        "location": location,
        "sku": { "name": sku.as_str(), "tier": "Regional" },
        "properties": { "publicIPAllocationMethod": "Static", "publicIPAddressVersion": "IPv4", "idleTimeoutInMinutes": 4 }
    });
    if let Some(a) = address {
        doc["properties"]["ipAddress"] = json!(a.to_string());
    }
    doc
}

/// An availability set (managed disks: `Aligned`).
pub(crate) fn availability_set(
    location: &str,
    fault_domains: u32,
    update_domains: u32,
    t: &BTreeMap<String, String>,
) -> Value {
    json!({
        "location": location, "tags": tags(t), "sku": { "name": "Aligned" },
        "properties": { "platformFaultDomainCount": fault_domains, "platformUpdateDomainCount": update_domains }
    })
}

/// A single-ipconfig NIC in `subnet_id` (static address when given), optionally with a public IP and pools.
pub(crate) fn nic(
    location: &str,
    subnet_id: &str,
    ipv4: Option<IpAddr>,
    public_ip_id: Option<&str>,
    pool_ids: &[String],
) -> Value {
    let mut ipc = json!({
        "primary": true,
        "privateIPAddressVersion": "IPv4",
        "privateIPAllocationMethod": if ipv4.is_some() { "Static" } else { "Dynamic" },
        "subnet": sub(subnet_id),
        "loadBalancerBackendAddressPools": pool_ids.iter().map(|p| sub(p)).collect::<Vec<_>>()
    });
    if let Some(ip) = ipv4 {
        ipc["privateIPAddress"] = json!(ip.to_string());
    }
    if let Some(id) = public_ip_id {
        ipc["publicIPAddress"] = sub(id);
    }
    json!({
        "location": location,
        "properties": { "enableIPForwarding": true, "ipConfigurations": [ { "name": "ipconfig1", "properties": ipc } ] }
    })
}

/// Name of the IPv6 ipconfig a dual-stack node NIC carries next to its primary IPv4 `ipconfig1`.
pub(crate) const IPV6_IPCONFIG: &str = "ipconfigv6";

/// The secondary IPv6 ipconfig of a dual-stack NIC (static at `ipv6` when given, else allocated by NRP from the
/// subnet's IPv6 prefix). It joins no backend pool: the plan's pools are IPv4.
pub(crate) fn ipv6_ipconfig(subnet_id: &str, ipv6: Option<IpAddr>) -> Value {
    let mut props = json!({
        "primary": false,
        "privateIPAddressVersion": "IPv6",
        "privateIPAllocationMethod": if ipv6.is_some() { "Static" } else { "Dynamic" },
        "subnet": sub(subnet_id)
    });
    if let Some(ip) = ipv6 {
        props["privateIPAddress"] = json!(ip.to_string());
    }
    json!({ "name": IPV6_IPCONFIG, "properties": props })
}

/// Adds the IPv6 ipconfig to a NIC body made by [`nic`].
pub(crate) fn with_ipv6(mut nic: Value, subnet_id: &str, ipv6: IpAddr) -> Value {
    if let Some(ipcs) = nic
        .pointer_mut("/properties/ipConfigurations")
        .and_then(Value::as_array_mut)
    {
        ipcs.push(ipv6_ipconfig(subnet_id, Some(ipv6)));
    }
    nic
}

fn os_profile(os: OsType, computer_name_key: &str, computer_name: &str) -> Value {
    let mut p = json!({ "adminUsername": ADMIN_USERNAME, "allowExtensionOperations": true });
    p[computer_name_key] = json!(computer_name);
    match os {
        OsType::Linux => {
            p["linuxConfiguration"] =
                json!({ "disablePasswordAuthentication": true, "provisionVMAgent": true })
        }
        OsType::Windows => {
            p["windowsConfiguration"] =
                json!({ "provisionVMAgent": true, "enableAutomaticUpdates": true })
        }
    }
    p
}

fn storage_profile(os: OsType, disk_name: Option<&str>) -> Value {
    let image = match os {
        OsType::Linux => {
            json!({ "publisher": "Canonical", "offer": "0001-com-ubuntu-server-jammy", "sku": "22_04-lts-gen2", "version": "latest" })
        }
        OsType::Windows => {
            json!({ "publisher": "MicrosoftWindowsServer", "offer": "WindowsServer", "sku": "2022-datacenter-azure-edition", "version": "latest" })
        }
    };
    let mut disk = json!({ "osType": os.as_str(), "createOption": "FromImage", "caching": "ReadWrite", "diskSizeGB": 128, "managedDisk": { "storageAccountType": "Premium_LRS" } });
    if let Some(n) = disk_name {
        disk["name"] = json!(n);
    }
    json!({ "imageReference": image, "osDisk": disk, "dataDisks": [] })
}

/// Fields of a VM body.
pub(crate) struct VmBody<'a> {
    /// Region.
    pub location: &'a str,
    /// VM name (names the OS disk).
    pub name: &'a str,
    /// Size.
    pub size: &'a str,
    /// Computer name.
    pub computer_name: &'a str,
    /// Guest OS.
    pub os_type: OsType,
    /// Primary NIC id.
    pub nic_id: &'a str,
    /// Zone.
    pub zone: Option<u32>,
    /// `platformFaultDomain` (flexible members only; CRP rejects it elsewhere).
    pub fault_domain: Option<u32>,
    /// Availability set id.
    pub availability_set_id: Option<&'a str>,
    /// Flexible scale set id.
    pub scale_set_id: Option<&'a str>,
    /// Tags.
    pub tags: &'a BTreeMap<String, String>,
    /// `identity` block.
    pub identity: Option<Value>,
}

/// A VM.
pub(crate) fn vm(b: &VmBody) -> Value {
    let mut doc = json!({
        "location": b.location,
        "tags": tags(b.tags),
        "properties": {
            "hardwareProfile": { "vmSize": b.size },
            "osProfile": os_profile(b.os_type, "computerName", b.computer_name),
            "storageProfile": storage_profile(b.os_type, Some(&format!("{}_OsDisk_1", b.name))),
            "networkProfile": { "networkInterfaces": [ { "id": b.nic_id, "properties": { "primary": true, "deleteOption": "Delete" } } ] },
            "priority": "Regular"
        }
    });
    if let Some(z) = b.zone {
        doc["zones"] = json!([z.to_string()]);
    }
    if let Some(id) = b.availability_set_id {
        doc["properties"]["availabilitySet"] = sub(id);
    }
    if let Some(id) = b.scale_set_id {
        doc["properties"]["virtualMachineScaleSet"] = sub(id);
    }
    if let Some(fd) = b.fault_domain {
        doc["properties"]["platformFaultDomain"] = json!(fd);
    }
    if let Some(i) = &b.identity {
        doc["identity"] = i.clone();
    }
    doc
}

/// Fields of a scale-set body.
pub(crate) struct ScaleSetBody<'a> {
    /// Region.
    pub location: &'a str,
    /// Scale set name (names the NIC configuration).
    pub name: &'a str,
    /// `Uniform` or `Flexible`.
    pub mode: &'a str,
    /// Size.
    pub size: &'a str,
    /// Uniform capacity (`None` for flexible: members are created as VMs).
    pub capacity: Option<u32>,
    /// Computer-name prefix.
    pub computer_name_prefix: &'a str,
    /// Guest OS.
    pub os_type: OsType,
    /// Zones.
    pub zones: &'a [u32],
    /// `platformFaultDomainCount`.
    pub fault_domain_count: u32,
    /// Subnet of the NIC configuration.
    pub subnet_id: &'a str,
    /// Backend pools of the NIC configuration.
    pub pool_ids: &'a [String],
    /// The subnet has an IPv6 prefix: the NIC configuration also gets an IPv6 ipconfig.
    pub dual_stack: bool,
    /// Tags.
    pub tags: &'a BTreeMap<String, String>,
    /// `identity` block.
    pub identity: Option<Value>,
}

/// A scale set with a one-NIC network profile.
pub(crate) fn scale_set(b: &ScaleSetBody) -> Value {
    let mut nic_config = json!({
        "name": format!("{}-nic", b.name),
        "properties": {
            "primary": true, "enableIPForwarding": true, "enableAcceleratedNetworking": false,
            "ipConfigurations": [ { "name": "ipconfig1", "properties": {
                "primary": true, "privateIPAddressVersion": "IPv4", "subnet": sub(b.subnet_id),
                "loadBalancerBackendAddressPools": b.pool_ids.iter().map(|p| sub(p)).collect::<Vec<_>>()
            } } ]
        }
    });
    if b.dual_stack
        && let Some(ipcs) = nic_config
            .pointer_mut("/properties/ipConfigurations")
            .and_then(Value::as_array_mut)
    {
        ipcs.push(ipv6_ipconfig(b.subnet_id, None));
    }
    let mut doc = json!({
        "location": b.location,
        "tags": tags(b.tags),
        "sku": { "name": b.size, "tier": "Standard" },
        "properties": {
            "orchestrationMode": b.mode,
            "platformFaultDomainCount": b.fault_domain_count,
            "singlePlacementGroup": false,
            "virtualMachineProfile": {
                "osProfile": os_profile(b.os_type, "computerNamePrefix", b.computer_name_prefix),
                "storageProfile": storage_profile(b.os_type, None),
                "networkProfile": { "networkInterfaceConfigurations": [nic_config] }
            }
        }
    });
    if let Some(c) = b.capacity {
        doc["sku"]["capacity"] = json!(c);
        doc["properties"]["overprovision"] = json!(false);
        doc["properties"]["upgradePolicy"] = json!({ "mode": "Manual" });
    }
    if !b.zones.is_empty() {
        doc["zones"] = json!(b.zones.iter().map(u32::to_string).collect::<Vec<_>>());
    }
    if let Some(i) = &b.identity {
        doc["identity"] = i.clone();
    }
    doc
}

/// The ARM `identity` block for a VM or scale set with the given identities.
pub(crate) fn identity(
    tenant_id: &str,
    system_principal: Option<&str>,
    user_assigned: &[(String, String, String)],
) -> Option<Value> {
    let kind = match (system_principal.is_some(), !user_assigned.is_empty()) {
        (false, false) => return None,
        (true, false) => "SystemAssigned",
        (false, true) => "UserAssigned",
        (true, true) => "SystemAssigned, UserAssigned",
    };
    let mut doc = json!({ "type": kind });
    if let Some(p) = system_principal {
        doc["principalId"] = json!(p);
        doc["tenantId"] = json!(tenant_id);
    }
    if !user_assigned.is_empty() {
        let map: Map<String, Value> = user_assigned
            .iter()
            .map(|(id, client, principal)| {
                (
                    id.clone(),
                    json!({ "clientId": client, "principalId": principal }),
                )
            })
            .collect();
        doc["userAssignedIdentities"] = Value::Object(map);
    }
    Some(doc)
}
