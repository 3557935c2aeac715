//! Public IP prefixes (`Microsoft.Network/publicIPPrefixes`), which the CCM reads for the
//! `service.beta.kubernetes.io/azure-pip-prefix-id` annotation: defaults, the `ipPrefix` NRP allocates when the
//! create reaches Succeeded, and public IP addresses taken from a prefix.
//!
//! Shape from the REST spec (`publicIpPrefix.json`): `sku{name: Standard|StandardV2, tier: Regional|Global}`,
//! `properties{publicIPAddressVersion, prefixLength, ipPrefix (ro), ipTags, publicIPAddresses[] (ro, the public IPs
//! using it), loadBalancerFrontendIpConfiguration (ro), provisioningState, resourceGuid}`; PUT and DELETE are
//! long-running like public IPs. A prefix's addresses all belong to it (a /28 gives 16 public IPs, Azure public IP
//! prefix documentation). Deleting a prefix public IPs still use is refused with `InUsePublicIpPrefixCannotBeDeleted`
//! (code quoted in Azure/kube-egress-gateway PR #1223; status 400 and wording [infer]). [infer]: the prefix-length
//! ranges accepted here (IPv4 /21-/31, IPv6 /124-/127), the address block prefixes are carved from
//! (`52.160.0.0/11`, `2603:1030:f000::/36`), the lowest free address rule, and the codes
//! `InvalidPublicIpPrefixLength` and `PublicIpPrefixOutOfIpAddressesForPublicIp`.

use super::default;
use crate::error::ArmError;
use crate::error_codes;
use crate::id::key_of;
use crate::kinds::KindId;
use crate::store::{Entry, Store};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Where IPv4 prefixes are carved from ([infer]: any public range would do).
const V4_POOL: Ipv4Net = match Ipv4Net::new(Ipv4Addr::new(52, 160, 0, 0), 11) {
    Ok(n) => n,
    Err(_) => panic!("valid pool"),
};

/// Where IPv6 prefixes are carved from.
const V6_POOL: Ipv6Net =
    match Ipv6Net::new(Ipv6Addr::new(0x2603, 0x1030, 0xf000, 0, 0, 0, 0, 0), 36) {
        Ok(n) => n,
        Err(_) => panic!("valid pool"),
    };

fn v6(doc: &Value) -> bool {
    doc.pointer("/properties/publicIPAddressVersion")
        .and_then(Value::as_str)
        == Some("IPv6")
}

/// Prepares a public IP prefix document.
pub(crate) fn prepare(doc: &mut Value, existing: Option<&Entry>) -> Result<(), ArmError> {
    if doc.get("sku").is_none_or(Value::is_null) {
        doc["sku"] = json!({ "name": "Standard", "tier": "Regional" });
    }
    if doc["sku"].is_object() {
        default(&mut doc["sku"], "tier", json!("Regional"));
    }
    let id = doc["id"].as_str().unwrap_or_default().to_string();
    let p = &mut doc["properties"];
    default(p, "publicIPAddressVersion", json!("IPv4"));
    default(p, "ipTags", json!([]));
    let (low, high) = if p["publicIPAddressVersion"] == "IPv6" {
        (124, 127)
    } else {
        (21, 31)
    };
    let len = p.get("prefixLength").and_then(Value::as_u64);
    if !len.is_some_and(|l| (low..=high).contains(&l)) {
        return Err(ArmError::nrp(
            error_codes::INVALID_PUBLIC_IP_PREFIX_LENGTH,
            format!(
                "Public IP prefix {id} must set prefixLength between {low} and {high} for its IP version."
            ),
        ));
    }
    if let Some(prefix) = existing
        .and_then(|e| e.doc.pointer("/properties/ipPrefix"))
        .cloned()
    {
        p["ipPrefix"] = prefix;
    }
    Ok(())
}

fn stored_prefix(doc: &Value) -> Option<IpNet> {
    doc.pointer("/properties/ipPrefix")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
}

/// Allocates `ipPrefix` once a prefix is provisioned: the lowest aligned block of the pool no other prefix holds.
pub(crate) fn allocate(store: &mut Store, key: &str) {
    let Some(e) = store.entries.get(key) else {
        return;
    };
    if e.kind != KindId::PublicIpPrefix || stored_prefix(&e.doc).is_some() {
        return;
    }
    let len = e
        .doc
        .pointer("/properties/prefixLength")
        .and_then(Value::as_u64)
        .unwrap_or(31) as u8;
    let taken: Vec<IpNet> = store
        .entries
        .values()
        .filter(|x| x.kind == KindId::PublicIpPrefix)
        .filter_map(|x| stored_prefix(&x.doc))
        .collect();
    let free = |n: &IpNet| !taken.iter().any(|t| t.contains(n) || n.contains(t));
    let found: Option<IpNet> = if v6(&e.doc) {
        V6_POOL
            .subnets(len)
            .ok()
            .and_then(|mut it| it.find(|n| free(&IpNet::V6(*n))).map(IpNet::V6))
    } else {
        V4_POOL
            .subnets(len)
            .ok()
            .and_then(|mut it| it.find(|n| free(&IpNet::V4(*n))).map(IpNet::V4))
    };
    if let (Some(net), Some(e)) = (found, store.entries.get_mut(key)) {
        e.doc["properties"]["ipPrefix"] = json!(net.to_string());
        e.rerender();
    }
}

/// The prefix a public IP document references, as a lower-cased key.
fn prefix_of(pip: &Value) -> Option<String> {
    pip.pointer("/properties/publicIPPrefix/id")
        .and_then(Value::as_str)
        .map(key_of)
}

/// Addresses of public IPs other than `except` taken from the prefix stored at `prefix_key`.
fn used(store: &Store, prefix_key: &str, except: &str) -> Vec<IpAddr> {
    store
        .entries
        .iter()
        .filter(|(k, x)| {
            x.kind == KindId::PublicIp
                && k.as_str() != except
                && prefix_of(&x.doc).as_deref() == Some(prefix_key)
        })
        .filter_map(|(_, x)| {
            x.doc
                .pointer("/properties/ipAddress")
                .and_then(Value::as_str)
                .and_then(|a| a.parse().ok())
        })
        .collect()
}

/// The lowest address of the public IP's prefix no other public IP holds, `None` when the public IP uses no
/// prefix; `Some(None)` when the prefix has no free address (or none allocated yet).
pub(crate) fn address_for(store: &Store, pip_key: &str, pip: &Value) -> Option<Option<String>> {
    let prefix_key = prefix_of(pip)?;
    let Some(net) = store.object(&prefix_key).and_then(stored_prefix) else {
        return Some(None);
    };
    let used = used(store, &prefix_key, pip_key);
    Some(
        addresses(net)
            .find(|a| !used.contains(a))
            .map(|a| a.to_string()),
    )
}

/// Every address of a prefix, lowest first (all of them are usable public IPs).
fn addresses(net: IpNet) -> impl Iterator<Item = IpAddr> {
    let (first, last, is_v6) = match net {
        IpNet::V4(n) => (
            u128::from(u32::from(n.network())),
            u128::from(u32::from(n.broadcast())),
            false,
        ),
        IpNet::V6(n) => (u128::from(n.network()), u128::from(n.broadcast()), true),
    };
    (first..=last).map(move |n| {
        if is_v6 {
            IpAddr::V6(Ipv6Addr::from(n))
        } else {
            IpAddr::V4(Ipv4Addr::from(n as u32))
        }
    })
}

/// Refuses a public IP that joins a prefix with no free address. [unverified] code and wording.
pub(crate) fn validate_public_ip(
    store: &Store,
    pip_key: &str,
    pip: &Value,
) -> Result<(), ArmError> {
    let Some(prefix_key) = prefix_of(pip) else {
        return Ok(());
    };
    let joined_before = store
        .entries
        .get(pip_key)
        .is_some_and(|e| prefix_of(&e.doc).as_deref() == Some(prefix_key.as_str()));
    if joined_before {
        return Ok(());
    }
    let Some(net) = store.object(&prefix_key).and_then(stored_prefix) else {
        return Ok(());
    };
    let size: u128 = match net {
        IpNet::V4(n) => 1u128 << (32 - n.prefix_len()),
        IpNet::V6(n) => 1u128 << (128 - n.prefix_len()),
    };
    if used(store, &prefix_key, pip_key).len() as u128 >= size {
        let prefix_id = store
            .object(&prefix_key)
            .and_then(|d| d["id"].as_str())
            .unwrap_or(&prefix_key)
            .to_string();
        return Err(ArmError::nrp(
            error_codes::PUBLIC_IP_PREFIX_OUT_OF_ADDRESSES,
            format!(
                "Public IP prefix {prefix_id} has no free IP address for public IP {}.",
                pip["id"].as_str().unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_aligned_blocks() {
        assert_eq!(V4_POOL.to_string(), "52.160.0.0/11");
        assert_eq!(
            V4_POOL.subnets(28).unwrap().nth(1).unwrap().to_string(),
            "52.160.0.16/28"
        );
        assert_eq!(V6_POOL.to_string(), "2603:1030:f000::/36");
    }
}
