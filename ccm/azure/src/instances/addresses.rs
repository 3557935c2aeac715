//! Node addresses on the ARM path: the primary NIC's primary ipconfig gives the InternalIP, the
//! other family's first ipconfig a second InternalIP (dual-stack), then the Hostname, then the
//! public addresses those ipconfigs reference.

use k8s_openapi::api::core::v1::NodeAddress;

use crate::arm::resource_id::ResourceId;
use crate::cache::ReadMode;

use super::cached::{CachedIpConfig, CachedNic};
use super::error::InstanceError;
use super::machine::{Machine, Placement};
use super::reads::NodeReads;

fn address(kind: &str, value: &str) -> NodeAddress {
    NodeAddress {
        type_: kind.to_string(),
        address: value.to_string(),
    }
}

fn same_id(a: Option<&str>, b: &str) -> bool {
    a.is_some_and(|a| a.eq_ignore_ascii_case(b))
}

/// The NIC `machine` names as primary, from its resource group's or scale set's list; a NIC
/// missing from a cached list (a VM created since it was read) is looked for again in a fresh one.
pub async fn primary_nic(
    reads: &NodeReads,
    machine: &Machine,
    node: &str,
    mode: ReadMode,
) -> Result<CachedNic, InstanceError> {
    match primary_nic_once(reads, machine, node, mode).await {
        Err(InstanceError::NicNotFound { .. }) if mode == ReadMode::Default => {
            primary_nic_once(reads, machine, node, ReadMode::ForceRefresh).await
        }
        other => other,
    }
}

async fn primary_nic_once(
    reads: &NodeReads,
    machine: &Machine,
    node: &str,
    mode: ReadMode,
) -> Result<CachedNic, InstanceError> {
    let wanted = machine.primary_nic.as_str();
    let found = match &machine.placement {
        Placement::ScaleSet {
            resource_group,
            scale_set,
        } => reads
            .scale_set_nics(resource_group, scale_set, mode)
            .await?
            .iter()
            .find(|n| same_id(n.id.as_deref(), wanted))
            .cloned(),
        // Cached whole (pool membership PUTs them): read through the same projection.
        Placement::Vm => {
            let id: ResourceId = wanted.parse()?;
            reads
                .nics(id.resource_group().unwrap_or_default(), mode)
                .await?
                .iter()
                .find(|n| same_id(n.id.as_deref(), wanted))
                .map(CachedNic::from)
        }
    };
    found.ok_or_else(|| InstanceError::NicNotFound {
        node: node.to_string(),
        id: machine.primary_nic.clone(),
    })
}

async fn public_address(
    reads: &NodeReads,
    machine: &Machine,
    config: &CachedIpConfig,
    mode: ReadMode,
) -> Result<Option<String>, InstanceError> {
    let Some(pip_id) = config.public_ip_id.as_deref() else {
        return Ok(None);
    };
    let pips = match &machine.placement {
        Placement::ScaleSet {
            resource_group,
            scale_set,
        } => {
            reads
                .scale_set_public_ips(resource_group, scale_set, mode)
                .await?
        }
        Placement::Vm => {
            let id: ResourceId = pip_id.parse()?;
            reads
                .public_ips(id.resource_group().unwrap_or_default(), mode)
                .await?
        }
    };
    Ok(pips
        .iter()
        .find(|p| same_id(p.id.as_deref(), pip_id))
        .and_then(|p| p.ip_address.clone())
        .filter(|ip| !ip.is_empty()))
}

fn private_ip(config: &CachedIpConfig) -> Option<&str> {
    config
        .private_ip_address
        .as_deref()
        .filter(|ip| !ip.is_empty())
}

/// The node's addresses: InternalIP (primary ipconfig), InternalIP of the other family if the
/// NIC has one, Hostname, then ExternalIP of each of those ipconfigs that references a PIP.
pub async fn node_addresses(
    reads: &NodeReads,
    machine: &Machine,
    node: &str,
    mode: ReadMode,
) -> Result<Vec<NodeAddress>, InstanceError> {
    let nic = primary_nic(reads, machine, node, mode).await?;
    let primary = nic.primary_ip_configuration()?;
    let internal = private_ip(primary).ok_or_else(|| InstanceError::NoAddress {
        node: node.to_string(),
    })?;
    let other = nic
        .ip_configuration_of_family(!primary.ipv6)
        .ok()
        .filter(|c| private_ip(c).is_some());
    let mut out = vec![address("InternalIP", internal)];
    if let Some(ip) = other.and_then(private_ip) {
        out.push(address("InternalIP", ip));
    }
    out.push(address("Hostname", node));
    for config in std::iter::once(primary).chain(other) {
        if let Some(ip) = public_address(reads, machine, config, mode).await? {
            out.push(address("ExternalIP", &ip));
        }
    }
    Ok(out)
}
