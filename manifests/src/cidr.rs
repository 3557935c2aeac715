//! CIDR values for `--cluster-cidr` and `--service-cidr`, validated up front so a typo cannot
//! reach a manifest.

use std::fmt;
use std::net::IpAddr;

/// One IP prefix such as `10.244.0.0/16` or `fd00:10:244::/56`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

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

impl Cidr {
    /// Parses `ADDRESS/PREFIX`; host bits must be zero.
    pub fn parse(input: &str) -> Result<Self, CidrError> {
        let err = |reason| CidrError {
            input: input.to_string(),
            reason,
        };
        let (addr, prefix) = input
            .trim()
            .split_once('/')
            .ok_or_else(|| err("missing /PREFIX"))?;
        let addr: IpAddr = addr.parse().map_err(|_| err("bad address"))?;
        let prefix: u8 = prefix.parse().map_err(|_| err("bad prefix length"))?;
        let bits = if addr.is_ipv4() { 32 } else { 128 };
        if prefix > bits {
            return Err(err("prefix longer than the address"));
        }
        let value = match addr {
            IpAddr::V4(a) => u128::from(u32::from(a)) << 96,
            IpAddr::V6(a) => u128::from(a),
        };
        let host_mask = if prefix == 0 {
            u128::MAX
        } else {
            u128::MAX >> prefix
        };
        let host_mask = if addr.is_ipv4() {
            host_mask & (u128::MAX << 96)
        } else {
            host_mask
        };
        if value & host_mask != 0 {
            return Err(err("host bits set"));
        }
        Ok(Self { addr, prefix })
    }

    /// True for IPv6 prefixes.
    pub fn is_ipv6(&self) -> bool {
        self.addr.is_ipv6()
    }

    /// Prefix length.
    pub fn prefix(&self) -> u8 {
        self.prefix
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
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
        assert!(Cidr::parse("10.244.0.0").is_err());
        assert!(Cidr::parse("10.244.0.0/33").is_err());
        assert!(Cidr::parse("0.0.0.0/0").is_ok());
    }
}
