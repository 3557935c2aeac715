//! The incoming-reference index: for every referenced id, who references it. Kept per target in insertion order
//! (error messages name the first user) with a lookup by referencing id, and per owner so that re-committing or
//! removing an entry costs the size of that entry's own references, not the size of what it references.

use crate::id::key_of;
use crate::references::Ref;
use std::collections::{BTreeMap, HashMap};

/// References pointing at one target.
#[derive(Debug, Default, Clone)]
struct Incoming {
    /// `(owner entry key, reference)` by insertion sequence number.
    by_seq: BTreeMap<u64, (String, Ref)>,
    /// Sequence numbers by lower-cased referencing id (`Ref::from`).
    by_from: HashMap<String, Vec<u64>>,
}

/// Incoming references: lower-cased target id → (owner entry key, reference).
#[derive(Debug, Default, Clone)]
pub(crate) struct RefIndex {
    targets: HashMap<String, Incoming>,
    /// Owner entry key → `(target key, sequence number)` of every reference it registered.
    owners: HashMap<String, Vec<(String, u64)>>,
    next: u64,
}

impl RefIndex {
    /// Registers the references of an entry.
    pub fn add(&mut self, owner: &str, refs: &[Ref]) {
        for r in refs {
            let target = key_of(&r.to);
            let seq = self.next;
            self.next += 1;
            let inc = self.targets.entry(target.clone()).or_default();
            inc.by_seq.insert(seq, (owner.to_string(), r.clone()));
            inc.by_from.entry(key_of(&r.from)).or_default().push(seq);
            self.owners
                .entry(owner.to_string())
                .or_default()
                .push((target, seq));
        }
    }

    /// Unregisters every reference an entry registered.
    pub fn remove_owner(&mut self, owner: &str) {
        for (target, seq) in self.owners.remove(owner).unwrap_or_default() {
            let Some(inc) = self.targets.get_mut(&target) else {
                continue;
            };
            if let Some((_, r)) = inc.by_seq.remove(&seq) {
                let from = key_of(&r.from);
                if let Some(seqs) = inc.by_from.get_mut(&from) {
                    seqs.retain(|s| *s != seq);
                    if seqs.is_empty() {
                        inc.by_from.remove(&from);
                    }
                }
            }
            if inc.by_seq.is_empty() {
                self.targets.remove(&target);
            }
        }
    }

    /// References pointing at `target_key`, oldest first.
    pub fn incoming<'a>(
        &'a self,
        target_key: &str,
    ) -> impl Iterator<Item = &'a (String, Ref)> + 'a {
        self.targets
            .get(target_key)
            .into_iter()
            .flat_map(|inc| inc.by_seq.values())
    }

    /// References pointing at `target_key` held by the object `from` (compared case-insensitively).
    pub fn incoming_from<'a>(
        &'a self,
        target_key: &str,
        from: &str,
    ) -> impl Iterator<Item = &'a (String, Ref)> + 'a {
        let inc = self.targets.get(target_key);
        inc.and_then(|i| i.by_from.get(&key_of(from)))
            .into_iter()
            .flatten()
            .filter_map(move |seq| inc.and_then(|i| i.by_seq.get(seq)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::references::RefKind;

    fn r(from: &str, to: &str) -> Ref {
        Ref {
            from: from.into(),
            to: to.into(),
            kind: RefKind::SubnetUser,
        }
    }

    #[test]
    fn keeps_insertion_order_and_removes_by_owner() {
        let mut idx = RefIndex::default();
        idx.add("/b", &[r("/b/ipConfigurations/x", "/V/subnets/S")]);
        idx.add("/a", &[r("/a/ipConfigurations/x", "/v/subnets/s")]);
        let users: Vec<&str> = idx
            .incoming("/v/subnets/s")
            .map(|(o, _)| o.as_str())
            .collect();
        assert_eq!(users, ["/b", "/a"]);
        assert_eq!(
            idx.incoming_from("/v/subnets/s", "/A/IPCONFIGURATIONS/X")
                .count(),
            1
        );
        idx.remove_owner("/b");
        assert_eq!(idx.incoming("/v/subnets/s").count(), 1);
        assert_eq!(
            idx.incoming_from("/v/subnets/s", "/b/ipConfigurations/x")
                .count(),
            0
        );
        idx.remove_owner("/a");
        assert!(idx.targets.is_empty() && idx.owners.is_empty());
    }
}
