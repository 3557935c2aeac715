//! Deleting a whole load balancer detaches the NIC ipconfigs that used it: NRP removes their
//! `loadBalancerBackendAddressPools` entries pointing at the LB's pools (the CCM deletes an availability-set
//! cluster's internal LB without detaching NICs first and relies on this; issue 9 item 4, observed with a production
//! CCM against real NRP). The same is done for `loadBalancerInboundNatRules` entries, which is [infer]. Each changed
//! NIC gets a new etag, like any other NRP write of the NIC.

use crate::etag;
use crate::id::key_of;
use crate::kinds::KindId;
use crate::references::RefKind;
use crate::store::Store;
use crate::write::addressable;
use serde_json::Value;
use std::collections::BTreeSet;

/// NIC ipconfig fields holding references into a load balancer that its deletion clears.
const LB_FIELDS: [&str; 2] = [
    "loadBalancerBackendAddressPools",
    "loadBalancerInboundNatRules",
];

/// Removes every NIC ipconfig reference into the load balancers among `keys` (entries about to be removed).
pub(crate) fn detach_nics(store: &mut Store, keys: &[String]) {
    for lb_key in keys {
        let Some(lb) = store
            .entries
            .get(lb_key)
            .filter(|e| e.kind == KindId::LoadBalancer)
        else {
            continue;
        };
        let ids = addressable(KindId::LoadBalancer, &lb.doc);
        let mut nics: BTreeSet<String> = BTreeSet::new();
        for id in &ids {
            for (owner, r) in store.index.incoming(id) {
                if matches!(r.kind, RefKind::PoolMember | RefKind::NatRuleMember) {
                    nics.insert(owner.clone());
                }
            }
        }
        for nic in nics {
            detach_one(store, &nic, &ids);
        }
    }
}

fn detach_one(store: &mut Store, nic_key: &str, lb_ids: &BTreeSet<String>) {
    let Some(e) = store.entries.get(nic_key) else {
        return;
    };
    let kind = e.kind;
    let mut doc = e.doc.clone();
    for ipc in doc
        .pointer_mut("/properties/ipConfigurations")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let Some(p) = ipc.get_mut("properties").and_then(Value::as_object_mut) else {
            continue;
        };
        for field in LB_FIELDS {
            if let Some(arr) = p.get_mut(field).and_then(Value::as_array_mut) {
                arr.retain(|r| {
                    !r.get("id")
                        .and_then(Value::as_str)
                        .is_some_and(|id| lb_ids.contains(&key_of(id)))
                });
            }
        }
    }
    super::stamp_etag(&mut doc, kind, &etag::new_nrp());
    store.commit(nic_key, kind, doc, None);
}
