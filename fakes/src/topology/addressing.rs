//! Private address planning: pins every static address a topology asks for, then gives each remaining VM
//! NIC (and internal LB frontend) the lowest free usable address of its subnet, and checks that every
//! subnet can also hold the uniform scale-set instances NRP will allocate dynamically after them.

use super::checks::Checker;
use super::plan::{LbPlan, ScaleSetPlan, VmPlan, VnetPlan};
use super::spec::OrchestrationMode;
use super::validate_compute::{AddressRequest, Requested};
use std::collections::HashSet;
use std::net::IpAddr;

/// Per-subnet allocator over the usable host range.
struct Pool {
    used: HashSet<IpAddr>,
    next_v4: u64,
    next_v6: u64,
}

impl Pool {
    fn next(&mut self, vnet: &VnetPlan, subnet: usize, v6: bool) -> Option<IpAddr> {
        let prefix = if v6 {
            vnet.subnets[subnet].v6?
        } else {
            vnet.subnets[subnet].v4
        };
        let cursor = if v6 {
            &mut self.next_v6
        } else {
            &mut self.next_v4
        };
        while let Some(ip) = prefix.host(*cursor) {
            *cursor += 1;
            if self.used.insert(ip) {
                return Some(ip);
            }
        }
        None
    }
}

fn pin(
    c: &mut Checker,
    vnet: &VnetPlan,
    pools: &mut [Pool],
    subnet: usize,
    r: &Requested,
    v6: bool,
) -> bool {
    let s = &vnet.subnets[subnet];
    let prefix = if v6 { s.v6 } else { Some(s.v4) };
    let Some(prefix) = prefix else {
        c.err(
            r.line,
            &r.field,
            format!("subnet '{}' has no IPv6 prefix", s.name),
        );
        return false;
    };
    if !prefix.is_usable(r.ip) {
        c.err(r.line, &r.field, format!("{} is not a usable address of subnet '{}' ({prefix}); Azure reserves the first four addresses and the IPv4 broadcast address", r.ip, s.name));
        return false;
    }
    if !pools[subnet].used.insert(r.ip) {
        c.err(
            r.line,
            &r.field,
            format!("{} is assigned twice in subnet '{}'", r.ip, s.name),
        );
        return false;
    }
    true
}

/// Assigns `vms[i].ipv4/ipv6` (index-aligned with `requests`) and internal frontend addresses.
pub(crate) fn assign(
    c: &mut Checker,
    vnet: &VnetPlan,
    lbs: &mut [LbPlan],
    vms: &mut [VmPlan],
    requests: &[AddressRequest],
    scale_sets: &[ScaleSetPlan],
) {
    if vnet.subnets.is_empty() {
        return;
    }
    let mut pools: Vec<Pool> = vnet
        .subnets
        .iter()
        .map(|_| Pool {
            used: HashSet::new(),
            next_v4: 0,
            next_v6: 0,
        })
        .collect();
    for lb in lbs.iter_mut() {
        for fe in lb.frontends.iter_mut() {
            if let (Some(subnet), Some(ip)) = (fe.subnet, fe.private_ip) {
                let r = Requested {
                    ip,
                    line: None,
                    field: format!(
                        "loadBalancers[{}].frontends[{}].privateIp",
                        lb.name, fe.name
                    ),
                };
                if !pin(c, vnet, &mut pools, subnet, &r, ip.is_ipv6()) {
                    fe.private_ip = None;
                }
            }
        }
    }
    let mut pinned = vec![(false, false); vms.len()];
    for (i, (vm, req)) in vms.iter_mut().zip(requests).enumerate() {
        if let Some(r) = &req.v4
            && pin(c, vnet, &mut pools, vm.subnet, r, false)
        {
            vm.ipv4 = r.ip;
            pinned[i].0 = true;
        }
        if let Some(r) = &req.v6
            && pin(c, vnet, &mut pools, vm.subnet, r, true)
        {
            vm.ipv6 = Some(r.ip);
            pinned[i].1 = true;
        }
    }
    for lb in lbs.iter_mut() {
        for fe in lb.frontends.iter_mut() {
            if let (Some(subnet), None) = (fe.subnet, fe.private_ip) {
                fe.private_ip = pools[subnet].next(vnet, subnet, false);
                if fe.private_ip.is_none() {
                    c.err(
                        None,
                        format!("loadBalancers[{}].frontends[{}]", lb.name, fe.name),
                        format!(
                            "subnet '{}' has no free address left",
                            vnet.subnets[subnet].name
                        ),
                    );
                }
            }
        }
    }
    for ((vm, req), (v4_done, v6_done)) in vms.iter_mut().zip(requests).zip(pinned) {
        if !v4_done {
            match pools[vm.subnet].next(vnet, vm.subnet, false) {
                Some(ip) => vm.ipv4 = ip,
                None => c.err(
                    req.line,
                    &req.field,
                    format!(
                        "subnet '{}' ({}) has no free address left for VM '{}'",
                        vnet.subnets[vm.subnet].name, vnet.subnets[vm.subnet].v4, vm.name
                    ),
                ),
            }
        }
        if !v6_done && vnet.subnets[vm.subnet].v6.is_some() {
            vm.ipv6 = pools[vm.subnet].next(vnet, vm.subnet, true);
        }
    }
    for (i, set) in scale_sets
        .iter()
        .enumerate()
        .filter(|(_, s)| s.mode == OrchestrationMode::Uniform)
    {
        let subnet = &vnet.subnets[set.subnet];
        let free = subnet.v4.usable().saturating_sub(
            pools[set.subnet]
                .used
                .iter()
                .filter(|ip| ip.is_ipv4())
                .count() as u64,
        );
        if u64::from(set.instances) > free {
            c.err(
                None,
                format!("scaleSets[{i}].instances"),
                format!(
                    "{} instances do not fit in subnet '{}' ({}): {free} addresses are left",
                    set.instances, subnet.name, subnet.v4
                ),
            );
        }
        // Reserve them so a second scale set in the same subnet is checked against what is really left.
        for _ in 0..set.instances {
            pools[set.subnet].next(vnet, set.subnet, false);
        }
    }
}
