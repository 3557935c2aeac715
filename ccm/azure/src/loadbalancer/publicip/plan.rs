//! The public IP plan of one Service (anchor-ccm.md §4.8): which PIP each family uses, the write
//! that makes it right (create, bind, tags, DNS label, SKU, IP version), and which PIPs the Service
//! no longer needs (unbound, or deleted once no Service lists them). Pure: the executor lists the
//! PIPs of the resource group once and applies the plan in upstream's order.
//!
//! # Deliberately different from upstream
//! - Upstream deletes and recreates a managed PIP whose IP tags differ from `azure-pip-ip-tags`
//!   (the Service's address changes). We never change an address silently: with
//!   `enableIPTagMutationForExistingPublicIP` the tags are updated in place, otherwise the PIP is
//!   kept as it is and the difference is reported as a warning.
//! - [infer] A PIP tagged for another cluster, or listing other Services only, is never modified
//!   even when a Service pins it by name (upstream would add its configured tags).

use std::net::IpAddr;

use super::tags::{self, Tags};
use crate::arm::resources::envelope::{Reference, Sku};
use crate::arm::resources::public_ip_address::{
    IpTag, PublicIpAddress, PublicIpAddressProperties, PublicIpDnsSettings,
};
use crate::config::tags::reconcile_tags;
use crate::loadbalancer::names;
use crate::loadbalancer::service::{IpFamily, LbService};

/// What the plan needs besides the Service and the PIP list.
#[derive(Debug, Clone, PartialEq)]
pub struct PipContext {
    /// Cluster name (`--cluster-name`): PIP names and the cluster tag.
    pub cluster_name: String,
    /// Config `resourceGroup`: PIPs live here unless the Service names another.
    pub resource_group: String,
    /// Config `location`.
    pub location: String,
    /// Zones of the region, written on new Standard PIPs (empty: none).
    pub zones: Vec<String>,
    /// Standard SKU load balancer (PIPs are forced to Standard).
    pub standard_sku: bool,
    /// Config `tags`/`tagsMap`.
    pub config_tags: Tags,
    /// Config `systemTags` prefixes.
    pub system_tags: Vec<String>,
    /// Config `enableIPTagMutationForExistingPublicIP`.
    pub ip_tag_mutation: bool,
    /// Write the ownership tags under the in-tree provider's legacy keys
    /// ([`crate::config::InTreeCompat::legacy_tag_keys`]).
    pub legacy_tag_keys: bool,
}

impl PipContext {
    /// Resource group of the Service's PIPs (`azure-load-balancer-resource-group` or config).
    pub fn resource_group_for<'a>(&'a self, svc: &'a LbService) -> &'a str {
        svc.public_ip
            .resource_group
            .as_deref()
            .filter(|rg| !rg.is_empty())
            .unwrap_or(&self.resource_group)
    }
}

/// Why no PIP plan can be made; the Service keeps what it has in Azure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PipError {
    /// A pinned public address matches no PIP of the resource group.
    #[error(
        "service {service}: user supplied IP address {ip} was not found in resource group {resource_group}; \
         create the public IP first or remove the requested address"
    )]
    PinnedIpNotFound {
        /// `ns/name`.
        service: String,
        /// The requested address.
        ip: IpAddr,
        /// Where it was looked for.
        resource_group: String,
    },
    /// `azure-pip-name(-ipv6)` names a PIP that does not exist.
    #[error(
        "service {service}: public IP {name} from annotation azure-pip-name does not exist in resource group {resource_group}"
    )]
    NamedPipMissing {
        /// `ns/name`.
        service: String,
        /// The PIP name.
        name: String,
        /// Where it was looked for.
        resource_group: String,
    },
    /// Another Service owns the DNS label of the PIP.
    #[error(
        "service {service}: public IP {pip} carries the DNS label of service {owner}; \
         only one Service may set azure-dns-label-name on a shared public IP"
    )]
    DnsLabelTaken {
        /// `ns/name`.
        service: String,
        /// The PIP name.
        pip: String,
        /// The Service owning the label.
        owner: String,
    },
}

/// How a Service relates to a PIP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// Not this Service's business.
    NotOwned,
    /// Managed (service tag) and this Service uses it (listed, or pins it as a secondary).
    Managed,
    /// No service tag: created by the user; pinned by this Service; never deleted or re-tagged.
    UserAssigned,
}

/// True when the Service pins this PIP by name or by address.
fn selects(svc: &LbService, pip: &PublicIpAddress) -> bool {
    let name = pip.name.as_deref().unwrap_or_default();
    let by_name = [&svc.public_ip.names.v4, &svc.public_ip.names.v6]
        .into_iter()
        .flatten()
        .any(|n| n.eq_ignore_ascii_case(name));
    let address = address_of(pip);
    let by_ip = [svc.requested_ips.v4, svc.requested_ips.v6]
        .into_iter()
        .flatten()
        .any(|ip| Some(ip) == address);
    by_name || by_ip
}

/// The PIP's address, when allocated.
pub fn address_of(pip: &PublicIpAddress) -> Option<IpAddr> {
    pip.properties
        .as_ref()
        .and_then(|p| p.ip_address.as_deref())
        .and_then(|a| a.parse().ok())
}

/// Upstream's ownership test: tagged PIPs belong to the Services they list (same cluster, or no
/// cluster tag: clusters from old releases) and to Services pinning them; untagged PIPs with an
/// address belong, as user-assigned, to Services pinning them.
pub fn ownership(svc: &LbService, pip: &PublicIpAddress, cluster_name: &str) -> Ownership {
    let empty = Tags::new();
    let t = pip.tags.as_ref().unwrap_or(&empty);
    if tags::service_tag(t).is_none() {
        if address_of(pip).is_some() && selects(svc, pip) {
            return Ownership::UserAssigned;
        }
        return Ownership::NotOwned;
    }
    let cluster_ok = tags::cluster(t).is_none_or(|c| c.eq_ignore_ascii_case(cluster_name));
    if tags::lists_service(t, &svc.key.to_string()) {
        return if cluster_ok {
            Ownership::Managed
        } else {
            Ownership::NotOwned
        };
    }
    if cluster_ok && selects(svc, pip) {
        Ownership::Managed
    } else {
        Ownership::NotOwned
    }
}

/// The PIP name a public Service uses for `family`, and whether it must already exist.
pub fn desired_name(
    svc: &LbService,
    family: IpFamily,
    ctx: &PipContext,
    pips: &[PublicIpAddress],
) -> Result<(String, bool), PipError> {
    if let Some(name) = svc
        .public_ip
        .names
        .get(family)
        .as_ref()
        .filter(|n| !n.is_empty())
    {
        return Ok((name.clone(), true));
    }
    let generated = || {
        let prefix_name = svc
            .public_ip
            .prefix_ids
            .get(family)
            .as_deref()
            .and_then(|id| id.rsplit('/').next())
            .filter(|n| !n.is_empty());
        names::public_ip_name(
            &ctx.cluster_name,
            &svc.base_name,
            prefix_name,
            family,
            svc.is_dual_stack(),
        )
    };
    if svc.public_ip.prefix_ids.get(family).is_some() {
        return Ok((generated(), false));
    }
    match svc.requested_ips.get(family) {
        None => Ok((generated(), false)),
        Some(ip) => pips
            .iter()
            .find(|p| address_of(p) == Some(*ip))
            .and_then(|p| p.name.clone())
            .map(|name| (name, false))
            .ok_or_else(|| PipError::PinnedIpNotFound {
                service: svc.key.to_string(),
                ip: *ip,
                resource_group: ctx.resource_group_for(svc).to_string(),
            }),
    }
}

/// One family's PIP: its name, the document as listed, and the PUT body when it must change.
#[derive(Debug, Clone, PartialEq)]
pub struct WantedPip {
    /// Family.
    pub family: IpFamily,
    /// PIP name.
    pub name: String,
    /// As listed (absent: to be created).
    pub current: Option<PublicIpAddress>,
    /// Body to PUT (`None`: already right).
    pub write: Option<PublicIpAddress>,
}

/// Everything the Service's PIPs need.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PipPlan {
    /// Per family, before the LB write (the frontends reference them).
    pub wanted: Vec<WantedPip>,
    /// Owned PIPs only re-tagged (unbound), after the LB write.
    pub updates: Vec<PublicIpAddress>,
    /// Owned PIPs to delete, after the LB no longer references them.
    pub deletes: Vec<PublicIpAddress>,
    /// Differences left alone on purpose (e.g. IP tags), for a Warning event.
    pub warnings: Vec<String>,
}

/// The IP tags requested by the annotation, as ARM documents.
fn requested_ip_tags(svc: &LbService) -> Vec<IpTag> {
    svc.public_ip
        .ip_tags
        .iter()
        .map(|(kind, tag)| IpTag {
            ip_tag_type: Some(kind.clone()),
            tag: Some(tag.clone()),
            ..Default::default()
        })
        .collect()
}

/// IP tags compared as a set of (type, tag).
fn same_ip_tags(a: &[IpTag], b: &[IpTag]) -> bool {
    let key = |t: &IpTag| (t.ip_tag_type.clone(), t.tag.clone());
    let mut left: Vec<_> = a.iter().map(key).collect();
    let mut right: Vec<_> = b.iter().map(key).collect();
    left.sort();
    right.sort();
    left == right
}

/// Expected tags of a managed PIP: config tags, overridden by `azure-pip-tags`, plus the cluster
/// and service tags it already carries (under their current keys).
fn expected_tags(svc: &LbService, ctx: &PipContext, current: &Tags) -> Tags {
    let mut expected = ctx.config_tags.clone();
    for (key, value) in &svc.public_ip.tags {
        match expected
            .keys()
            .find(|k| k.eq_ignore_ascii_case(key))
            .cloned()
        {
            Some(k) => {
                expected.insert(k, value.clone());
            }
            None => {
                expected.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(cluster) = tags::cluster(current) {
        expected.insert(
            ccm_names::resource_tags::CLUSTER_NAME.to_string(),
            cluster.to_string(),
        );
    }
    if let Some(services) = tags::service_tag(current) {
        expected.insert(
            ccm_names::resource_tags::SERVICE.to_string(),
            services.to_string(),
        );
    }
    expected
}

/// A new managed PIP for `family`.
fn new_pip(svc: &LbService, family: IpFamily, name: &str, ctx: &PipContext) -> PublicIpAddress {
    let t = tags::new_owner_tags(&svc.key.to_string(), &ctx.cluster_name, ctx.legacy_tag_keys);
    let ip_tags = requested_ip_tags(svc);
    let mut pip = PublicIpAddress {
        name: Some(name.to_string()),
        location: Some(ctx.location.clone()),
        tags: Some(t),
        properties: Some(PublicIpAddressProperties {
            public_ip_allocation_method: Some("Static".to_string()),
            public_ip_address_version: Some(family.arm().to_string()),
            ip_tags: (!ip_tags.is_empty()).then_some(ip_tags),
            ..Default::default()
        }),
        ..Default::default()
    };
    if ctx.standard_sku {
        pip.sku = Some(Sku {
            name: Some("Standard".to_string()),
            ..Default::default()
        });
        if let (Some(props), Some(id)) = (
            pip.properties.as_mut(),
            svc.public_ip.prefix_ids.get(family).as_ref(),
        ) {
            props.public_ip_prefix = Some(Reference::to(id.clone()));
        }
        if !ctx.zones.is_empty() {
            pip.zones = Some(ctx.zones.clone());
        }
    }
    pip
}

/// Brings an existing (or new) PIP to what the Service wants; the caller compares with the listed copy.
fn reconcile_pip(
    svc: &LbService,
    family: IpFamily,
    pip: &mut PublicIpAddress,
    owner: Ownership,
    ctx: &PipContext,
    warnings: &mut Vec<String>,
) -> Result<(), PipError> {
    let key = svc.key.to_string();
    let name = pip.name.clone().unwrap_or_default();
    let managed = owner == Ownership::Managed;
    let before = pip.tags.clone().unwrap_or_default();
    let mut t = pip.tags.take().unwrap_or_default();
    if managed {
        tags::bind(&mut t, &key);
    }
    if ctx.standard_sku {
        let sku = pip.sku.get_or_insert_with(Sku::default);
        if !sku
            .name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case("Standard"))
        {
            sku.name = Some("Standard".to_string());
        }
    }
    let props = pip
        .properties
        .get_or_insert_with(|| PublicIpAddressProperties {
            public_ip_allocation_method: Some("Static".to_string()),
            public_ip_address_version: Some(family.arm().to_string()),
            ..Default::default()
        });
    if managed && !svc.public_ip.ip_tags.is_empty() {
        let wanted = requested_ip_tags(svc);
        let current = props.ip_tags.clone().unwrap_or_default();
        if !same_ip_tags(&current, &wanted) {
            if ctx.ip_tag_mutation {
                props.ip_tags = Some(wanted);
            } else {
                warnings.push(format!(
                    "public IP {name} keeps its IP tags: changing them needs a new address; set \
                     enableIPTagMutationForExistingPublicIP to update them in place"
                ));
            }
        }
    }
    if managed {
        let expected = expected_tags(svc, ctx, &t);
        reconcile_tags(&mut t, &expected, &ctx.system_tags);
    }
    if let Some(label) = &svc.public_ip.dns_label {
        if let Some(owner) = tags::dns_owner(&t).filter(|o| !o.eq_ignore_ascii_case(&key)) {
            return Err(PipError::DnsLabelTaken {
                service: key,
                pip: name,
                owner: owner.to_string(),
            });
        }
        if label.is_empty() {
            props.dns_settings = None;
        } else {
            let dns = props
                .dns_settings
                .get_or_insert_with(PublicIpDnsSettings::default);
            if !dns
                .domain_name_label
                .as_deref()
                .is_some_and(|l| l.eq_ignore_ascii_case(label))
            {
                dns.domain_name_label = Some(label.clone());
            }
            if managed {
                tags::set_dns_owner(&mut t, &key);
            }
        }
    }
    let version_ok = props
        .public_ip_address_version
        .as_deref()
        .is_some_and(|v| v.eq_ignore_ascii_case(family.arm()));
    if !version_ok {
        props.public_ip_address_version = Some(family.arm().to_string());
    }
    if family == IpFamily::V6 {
        let method = if ctx.standard_sku {
            "Static"
        } else {
            "Dynamic"
        };
        if !props
            .public_ip_allocation_method
            .as_deref()
            .is_some_and(|m| m.eq_ignore_ascii_case(method))
        {
            props.public_ip_allocation_method = Some(method.to_string());
        }
    }
    if managed && ctx.legacy_tag_keys {
        tags::to_legacy_keys(&mut t, &before);
    }
    pip.tags = (!t.is_empty() || pip.tags.is_some()).then_some(t);
    Ok(())
}

/// The PIP plan of `svc`: `want_lb` false on deletion (or when the Service stopped being a
/// LoadBalancer); `pips` is the list of the Service's PIP resource group.
pub fn plan(
    svc: &LbService,
    want_lb: bool,
    ctx: &PipContext,
    pips: &[PublicIpAddress],
) -> Result<PipPlan, PipError> {
    let public = want_lb && !svc.internal;
    let mut desired: Vec<(IpFamily, String, bool)> = Vec::new();
    if public {
        for family in &svc.families {
            let (name, must_exist) = desired_name(svc, *family, ctx, pips)?;
            desired.push((*family, name, must_exist));
        }
    }
    let key = svc.key.to_string();
    let mut out = PipPlan::default();
    let mut deleted: Vec<String> = Vec::new();
    for pip in pips {
        let owner = ownership(svc, pip, &ctx.cluster_name);
        if owner != Ownership::Managed {
            continue;
        }
        let name = pip.name.clone().unwrap_or_default();
        let is_desired = desired
            .iter()
            .any(|(_, n, _)| n.eq_ignore_ascii_case(&name));
        if is_desired {
            continue;
        }
        // Deliberate: upstream only unbinds on deletion, so a Service that moved to another IP
        // stays listed on the old PIP until it is deleted; we unbind as soon as it stops using it.
        let mut edited = pip.clone();
        let mut t = edited.tags.take().unwrap_or_default();
        tags::unbind(&mut t, &key);
        let expected = expected_tags(svc, ctx, &t);
        reconcile_tags(&mut t, &expected, &ctx.system_tags);
        let users = tags::services(&t);
        if ctx.legacy_tag_keys {
            tags::to_legacy_keys(&mut t, pip.tags.as_ref().unwrap_or(&Tags::new()));
        }
        edited.tags = Some(t);
        if users.is_empty() {
            deleted.push(name);
            out.deletes.push(pip.clone());
        } else if edited != *pip {
            out.updates.push(edited);
        }
    }
    for (family, name, must_exist) in desired {
        let listed = pips
            .iter()
            .find(|p| {
                p.name
                    .as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(&name))
            })
            .filter(|_| !deleted.iter().any(|d| d.eq_ignore_ascii_case(&name)));
        let (current, mut body, owner) = match listed {
            Some(pip) => (
                Some(pip.clone()),
                pip.clone(),
                ownership(svc, pip, &ctx.cluster_name),
            ),
            None if must_exist => {
                return Err(PipError::NamedPipMissing {
                    service: key,
                    name,
                    resource_group: ctx.resource_group_for(svc).to_string(),
                });
            }
            None => (None, new_pip(svc, family, &name, ctx), Ownership::Managed),
        };
        let owner = match owner {
            Ownership::NotOwned if current.is_some() => Ownership::UserAssigned,
            other => other,
        };
        reconcile_pip(svc, family, &mut body, owner, ctx, &mut out.warnings)?;
        // A PIP whose last operation failed (provisioningState `Failed`, often with no address)
        // is put again as it is: the documented recovery of a networking resource in the failed
        // state (learn.microsoft.com, "Troubleshoot Azure Microsoft.Network failed provisioning
        // state": a PUT with the same properties). A user's PIP is left to the user.
        let failed = owner == Ownership::Managed
            && current
                .as_ref()
                .and_then(|c| c.properties.as_ref())
                .and_then(|p| p.provisioning_state.as_deref())
                .is_some_and(|s| s.eq_ignore_ascii_case("failed"));
        let write = (failed || current.as_ref() != Some(&body)).then_some(body);
        out.wanted.push(WantedPip {
            family,
            name,
            current,
            write,
        });
    }
    Ok(out)
}
