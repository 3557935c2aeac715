//! Validation of VMs and scale sets: sizes, zones, fault domains, availability sets, subnets, backend pools,
//! identities and node-name uniqueness; expands `count` and flexible scale sets into individual VMs.

use super::checks::{Checker, line};
use super::naming::{flex_vm_name, instance_computer_name};
use super::plan::*;
use super::spec::*;
use super::validate::{Catalog, sorted, unique};
use serde_saphyr::Spanned;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::IpAddr;

/// Default VM size when a topology gives none.
pub const DEFAULT_VM_SIZE: &str = "Standard_D2s_v3";
/// CRP's limit on instances per scale set (and on `count`).
pub const MAX_INSTANCES: u32 = 1000;

/// A requested static address with where it was written.
#[derive(Debug, Clone)]
pub(crate) struct Requested {
    pub ip: IpAddr,
    pub line: Option<u64>,
    pub field: String,
}

/// Addresses a VM asked for (index-aligned with the VM list).
#[derive(Debug, Clone, Default)]
pub(crate) struct AddressRequest {
    pub v4: Option<Requested>,
    pub v6: Option<Requested>,
    /// Where the VM was declared (for capacity errors).
    pub line: Option<u64>,
    pub field: String,
}

/// Output of compute validation.
pub(crate) struct Compute {
    pub vms: Vec<VmPlan>,
    pub requests: Vec<AddressRequest>,
    pub scale_sets: Vec<ScaleSetPlan>,
}

struct Shared<'a> {
    catalog: &'a Catalog,
    vm_names: HashSet<String>,
    node_names: HashMap<String, String>,
}

fn requested(
    c: &mut Checker,
    value: &Option<Spanned<String>>,
    field: String,
    v6: bool,
) -> Option<Requested> {
    let v = value.as_ref()?;
    match v.value.parse::<IpAddr>() {
        Ok(ip) if ip.is_ipv6() == v6 => Some(Requested {
            ip,
            line: line(v),
            field,
        }),
        Ok(_) => {
            c.at(
                v,
                field,
                format!(
                    "'{}' is not an IPv{} address",
                    v.value,
                    if v6 { 6 } else { 4 }
                ),
            );
            None
        }
        Err(_) => {
            c.at(v, field, format!("'{}' is not an IP address", v.value));
            None
        }
    }
}

fn zone(c: &mut Checker, z: &Spanned<u32>, field: &str) -> Option<u32> {
    if (1..=3).contains(&z.value) {
        Some(z.value)
    } else {
        c.at(
            z,
            field,
            format!(
                "zone {} does not exist; accepted values are 1, 2 or 3",
                z.value
            ),
        );
        None
    }
}

fn subnet(c: &mut Checker, cat: &Catalog, s: &Option<Spanned<String>>, field: &str) -> usize {
    let Some(s) = s else { return 0 };
    cat.subnets
        .get(&s.value.to_ascii_lowercase())
        .copied()
        .unwrap_or_else(|| {
            c.at(
                s,
                field,
                format!(
                    "unknown subnet '{}' (subnets: {})",
                    s.value,
                    sorted(cat.subnets.keys())
                ),
            );
            0
        })
}

fn pools(c: &mut Checker, cat: &Catalog, specs: &[Spanned<String>], field: &str) -> Vec<PoolRef> {
    let mut out = Vec::new();
    let mut lb_by_type: [Option<String>; 2] = [None, None];
    for (i, p) in specs.iter().enumerate() {
        let f = format!("{field}[{i}]");
        let Some((lb, pool, internal)) = cat.pools.get(&p.value.to_ascii_lowercase()) else {
            c.at(
                p,
                &f,
                format!(
                    "unknown backend pool '{}' (expected <loadBalancer>/<pool>; defined: {})",
                    p.value,
                    sorted(
                        cat.pools
                            .values()
                            .map(|(l, p, _)| format!("{l}/{p}"))
                            .collect::<Vec<_>>()
                            .iter()
                    )
                ),
            );
            continue;
        };
        let slot = usize::from(*internal);
        match &lb_by_type[slot] {
            Some(other) if !other.eq_ignore_ascii_case(lb) => {
                let kind = if *internal { "internal" } else { "public" };
                c.at(p, &f, format!("a NIC can join pools of at most one {kind} load balancer; '{lb}' conflicts with '{other}'"));
            }
            _ => lb_by_type[slot] = Some(lb.clone()),
        }
        out.push(PoolRef {
            lb: lb.clone(),
            pool: pool.clone(),
        });
    }
    out
}

fn identity(
    c: &mut Checker,
    cat: &Catalog,
    spec: &Option<IdentitySpec>,
    field: &str,
) -> IdentityPlan {
    let Some(spec) = spec else {
        return IdentityPlan::default();
    };
    let mut user_assigned = Vec::new();
    for (i, n) in spec.user_assigned.iter().enumerate() {
        match cat.identities.get(&n.value.to_ascii_lowercase()) {
            Some(idx) => user_assigned.push(*idx),
            None => c.at(
                n,
                format!("{field}.userAssigned[{i}]"),
                format!(
                    "unknown managed identity '{}' (managedIdentities: {})",
                    n.value,
                    sorted(cat.identities.keys())
                ),
            ),
        }
    }
    IdentityPlan {
        system_assigned: spec.system_assigned,
        user_assigned,
    }
}

fn size(c: &mut Checker, s: &Option<Spanned<String>>, field: &str) -> String {
    match s {
        Some(v) => {
            c.vm_size(v, field);
            v.value.clone()
        }
        None => DEFAULT_VM_SIZE.to_string(),
    }
}

fn max_computer_name(os: OsType) -> usize {
    if os == OsType::Windows { 15 } else { 63 }
}

/// Validates `vms` and `scaleSets`; `pip_names` holds public IP names already taken by LB frontends.
pub(crate) fn validate(
    c: &mut Checker,
    spec: &TopologySpec,
    catalog: &Catalog,
    pip_names: &mut HashSet<String>,
) -> Compute {
    let mut sh = Shared {
        catalog,
        vm_names: HashSet::new(),
        node_names: HashMap::new(),
    };
    let mut out = Compute {
        vms: Vec::new(),
        requests: Vec::new(),
        scale_sets: Vec::new(),
    };
    let mut as_members: HashMap<String, u32> = HashMap::new();
    for (i, s) in spec.vms.iter().enumerate() {
        vm_entry(c, &mut sh, &mut out, &mut as_members, pip_names, s, i);
    }
    let mut seen = HashSet::new();
    for (i, s) in spec.scale_sets.iter().enumerate() {
        scale_set(c, &mut sh, &mut out, &mut seen, s, i);
    }
    uniform_name_clashes(c, &sh, &out.scale_sets, spec);
    out
}

fn vm_entry(
    c: &mut Checker,
    sh: &mut Shared,
    out: &mut Compute,
    as_members: &mut HashMap<String, u32>,
    pip_names: &mut HashSet<String>,
    s: &Spanned<VmSpec>,
    i: usize,
) {
    let v = &s.value;
    let f = format!("vms[{i}]");
    c.resource_name(&v.name, &format!("{f}.name"));
    let count = v.count.as_ref().map_or(1, |n| n.value);
    if let Some(n) = v
        .count
        .as_ref()
        .filter(|n| n.value == 0 || n.value > MAX_INSTANCES)
    {
        c.at(
            n,
            format!("{f}.count"),
            format!(
                "count {} is out of range; accepted values are 1-{MAX_INSTANCES}",
                n.value
            ),
        );
    }
    if count > 1 {
        for (present, name) in [
            (v.computer_name.is_some(), "computerName"),
            (v.private_ip.is_some(), "privateIp"),
            (v.private_ipv6.is_some(), "privateIpv6"),
            (
                v.public_ip.as_ref().is_some_and(|p| p.address.is_some()),
                "publicIp.address",
            ),
        ] {
            if present {
                c.at(
                    s,
                    format!("{f}.{name}"),
                    format!("{name} names one VM and cannot be combined with count > 1"),
                );
            }
        }
    }
    let size = size(c, &v.size, &format!("{f}.size"));
    let zone = v
        .zone
        .as_ref()
        .and_then(|z| zone(c, z, &format!("{f}.zone")));
    let avset = v.availability_set.as_ref().and_then(|a| {
        match sh
            .catalog
            .availability_sets
            .get(&a.value.to_ascii_lowercase())
        {
            Some(dims) => Some((a.value.clone(), *dims)),
            None => {
                c.at(
                    a,
                    format!("{f}.availabilitySet"),
                    format!(
                        "unknown availability set '{}' (availabilitySets: {})",
                        a.value,
                        sorted(sh.catalog.availability_sets.keys())
                    ),
                );
                None
            }
        }
    });
    if let (Some(z), Some(a)) = (&v.zone, &v.availability_set) {
        c.at(z, format!("{f}.zone"), format!("a VM cannot be both zonal and in availability set '{}'; remove zone or availabilitySet", a.value));
    }
    let fd_limit = avset.as_ref().map_or(3, |(_, (fd, _))| *fd);
    if let Some(fd) = v.fault_domain.as_ref().filter(|fd| fd.value >= fd_limit) {
        c.at(
            fd,
            format!("{f}.faultDomain"),
            format!(
                "fault domain {} is out of range; accepted values are 0-{}",
                fd.value,
                fd_limit - 1
            ),
        );
    }
    let subnet = subnet(c, sh.catalog, &v.subnet, &format!("{f}.subnet"));
    if let Some(x) = &v.private_ipv6
        && !sh.catalog.dual_stack.contains(&subnet)
    {
        c.at(
            x,
            format!("{f}.privateIpv6"),
            "privateIpv6 needs a dual-stack subnet (a subnet with ipv6Cidr)",
        );
    }
    let v4 = requested(c, &v.private_ip, format!("{f}.privateIp"), false);
    let v6 = requested(c, &v.private_ipv6, format!("{f}.privateIpv6"), true);
    let pools = pools(
        c,
        sh.catalog,
        &v.backend_pools,
        &format!("{f}.backendPools"),
    );
    let identity = identity(c, sh.catalog, &v.identity, &format!("{f}.identity"));
    c.tags(&v.tags, line(&v.name), &format!("{f}.tags"));
    let max_cn = max_computer_name(v.os_type);
    for k in 0..count.min(MAX_INSTANCES) {
        let name = if v.count.is_some() {
            format!("{}-{k}", v.name.value)
        } else {
            v.name.value.clone()
        };
        let field = if v.count.is_some() {
            format!("{f} (VM {name})")
        } else {
            f.clone()
        };
        if !sh.vm_names.insert(name.to_ascii_lowercase()) {
            c.at(
                &v.name,
                format!("{field}.name"),
                format!("duplicate VM name '{name}'"),
            );
        }
        let computer_name = v
            .computer_name
            .as_ref()
            .map_or_else(|| name.clone(), |cn| cn.value.clone());
        let cn_line = v.computer_name.as_ref().map_or(line(&v.name), line);
        let cn_field = if v.computer_name.is_some() {
            format!("{field}.computerName")
        } else {
            format!("{field}.name")
        };
        c.node_name(&computer_name, max_cn, cn_line, &cn_field);
        if let Some(prev) = sh
            .node_names
            .insert(computer_name.to_ascii_lowercase(), cn_field.clone())
        {
            c.err(
                cn_line,
                &cn_field,
                format!("node (computer) name '{computer_name}' is already used by {prev}"),
            );
        }
        let (fault_domain, update_domain) = match &avset {
            Some((set, (fds, uds))) => {
                let n = as_members.entry(set.to_ascii_lowercase()).or_default();
                let slot = *n;
                *n += 1;
                (
                    v.fault_domain.as_ref().map_or(slot % fds, |x| x.value),
                    slot % uds,
                )
            }
            None => (v.fault_domain.as_ref().map_or(0, |x| x.value), 0),
        };
        let public_ip = v.public_ip.as_ref().map(|p| {
            let mut plan = public_ip_plan(c, p, &name, &format!("{field}.publicIp"));
            if v.count.is_some() && p.name.is_some() {
                plan.name = format!("{}-{k}", plan.name);
            }
            if !pip_names.insert(plan.name.to_ascii_lowercase()) {
                c.at(
                    &v.name,
                    format!("{field}.publicIp.name"),
                    format!("duplicate public IP name '{}'", plan.name),
                );
            }
            plan
        });
        out.requests.push(AddressRequest {
            v4: v4.clone(),
            v6: v6.clone(),
            line: line(&v.name),
            field: field.clone(),
        });
        out.vms.push(VmPlan {
            name,
            computer_name,
            size: size.clone(),
            zone,
            fault_domain,
            update_domain,
            availability_set: avset.as_ref().map(|(n, _)| n.clone()),
            scale_set: None,
            power_state: v.power_state,
            subnet,
            ipv4: IpAddr::from([0, 0, 0, 0]),
            ipv6: None,
            public_ip,
            pools: pools.clone(),
            tags: v.tags.clone(),
            identity: identity.clone(),
            os_type: v.os_type,
        });
    }
}

fn public_ip_plan(c: &mut Checker, p: &PublicIpSpec, owner: &str, field: &str) -> PublicIpPlan {
    if let Some(n) = &p.name {
        c.resource_name(n, &format!("{field}.name"));
    }
    let address = p.address.as_ref().and_then(|a| {
        a.value
            .parse::<IpAddr>()
            .map_err(|_| {
                c.at(
                    a,
                    format!("{field}.address"),
                    format!("'{}' is not an IP address", a.value),
                )
            })
            .ok()
    });
    PublicIpPlan {
        name: p
            .name
            .as_ref()
            .map_or_else(|| format!("{owner}-pip"), |n| n.value.clone()),
        sku: p.sku,
        address,
    }
}

fn scale_set(
    c: &mut Checker,
    sh: &mut Shared,
    out: &mut Compute,
    seen: &mut HashSet<String>,
    s: &Spanned<ScaleSetSpec>,
    i: usize,
) {
    let v = &s.value;
    let f = format!("scaleSets[{i}]");
    unique(c, seen, &v.name, &format!("{f}.name"), "scale set");
    c.resource_name(&v.name, &format!("{f}.name"));
    if v.instances.value > MAX_INSTANCES {
        c.at(&v.instances, format!("{f}.instances"), format!("instance count {} exceeds the limit of {MAX_INSTANCES} per scale set; accepted values are 0-{MAX_INSTANCES}", v.instances.value));
    }
    let size = size(c, &v.size, &format!("{f}.size"));
    let mut zones = Vec::new();
    for (j, z) in v.zones.iter().enumerate() {
        if let Some(z) = zone(c, z, &format!("{f}.zones[{j}]")) {
            if zones.contains(&z) {
                c.at(
                    &v.zones[j],
                    format!("{f}.zones[{j}]"),
                    format!("zone {z} is listed twice"),
                );
            }
            zones.push(z);
        }
    }
    let default_fdc = if !zones.is_empty() || v.mode == OrchestrationMode::Flexible {
        1
    } else {
        5
    };
    let fault_domain_count = v
        .fault_domain_count
        .as_ref()
        .map_or(default_fdc, |x| x.value);
    if let Some(x) = v
        .fault_domain_count
        .as_ref()
        .filter(|x| !(1..=5).contains(&x.value))
    {
        c.at(
            x,
            format!("{f}.faultDomainCount"),
            format!(
                "platformFaultDomainCount {} is out of range; accepted values are 1-5",
                x.value
            ),
        );
    }
    let prefix = v
        .computer_name_prefix
        .as_ref()
        .map_or_else(|| v.name.value.clone(), |p| p.value.clone());
    let prefix_line = v.computer_name_prefix.as_ref().map_or(line(&v.name), line);
    let prefix_field = if v.computer_name_prefix.is_some() {
        format!("{f}.computerNamePrefix")
    } else {
        format!("{f}.name")
    };
    let max_cn = max_computer_name(v.os_type);
    c.node_name(
        &instance_computer_name(&prefix, 0),
        max_cn,
        prefix_line,
        &format!("{prefix_field} (computer names are <prefix> + 6 base-36 digits)"),
    );
    let subnet = subnet(c, sh.catalog, &v.subnet, &format!("{f}.subnet"));
    let pools = pools(
        c,
        sh.catalog,
        &v.backend_pools,
        &format!("{f}.backendPools"),
    );
    let identity = identity(c, sh.catalog, &v.identity, &format!("{f}.identity"));
    c.tags(&v.tags, line(&v.name), &format!("{f}.tags"));
    let plan = ScaleSetPlan {
        name: v.name.value.clone(),
        mode: v.mode,
        computer_name_prefix: prefix.clone(),
        size: size.clone(),
        instances: v.instances.value.min(MAX_INSTANCES),
        zones: zones.clone(),
        fault_domain_count: fault_domain_count.clamp(1, 5),
        power_state: v.power_state,
        subnet,
        pools: pools.clone(),
        tags: v.tags.clone(),
        identity: identity.clone(),
        os_type: v.os_type,
    };
    if v.mode == OrchestrationMode::Uniform {
        let key = prefix.to_ascii_lowercase();
        if let Some(prev) = sh
            .node_names
            .insert(format!("uniform-prefix:{key}"), prefix_field.clone())
        {
            c.err(prefix_line, &prefix_field, format!("computer-name prefix '{prefix}' is already used by {prev}; node names would collide"));
        }
    } else {
        for k in 0..plan.instances {
            let name = flex_vm_name(&plan.name, k);
            sh.vm_names.insert(name.to_ascii_lowercase());
            let computer_name = instance_computer_name(&prefix, u64::from(k));
            if let Some(prev) = sh
                .node_names
                .insert(computer_name.clone(), prefix_field.clone())
            {
                c.err(
                    prefix_line,
                    &prefix_field,
                    format!("node name '{computer_name}' is already used by {prev}"),
                );
            }
            out.requests.push(AddressRequest {
                v4: None,
                v6: None,
                line: line(&v.name),
                field: f.clone(),
            });
            out.vms.push(VmPlan {
                name,
                computer_name,
                size: size.clone(),
                zone: plan.zone_of(u64::from(k)),
                fault_domain: plan.fault_domain_of(u64::from(k)),
                update_domain: 0,
                availability_set: None,
                scale_set: Some(plan.name.clone()),
                power_state: v.power_state,
                subnet,
                ipv4: IpAddr::from([0, 0, 0, 0]),
                ipv6: None,
                public_ip: None,
                pools: pools.clone(),
                tags: v.tags.clone(),
                identity: identity.clone(),
                os_type: v.os_type,
            });
        }
    }
    out.scale_sets.push(plan);
}

/// A VM computer name that equals a uniform instance's computer name would be two nodes with one name.
fn uniform_name_clashes(c: &mut Checker, sh: &Shared, sets: &[ScaleSetPlan], spec: &TopologySpec) {
    let lines: BTreeMap<&str, Option<u64>> = spec
        .scale_sets
        .iter()
        .map(|s| (s.value.name.value.as_str(), line(&s.value.name)))
        .collect();
    for set in sets.iter().filter(|s| s.mode == OrchestrationMode::Uniform) {
        let prefix = set.computer_name_prefix.to_ascii_lowercase();
        for (node, owner) in &sh.node_names {
            let Some(rest) = node.strip_prefix(&prefix) else {
                continue;
            };
            if rest.len() == 6
                && u64::from_str_radix(rest, 36).is_ok_and(|n| n < u64::from(set.instances))
            {
                c.err(
                    lines.get(set.name.as_str()).copied().flatten(),
                    format!("scaleSets[{}]", set.name),
                    format!("instance computer name '{node}' is already used by {owner}"),
                );
            }
        }
    }
}
