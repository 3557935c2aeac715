//! The executor of a Service reconcile: reads the current documents once (LB list, PIP list, NSG),
//! asks the pure plans what must change, and writes only that, in upstream's order
//! (anchor-ccm.md §4.1): PIPs the frontends need → LB → pool members → NSG → the Service's
//! leftovers on the flipped (internal↔public) LB → PIPs no longer used. Deletion: NSG → LB →
//! flipped LB → PIPs.
//!
//! Serialisation: one reconcile at a time per provider (upstream's process-wide mutex), because
//! the LB, the NSG and shared PIPs are documents several Services write; each write carries the
//! ETag of the document it was planned from, and a 412 re-runs the whole reconcile once from fresh
//! reads. Upstream additionally takes the Lease `kube-system/aks-managed-resource-locker`; that
//! Lease needs the Kubernetes client, so the service controller holds it around each call.

use std::net::IpAddr;
use std::sync::Arc;

use ccm_cloud::NodeView;
use k8s_openapi::api::core::v1::{LoadBalancerStatus, Service};

use super::draft::{Draft, Snapshot, addresses, draft};
use super::error::LbError;
use super::network_io::NetworkIo;
use super::parse::{ParseContext, parse_service};
use super::plan::{LbChange, LbTarget, plan_remove};
use super::pools::node_ip::internal_ip;
use super::pools::{PoolMembership, eligible_refs, set_node_ip_members};
use super::publicip::{self, PipContext};
use super::service::{IpFamily, LbService};
use super::settings::LbSettings;
use super::status::status;
use super::{names, nsg};
use crate::arm::resources::load_balancer::LoadBalancer;
use crate::arm::resources::public_ip_address::PublicIpAddress;
use crate::config::{BackendPoolType, Config};
use crate::zones::AzureZones;

/// The cluster's Services as the service controller's cache holds them: the NSG plan keeps the
/// destinations other Services still need on a shared frontend IP (upstream lists Services too).
pub trait ServiceSource: Send + Sync {
    /// Every Service of the cluster (any type; non-LoadBalancer ones are skipped), shared with
    /// the cache that holds them: every reconcile reads them all, so a copy each time was
    /// 1000 Services copied per reconcile at 1000 Services.
    fn services(&self) -> Vec<Arc<Service>>;
}

/// Runs Service reconciles against ARM.
pub struct LbReconciler {
    /// Every eligible node IP seen since start: a floating-IP-off Service's rules drop the ones
    /// that are no longer eligible (a node that left is nobody's destination any more), and its
    /// deletion removes them all (the delete call carries no nodes). [infer] After a restart,
    /// a node that left before it stays in such a rule until the Service is deleted.
    seen_node_ips: std::sync::Mutex<std::collections::BTreeSet<IpAddr>>,
    services: std::sync::RwLock<Option<Arc<dyn ServiceSource>>>,
    io: NetworkIo,
    settings: LbSettings,
    config: Arc<Config>,
    zones: AzureZones,
    pools: PoolMembership,
    parse: ParseContext,
    serial: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for LbReconciler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LbReconciler")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The first InternalIP of `family` of each node (nodeIP pools and floating-IP-off NSG rules).
fn node_ips(nodes: &[&dyn NodeView], family: IpFamily) -> Vec<IpAddr> {
    nodes
        .iter()
        .filter_map(|n| internal_ip(*n, family))
        .collect()
}

/// The Service's identity when its annotations no longer parse: deletion must still find and
/// remove what it owns.
fn fallback(service: &Service) -> LbService {
    let meta = &service.metadata;
    let internal = meta
        .annotations
        .as_ref()
        .and_then(|a| a.get(ccm_names::service_annotations::INTERNAL))
        .is_some_and(|v| v == "true");
    let families = service
        .spec
        .as_ref()
        .and_then(|s| s.ip_families.as_ref())
        .map(|f| {
            f.iter()
                .map(|x| {
                    if x == "IPv6" {
                        IpFamily::V6
                    } else {
                        IpFamily::V4
                    }
                })
                .collect()
        })
        .filter(|f: &Vec<IpFamily>| !f.is_empty())
        .unwrap_or_else(|| vec![IpFamily::V4]);
    LbService {
        internal,
        families,
        ..LbService::minimal(
            meta.namespace.as_deref().unwrap_or_default(),
            meta.name.as_deref().unwrap_or_default(),
            meta.uid.as_deref().unwrap_or_default(),
        )
    }
}

impl LbReconciler {
    /// The ARM calls (the dry run reads through them too).
    pub(super) fn io(&self) -> &NetworkIo {
        &self.io
    }

    /// The azure.json in use.
    pub(super) fn config(&self) -> &Config {
        &self.config
    }

    /// Over the provider's ARM client, zones and pool writer, for `config`.
    pub fn new(
        io: NetworkIo,
        config: Arc<Config>,
        zones: AzureZones,
        pools: PoolMembership,
    ) -> Self {
        let settings = LbSettings::from_config(&config);
        let parse = ParseContext {
            sku: config.load_balancer.sku,
            probe_mode: config.load_balancer.health_probe_mode,
        };
        LbReconciler {
            seen_node_ips: std::sync::Mutex::new(Default::default()),
            services: std::sync::RwLock::new(None),
            io,
            settings,
            config,
            zones,
            pools,
            parse,
            serial: tokio::sync::Mutex::new(()),
        }
    }

    /// Where the NSG plan learns about the other Services (set once the controller's cache runs).
    pub fn set_service_source(&self, source: Arc<dyn ServiceSource>) {
        if let Ok(mut slot) = self.services.write() {
            *slot = Some(source);
        }
    }

    /// Other LoadBalancer Services whose NSG destinations overlap `mine` on these LBs: they share
    /// a frontend IP, or, with floating IP off, the node IPs.
    pub(super) fn sharing_services(
        &self,
        svc: &LbService,
        mine: &nsg::Destinations,
        lbs: &[&LoadBalancer],
        known: &[(String, IpAddr)],
    ) -> Vec<(LbService, nsg::Destinations)> {
        let source = match self.services.read() {
            Ok(slot) => slot.clone(),
            Err(_) => None,
        };
        let Some(source) = source else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for service in source.services() {
            let is_lb = service
                .spec
                .as_ref()
                .and_then(|s| s.type_.as_deref())
                .is_some_and(|t| t == "LoadBalancer");
            if !is_lb || service.metadata.uid.as_deref() == Some(svc.uid.as_str()) {
                continue;
            }
            let Ok(parsed) = parse_service(&service, &self.parse) else {
                continue;
            };
            let other = parsed.service;
            let frontend_ips: Vec<IpAddr> = lbs
                .iter()
                .filter_map(|lb| status(lb, &other, known))
                .flat_map(|s| ingress_ips(&s, &other))
                .collect();
            let shares_frontend = frontend_ips
                .iter()
                .any(|ip| mine.frontend_ips.contains(ip) || mine.stale.contains(ip));
            let shares_nodes = !other.rules.floating_ip
                && (!mine.backend_ips.is_empty() || !mine.stale.is_empty());
            if shares_frontend || shares_nodes {
                let backend_ips = if other.rules.floating_ip {
                    Vec::new()
                } else {
                    mine.backend_ips.clone()
                };
                out.push((
                    other,
                    nsg::Destinations {
                        frontend_ips,
                        backend_ips,
                        stale: Vec::new(),
                    },
                ));
            }
        }
        out
    }

    /// Remembers the eligible nodes' IPs (both families).
    fn remember_nodes(&self, eligible: &[&dyn NodeView]) {
        let ips: Vec<IpAddr> = [IpFamily::V4, IpFamily::V6]
            .iter()
            .flat_map(|f| node_ips(eligible, *f))
            .collect();
        if let Ok(mut seen) = self.seen_node_ips.lock() {
            seen.extend(ips);
        }
    }

    /// What the Service's rules may have named before this reconcile: its frontend IPs on
    /// either LB as read, the addresses of the PIPs it releases, and node IPs no longer wanted.
    pub(super) fn stale_candidates(
        &self,
        svc: &LbService,
        snap: &Snapshot,
        draft: &Draft,
        eligible: &[&dyn NodeView],
    ) -> Vec<IpAddr> {
        let mut stale = self.stale_node_ips(svc, eligible);
        for lb in snap.wanted.iter().chain(snap.flipped.iter()) {
            if let Some(before) = status(lb, svc, &draft.known) {
                stale.extend(ingress_ips(&before, svc));
            }
        }
        stale.extend(
            draft
                .pip_plan
                .deletes
                .iter()
                .filter_map(publicip::plan::address_of),
        );
        stale
    }

    /// Node IPs the Service's rules must no longer name: with floating IP off, the nodes that
    /// left the eligible set; with floating IP on, every node IP (the Service may have had
    /// floating IP off before) when the other Services are known.
    fn stale_node_ips(&self, svc: &LbService, eligible: &[&dyn NodeView]) -> Vec<IpAddr> {
        let current: Vec<IpAddr> = [IpFamily::V4, IpFamily::V6]
            .iter()
            .flat_map(|f| node_ips(eligible, *f))
            .collect();
        // Without the cluster's Services the plan cannot tell which node IPs other
        // floating-IP-off Services still need, so only departed nodes are taken out then.
        let sweep_all =
            svc.rules.floating_ip && self.services.read().map(|s| s.is_some()).unwrap_or(false);
        self.seen_node_ips
            .lock()
            .map(|seen| {
                seen.iter()
                    .filter(|ip| sweep_all || !current.contains(ip))
                    .copied()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The settings in use.
    pub fn settings(&self) -> &LbSettings {
        &self.settings
    }

    /// Parses the Service (typed error naming the annotation on bad input; nothing is written).
    pub fn parse(&self, service: &Service) -> Result<LbService, LbError> {
        let parsed = parse_service(service, &self.parse)?;
        for warning in &parsed.warnings {
            tracing::warn!(service = %parsed.service.key, reason = warning.reason, "{}", warning.message);
        }
        Ok(parsed.service)
    }

    pub(super) fn target(
        &self,
        cluster_name: &str,
        internal: bool,
        zones: Vec<String>,
    ) -> LbTarget {
        let s = &self.settings;
        LbTarget {
            subscription: s.subscription.clone(),
            resource_group: s.lb_resource_group.clone(),
            name: s.lb_name(cluster_name, internal),
            location: s.location.clone(),
            cluster_name: cluster_name.to_string(),
            sku: s.sku,
            disable_outbound_snat: s.disable_outbound_snat,
            probe_mode: s.probe_mode,
            shared_probe_port: s.shared_probe_port,
            shared_probe_path: s.shared_probe_path.clone(),
            internal_frontend_zones: if internal && s.standard() {
                zones
            } else {
                Vec::new()
            },
            tags: s.tags.clone(),
            system_tags: s.system_tags.clone(),
            in_tree: s.in_tree,
        }
    }

    pub(super) fn pip_context(&self, cluster_name: &str, zones: Vec<String>) -> PipContext {
        let s = &self.settings;
        PipContext {
            cluster_name: cluster_name.to_string(),
            resource_group: s.resource_group.clone(),
            location: s.location.clone(),
            zones,
            standard_sku: s.standard(),
            config_tags: s.tags.clone(),
            system_tags: s.system_tags.clone(),
            ip_tag_mutation: s.ip_tag_mutation,
            legacy_tag_keys: s.in_tree.legacy_tag_keys,
        }
    }

    pub(super) async fn region_zones(&self) -> Result<Vec<String>, LbError> {
        if !self.settings.standard() {
            return Ok(Vec::new());
        }
        Ok(self.zones.region_zones().await?)
    }

    pub(super) async fn snapshot(
        &self,
        cluster_name: &str,
        svc: &LbService,
        pip_rg: &str,
    ) -> Result<Snapshot, LbError> {
        let lbs = self.io.list_load_balancers(&self.settings).await?;
        let find = |name: String| {
            lbs.iter()
                .find(|lb| {
                    lb.name
                        .as_deref()
                        .is_some_and(|n| n.eq_ignore_ascii_case(&name))
                })
                .cloned()
        };
        let wanted = find(self.settings.lb_name(cluster_name, svc.internal));
        let flipped = find(self.settings.lb_name(cluster_name, !svc.internal));
        let pips = self.io.list_public_ips(&self.settings, pip_rg).await?;
        Ok(Snapshot {
            wanted,
            flipped,
            pips,
        })
    }

    fn pool_ids(&self, lb_name: &str, cluster_name: &str, svc: &LbService) -> Vec<String> {
        svc.families
            .iter()
            .map(|f| self.settings.pool_id(lb_name, cluster_name, *f))
            .collect()
    }

    /// Creates or updates everything the Service needs; returns its status.
    pub async fn ensure(
        &self,
        cluster_name: &str,
        service: &Service,
        nodes: &[&dyn NodeView],
    ) -> Result<LoadBalancerStatus, LbError> {
        let svc = self.parse(service)?;
        let _serial = self.serial.lock().await;
        match self.ensure_once(cluster_name, &svc, nodes).await {
            Err(e) if e.is_precondition_failed() => {
                tracing::debug!(service = %svc.key, "a document changed under us: planning again from fresh reads");
                self.ensure_once(cluster_name, &svc, nodes).await
            }
            other => other,
        }
    }

    async fn ensure_once(
        &self,
        cluster_name: &str,
        svc: &LbService,
        nodes: &[&dyn NodeView],
    ) -> Result<LoadBalancerStatus, LbError> {
        let zones = self.region_zones().await?;
        let pip_ctx = self.pip_context(cluster_name, zones.clone());
        let pip_rg = pip_ctx.resource_group_for(svc).to_string();
        let snap = self.snapshot(cluster_name, svc, &pip_rg).await?;
        let target = self.target(cluster_name, svc.internal, zones.clone());
        let eligible = eligible_refs(nodes, &self.config);
        self.remember_nodes(&eligible);
        let draft = draft(&self.settings, &target, &pip_ctx, svc, &eligible, &snap)?;
        for warning in &draft.pip_plan.warnings {
            tracing::warn!(service = %svc.key, "{warning}");
        }
        let mut known = draft.known.clone();
        for wanted in &draft.pip_plan.wanted {
            if let Some(body) = &wanted.write {
                let written = self.io.put_public_ip(&self.settings, &pip_rg, body).await?;
                known.extend(addresses(std::slice::from_ref(&written)));
            }
        }
        let manage_members = !self.settings.preconfigured_pools;
        let lb = match &draft.lb {
            Some(body) if draft.lb_changed => {
                Some(self.io.put_load_balancer(&self.settings, body).await?)
            }
            other => other.clone(),
        };
        let Some(lb) = lb else {
            return Err(LbError::NoLoadBalancer {
                service: svc.key.to_string(),
            });
        };
        if manage_members && self.settings.pool_type == BackendPoolType::NodeIpConfiguration {
            let ids = self.pool_ids(&target.name, cluster_name, svc);
            self.pools.ensure(&ids, &eligible).await?;
        }
        let lb_status = match status(&lb, svc, &known) {
            Some(found) => found,
            None => {
                // A public IP read while still provisioning (its PUT sent by a leader that died
                // before it finished) had no address then; ARM accepted the load balancer that
                // references it, so it is provisioned now: read the addresses again rather than
                // fail and wait out a backoff.
                let pips = self.io.list_public_ips(&self.settings, &pip_rg).await?;
                known.extend(addresses(&pips));
                status(&lb, svc, &known).ok_or_else(|| LbError::NoIngress {
                    service: svc.key.to_string(),
                })?
            }
        };

        if !svc.security.disabled {
            let stale = self.stale_candidates(svc, &snap, &draft, &eligible);
            let dst = destinations(svc, &lb_status, &eligible, stale);
            let lbs: Vec<&LoadBalancer> = std::iter::once(&lb).chain(snap.flipped.iter()).collect();
            self.ensure_nsg(svc, &dst, &lbs, &known).await?;
        }

        if let Some(flipped) = &snap.flipped {
            let flipped_target = self.target(cluster_name, !svc.internal, zones);
            self.remove_from(flipped, &flipped_target, cluster_name, svc)
                .await?;
        }
        self.release_public_ips(&pip_rg, &draft.pip_plan.updates, &draft.pip_plan.deletes)
            .await?;
        Ok(lb_status)
    }

    /// Puts the Service's NSG rules in place (its stale destinations out, the current ones in)
    /// in one write, keeping what the other Services sharing these addresses still need (they
    /// come from the [`ServiceSource`]; without one nothing is shared).
    async fn ensure_nsg(
        &self,
        svc: &LbService,
        dst: &nsg::Destinations,
        lbs: &[&LoadBalancer],
        known: &[(String, IpAddr)],
    ) -> Result<(), LbError> {
        let Some(current) = self.io.get_security_group(&self.settings).await? else {
            return Ok(());
        };
        if self.settings.in_tree.per_service_nsg_rules {
            if let Some(body) = nsg::plan_in_tree(&current, svc, dst, true)? {
                self.io.put_security_group(&self.settings, &body).await?;
            }
            return Ok(());
        }
        let others = self.sharing_services(svc, dst, lbs, known);
        let others: Vec<(&LbService, &nsg::Destinations)> =
            others.iter().map(|(s, d)| (s, d)).collect();
        if let Some(body) = nsg::plan_ensure_shared(&current, svc, dst, &others)? {
            self.io.put_security_group(&self.settings, &body).await?;
        }
        Ok(())
    }

    /// Takes the Service's destinations out of the NSG, keeping what `others` need.
    async fn remove_nsg(
        &self,
        svc: &LbService,
        dst: &nsg::Destinations,
        others: &[(LbService, nsg::Destinations)],
    ) -> Result<(), LbError> {
        if svc.security.disabled {
            return Ok(());
        }
        let Some(current) = self.io.get_security_group(&self.settings).await? else {
            return Ok(());
        };
        if self.settings.in_tree.per_service_nsg_rules {
            if let Some(body) = nsg::plan_in_tree(&current, svc, dst, false)? {
                self.io.put_security_group(&self.settings, &body).await?;
            }
            return Ok(());
        }
        let others: Vec<(&LbService, &nsg::Destinations)> =
            others.iter().map(|(s, d)| (s, d)).collect();
        if let Some(body) = nsg::plan_remove_shared(&current, svc, dst, &others) {
            self.io.put_security_group(&self.settings, &body).await?;
        }
        Ok(())
    }

    /// Removes the Service from `lb` (PUT), or deletes `lb` when its last frontend goes (pools
    /// detached from the nodes first).
    async fn remove_from(
        &self,
        lb: &LoadBalancer,
        target: &LbTarget,
        cluster_name: &str,
        svc: &LbService,
    ) -> Result<(), LbError> {
        match plan_remove(lb, target, svc) {
            LbChange::Unchanged => Ok(()),
            LbChange::Put(body) => {
                self.io.put_load_balancer(&self.settings, &body).await?;
                Ok(())
            }
            LbChange::Delete => {
                if self.settings.pool_type == BackendPoolType::NodeIpConfiguration
                    && !self.settings.preconfigured_pools
                {
                    let ids: Vec<String> = [IpFamily::V4, IpFamily::V6]
                        .iter()
                        .map(|f| self.settings.pool_id(&target.name, cluster_name, *f))
                        .collect();
                    self.pools.detach_all(&ids).await?;
                }
                self.io.delete_load_balancer(&self.settings, lb).await?;
                Ok(())
            }
        }
    }

    async fn release_public_ips(
        &self,
        pip_rg: &str,
        updates: &[PublicIpAddress],
        deletes: &[PublicIpAddress],
    ) -> Result<(), LbError> {
        for pip in updates {
            self.io.put_public_ip(&self.settings, pip_rg, pip).await?;
        }
        for pip in deletes {
            self.io
                .delete_public_ip(&self.settings, pip_rg, pip)
                .await?;
        }
        Ok(())
    }

    /// Node set changed: brings the pool members (and, with floating IP off, the NSG backend
    /// destinations) up to date for a Service that already has a frontend; the frontend, rules,
    /// probes and PIPs are left to the next `ensure`. Writes are per LB / NIC / scale set whose
    /// membership changed, so the first Service of a node join pays and the others find nothing
    /// to do.
    pub async fn update_hosts(
        &self,
        cluster_name: &str,
        service: &Service,
        nodes: &[&dyn NodeView],
    ) -> Result<(), LbError> {
        let svc = self.parse(service)?;
        let _serial = self.serial.lock().await;
        match self.update_hosts_once(cluster_name, &svc, nodes).await {
            Err(e) if e.is_precondition_failed() => {
                self.update_hosts_once(cluster_name, &svc, nodes).await
            }
            other => other,
        }
    }

    async fn update_hosts_once(
        &self,
        cluster_name: &str,
        svc: &LbService,
        nodes: &[&dyn NodeView],
    ) -> Result<(), LbError> {
        let lbs = self.io.list_load_balancers(&self.settings).await?;
        let name = self.settings.lb_name(cluster_name, svc.internal);
        let Some(current) = lbs.into_iter().find(|lb| {
            lb.name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(&name))
        }) else {
            return Ok(());
        };
        if super::plan::service_frontends(&current, svc).is_empty() {
            return Ok(());
        }
        let eligible = eligible_refs(nodes, &self.config);
        self.remember_nodes(&eligible);
        if !self.settings.preconfigured_pools {
            match self.settings.pool_type {
                BackendPoolType::NodeIp => {
                    let mut body = current.clone();
                    let vnet = self.settings.pool_vnet_id.clone();
                    for family in &svc.families {
                        let pool = names::backend_pool_name(cluster_name, *family);
                        set_node_ip_members(&mut body, &pool, *family, &eligible, &vnet);
                    }
                    if body != current {
                        self.io.put_load_balancer(&self.settings, &body).await?;
                    }
                }
                BackendPoolType::NodeIpConfiguration => {
                    let ids = self.pool_ids(&name, cluster_name, svc);
                    self.pools.ensure(&ids, &eligible).await?;
                }
                _ => {}
            }
        }
        if !svc.rules.floating_ip && !svc.security.disabled {
            let pip_rg = self
                .pip_context(cluster_name, Vec::new())
                .resource_group_for(svc)
                .to_string();
            let pips = self.io.list_public_ips(&self.settings, &pip_rg).await?;
            let known = addresses(&pips);
            if let Some(lb_status) = status(&current, svc, &known) {
                let stale = self.stale_node_ips(svc, &eligible);
                let dst = destinations(svc, &lb_status, &eligible, stale);
                self.ensure_nsg(svc, &dst, &[&current], &known).await?;
            }
        }
        Ok(())
    }

    /// Deletes what the Service owns: NSG destinations, LB children (or the LB), PIPs.
    pub async fn ensure_deleted(
        &self,
        cluster_name: &str,
        service: &Service,
    ) -> Result<(), LbError> {
        let svc = self.parse(service).unwrap_or_else(|_| fallback(service));
        let _serial = self.serial.lock().await;
        match self.delete_once(cluster_name, &svc).await {
            Err(e) if e.is_precondition_failed() => self.delete_once(cluster_name, &svc).await,
            other => other,
        }
    }

    async fn delete_once(&self, cluster_name: &str, svc: &LbService) -> Result<(), LbError> {
        let zones = self.region_zones().await?;
        let pip_ctx = self.pip_context(cluster_name, zones.clone());
        let pip_rg = pip_ctx.resource_group_for(svc).to_string();
        let snap = self.snapshot(cluster_name, svc, &pip_rg).await?;
        let known = addresses(&snap.pips);
        let mut frontend_ips = Vec::new();
        for lb in snap.wanted.iter().chain(snap.flipped.iter()) {
            if let Some(s) = status(lb, svc, &known) {
                frontend_ips.extend(ingress_ips(&s, svc));
            }
        }
        let backend_ips: Vec<IpAddr> = if svc.rules.floating_ip {
            Vec::new()
        } else {
            self.seen_node_ips
                .lock()
                .map(|ips| ips.iter().copied().collect())
                .unwrap_or_default()
        };
        // Whatever the floating-IP switch was when the rules were written, none may stay.
        let stale = frontend_ips.iter().chain(&backend_ips).copied().collect();
        let dst = nsg::Destinations {
            frontend_ips,
            backend_ips,
            stale,
        };
        let lbs: Vec<&LoadBalancer> = snap.wanted.iter().chain(snap.flipped.iter()).collect();
        let others = self.sharing_services(svc, &dst, &lbs, &known);
        self.remove_nsg(svc, &dst, &others).await?;
        for (lb, internal) in [(&snap.wanted, svc.internal), (&snap.flipped, !svc.internal)] {
            if let Some(lb) = lb {
                let target = self.target(cluster_name, internal, zones.clone());
                self.remove_from(lb, &target, cluster_name, svc).await?;
            }
        }
        let pip_plan = publicip::plan(svc, false, &pip_ctx, &snap.pips)?;
        self.release_public_ips(&pip_rg, &pip_plan.updates, &pip_plan.deletes)
            .await
    }

    /// The Service's status if it has a frontend on either cluster LB.
    pub async fn status_of(
        &self,
        cluster_name: &str,
        service: &Service,
    ) -> Result<Option<LoadBalancerStatus>, LbError> {
        let svc = self.parse(service).unwrap_or_else(|_| fallback(service));
        let pip_ctx = self.pip_context(cluster_name, Vec::new());
        let pip_rg = pip_ctx.resource_group_for(&svc).to_string();
        let snap = self.snapshot(cluster_name, &svc, &pip_rg).await?;
        let known = addresses(&snap.pips);
        Ok(snap
            .wanted
            .iter()
            .chain(snap.flipped.iter())
            .find_map(|lb| status(lb, &svc, &known)))
    }
}

/// Where the Service's NSG rules point (its frontend IPs, or the node IPs when floating IP is off)
/// and which of the `stale` candidates they must no longer name.
pub(super) fn destinations(
    svc: &LbService,
    lb_status: &LoadBalancerStatus,
    eligible: &[&dyn NodeView],
    mut stale: Vec<IpAddr>,
) -> nsg::Destinations {
    let frontend_ips = ingress_ips(lb_status, svc);
    let backend_ips: Vec<IpAddr> = if svc.rules.floating_ip {
        Vec::new()
    } else {
        svc.families
            .iter()
            .flat_map(|f| node_ips(eligible, *f))
            .collect()
    };
    // With floating IP off the rules name the nodes, so the frontend IPs are stale too.
    if !svc.rules.floating_ip {
        stale.extend(frontend_ips.iter().copied());
    }
    let live = if svc.rules.floating_ip {
        &frontend_ips
    } else {
        &backend_ips
    };
    stale.retain(|ip| !live.contains(ip));
    stale.sort_unstable();
    stale.dedup();
    nsg::Destinations {
        frontend_ips,
        backend_ips,
        stale,
    }
}

/// Frontend IPs of a status, without the additional public IPs appended at its end.
fn ingress_ips(status: &LoadBalancerStatus, svc: &LbService) -> Vec<IpAddr> {
    status
        .ingress
        .iter()
        .flatten()
        .filter_map(|i| i.ip.as_deref()?.parse::<IpAddr>().ok())
        .filter(|ip| !svc.additional_public_ips.contains(ip))
        .collect()
}
