//! Pure edits of backend-pool references on NIC ipconfigs and scale-set network models: join the
//! pools on the ipconfig of each pool's family, or leave them everywhere; `false` / `None` when the
//! document already says so (no write).

use crate::arm::resources::envelope::{Reference, is_ipv6_version};
use crate::arm::resources::network_interface::NicIpConfiguration;
use crate::arm::resources::scale_set_network::{ScaleSetIpConfiguration, ScaleSetNetworkProfile};
use crate::arm::resources::{NetworkInterface, SelectionError};
use crate::loadbalancer::IpFamily;

use super::pool_ref::PoolRef;

/// Adds `pool` to `refs` unless it is there already. On a standard LB an ipconfig that is in a pool
/// of another load balancer of the same kind is left alone (NRP would refuse the NIC).
fn join(refs: &mut Option<Vec<Reference>>, pool: &PoolRef, standard: bool) -> bool {
    let current = refs.as_deref().unwrap_or_default();
    if current.iter().any(|r| pool.is(r)) {
        return false;
    }
    if standard && current.iter().any(|r| pool.conflicts_with(r)) {
        tracing::debug!(pool = %pool.id, "ipconfig already in another load balancer of this kind");
        return false;
    }
    refs.get_or_insert_with(Vec::new)
        .push(Reference::to(&pool.id));
    true
}

/// Removes every reference to one of `pools` from `refs`, keeping the others in order.
fn leave(refs: &mut Option<Vec<Reference>>, pools: &[PoolRef]) -> bool {
    let Some(list) = refs.as_mut() else {
        return false;
    };
    let before = list.len();
    list.retain(|r| !pools.iter().any(|p| p.is(r)));
    list.len() != before
}

fn position<T>(items: &[T], chosen: &T) -> Option<usize> {
    items.iter().position(|i| std::ptr::eq(i, chosen))
}

fn nic_target(nic: &NetworkInterface, family: IpFamily) -> Result<usize, SelectionError> {
    let chosen = match family {
        IpFamily::V4 => nic.primary_ip_configuration()?,
        IpFamily::V6 => nic.ip_configuration_of_family(true)?,
    };
    let configs = nic
        .properties
        .as_ref()
        .and_then(|p| p.ip_configurations.as_deref())
        .unwrap_or_default();
    Ok(position(configs, chosen).unwrap_or_default())
}

fn nic_configs(nic: &mut NetworkInterface) -> &mut [NicIpConfiguration] {
    nic.properties
        .as_mut()
        .and_then(|p| p.ip_configurations.as_deref_mut())
        .unwrap_or_default()
}

/// The NIC with `pools` joined (`member`) or left, `None` when nothing changes. Joining puts an
/// IPv4 pool on the primary ipconfig and an `-IPv6` pool on the first IPv6 ipconfig; leaving
/// removes the pools from every ipconfig. Other pools' references are never touched.
pub fn edit_nic(
    nic: &NetworkInterface,
    pools: &[PoolRef],
    member: bool,
    standard: bool,
) -> Result<Option<NetworkInterface>, SelectionError> {
    let mut edited = nic.clone();
    let mut changed = false;
    if member {
        for pool in pools {
            let index = nic_target(nic, pool.family)?;
            if let Some(props) = nic_configs(&mut edited)
                .get_mut(index)
                .and_then(|c| c.properties.as_mut())
            {
                changed |= join(
                    &mut props.load_balancer_backend_address_pools,
                    pool,
                    standard,
                );
            }
        }
    } else {
        for config in nic_configs(&mut edited) {
            if let Some(props) = config.properties.as_mut() {
                changed |= leave(&mut props.load_balancer_backend_address_pools, pools);
            }
        }
    }
    Ok(changed.then_some(edited))
}

fn profile_target(
    profile: &ScaleSetNetworkProfile,
    family: IpFamily,
    name: &str,
) -> Result<(usize, usize), SelectionError> {
    let nic = profile.primary_nic_configuration(name)?;
    let nic_index = position(
        profile
            .network_interface_configurations
            .as_deref()
            .unwrap_or_default(),
        nic,
    )
    .unwrap_or_default();
    let nic_name = nic.name.as_deref().unwrap_or(name);
    let props = nic
        .properties
        .as_ref()
        .ok_or_else(|| SelectionError::NoIpConfigurations {
            nic: nic_name.to_string(),
        })?;
    let configs: &[ScaleSetIpConfiguration] =
        props.ip_configurations.as_deref().unwrap_or_default();
    let chosen = match family {
        IpFamily::V4 => props.primary_ip_configuration(nic_name)?,
        IpFamily::V6 => configs
            .iter()
            .find(|c| {
                c.properties
                    .as_ref()
                    .is_some_and(|p| is_ipv6_version(p.private_ip_address_version.as_deref()))
            })
            .ok_or_else(|| SelectionError::NoIpConfigOfFamily {
                nic: nic_name.to_string(),
                ipv6: true,
            })?,
    };
    Ok((nic_index, position(configs, chosen).unwrap_or_default()))
}

/// A scale-set network model (the scale set's or a uniform instance's) with `pools` joined on the
/// primary NIC configuration (IPv4: its primary ipconfig; IPv6: its first IPv6 ipconfig) or left
/// everywhere; `true` when it changed. `name` names the model in errors.
pub fn edit_profile(
    profile: &mut ScaleSetNetworkProfile,
    pools: &[PoolRef],
    member: bool,
    standard: bool,
    name: &str,
) -> Result<bool, SelectionError> {
    let mut changed = false;
    if member {
        for pool in pools {
            let (nic, ipc) = profile_target(profile, pool.family, name)?;
            let target = profile
                .network_interface_configurations
                .as_mut()
                .and_then(|n| n.get_mut(nic))
                .and_then(|n| n.properties.as_mut())
                .and_then(|p| p.ip_configurations.as_mut())
                .and_then(|c| c.get_mut(ipc))
                .and_then(|c| c.properties.as_mut());
            if let Some(props) = target {
                changed |= join(
                    &mut props.load_balancer_backend_address_pools,
                    pool,
                    standard,
                );
            }
        }
    } else {
        for nic in profile
            .network_interface_configurations
            .iter_mut()
            .flatten()
        {
            let configs = nic
                .properties
                .as_mut()
                .and_then(|p| p.ip_configurations.as_mut());
            for config in configs.into_iter().flatten() {
                if let Some(props) = config.properties.as_mut() {
                    changed |= leave(&mut props.load_balancer_backend_address_pools, pools);
                }
            }
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LB: &str = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers";

    fn pool(lb: &str, name: &str) -> PoolRef {
        PoolRef::parse(&format!("{LB}/{lb}/backendAddressPools/{name}")).unwrap()
    }

    fn nic(v4_pools: serde_json::Value) -> NetworkInterface {
        serde_json::from_value(json!({ "name": "nic", "properties": { "ipConfigurations": [
            { "name": "v4", "properties": { "primary": true, "privateIPAddress": "10.0.0.4",
              "loadBalancerBackendAddressPools": v4_pools } },
            { "name": "v6", "properties": { "privateIPAddress": "fd00::4", "privateIPAddressVersion": "IPv6" } }
        ] } }))
        .unwrap()
    }

    fn pool_ids(nic: &NetworkInterface, index: usize) -> Vec<String> {
        nic.properties
            .as_ref()
            .unwrap()
            .ip_configurations
            .as_ref()
            .unwrap()[index]
            .properties
            .as_ref()
            .unwrap()
            .load_balancer_backend_address_pools
            .iter()
            .flatten()
            .filter_map(|r| r.id.clone())
            .collect()
    }

    #[test]
    fn join_per_family_and_no_change_twice() {
        let pools = [
            pool("kubernetes", "kubernetes"),
            pool("kubernetes", "kubernetes-IPv6"),
        ];
        let outbound = format!("{LB}/kubernetes/backendAddressPools/aksOutbound");
        let n = nic(json!([{ "id": outbound }]));
        let joined = edit_nic(&n, &pools, true, true).unwrap().expect("changed");
        assert_eq!(
            pool_ids(&joined, 0),
            [outbound.clone(), pools[0].id.clone()]
        );
        assert_eq!(pool_ids(&joined, 1), [pools[1].id.clone()]);
        assert_eq!(edit_nic(&joined, &pools, true, true).unwrap(), None);
        let left = edit_nic(&joined, &pools, false, true)
            .unwrap()
            .expect("changed");
        assert_eq!(pool_ids(&left, 0), [outbound], "other pools stay");
        assert!(pool_ids(&left, 1).is_empty());
        assert_eq!(edit_nic(&left, &pools, false, true).unwrap(), None);
    }

    #[test]
    fn standard_lb_skips_an_ipconfig_of_another_lb_of_the_same_kind() {
        let theirs = format!("{LB}/other/backendAddressPools/x");
        let n = nic(json!([{ "id": theirs }]));
        let ours = [pool("kubernetes", "kubernetes")];
        assert_eq!(edit_nic(&n, &ours, true, true).unwrap(), None);
        assert!(
            edit_nic(&n, &ours, true, false).unwrap().is_some(),
            "basic: no such check"
        );
        let internal = [pool("kubernetes-internal", "kubernetes")];
        assert!(edit_nic(&n, &internal, true, true).unwrap().is_some());
    }

    #[test]
    fn scale_set_model_joins_on_the_primary_configuration() {
        let mut profile: ScaleSetNetworkProfile = serde_json::from_value(json!({
            "networkInterfaceConfigurations": [
                { "name": "secondary", "properties": { "primary": false, "ipConfigurations": [{ "name": "x" }] } },
                { "name": "main", "properties": { "primary": true, "ipConfigurations": [
                    { "name": "v4", "properties": { "primary": true } },
                    { "name": "v6", "properties": { "privateIPAddressVersion": "IPv6" } }
                ] } }
            ]
        }))
        .unwrap();
        let pools = [
            pool("kubernetes", "kubernetes"),
            pool("kubernetes", "kubernetes-IPv6"),
        ];
        assert!(edit_profile(&mut profile, &pools, true, true, "ss").unwrap());
        let v = serde_json::to_value(&profile).unwrap();
        let main = &v["networkInterfaceConfigurations"][1]["properties"]["ipConfigurations"];
        assert_eq!(
            main[0]["properties"]["loadBalancerBackendAddressPools"],
            json!([{ "id": pools[0].id }])
        );
        assert_eq!(
            main[1]["properties"]["loadBalancerBackendAddressPools"],
            json!([{ "id": pools[1].id }])
        );
        assert!(
            v["networkInterfaceConfigurations"][0]["properties"]["ipConfigurations"][0]
                .get("properties")
                .is_none()
        );
        assert!(!edit_profile(&mut profile, &pools, true, true, "ss").unwrap());
        assert!(edit_profile(&mut profile, &pools, false, true, "ss").unwrap());
        assert!(!edit_profile(&mut profile, &pools, false, true, "ss").unwrap());
    }
}
