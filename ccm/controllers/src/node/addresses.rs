//! Which addresses a Node gets from its instance metadata: the cloud's list, the kubelet's
//! Hostname kept when the cloud has none, and the `alpha.kubernetes.io/provided-node-ip` rule.
//!
//! Source: `k8s.io/cloud-provider` `node/helpers/address.go` (`GetNodeAddressesFromNodeIP`, the
//! filtering revision) and `controllers/node/node_controller.go` (`updateNodeAddress`,
//! `nodeAddressesChangeDetected`), read in the public kubernetes repository.

use std::net::IpAddr;

use ccm_names::node_annotations::PROVIDED_NODE_IP;
use k8s_openapi::api::core::v1::{Node, NodeAddress};

/// Address type of the kubelet-reported host name.
const HOSTNAME: &str = "Hostname";

/// Why the cloud's addresses cannot be used for a Node (the node stays as it is).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    /// The annotation is not one IP or a dual-stack pair.
    #[error("failed to parse node IP {value:?} in annotation {PROVIDED_NODE_IP}: {reason}")]
    InvalidProvidedNodeIp {
        /// The annotation's value.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A kubelet-provided IP is not among the cloud's addresses.
    #[error("failed to get node address from cloud provider that matches ip: {ip}")]
    ProvidedNodeIpNotFound {
        /// The IP the kubelet was started with.
        ip: IpAddr,
    },
}

/// Parses the annotation like `ParseNodeIPAnnotation`: one IP, or two of different families.
pub fn parse_provided_node_ips(value: &str) -> Result<Vec<IpAddr>, AddressError> {
    let invalid = |reason| AddressError::InvalidProvidedNodeIp {
        value: value.to_owned(),
        reason,
    };
    let mut ips = Vec::new();
    for part in value.split(',') {
        let ip: IpAddr = part.trim().parse().map_err(|_| invalid("not an IP"))?;
        if ip.is_unspecified() {
            return Err(invalid("an unspecified address is not allowed"));
        }
        ips.push(ip);
    }
    match ips.as_slice() {
        [_] => Ok(ips),
        [a, b] if a.is_ipv4() != b.is_ipv4() => Ok(ips),
        [_, _] => Err(invalid("two IPs must be one IPv4 and one IPv6")),
        _ => Err(invalid("at most two IPs (one per family) are allowed")),
    }
}

/// The kubelet-provided IPs of a node, `None` when the annotation is absent or empty.
pub fn provided_node_ips(node: &Node) -> Result<Option<Vec<IpAddr>>, AddressError> {
    match node
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(PROVIDED_NODE_IP))
        .map(String::as_str)
    {
        None | Some("") => Ok(None),
        Some(value) => parse_provided_node_ips(value).map(Some),
    }
}

/// Addresses the Node should carry given the cloud's list; `None` when the cloud returned none
/// (the node keeps what it has, as upstream does).
pub fn desired_addresses(
    node: &Node,
    cloud: &[NodeAddress],
) -> Result<Option<Vec<NodeAddress>>, AddressError> {
    if cloud.is_empty() {
        return Ok(None);
    }
    let mut addresses = cloud.to_vec();
    if !addresses.iter().any(|a| a.type_ == HOSTNAME) {
        let existing = node.status.as_ref().and_then(|s| s.addresses.as_ref());
        addresses.extend(
            existing
                .into_iter()
                .flatten()
                .filter(|a| a.type_ == HOSTNAME)
                .cloned(),
        );
    }
    match provided_node_ips(node)? {
        None => Ok(Some(addresses)),
        Some(ips) => enforce_provided_ips(&ips, &addresses).map(Some),
    }
}

/// For each provided IP, the matching cloud address becomes the only one of its type; the other
/// types follow in the cloud's order. A provided IP the cloud does not list is an error.
pub fn enforce_provided_ips(
    ips: &[IpAddr],
    cloud: &[NodeAddress],
) -> Result<Vec<NodeAddress>, AddressError> {
    let mut enforced: Vec<NodeAddress> = Vec::new();
    let mut enforced_types: Vec<&str> = Vec::new();
    for ip in ips {
        let mut matched = false;
        for address in cloud {
            if address.address.parse::<IpAddr>().ok() == Some(*ip) {
                enforced.push(address.clone());
                enforced_types.push(&address.type_);
                matched = true;
            }
        }
        if !matched {
            return Err(AddressError::ProvidedNodeIpNotFound { ip: *ip });
        }
    }
    enforced.extend(
        cloud
            .iter()
            .filter(|a| !enforced_types.contains(&a.type_.as_str()))
            .cloned(),
    );
    Ok(enforced)
}

/// True when the two lists differ as sets of (type, address), like `nodeAddressesChangeDetected`.
pub fn addresses_changed(current: &[NodeAddress], desired: &[NodeAddress]) -> bool {
    let contains = |list: &[NodeAddress], a: &NodeAddress| {
        list.iter()
            .any(|b| b.type_ == a.type_ && b.address == a.address)
    };
    current.len() != desired.len()
        || current.iter().any(|a| !contains(desired, a))
        || desired.iter().any(|a| !contains(current, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(type_: &str, address: &str) -> NodeAddress {
        NodeAddress {
            type_: type_.into(),
            address: address.into(),
        }
    }

    #[test]
    fn annotation_parsing_accepts_one_ip_or_a_dual_stack_pair() {
        assert_eq!(parse_provided_node_ips("10.0.0.4").unwrap().len(), 1);
        assert_eq!(
            parse_provided_node_ips("10.0.0.4,fd00::4").unwrap().len(),
            2
        );
        for bad in [
            "",
            "x",
            "10.0.0.4,10.0.0.5",
            "0.0.0.0",
            "1.1.1.1,::1,2.2.2.2",
        ] {
            assert!(parse_provided_node_ips(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_provided_ip_the_cloud_does_not_list_is_refused() {
        let err = enforce_provided_ips(
            &["10.0.0.9".parse().unwrap()],
            &[addr("InternalIP", "10.0.0.4")],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "failed to get node address from cloud provider that matches ip: 10.0.0.9"
        );
    }

    #[test]
    fn change_detection_ignores_order_only() {
        let a = [addr("InternalIP", "10.0.0.4"), addr("Hostname", "n")];
        let b = [addr("Hostname", "n"), addr("InternalIP", "10.0.0.4")];
        assert!(!addresses_changed(&a, &b));
        assert!(addresses_changed(&a, &a[..1]));
        assert!(addresses_changed(
            &a,
            &[addr("InternalIP", "10.0.0.5"), addr("Hostname", "n")]
        ));
    }
}
