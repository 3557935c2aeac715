//! The private-address index: which ipconfig (NIC ipconfig, LB frontend) holds which private address in which
//! subnet. Maintained on every commit from the committed document, so allocating an address looks up the
//! subnet's addresses instead of visiting every document that references the subnet.

use crate::id::key_of;
use crate::kinds::KindId;
use crate::references::{Ref, RefKind};
use crate::store::{collection_named, find_child};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

/// One holder of a private address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Holder {
    /// Key of the stored entry whose document holds the address.
    pub owner: String,
    /// Display id of the ipconfig / frontend holding it.
    pub from: String,
}

/// Private addresses in use, by lower-cased subnet id.
#[derive(Debug, Default, Clone)]
pub(crate) struct AddressIndex {
    subnets: HashMap<String, BTreeMap<IpAddr, Vec<Holder>>>,
    /// Owner entry key → `(subnet key, address)` it registered.
    owners: HashMap<String, Vec<(String, IpAddr)>>,
}

/// The object named by `from` inside the document of the entry stored at `owner` (itself or an embedded child).
fn object_in<'a>(kind: KindId, owner: &str, doc: &'a Value, from: &str) -> Option<&'a Value> {
    let key = key_of(from);
    if key == owner {
        return Some(doc);
    }
    let (parent, name) = key.rsplit_once('/')?;
    let (entry, coll) = parent.rsplit_once('/')?;
    if entry != owner {
        return None;
    }
    let coll = collection_named(kind, coll)?;
    find_child(doc, coll, name)
}

impl AddressIndex {
    /// Registers the private addresses the subnet users of a committed document hold.
    pub fn add(&mut self, owner: &str, kind: KindId, doc: &Value, refs: &[Ref]) {
        for r in refs.iter().filter(|r| r.kind == RefKind::SubnetUser) {
            let Some(addr) = object_in(kind, owner, doc, &r.from)
                .and_then(|o| o.pointer("/properties/privateIPAddress"))
                .and_then(Value::as_str)
                .and_then(|a| a.parse::<IpAddr>().ok())
            else {
                continue;
            };
            let subnet = key_of(&r.to);
            self.subnets
                .entry(subnet.clone())
                .or_default()
                .entry(addr)
                .or_default()
                .push(Holder {
                    owner: owner.to_string(),
                    from: r.from.clone(),
                });
            self.owners
                .entry(owner.to_string())
                .or_default()
                .push((subnet, addr));
        }
    }

    /// Unregisters every address an entry registered.
    pub fn remove_owner(&mut self, owner: &str) {
        for (subnet, addr) in self.owners.remove(owner).unwrap_or_default() {
            let Some(map) = self.subnets.get_mut(&subnet) else {
                continue;
            };
            if let Some(holders) = map.get_mut(&addr) {
                holders.retain(|h| h.owner != owner);
                if holders.is_empty() {
                    map.remove(&addr);
                }
            }
            if map.is_empty() {
                self.subnets.remove(&subnet);
            }
        }
    }

    /// Every `(subnet, address, owner, from)` registered, sorted (tests compare an upkept index with a rebuilt one).
    #[cfg(test)]
    pub fn snapshot(&self) -> Vec<(String, IpAddr, String, String)> {
        let mut out: Vec<_> = self
            .subnets
            .iter()
            .flat_map(|(s, m)| {
                m.iter().flat_map(move |(a, hs)| {
                    hs.iter()
                        .map(move |h| (s.clone(), *a, h.owner.clone(), h.from.clone()))
                })
            })
            .collect();
        out.sort();
        out
    }

    /// The addresses in use in one subnet, in address order.
    pub fn in_subnet(&self, subnet_key: &str) -> Option<&BTreeMap<IpAddr, Vec<Holder>>> {
        self.subnets.get(subnet_key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::references::extract;
    use serde_json::json;

    #[test]
    fn registers_nic_ipconfig_addresses_and_forgets_them() {
        let nic = json!({"id":"/s/N","properties":{"ipConfigurations":[
            {"name":"a","id":"/s/N/ipConfigurations/a","properties":{"subnet":{"id":"/v/subnets/s"},"privateIPAddress":"10.0.0.4"}},
            {"name":"b","id":"/s/N/ipConfigurations/b","properties":{"subnet":{"id":"/v/subnets/s"},"privateIPAddress":"fd00::4"}}]}});
        let mut idx = AddressIndex::default();
        idx.add("/s/n", KindId::Nic, &nic, &extract(KindId::Nic, &nic));
        let used: Vec<String> = idx
            .in_subnet("/v/subnets/s")
            .into_iter()
            .flat_map(|m| m.iter())
            .map(|(a, h)| format!("{a} {}", h[0].from))
            .collect();
        assert_eq!(
            used,
            [
                "10.0.0.4 /s/N/ipConfigurations/a",
                "fd00::4 /s/N/ipConfigurations/b"
            ]
        );
        idx.remove_owner("/s/n");
        assert!(idx.in_subnet("/v/subnets/s").is_none());
    }
}
