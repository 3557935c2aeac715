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

#[cfg(test)]
mod tests {
    use super::*;

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
