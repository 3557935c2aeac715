//! The dry run of a Service reconcile: the same reads and plans as `ensure`, and instead of writes,
//! the list of ARM writes it would send, in order, with their bodies. `harness` shows it to an
//! operator before a switch: an empty list means the out-of-tree CCM adopts the Service as it is.
//!
//! Limits: backend pool membership of `nodeIPConfiguration` pools (NIC and scale-set writes) is
//! reported as a note, not as writes; a frontend whose address Azure has not allocated yet (a new
//! PIP, a dynamic private IP) has no NSG plan until it has one.

use k8s_openapi::api::core::v1::{Node, Service};
use serde::Serialize;
use serde_json::Value;

use super::draft::draft;
use super::error::LbError;
use super::nsg;
use super::plan::{LbChange, plan_remove};
use super::pools::eligible_nodes;
use super::reconcile::{LbReconciler, destinations};
use super::status::status;
use crate::config::BackendPoolType;

/// One ARM write the reconcile would send.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedWrite {
    /// `PUT` or `DELETE`.
    pub method: &'static str,
    /// ARM id of the resource.
    pub resource: String,
    /// The body of a PUT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

/// Everything one Service reconcile would change.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ServicePlan {
    /// `namespace/name`.
    pub service: String,
    /// Writes in the order `ensure` sends them.
    pub writes: Vec<PlannedWrite>,
    /// What the plan could not spell out as writes.
    pub notes: Vec<String>,
}

fn put<T: Serialize>(resource: String, body: &T) -> PlannedWrite {
    PlannedWrite {
        method: "PUT",
        resource,
        body: serde_json::to_value(body).ok(),
    }
}

impl LbReconciler {
    /// What `ensure_load_balancer` would write for `service`, without writing anything.
    pub async fn dry_run(
        &self,
        cluster_name: &str,
        service: &Service,
        nodes: &[Node],
    ) -> Result<ServicePlan, LbError> {
        let svc = self.parse(service)?;
        let settings = self.settings();
        let zones = self.region_zones().await?;
        let pip_ctx = self.pip_context(cluster_name, zones.clone());
        let pip_rg = pip_ctx.resource_group_for(&svc).to_string();
        let snap = self.snapshot(cluster_name, &svc, &pip_rg).await?;
        let target = self.target(cluster_name, svc.internal, zones.clone());
        let eligible = eligible_nodes(nodes, self.config());
        let draft = draft(settings, &target, &pip_ctx, &svc, &eligible, &snap)?;
        let mut plan = ServicePlan {
            service: svc.key.to_string(),
            ..Default::default()
        };
        for wanted in &draft.pip_plan.wanted {
            if let Some(body) = &wanted.write {
                let id = settings.network_id(&pip_rg, "publicIPAddresses", &wanted.name);
                plan.writes.push(put(id, body));
            }
        }
        plan.notes.extend(draft.pip_plan.warnings.iter().cloned());
        if let Some(lb) = draft.lb.as_ref().filter(|_| draft.lb_changed) {
            plan.writes.push(put(settings.lb_id(&target.name), lb));
        }
        if !settings.preconfigured_pools
            && settings.pool_type == BackendPoolType::NodeIpConfiguration
        {
            plan.notes.push(format!(
                "backend pool membership of {} eligible nodes is reconciled on their NICs / scale sets after the load balancer write",
                eligible.len()
            ));
        }
        let lb_status = draft
            .lb
            .as_ref()
            .and_then(|lb| status(lb, &svc, &draft.known));
        match (&lb_status, svc.security.disabled) {
            (_, true) => {}
            (None, false) => plan
                .notes
                .push("NSG rules follow once the new frontend has an IP address".to_string()),
            (Some(lb_status), false) => {
                if let Some(current) = self.io().get_security_group(settings).await? {
                    let stale = self.stale_candidates(&svc, &snap, &draft, &eligible);
                    let dst = destinations(&svc, lb_status, &eligible, stale);
                    let lbs: Vec<_> = draft.lb.iter().collect();
                    let others = self.sharing_services(&svc, &dst, &lbs, &draft.known);
                    let others: Vec<(&_, &nsg::Destinations)> =
                        others.iter().map(|(s, d)| (s, d)).collect();
                    if let Some(body) = nsg::plan_ensure_shared(&current, &svc, &dst, &others)? {
                        plan.writes.push(put(settings.nsg_path(), &body));
                    }
                }
            }
        }
        if let Some(flipped) = &snap.flipped {
            let flipped_target = self.target(cluster_name, !svc.internal, zones);
            let id = settings.lb_id(&flipped_target.name);
            match plan_remove(flipped, &flipped_target, &svc) {
                LbChange::Unchanged => {}
                LbChange::Put(body) => plan.writes.push(put(id, &body)),
                LbChange::Delete => plan.writes.push(PlannedWrite {
                    method: "DELETE",
                    resource: id,
                    body: None,
                }),
            }
        }
        for pip in &draft.pip_plan.updates {
            let id = settings.network_id(
                &pip_rg,
                "publicIPAddresses",
                pip.name.as_deref().unwrap_or_default(),
            );
            plan.writes.push(put(id, pip));
        }
        for pip in &draft.pip_plan.deletes {
            plan.writes.push(PlannedWrite {
                method: "DELETE",
                resource: settings.network_id(
                    &pip_rg,
                    "publicIPAddresses",
                    pip.name.as_deref().unwrap_or_default(),
                ),
                body: None,
            });
        }
        Ok(plan)
    }
}
