//! Frontend IP configurations (anchor-ccm.md §4.3, §4.9): one per IP family of the Service, kept
//! when it still matches the wanted source, replaced when the PIP, subnet or pinned IP changed
//! (upstream's `isFrontendIPChanged`), and reused as *secondary* owner when another Service's
//! frontend already holds the pinned PIP / private IP.

use crate::arm::resources::Reference;
use crate::arm::resources::load_balancer::{
    FrontendIpConfiguration, FrontendIpConfigurationProperties,
};
use crate::config::LoadBalancerSku;
use crate::loadbalancer::names::frontend_name;
use crate::loadbalancer::service::{IpFamily, LbService, PerFamily};

use super::ids::{LbIds, same_id};
use super::ownership::{is_primary, name_of};
use super::{FrontendSource, LbPlanError, LbTarget};

/// The frontend one family of the Service uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FrontendChoice {
    /// The family.
    pub family: IpFamily,
    /// The frontend's name on the LB.
    pub name: String,
}

/// The internal subnet annotation, which only names things on internal Services.
pub(crate) fn subnet_part(svc: &LbService) -> Option<&str> {
    svc.internal_subnet.as_deref().filter(|_| svc.internal)
}

fn allocation_is_static(props: &FrontendIpConfigurationProperties) -> bool {
    props
        .private_ip_allocation_method
        .as_deref()
        .is_some_and(|m| m.eq_ignore_ascii_case("Static"))
}

/// True when the frontend already is what `source` asks for (upstream's `isFrontendIPChanged`
/// negated: same PIP; or same subnet and Static with the pinned IP / not Static without one).
fn matches(fip: &FrontendIpConfiguration, source: &FrontendSource) -> bool {
    let Some(props) = fip.properties.as_ref() else {
        return false;
    };
    match source {
        FrontendSource::Public { pip_id } => {
            props.subnet.is_none()
                && same_id(
                    props
                        .public_ip_address
                        .as_ref()
                        .and_then(|r| r.id.as_deref()),
                    Some(pip_id),
                )
        }
        FrontendSource::Internal {
            subnet_id,
            private_ip,
        } => {
            let same_subnet = same_id(
                props.subnet.as_ref().and_then(|r| r.id.as_deref()),
                Some(subnet_id),
            );
            let same_ip = match private_ip {
                None => !allocation_is_static(props),
                Some(ip) => {
                    allocation_is_static(props)
                        && props
                            .private_ip_address
                            .as_deref()
                            .and_then(|a| a.parse().ok())
                            == Some(*ip)
                }
            };
            same_subnet && same_ip
        }
    }
}

/// True when a frontend of another Service holds the PIP / pinned IP `source` asks for.
fn shares(fip: &FrontendIpConfiguration, source: &FrontendSource) -> bool {
    let Some(props) = fip.properties.as_ref() else {
        return false;
    };
    match source {
        FrontendSource::Public { pip_id } => same_id(
            props
                .public_ip_address
                .as_ref()
                .and_then(|r| r.id.as_deref()),
            Some(pip_id),
        ),
        FrontendSource::Internal {
            private_ip: Some(ip),
            ..
        } => {
            props.is_internal()
                && props
                    .private_ip_address
                    .as_deref()
                    .and_then(|a| a.parse().ok())
                    == Some(*ip)
        }
        FrontendSource::Internal { .. } => false,
    }
}

/// The frontend document the CCM writes for `source`.
fn build(
    target: &LbTarget,
    ids: &LbIds,
    name: &str,
    family: IpFamily,
    source: &FrontendSource,
) -> FrontendIpConfiguration {
    let mut props = FrontendIpConfigurationProperties::default();
    let mut zones = None;
    match source {
        FrontendSource::Public { pip_id } => {
            props.public_ip_address = Some(Reference::to(pip_id.clone()));
        }
        FrontendSource::Internal {
            subnet_id,
            private_ip,
        } => {
            props.subnet = Some(Reference::to(subnet_id.clone()));
            match private_ip {
                Some(ip) => {
                    props.private_ip_allocation_method = Some("Static".into());
                    props.private_ip_address = Some(ip.to_string());
                }
                None => props.private_ip_allocation_method = Some("Dynamic".into()),
            }
            props.private_ip_address_version = Some(family.arm().into());
            if target.sku == LoadBalancerSku::Standard && !target.internal_frontend_zones.is_empty()
            {
                zones = Some(target.internal_frontend_zones.clone());
            }
        }
    }
    FrontendIpConfiguration {
        id: Some(ids.frontend(name)),
        name: Some(name.to_string()),
        zones,
        properties: Some(props),
        ..Default::default()
    }
}

/// Makes the frontends of every family of the Service present on `fips` and returns which one
/// each family uses. Stale primary frontends are pruned later, once the rules are known.
pub(crate) fn ensure_frontends(
    fips: &mut Vec<FrontendIpConfiguration>,
    target: &LbTarget,
    ids: &LbIds,
    svc: &LbService,
    sources: &PerFamily<Option<FrontendSource>>,
) -> Result<Vec<FrontendChoice>, LbPlanError> {
    let mut choices = Vec::new();
    for &family in &svc.families {
        let source = sources
            .get(family)
            .as_ref()
            .ok_or(LbPlanError::MissingFrontendSource { family })?;
        let wanted = frontend_name(
            &svc.base_name,
            subnet_part(svc),
            family,
            svc.is_dual_stack(),
        );
        let own = fips
            .iter()
            .position(|f| name_of(f).eq_ignore_ascii_case(&wanted));
        let shared = fips
            .iter()
            .position(|f| !is_primary(svc, f) && shares(f, source));
        let name = match (own, shared) {
            (Some(i), _) if matches(&fips[i], source) => name_of(&fips[i]).to_string(),
            // Another Service's frontend holds the pinned address: use it; the Service's own
            // frontend (if any) is pruned once its rules moved.
            (_, Some(i)) => name_of(&fips[i]).to_string(),
            (Some(i), None) => {
                let existing = &mut fips[i];
                let mut fresh = build(target, ids, name_of(existing), family, source);
                fresh.id = existing.id.clone().or(fresh.id);
                *existing = fresh;
                name_of(existing).to_string()
            }
            (None, None) => {
                fips.push(build(target, ids, &wanted, family, source));
                wanted
            }
        };
        choices.push(FrontendChoice { family, name });
    }
    Ok(choices)
}
