//! [`Draft`]: the first half of a Service reconcile, without writes: from the documents one
//! reconcile reads ([`Snapshot`]) it decides the public IPs, the frontends and the desired load
//! balancer. The executor applies it; the dry run ([`super::dry_run`]) only shows it.

use std::net::IpAddr;

use ccm_cloud::NodeView;

use super::error::LbError;
use super::names;
use super::plan::{FrontendSource, LbChange, LbTarget, plan_ensure};
use super::pools::set_node_ip_members;
use super::publicip::{self, PipContext, PipPlan};
use super::service::{LbService, PerFamily};
use super::settings::LbSettings;
use crate::arm::resources::load_balancer::LoadBalancer;
use crate::arm::resources::public_ip_address::PublicIpAddress;
use crate::config::BackendPoolType;

/// What one reconcile read: both cluster LBs and the Service's PIP resource group.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The LB the Service belongs on (public or internal), if it exists.
    pub wanted: Option<LoadBalancer>,
    /// The other one (a Service that switched between internal and public left things there).
    pub flipped: Option<LoadBalancer>,
    /// The PIPs of the Service's PIP resource group.
    pub pips: Vec<PublicIpAddress>,
}

/// `(pip id, address)` of every PIP with an address.
pub fn addresses(pips: &[PublicIpAddress]) -> Vec<(String, IpAddr)> {
    pips.iter()
        .filter_map(|p| Some((p.id.clone()?, publicip::plan::address_of(p)?)))
        .collect()
}

/// The decisions taken before any write.
#[derive(Debug, Clone)]
pub struct Draft {
    /// Resource group of the Service's PIPs.
    pub pip_rg: String,
    /// PIP creations / updates / releases.
    pub pip_plan: PipPlan,
    /// The frontend each family gets.
    pub frontends: PerFamily<Option<FrontendSource>>,
    /// The LB the Service belongs on, as it should be (`None`: none wanted and none exists).
    pub lb: Option<LoadBalancer>,
    /// True when `lb` differs from the snapshot (a PUT is due).
    pub lb_changed: bool,
    /// Known PIP addresses by id (before any write).
    pub known: Vec<(String, IpAddr)>,
}

/// Decides PIPs, frontends and the desired LB for `svc` on `target`; `eligible` are the pool
/// members (nodeIP pools are written into the LB document itself).
pub fn draft(
    settings: &LbSettings,
    target: &LbTarget,
    pip_ctx: &PipContext,
    svc: &LbService,
    eligible: &[&dyn NodeView],
    snap: &Snapshot,
) -> Result<Draft, LbError> {
    let pip_rg = pip_ctx.resource_group_for(svc).to_string();
    let pip_plan = publicip::plan(svc, true, pip_ctx, &snap.pips)?;
    let mut frontends: PerFamily<Option<FrontendSource>> = PerFamily::default();
    for wanted in &pip_plan.wanted {
        let pip_id = wanted
            .current
            .as_ref()
            .and_then(|p| p.id.clone())
            .unwrap_or_else(|| settings.network_id(&pip_rg, "publicIPAddresses", &wanted.name));
        *frontends.get_mut(wanted.family) = Some(FrontendSource::Public { pip_id });
    }
    if svc.internal {
        for family in &svc.families {
            *frontends.get_mut(*family) = Some(FrontendSource::Internal {
                subnet_id: settings.subnet_id(svc),
                private_ip: *svc.requested_ips.get(*family),
            });
        }
    }
    let mut lb = match plan_ensure(snap.wanted.as_ref(), target, svc, &frontends)? {
        LbChange::Put(body) => Some(body),
        LbChange::Unchanged | LbChange::Delete => snap.wanted.clone(),
    };
    if let Some(body) = lb.as_mut()
        && !settings.preconfigured_pools
        && settings.pool_type == BackendPoolType::NodeIp
    {
        let vnet = &settings.pool_vnet_id;
        for family in &svc.families {
            let pool = names::backend_pool_name(&target.cluster_name, *family);
            set_node_ip_members(body, &pool, *family, eligible, vnet);
        }
    }
    let lb_changed = lb.as_ref() != snap.wanted.as_ref();
    Ok(Draft {
        pip_rg,
        pip_plan,
        frontends,
        lb,
        lb_changed,
        known: addresses(&snap.pips),
    })
}
