//! Committing a document: registers its references and private addresses, derives its own back-reference
//! fields, and updates the back-reference fields of what it references by the references that changed only,
//! so a NIC joining a subnet with thousands of members costs the same as joining an empty one.

use crate::etag;
use crate::id::key_of;
use crate::kinds::{self, KindId, Provider};
use crate::references::{
    self, Ref, apply_backrefs, backref_fields, collection_of, sync_backref_member,
};
use crate::resources;
use crate::store::{Entry, Store, Target, embedded_children_mut, find_child_mut};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

impl Store {
    /// Registers an entry's references, stores it, updates every back-reference whose source changed.
    pub(crate) fn commit(
        &mut self,
        key: &str,
        kind: KindId,
        mut doc: Value,
        instance_view: Option<Value>,
    ) {
        let refs = references::extract(kind, &doc);
        let (old_refs, op, version, old_iv) = match self.entries.remove(key) {
            Some(e) => (e.out_refs, e.op, e.version, e.instance_view),
            None => (Vec::new(), None, 0, None),
        };
        self.index.remove_owner(key);
        self.index.add(key, &refs);
        let own = key_of(doc.get("id").and_then(Value::as_str).unwrap_or_default());
        apply_backrefs(&mut doc, &own, &self.index);
        // Each embedded child in place (a lookup by name per child would be quadratic in the child count).
        for child in embedded_children_mut(&mut doc, kind) {
            if let Some(sub) = child.get("id").and_then(Value::as_str).map(key_of) {
                apply_backrefs(child, &sub, &self.index);
            }
        }
        self.addresses.remove_owner(key);
        self.addresses.add(key, kind, &doc, &refs);
        let new_set: HashSet<&Ref> = refs.iter().collect();
        let old_set: HashSet<&Ref> = old_refs.iter().collect();
        let changed: Vec<Ref> = refs
            .iter()
            .filter(|r| !old_set.contains(r))
            .chain(old_refs.iter().filter(|r| !new_set.contains(r)))
            .cloned()
            .collect();
        let mut entry = Entry::new(kind, doc, refs);
        entry.instance_view = instance_view.or(old_iv);
        entry.op = op;
        entry.version = version;
        self.entries.insert(key.to_string(), entry);
        self.sync_backrefs(&changed, key);
    }

    /// Updates the back-reference fields the given added or removed references feed, on targets owned by
    /// entries other than `except`; bumps the NRP etag of every entry whose document changed.
    fn sync_backrefs(&mut self, changed: &[Ref], except: &str) {
        let mut bumped: BTreeMap<String, KindId> = BTreeMap::new();
        for r in changed {
            let target = key_of(&r.to);
            let fields: Vec<_> = backref_fields(&collection_of(&target))
                .iter()
                .filter(|(_, kinds, _)| kinds.contains(&r.kind))
                .collect();
            if fields.is_empty() {
                continue;
            }
            let Some(loc) = self.locate(&target) else {
                continue;
            };
            let owner = match &loc {
                Target::Entry(k) | Target::Child(k, _, _) => k.clone(),
            };
            if owner == except {
                continue;
            }
            let index = &self.index;
            let Some(entry) = self.entries.get_mut(&owner) else {
                continue;
            };
            let obj = match &loc {
                Target::Entry(_) => Some(&mut entry.doc),
                Target::Child(_, coll, name) => find_child_mut(&mut entry.doc, coll, name),
            };
            let Some(obj) = obj else { continue };
            let mut any = false;
            for field in fields {
                any |= sync_backref_member(obj, &target, field, &r.from, index);
            }
            if any {
                bumped.insert(owner, entry.kind);
            }
        }
        for (owner, kind) in &bumped {
            if let Some(entry) = self.entries.get_mut(owner) {
                if kinds::by_id(*kind).provider == Provider::Network {
                    resources::stamp_etag(&mut entry.doc, *kind, &etag::new_nrp());
                }
                entry.rerender();
            }
        }
        let owners: Vec<String> = bumped.into_keys().collect();
        resources::on_backrefs_changed(self, &owners);
    }

    /// Removes entries (already checked for incoming references) and updates what they referenced.
    pub(crate) fn remove_entries(&mut self, keys: &[String]) {
        let mut changed = Vec::new();
        for k in keys {
            if let Some(e) = self.entries.remove(k) {
                self.index.remove_owner(k);
                self.addresses.remove_owner(k);
                changed.extend(e.out_refs);
            }
        }
        self.sync_backrefs(&changed, "");
    }
}

#[cfg(test)]
mod tests {
    use crate::ArmConfig;
    use crate::addresses::AddressIndex;
    use crate::references::apply_backrefs;
    use crate::state::ArmState;
    use crate::store::{Store, collection_named, find_child_mut};
    use crate::write::addressable;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    const RG: &str = "/subscriptions/s/resourceGroups/rg";

    fn net(path: &str) -> String {
        format!("{RG}/providers/Microsoft.Network/{path}")
    }

    /// Every back-reference field equals a rebuild from the whole index, and the address index equals one
    /// rebuilt from every document: the incremental upkeep never drifts from the full derivation.
    fn assert_derived_state(store: &Store) {
        let mut addresses = AddressIndex::default();
        for (key, e) in &store.entries {
            let mut doc = e.doc.clone();
            for sub in addressable(e.kind, &doc) {
                if &sub == key {
                    apply_backrefs(&mut doc, &sub, &store.index);
                    continue;
                }
                let (parent, name) = sub.rsplit_once('/').unwrap();
                let coll = parent.rsplit_once('/').unwrap().1;
                let coll = collection_named(e.kind, coll).unwrap();
                apply_backrefs(
                    find_child_mut(&mut doc, coll, name).unwrap(),
                    &sub,
                    &store.index,
                );
            }
            assert_eq!(doc, e.doc, "back-references of {key} drifted");
            addresses.add(key, e.kind, &e.doc, &e.out_refs);
        }
        assert_eq!(addresses.snapshot(), store.addresses.snapshot());
    }

    #[derive(Debug, Clone)]
    enum Op {
        /// NIC `i` in subnet `s`, in pool `p` (if any), with an explicit address (if any).
        Nic(u8, u8, Option<u8>, Option<u8>),
        DeleteNic(u8),
        /// Scale set with `n` instances in subnet `s`, in pool `p` (if any).
        ScaleSet(u8, u8, Option<u8>),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (
                0u8..6,
                0u8..2,
                proptest::option::of(0u8..2),
                proptest::option::of(4u8..8)
            )
                .prop_map(|(i, s, p, a)| Op::Nic(i, s, p, a)),
            (0u8..6).prop_map(Op::DeleteNic),
            (0u8..4, 0u8..2, proptest::option::of(0u8..2))
                .prop_map(|(n, s, p)| Op::ScaleSet(n, s, p)),
        ]
    }

    fn ipconfig(subnet: u8, pool: Option<u8>) -> Value {
        let pools: Vec<Value> = pool
            .map(|p| json!({ "id": net(&format!("loadBalancers/lb/backendAddressPools/p{p}")) }))
            .into_iter()
            .collect();
        json!({ "subnet": { "id": net(&format!("virtualNetworks/vnet/subnets/s{subnet}")) },
                "loadBalancerBackendAddressPools": pools, "primary": true })
    }

    fn apply(arm: &ArmState, op: &Op) {
        // Rejections (address taken, nothing to delete) are part of the sequence, not failures.
        let _ = match op {
            Op::Nic(i, s, p, a) => {
                let mut ipc = ipconfig(*s, *p);
                if let Some(a) = a {
                    ipc["privateIPAddress"] = json!(format!("10.0.{s}.{a}"));
                    ipc["privateIPAllocationMethod"] = json!("Static");
                }
                arm.put(
                    &net(&format!("networkInterfaces/nic{i}")),
                    json!({ "location": "eastus", "properties": { "ipConfigurations": [{ "name": "ip", "properties": ipc }] } }),
                )
                .map(|_| ())
            }
            Op::DeleteNic(i) => arm.delete(&net(&format!("networkInterfaces/nic{i}"))),
            Op::ScaleSet(n, s, p) => arm
                .put(
                    &format!("{RG}/providers/Microsoft.Compute/virtualMachineScaleSets/ss"),
                    json!({ "location": "eastus", "sku": { "name": "Standard_D2s_v3", "capacity": n },
                        "properties": { "orchestrationMode": "Uniform", "upgradePolicy": { "mode": "Automatic" },
                        "virtualMachineProfile": { "networkProfile": { "networkInterfaceConfigurations": [
                            { "name": "nic", "properties": { "primary": true,
                              "ipConfigurations": [{ "name": "ipc", "properties": ipconfig(*s, *p) }] } }] } } } }),
                )
                .map(|_| ()),
        };
    }

    fn fixture() -> ArmState {
        let arm = ArmState::new(ArmConfig::default());
        arm.put(RG, json!({ "location": "eastus" })).unwrap();
        arm.put(
            &net("virtualNetworks/vnet"),
            json!({ "location": "eastus", "properties": { "addressSpace": { "addressPrefixes": ["10.0.0.0/16"] },
                "subnets": [{ "name": "s0", "properties": { "addressPrefix": "10.0.0.0/24" } },
                            { "name": "s1", "properties": { "addressPrefix": "10.0.1.0/24" } }] } }),
        )
        .unwrap();
        arm.put(
            &net("loadBalancers/lb"),
            json!({ "location": "eastus", "sku": { "name": "Standard" }, "properties": {
                "frontendIPConfigurations": [{ "name": "fe", "properties": {
                    "subnet": { "id": net("virtualNetworks/vnet/subnets/s0") } } }],
                "backendAddressPools": [{ "name": "p0" }, { "name": "p1" }] } }),
        )
        .unwrap();
        arm
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
        #[test]
        fn incremental_upkeep_matches_full_derivation(ops in proptest::collection::vec(op(), 1..25)) {
            let arm = fixture();
            for op in &ops {
                apply(&arm, op);
                assert_derived_state(&arm.inner.store.read());
            }
        }
    }
}
