//! Semantic validation of a parsed topology: identity, groups, apps, identities, network, load balancers
//! and availability sets here; VMs and scale sets in `validate_compute`; addresses in `addressing`.
//! Produces a [`Plan`] only when no problem was found, so seeding never starts on bad input.

use super::addressing;
use super::checks::{Checker, line};
use super::cidr::Cidr;
use super::error::Problem;
use super::naming::resource_id;
use super::plan::*;
use super::spec::*;
use super::validate_compute;
use crate::stable_guid::stable_guid;
use serde_saphyr::Spanned;
use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::path::Path;

/// Names the compute validator resolves references against.
pub(crate) struct Catalog {
    /// Subnet name → index.
    pub subnets: HashMap<String, usize>,
    /// Subnets with an IPv6 prefix.
    pub dual_stack: HashSet<usize>,
    /// Availability set name → (fault domains, update domains).
    pub availability_sets: HashMap<String, (u32, u32)>,
    /// `lb/pool` (lower-case) → (LB name, pool name, LB is internal).
    pub pools: HashMap<String, (String, String, bool)>,
    /// Identity name (lower-case) → index.
    pub identities: HashMap<String, usize>,
}

/// Records `value` in `seen` (case-insensitive) and reports duplicates.
pub(crate) fn unique(
    c: &mut Checker,
    seen: &mut HashSet<String>,
    value: &Spanned<String>,
    field: &str,
    what: &str,
) {
    if !seen.insert(value.value.to_ascii_lowercase()) {
        c.at(
            value,
            field,
            format!(
                "duplicate {what} name '{}' (names are case-insensitive in Azure)",
                value.value
            ),
        );
    }
}

/// Validates `spec`; `base_dir` resolves relative certificate paths (and enables their existence check).
pub(crate) fn validate(spec: &TopologySpec, base_dir: Option<&Path>) -> Result<Plan, Vec<Problem>> {
    let mut c = Checker::default();
    c.guid(&spec.tenant_id, "tenantId");
    c.guid(&spec.subscription_id, "subscriptionId");
    let location: String = spec
        .location
        .value
        .chars()
        .filter(|ch| !ch.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    if location.is_empty() || !location.chars().all(|ch| ch.is_ascii_alphanumeric()) {
        c.at(
            &spec.location,
            "location",
            format!(
                "'{}' is not an Azure region name (e.g. eastus, westeurope)",
                spec.location.value
            ),
        );
    }
    let node_rg = group(&mut c, &spec.resource_groups.node, "resourceGroups.node");
    let vnet_rg = spec
        .resource_groups
        .vnet
        .as_ref()
        .map(|g| group(&mut c, g, "resourceGroups.vnet"))
        .filter(|g| !g.name.eq_ignore_ascii_case(&node_rg.name));
    let apps = apps(&mut c, &spec.apps, base_dir);
    let identities = identities(&mut c, spec, &node_rg.name);
    let (vnet, subnets, dual_stack) = vnet(&mut c, &spec.network.vnet);
    let mut names = HashSet::new();
    for (value, field) in [
        (&spec.network.security_group, "network.securityGroup"),
        (&spec.network.route_table, "network.routeTable"),
    ] {
        if let Some(v) = value {
            c.resource_name(v, field);
        }
    }
    let (mut load_balancers, pools) =
        load_balancers(&mut c, &spec.load_balancers, &subnets, &mut names);
    let availability_sets = availability_sets(&mut c, &spec.availability_sets);
    let catalog = Catalog {
        subnets,
        dual_stack,
        availability_sets: availability_sets
            .iter()
            .map(|a| {
                (
                    a.name.to_ascii_lowercase(),
                    (a.fault_domains, a.update_domains),
                )
            })
            .collect(),
        pools,
        identities: identities
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.to_ascii_lowercase(), i))
            .collect(),
    };
    let compute = validate_compute::validate(&mut c, spec, &catalog, &mut names);
    let mut vms = compute.vms;
    let public_ips = standalone_public_ips(&mut c, &spec.public_ips, &mut names);
    addressing::assign(
        &mut c,
        &vnet,
        &mut load_balancers,
        &mut vms,
        &compute.requests,
        &compute.scale_sets,
    );
    if !c.problems.is_empty() {
        return Err(c.problems);
    }
    Ok(Plan {
        cloud: spec.cloud,
        tenant_id: spec.tenant_id.value.clone(),
        subscription_id: spec.subscription_id.value.clone(),
        location,
        node_rg,
        vnet_rg,
        apps,
        identities,
        vnet,
        nsg: spec
            .network
            .security_group
            .as_ref()
            .map(|s| s.value.clone()),
        route_table: spec.network.route_table.as_ref().map(|s| s.value.clone()),
        load_balancers,
        availability_sets,
        scale_sets: compute.scale_sets,
        vms,
        public_ips,
    })
}

/// Top-level `publicIps`: each needs a name, unique among every public IP of the topology.
fn standalone_public_ips(
    c: &mut Checker,
    specs: &[Spanned<PublicIpSpec>],
    pip_names: &mut HashSet<String>,
) -> Vec<PublicIpPlan> {
    let mut out = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let field = format!("publicIps[{i}]");
        if spec.value.name.is_none() {
            c.at(
                spec,
                format!("{field}.name"),
                "a standalone public IP needs a name",
            );
            continue;
        }
        let plan = public_ip(c, &spec.value, "", &field);
        if !pip_names.insert(plan.name.to_ascii_lowercase()) {
            c.at(
                spec,
                format!("{field}.name"),
                format!("duplicate public IP name '{}'", plan.name),
            );
        }
        out.push(plan);
    }
    out
}

fn group(c: &mut Checker, g: &ResourceGroupSpec, field: &str) -> GroupPlan {
    c.group_name(&g.name, &format!("{field}.name"));
    c.tags(&g.tags, line(&g.name), &format!("{field}.tags"));
    GroupPlan {
        name: g.name.value.clone(),
        tags: g.tags.clone(),
    }
}

fn apps(
    c: &mut Checker,
    specs: &[Spanned<AppSpec>],
    base_dir: Option<&Path>,
) -> Vec<AppRegistration> {
    let mut seen_names = HashSet::new();
    let mut seen_ids = HashSet::new();
    let mut out = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        let a = &s.value;
        let f = format!("apps[{i}]");
        unique(c, &mut seen_names, &a.name, &format!("{f}.name"), "app");
        c.guid(&a.client_id, &format!("{f}.clientId"));
        if !seen_ids.insert(a.client_id.value.to_ascii_lowercase()) {
            c.at(
                &a.client_id,
                format!("{f}.clientId"),
                format!("client id {} is used by two apps", a.client_id.value),
            );
        }
        if a.secret.is_none() && a.certificate_path.is_none() && a.federated_credentials.is_empty()
        {
            c.at(s, &f, "an app needs at least one credential: secret, certificatePath or federatedCredentials");
        }
        if a.secret.as_deref().is_some_and(str::is_empty) {
            c.at(&a.name, format!("{f}.secret"), "the secret is empty");
        }
        let certificate_path = a.certificate_path.as_ref().map(|p| {
            let path = Path::new(&p.value);
            let resolved = match base_dir {
                Some(dir) if path.is_relative() => dir.join(path),
                _ => path.to_path_buf(),
            };
            if base_dir.is_some() && !resolved.is_file() {
                c.at(
                    p,
                    format!("{f}.certificatePath"),
                    format!("certificate file {} does not exist", resolved.display()),
                );
            }
            resolved
        });
        for (j, fc) in a.federated_credentials.iter().enumerate() {
            if !fc.issuer.starts_with("https://") {
                c.at(
                    &a.name,
                    format!("{f}.federatedCredentials[{j}].issuer"),
                    format!("issuer '{}' must be an https:// URL", fc.issuer),
                );
            }
            if fc.subject.is_empty() {
                c.at(
                    &a.name,
                    format!("{f}.federatedCredentials[{j}].subject"),
                    "subject is empty (expected system:serviceaccount:<namespace>:<name>)",
                );
            }
        }
        out.push(AppRegistration {
            name: a.name.value.clone(),
            client_id: a.client_id.value.clone(),
            secret: a.secret.clone(),
            certificate_path,
            federated_credentials: a
                .federated_credentials
                .iter()
                .map(|fc| FederatedCredential {
                    issuer: fc.issuer.clone(),
                    subject: fc.subject.clone(),
                    audiences: if fc.audiences.is_empty() {
                        vec!["api://AzureADTokenExchange".to_string()]
                    } else {
                        fc.audiences.clone()
                    },
                })
                .collect(),
        });
    }
    out
}

fn identities(c: &mut Checker, spec: &TopologySpec, node_rg: &str) -> Vec<ManagedIdentity> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, s) in spec.managed_identities.iter().enumerate() {
        let m = &s.value;
        let f = format!("managedIdentities[{i}]");
        unique(
            c,
            &mut seen,
            &m.name,
            &format!("{f}.name"),
            "managed identity",
        );
        c.resource_name(&m.name, &format!("{f}.name"));
        c.guid(&m.client_id, &format!("{f}.clientId"));
        let rg = m
            .resource_group
            .clone()
            .unwrap_or_else(|| node_rg.to_string());
        out.push(ManagedIdentity {
            name: m.name.value.clone(),
            resource_id: resource_id(
                &spec.subscription_id.value,
                &rg,
                "Microsoft.ManagedIdentity/userAssignedIdentities",
                &m.name.value,
            ),
            client_id: m.client_id.value.clone(),
            principal_id: m
                .principal_id
                .clone()
                .unwrap_or_else(|| stable_guid(&format!("principal/{}", m.client_id.value))),
        });
    }
    out
}

fn cidr(c: &mut Checker, value: &Spanned<String>, field: &str) -> Option<Cidr> {
    Cidr::parse(&value.value)
        .map_err(|e| c.at(value, field, e))
        .ok()
}

fn vnet(c: &mut Checker, v: &VnetSpec) -> (VnetPlan, HashMap<String, usize>, HashSet<usize>) {
    c.resource_name(&v.name, "network.vnet.name");
    let mut space = Vec::new();
    if v.address_space.is_empty() {
        c.at(
            &v.name,
            "network.vnet.addressSpace",
            "at least one address prefix is required (e.g. [10.0.0.0/8])",
        );
    }
    for (i, a) in v.address_space.iter().enumerate() {
        if let Some(p) = cidr(c, a, &format!("network.vnet.addressSpace[{i}]")) {
            space.push(p);
        }
    }
    if v.subnets.is_empty() {
        c.at(
            &v.name,
            "network.vnet.subnets",
            "at least one subnet is required",
        );
    }
    let mut subnets = Vec::new();
    let mut index = HashMap::new();
    let mut dual = HashSet::new();
    let mut seen = HashSet::new();
    for (i, s) in v.subnets.iter().enumerate() {
        let f = format!("network.vnet.subnets[{i}]");
        unique(c, &mut seen, &s.value.name, &format!("{f}.name"), "subnet");
        c.resource_name(&s.value.name, &format!("{f}.name"));
        let v4 = cidr(c, &s.value.cidr, &format!("{f}.cidr"));
        if let Some(p) = v4.filter(|p| !p.is_ipv4()) {
            c.at(
                &s.value.cidr,
                format!("{f}.cidr"),
                format!("{p} is IPv6; put IPv6 prefixes in ipv6Cidr"),
            );
        }
        let v6 = s
            .value
            .ipv6_cidr
            .as_ref()
            .and_then(|x| cidr(c, x, &format!("{f}.ipv6Cidr")));
        if let (Some(p), Some(x)) = (v6, &s.value.ipv6_cidr)
            && p.is_ipv4()
        {
            c.at(
                x,
                format!("{f}.ipv6Cidr"),
                format!("{p} is not an IPv6 prefix"),
            );
        }
        for (p, value, name) in [
            (v4, Some(&s.value.cidr), "cidr"),
            (v6, s.value.ipv6_cidr.as_ref(), "ipv6Cidr"),
        ] {
            let (Some(p), Some(value)) = (p, value) else {
                continue;
            };
            if !space.iter().any(|sp| sp.covers(&p)) {
                let listed: Vec<String> = space.iter().map(ToString::to_string).collect();
                c.at(
                    value,
                    format!("{f}.{name}"),
                    format!(
                        "{p} is outside the VNet address space [{}]",
                        listed.join(", ")
                    ),
                );
            }
            for (j, other) in subnets.iter().enumerate() {
                let other: &SubnetPlan = other;
                if other.v4.overlaps(&p) || other.v6.is_some_and(|o| o.overlaps(&p)) {
                    c.at(
                        value,
                        format!("{f}.{name}"),
                        format!(
                            "{p} overlaps subnet network.vnet.subnets[{j}] '{}'",
                            other.name
                        ),
                    );
                }
            }
        }
        if let Some(v4) = v4.filter(Cidr::is_ipv4) {
            index.insert(s.value.name.value.to_ascii_lowercase(), subnets.len());
            if v6.is_some_and(|p| !p.is_ipv4()) {
                dual.insert(subnets.len());
            }
            subnets.push(SubnetPlan {
                name: s.value.name.value.clone(),
                v4,
                v6: v6.filter(|p| !p.is_ipv4()),
            });
        }
    }
    (
        VnetPlan {
            name: v.name.value.clone(),
            address_space: space,
            subnets,
        },
        index,
        dual,
    )
}

fn public_ip(c: &mut Checker, p: &PublicIpSpec, default_name: &str, field: &str) -> PublicIpPlan {
    if let Some(n) = &p.name {
        c.resource_name(n, &format!("{field}.name"));
    }
    let address = p
        .address
        .as_ref()
        .and_then(|a| match a.value.parse::<IpAddr>() {
            Ok(ip) => Some(ip),
            Err(_) => {
                c.at(
                    a,
                    format!("{field}.address"),
                    format!("'{}' is not an IP address", a.value),
                );
                None
            }
        });
    PublicIpPlan {
        name: p
            .name
            .as_ref()
            .map_or_else(|| default_name.to_string(), |n| n.value.clone()),
        sku: p.sku,
        address,
    }
}

type Pools = HashMap<String, (String, String, bool)>;

fn load_balancers(
    c: &mut Checker,
    specs: &[Spanned<LoadBalancerSpec>],
    subnets: &HashMap<String, usize>,
    pip_names: &mut HashSet<String>,
) -> (Vec<LbPlan>, Pools) {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut pools = HashMap::new();
    for (i, s) in specs.iter().enumerate() {
        let lb = &s.value;
        let f = format!("loadBalancers[{i}]");
        unique(
            c,
            &mut seen,
            &lb.name,
            &format!("{f}.name"),
            "load balancer",
        );
        c.resource_name(&lb.name, &format!("{f}.name"));
        let mut frontends = Vec::new();
        let mut fe_names = HashSet::new();
        for (j, fs) in lb.frontends.iter().enumerate() {
            let fe = &fs.value;
            let ff = format!("{f}.frontends[{j}]");
            unique(
                c,
                &mut fe_names,
                &fe.name,
                &format!("{ff}.name"),
                "frontend",
            );
            c.resource_name(&fe.name, &format!("{ff}.name"));
            if fe.public_ip.is_some() == fe.subnet.is_some() {
                c.at(
                    fs,
                    &ff,
                    "a frontend needs exactly one of publicIp (public LB) or subnet (internal LB)",
                );
            }
            if fe.private_ip.is_some() && fe.subnet.is_none() {
                c.at(
                    fs,
                    format!("{ff}.privateIp"),
                    "privateIp is only allowed on internal frontends (with subnet)",
                );
            }
            let pip = fe.public_ip.as_ref().map(|p| {
                public_ip(
                    c,
                    p,
                    &format!("{}-{}-pip", lb.name.value, fe.name.value),
                    &format!("{ff}.publicIp"),
                )
            });
            if let Some(p) = &pip {
                if !pip_names.insert(p.name.to_ascii_lowercase()) {
                    c.at(
                        fs,
                        format!("{ff}.publicIp.name"),
                        format!("duplicate public IP name '{}'", p.name),
                    );
                }
                if p.sku != lb.sku {
                    c.at(fs, format!("{ff}.publicIp.sku"), format!("a {} load balancer needs {} public IPs (ARM: PublicIPAndLBSkuDoNotMatch)", lb.sku.as_str(), lb.sku.as_str()));
                }
            }
            let subnet = fe.subnet.as_ref().and_then(|sn| {
                let idx = subnets.get(&sn.value.to_ascii_lowercase()).copied();
                if idx.is_none() {
                    c.at(
                        sn,
                        format!("{ff}.subnet"),
                        format!(
                            "unknown subnet '{}' (subnets: {})",
                            sn.value,
                            sorted(subnets.keys())
                        ),
                    );
                }
                idx
            });
            let private_ip = fe
                .private_ip
                .as_ref()
                .and_then(|a| match a.value.parse::<IpAddr>() {
                    Ok(ip) if ip.is_ipv4() => Some(ip),
                    _ => {
                        c.at(
                            a,
                            format!("{ff}.privateIp"),
                            format!("'{}' is not an IPv4 address", a.value),
                        );
                        None
                    }
                });
            frontends.push(FrontendPlan {
                name: fe.name.value.clone(),
                public_ip: pip,
                subnet,
                private_ip,
            });
        }
        let internal = frontends.iter().any(|fe| fe.subnet.is_some());
        if internal && frontends.iter().any(|fe| fe.public_ip.is_some()) {
            c.at(
                s,
                format!("{f}.frontends"),
                "a load balancer cannot mix public and internal frontends",
            );
        }
        let mut pool_names = HashSet::new();
        for (j, p) in lb.backend_pools.iter().enumerate() {
            unique(
                c,
                &mut pool_names,
                p,
                &format!("{f}.backendPools[{j}]"),
                "backend pool",
            );
            c.resource_name(p, &format!("{f}.backendPools[{j}]"));
            pools.insert(
                format!("{}/{}", lb.name.value, p.value).to_ascii_lowercase(),
                (lb.name.value.clone(), p.value.clone(), internal),
            );
        }
        let mut outbound_rules = Vec::new();
        for (j, os) in lb.outbound_rules.iter().enumerate() {
            let o = &os.value;
            let of = format!("{f}.outboundRules[{j}]");
            c.resource_name(&o.name, &format!("{of}.name"));
            if lb.sku != LbSku::Standard {
                c.at(os, &of, "outbound rules need a Standard load balancer");
            }
            if o.frontends.is_empty() {
                c.at(
                    os,
                    format!("{of}.frontends"),
                    "at least one frontend is required",
                );
            }
            for (k, fe) in o.frontends.iter().enumerate() {
                match frontends
                    .iter()
                    .find(|x| x.name.eq_ignore_ascii_case(&fe.value))
                {
                    None => c.at(
                        fe,
                        format!("{of}.frontends[{k}]"),
                        format!(
                            "unknown frontend '{}' (frontends: {})",
                            fe.value,
                            sorted(frontends.iter().map(|x| &x.name))
                        ),
                    ),
                    Some(x) if x.public_ip.is_none() => c.at(
                        fe,
                        format!("{of}.frontends[{k}]"),
                        "outbound rules need public frontends",
                    ),
                    Some(_) => {}
                }
            }
            if !pool_names.contains(&o.backend_pool.value.to_ascii_lowercase()) {
                c.at(
                    &o.backend_pool,
                    format!("{of}.backendPool"),
                    format!(
                        "unknown backend pool '{}' (pools: {})",
                        o.backend_pool.value,
                        sorted(lb.backend_pools.iter().map(|p| &p.value))
                    ),
                );
            }
            if o.allocated_outbound_ports % 8 != 0 || o.allocated_outbound_ports > 64_000 {
                c.at(
                    os,
                    format!("{of}.allocatedOutboundPorts"),
                    "allocatedOutboundPorts must be a multiple of 8 between 0 and 64000",
                );
            }
            outbound_rules.push(OutboundRulePlan {
                name: o.name.value.clone(),
                frontends: o.frontends.iter().map(|x| x.value.clone()).collect(),
                pool: o.backend_pool.value.clone(),
                protocol: o.protocol,
                allocated_outbound_ports: o.allocated_outbound_ports,
            });
        }
        out.push(LbPlan {
            name: lb.name.value.clone(),
            sku: lb.sku,
            frontends,
            pools: lb.backend_pools.iter().map(|p| p.value.clone()).collect(),
            outbound_rules,
        });
    }
    (out, pools)
}

fn availability_sets(
    c: &mut Checker,
    specs: &[Spanned<AvailabilitySetSpec>],
) -> Vec<AvailabilitySetPlan> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        let a = &s.value;
        let f = format!("availabilitySets[{i}]");
        unique(
            c,
            &mut seen,
            &a.name,
            &format!("{f}.name"),
            "availability set",
        );
        c.resource_name(&a.name, &format!("{f}.name"));
        c.tags(&a.tags, line(&a.name), &format!("{f}.tags"));
        let fd = a.fault_domains.as_ref().map_or(2, |v| v.value);
        if let Some(v) = a
            .fault_domains
            .as_ref()
            .filter(|v| !(1..=3).contains(&v.value))
        {
            c.at(
                v,
                format!("{f}.faultDomains"),
                format!(
                    "{} fault domains requested; accepted values are 1, 2 or 3",
                    v.value
                ),
            );
        }
        let ud = a.update_domains.as_ref().map_or(5, |v| v.value);
        if let Some(v) = a
            .update_domains
            .as_ref()
            .filter(|v| !(1..=20).contains(&v.value))
        {
            c.at(
                v,
                format!("{f}.updateDomains"),
                format!(
                    "{} update domains requested; accepted values are 1-20",
                    v.value
                ),
            );
        }
        out.push(AvailabilitySetPlan {
            name: a.name.value.clone(),
            fault_domains: fd.clamp(1, 3),
            update_domains: ud.clamp(1, 20),
            tags: a.tags.clone(),
        });
    }
    out
}

/// Comma-separated sorted list for "accepted values" messages.
pub(crate) fn sorted<'a>(items: impl Iterator<Item = &'a String>) -> String {
    let mut v: Vec<&String> = items.collect();
    v.sort();
    if v.is_empty() {
        return "none defined".to_string();
    }
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}
