//! CIDR values for `--cluster-cidr` and `--service-cidr`, validated up front so a typo cannot
//! reach a manifest.

use std::fmt;
use std::net::IpAddr;

use ipnet::{IpAddrRange, IpNet, Ipv4AddrRange, Ipv6AddrRange};

/// One IP prefix such as `10.244.0.0/16` or `fd00:10:244::/56`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr(IpNet);

/// Why a CIDR was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{input}` is not a CIDR ({reason}); expected ADDRESS/PREFIX such as 10.244.0.0/16 or fd00:10:244::/56"
)]
pub struct CidrError {
    /// Text given.
    pub input: String,
    /// What is wrong.
    pub reason: &'static str,
}

/// Index of the cluster DNS Service's address in the first service CIDR: the 10th, as kubeadm picks it
/// (`GetDNSIP` in kubernetes `cmd/kubeadm/app/constants/constants.go`, which refuses a smaller range).
pub const CLUSTER_DNS_INDEX: u32 = 10;

impl Cidr {
    /// Parses `ADDRESS/PREFIX` (with `ipnet`); host bits must be zero.
    pub fn parse(input: &str) -> Result<Self, CidrError> {
        let err = |reason| CidrError {
            input: input.to_string(),
            reason,
        };
        let text = input.trim();
        let net = match text.parse::<IpNet>() {
            Ok(net) if strict_address(text) => net,
            _ => return Err(err(why_not_a_cidr(text))),
        };
        if net.trunc() != net {
            return Err(err("host bits set"));
        }
        Ok(Self(net))
    }

    /// True for IPv6 prefixes.
    pub fn is_ipv6(&self) -> bool {
        matches!(self.0, IpNet::V6(_))
    }

    /// Prefix length.
    pub fn prefix(&self) -> u8 {
        self.0.prefix_len()
    }

    /// The `index`-th address of the prefix counting the network address as 0 (Kubernetes'
    /// `GetIndexedIP`), or `None` when the prefix is too small.
    pub fn address(&self, index: u32) -> Option<IpAddr> {
        let index = usize::try_from(index).ok()?;
        let mut range = match self.0 {
            IpNet::V4(v4) => IpAddrRange::V4(Ipv4AddrRange::new(v4.network(), v4.broadcast())),
            IpNet::V6(v6) => IpAddrRange::V6(Ipv6AddrRange::new(v6.network(), v6.broadcast())),
        };
        range.nth(index)
    }
}

/// `ipnet` reads IPv4 octets with leading zeros (`010.0.0.0`), which std and Go's `net.ParseCIDR`
/// (so every Kubernetes component) refuse; refuse them here too.
fn strict_address(text: &str) -> bool {
    text.split_once('/')
        .is_some_and(|(addr, _)| addr.parse::<IpAddr>().is_ok())
}

/// Which part of `text` keeps it from being a CIDR.
fn why_not_a_cidr(text: &str) -> &'static str {
    let Some((addr, prefix)) = text.split_once('/') else {
        return "missing /PREFIX";
    };
    let Ok(addr) = addr.parse::<IpAddr>() else {
        return "bad address";
    };
    let bits = if addr.is_ipv4() { 32 } else { 128 };
    match prefix.parse::<u8>() {
        Ok(len) if len > bits => "prefix longer than the address",
        _ => "bad prefix length",
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Joins CIDRs with commas, the form every Kubernetes flag takes.
pub fn join(cidrs: &[Cidr]) -> String {
    cidrs
        .iter()
        .map(Cidr::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Node pod-CIDR mask of IPv4 clusters (/24: 256 addresses per node, the upstream default).
pub const NODE_MASK_IPV4: u8 = 24;
/// Node pod-CIDR mask of IPv6 clusters (/64, the upstream default).
pub const NODE_MASK_IPV6: u8 = 64;

/// `--node-cidr-mask-size-ipv4/-ipv6` flags for the families in `cluster_cidrs`, one per family.
///
/// Valid for both allocators, so kube-controller-manager and cloud-controller-manager agree:
/// KCM (`setNodeCIDRMaskSizes`) accepts the per-family flag of the only family of a single-stack
/// cluster and both in dual-stack, but refuses the other family's flag in single-stack and the
/// single-stack `--node-cidr-mask-size` in dual-stack; the anchor CCM ignores
/// `--node-cidr-mask-size` and reads only the per-family flags (anchor-ccm.md 1.3).
pub fn node_mask_flags(cluster_cidrs: &[Cidr]) -> Vec<(&'static str, String)> {
    let has = |v6: bool| cluster_cidrs.iter().any(|c| c.is_ipv6() == v6);
    let mut flags = Vec::new();
    if has(false) {
        flags.push(("--node-cidr-mask-size-ipv4", NODE_MASK_IPV4.to_string()));
    }
    if has(true) {
        flags.push(("--node-cidr-mask-size-ipv6", NODE_MASK_IPV6.to_string()));
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    #[test]
    fn node_mask_flags_name_only_the_families_present() {
        let v4 = Cidr::parse("10.244.0.0/16").unwrap();
        let v6 = Cidr::parse("fd00:10:244::/56").unwrap();
        let names = |cidrs: &[Cidr]| -> Vec<String> {
            node_mask_flags(cidrs)
                .into_iter()
                .map(|(f, v)| format!("{f}={v}"))
                .collect()
        };
        assert_eq!(names(&[v4]), ["--node-cidr-mask-size-ipv4=24"]);
        assert_eq!(names(&[v6]), ["--node-cidr-mask-size-ipv6=64"]);
        assert_eq!(
            names(&[v6, v4]),
            [
                "--node-cidr-mask-size-ipv4=24",
                "--node-cidr-mask-size-ipv6=64"
            ]
        );
    }

    #[test]
    fn parses_both_families_and_refuses_host_bits() {
        assert_eq!(
            Cidr::parse("10.244.0.0/16").unwrap().to_string(),
            "10.244.0.0/16"
        );
        assert!(Cidr::parse("fd00:10:244::/56").unwrap().is_ipv6());
        assert_eq!(
            Cidr::parse("10.244.0.1/16").unwrap_err().reason,
            "host bits set"
        );
        let reason = |text: &str| Cidr::parse(text).unwrap_err().reason;
        assert_eq!(reason("10.244.0.0"), "missing /PREFIX");
        assert_eq!(reason("10.244.0.0/33"), "prefix longer than the address");
        assert_eq!(reason("fd00::/129"), "prefix longer than the address");
        assert_eq!(reason("10.244.0.0/x"), "bad prefix length");
        assert_eq!(reason("10.244.0/16"), "bad address");
        assert_eq!(reason("010.244.0.0/16"), "bad address");
        assert!(Cidr::parse("0.0.0.0/0").is_ok());
        assert_eq!(
            Cidr::parse(" 10.0.0.0/16 ").unwrap().to_string(),
            "10.0.0.0/16"
        );
    }

    #[test]
    fn indexed_addresses_stay_inside_the_prefix() {
        let dns = |text: &str| {
            Cidr::parse(text)
                .unwrap()
                .address(CLUSTER_DNS_INDEX)
                .map(|ip| ip.to_string())
        };
        assert_eq!(dns("10.0.0.0/16").as_deref(), Some("10.0.0.10"));
        assert_eq!(dns("fd00:10:96::/112").as_deref(), Some("fd00:10:96::a"));
        assert_eq!(dns("10.0.0.0/28").as_deref(), Some("10.0.0.10"));
        assert_eq!(dns("10.0.0.0/29"), None);
        assert_eq!(dns("255.255.255.255/32"), None);
        assert_eq!(dns("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fff0/125"), None);
    }

    /// Any address with any prefix length of its family.
    fn prefix() -> impl Strategy<Value = (IpAddr, u8)> {
        prop_oneof![
            (any::<u32>(), 0u8..=32).prop_map(|(a, l)| (IpAddr::V4(Ipv4Addr::from(a)), l)),
            (any::<u128>(), 0u8..=128).prop_map(|(a, l)| (IpAddr::V6(Ipv6Addr::from(a)), l)),
        ]
    }

    proptest! {
        #[test]
        fn parse_never_panics(text in "\\PC{0,40}") {
            let _ = Cidr::parse(&text);
        }

        #[test]
        fn prefixes_round_trip_and_host_bits_are_refused((ip, len) in prefix()) {
            let network = IpNet::new(ip, len).unwrap().trunc();
            let parsed = Cidr::parse(&network.to_string()).unwrap();
            prop_assert_eq!(parsed.to_string(), network.to_string());
            prop_assert_eq!(parsed.prefix(), len);
            prop_assert_eq!(parsed.is_ipv6(), ip.is_ipv6());
            let given = Cidr::parse(&format!("{ip}/{len}"));
            if ip == network.network() {
                prop_assert_eq!(given, Ok(parsed));
            } else {
                prop_assert_eq!(given.unwrap_err().reason, "host bits set");
            }
        }

        #[test]
        fn indexed_addresses_are_inside_or_absent((ip, len) in prefix(), index in 0u32..64) {
            let cidr = Cidr::parse(&IpNet::new(ip, len).unwrap().trunc().to_string()).unwrap();
            let size_bits = u32::from(if ip.is_ipv4() { 32 } else { 128 } - len);
            let fits = size_bits >= 32 || u64::from(index) < (1u64 << size_bits);
            match cidr.address(index) {
                Some(address) => prop_assert!(fits && cidr.0.contains(&address)),
                None => prop_assert!(!fits),
            }
        }
    }
}
