//! IPv4/IPv6 prefixes of subnets: parsing, membership and the usable host range Azure leaves to NICs
//! (the first four addresses and, for IPv4, the broadcast address are reserved).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Addresses Azure reserves at the start of every subnet (network, gateway, two DNS).
const RESERVED_HEAD: u128 = 4;

/// An IPv4 or IPv6 prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    /// Network address (host bits zero).
    pub network: IpAddr,
    /// Prefix length.
    pub len: u8,
}

impl Cidr {
    /// Parses `a.b.c.d/n` or `x::/n`; the address must be the network address.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (addr, len) = text.split_once('/').ok_or_else(|| {
            format!("'{text}' is not a CIDR (expected ADDRESS/PREFIX, e.g. 10.0.0.0/16)")
        })?;
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| format!("'{addr}' is not an IP address"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let len: u8 = len
            .parse()
            .ok()
            .filter(|l| *l <= max)
            .ok_or_else(|| format!("prefix length '{len}' must be 0-{max}"))?;
        let cidr = Cidr { network: addr, len };
        if cidr.bits_of(addr) & !cidr.mask() != 0 {
            return Err(format!(
                "'{text}' has host bits set (network address is {})",
                cidr.addr_of(cidr.bits_of(addr) & cidr.mask())
            ));
        }
        Ok(cidr)
    }

    fn width(&self) -> u32 {
        if self.network.is_ipv4() { 32 } else { 128 }
    }

    fn mask(&self) -> u128 {
        let width = self.width();
        let all = if width == 32 {
            u128::from(u32::MAX)
        } else {
            u128::MAX
        };
        if self.len == 0 {
            0
        } else {
            all & !((1u128 << (width - u32::from(self.len))) - 1) & all
        }
    }

    fn bits_of(&self, ip: IpAddr) -> u128 {
        match ip {
            IpAddr::V4(v4) => u128::from(u32::from(v4)),
            IpAddr::V6(v6) => u128::from(v6),
        }
    }

    fn addr_of(&self, bits: u128) -> IpAddr {
        if self.network.is_ipv4() {
            IpAddr::V4(Ipv4Addr::from(bits as u32))
        } else {
            IpAddr::V6(Ipv6Addr::from(bits))
        }
    }

    /// `true` for IPv4 prefixes.
    pub fn is_ipv4(&self) -> bool {
        self.network.is_ipv4()
    }

    /// Whether `ip` (same family) lies inside the prefix.
    pub fn contains(&self, ip: IpAddr) -> bool {
        ip.is_ipv4() == self.is_ipv4()
            && self.bits_of(ip) & self.mask() == self.bits_of(self.network)
    }

    /// Whether `other` lies entirely inside this prefix.
    pub fn covers(&self, other: &Cidr) -> bool {
        other.len >= self.len && self.contains(other.network)
    }

    /// Whether the two prefixes share an address.
    pub fn overlaps(&self, other: &Cidr) -> bool {
        self.covers(other) || other.covers(self)
    }

    /// Number of addresses NICs may use (capped at `u64::MAX` for huge IPv6 prefixes).
    pub fn usable(&self) -> u64 {
        let host_bits = self.width() - u32::from(self.len);
        let total: u128 = if host_bits >= 127 {
            u128::MAX
        } else {
            1u128 << host_bits
        };
        let reserved_tail = u128::from(self.is_ipv4());
        u64::try_from(total.saturating_sub(RESERVED_HEAD + reserved_tail)).unwrap_or(u64::MAX)
    }

    /// Whether `ip` is inside the prefix and not one of the addresses Azure reserves.
    pub fn is_usable(&self, ip: IpAddr) -> bool {
        if !self.contains(ip) {
            return false;
        }
        let offset = self.bits_of(ip) - self.bits_of(self.network);
        offset >= RESERVED_HEAD && offset - RESERVED_HEAD < u128::from(self.usable())
    }

    /// The `n`-th usable address (0 = `.4`), if the prefix is large enough.
    pub fn host(&self, n: u64) -> Option<IpAddr> {
        (n < self.usable())
            .then(|| self.addr_of(self.bits_of(self.network) + RESERVED_HEAD + u128::from(n)))
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reserves_like_azure() {
        let c = Cidr::parse("10.240.0.0/24").unwrap();
        assert_eq!(c.usable(), 251);
        assert_eq!(c.host(0), Some("10.240.0.4".parse().unwrap()));
        assert_eq!(c.host(250), Some("10.240.0.254".parse().unwrap()));
        assert_eq!(c.host(251), None);
        assert!(!c.is_usable("10.240.0.3".parse().unwrap()));
        assert!(!c.is_usable("10.240.0.255".parse().unwrap()));
        assert!(c.is_usable("10.240.0.4".parse().unwrap()));
        assert!(!c.contains("10.241.0.4".parse().unwrap()));
    }

    #[test]
    fn ipv6_prefixes_have_no_broadcast() {
        let c = Cidr::parse("fd00:1::/64").unwrap();
        assert_eq!(c.host(0), Some("fd00:1::4".parse().unwrap()));
        assert!(c.usable() > 1_000_000);
        assert!(!c.contains("10.0.0.4".parse().unwrap()));
    }

    #[test]
    fn rejects_host_bits_and_bad_lengths() {
        assert!(
            Cidr::parse("10.0.0.1/24")
                .unwrap_err()
                .contains("network address is 10.0.0.0")
        );
        assert!(Cidr::parse("10.0.0.0/33").is_err());
        assert!(Cidr::parse("10.0.0.0").is_err());
        assert!(Cidr::parse("/8").is_err());
    }

    #[test]
    fn covers_and_overlaps() {
        let space = Cidr::parse("10.0.0.0/8").unwrap();
        let a = Cidr::parse("10.1.0.0/16").unwrap();
        let b = Cidr::parse("10.1.2.0/24").unwrap();
        assert!(space.covers(&a) && a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.covers(&space));
        assert!(!Cidr::parse("10.2.0.0/16").unwrap().overlaps(&a));
    }
}
