//! IPv4/IPv6 prefixes of subnets: parsing (with `ipnet`), membership and the usable host range Azure
//! leaves to NICs (the first four addresses and, for IPv4, the broadcast address are reserved).

use std::fmt;
use std::net::IpAddr;

use ipnet::{IpAddrRange, IpNet, Ipv4AddrRange, Ipv6AddrRange};

/// Addresses Azure reserves at the start of every subnet (network, gateway, two DNS).
const RESERVED_HEAD: u64 = 4;

/// An IPv4 or IPv6 prefix whose address is its network address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr(IpNet);

impl Cidr {
    /// Parses `a.b.c.d/n` or `x::/n`; the address must be the network address.
    pub fn parse(text: &str) -> Result<Self, String> {
        let net = match text.parse::<IpNet>() {
            Ok(net) if strict_address(text) => net,
            _ => return Err(why_not_a_prefix(text)),
        };
        let network = net.trunc();
        if network != net {
            return Err(format!(
                "'{text}' has host bits set (network address is {})",
                network.network()
            ));
        }
        Ok(Cidr(net))
    }

    /// `true` for IPv4 prefixes.
    pub fn is_ipv4(&self) -> bool {
        matches!(self.0, IpNet::V4(_))
    }

    /// Whether `ip` (same family) lies inside the prefix.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.contains(&ip)
    }

    /// Whether `other` lies entirely inside this prefix.
    pub fn covers(&self, other: &Cidr) -> bool {
        self.0.contains(&other.0)
    }

    /// Whether the two prefixes share an address.
    pub fn overlaps(&self, other: &Cidr) -> bool {
        self.covers(other) || other.covers(self)
    }

    /// Number of addresses NICs may use (capped at `u64::MAX` for huge IPv6 prefixes).
    pub fn usable(&self) -> u64 {
        let host_bits = u32::from(self.0.max_prefix_len() - self.0.prefix_len());
        let total = 1u128.checked_shl(host_bits).unwrap_or(u128::MAX);
        let reserved = u128::from(RESERVED_HEAD) + u128::from(self.is_ipv4());
        u64::try_from(total.saturating_sub(reserved)).unwrap_or(u64::MAX)
    }

    /// Whether `ip` is inside the prefix and not one of the addresses Azure reserves.
    pub fn is_usable(&self, ip: IpAddr) -> bool {
        let (Some(first), Some(last)) = (self.host(0), self.last_usable()) else {
            return false;
        };
        self.contains(ip) && first <= ip && ip <= last
    }

    /// The `n`-th usable address (0 = `.4`), if the prefix is large enough.
    pub fn host(&self, n: u64) -> Option<IpAddr> {
        if n >= self.usable() {
            return None;
        }
        let mut range = match self.0 {
            IpNet::V4(v4) => IpAddrRange::V4(Ipv4AddrRange::new(v4.network(), v4.broadcast())),
            IpNet::V6(v6) => IpAddrRange::V6(Ipv6AddrRange::new(v6.network(), v6.broadcast())),
        };
        // Two steps, so `RESERVED_HEAD + n` cannot overflow for the largest IPv6 prefixes.
        range.nth(usize::try_from(RESERVED_HEAD - 1).ok()?)?;
        range.nth(usize::try_from(n).ok()?)
    }

    /// The highest usable address: the IPv4 broadcast address is reserved, the IPv6 last one is not.
    fn last_usable(&self) -> Option<IpAddr> {
        if self.usable() == 0 {
            return None;
        }
        match self.0 {
            IpNet::V4(v4) => Ipv4AddrRange::new(v4.network(), v4.broadcast())
                .nth_back(1)
                .map(IpAddr::V4),
            IpNet::V6(v6) => Some(IpAddr::V6(v6.broadcast())),
        }
    }
}

/// `ipnet` reads IPv4 octets with leading zeros (`010.0.0.0`), which std and Go's `net.ParseCIDR`
/// refuse as ambiguous (octal to some tools); topology files keep the strict reading.
fn strict_address(text: &str) -> bool {
    text.split_once('/')
        .is_some_and(|(addr, _)| addr.parse::<IpAddr>().is_ok())
}

/// Which part of `text` keeps it from being a prefix, for the topology error message.
fn why_not_a_prefix(text: &str) -> String {
    let Some((addr, len)) = text.split_once('/') else {
        return format!("'{text}' is not a CIDR (expected ADDRESS/PREFIX, e.g. 10.0.0.0/16)");
    };
    match addr.parse::<IpAddr>() {
        Err(_) => format!("'{addr}' is not an IP address"),
        Ok(ip) => {
            let max = if ip.is_ipv4() { 32 } else { 128 };
            format!("prefix length '{len}' must be 0-{max}")
        }
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

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
        assert!(c.is_usable("10.240.0.254".parse().unwrap()));
        assert!(!c.contains("10.241.0.4".parse().unwrap()));
    }

    #[test]
    fn ipv6_prefixes_have_no_broadcast() {
        let c = Cidr::parse("fd00:1::/64").unwrap();
        assert_eq!(c.host(0), Some("fd00:1::4".parse().unwrap()));
        assert!(c.usable() > 1_000_000);
        assert!(c.is_usable("fd00:1::ffff:ffff:ffff:ffff".parse().unwrap()));
        assert!(!c.contains("10.0.0.4".parse().unwrap()));
        let small = Cidr::parse("fd00:1::/126").unwrap();
        assert_eq!(small.usable(), 0);
        assert_eq!(small.host(0), None);
        assert!(!small.is_usable("fd00:1::3".parse().unwrap()));
    }

    #[test]
    fn tiny_ipv4_prefixes_have_nothing_usable() {
        for text in ["10.0.0.0/29", "10.0.0.0/30", "10.0.0.0/31", "10.0.0.0/32"] {
            let c = Cidr::parse(text).unwrap();
            let expected = if text.ends_with("/29") { 3 } else { 0 };
            assert_eq!(c.usable(), expected, "{text}");
        }
        assert!(
            !Cidr::parse("10.0.0.0/32")
                .unwrap()
                .is_usable("10.0.0.0".parse().unwrap())
        );
    }

    #[test]
    fn rejects_host_bits_and_bad_lengths() {
        assert_eq!(
            Cidr::parse("10.0.0.1/24").unwrap_err(),
            "'10.0.0.1/24' has host bits set (network address is 10.0.0.0)"
        );
        assert_eq!(
            Cidr::parse("10.0.0.0/33").unwrap_err(),
            "prefix length '33' must be 0-32"
        );
        assert_eq!(
            Cidr::parse("fd00::/129").unwrap_err(),
            "prefix length '129' must be 0-128"
        );
        assert_eq!(
            Cidr::parse("10.0.0.0").unwrap_err(),
            "'10.0.0.0' is not a CIDR (expected ADDRESS/PREFIX, e.g. 10.0.0.0/16)"
        );
        assert_eq!(Cidr::parse("/8").unwrap_err(), "'' is not an IP address");
        assert_eq!(
            Cidr::parse("010.0.0.0/8").unwrap_err(),
            "'010.0.0.0' is not an IP address"
        );
    }

    #[test]
    fn covers_and_overlaps() {
        let space = Cidr::parse("10.0.0.0/8").unwrap();
        let a = Cidr::parse("10.1.0.0/16").unwrap();
        let b = Cidr::parse("10.1.2.0/24").unwrap();
        assert!(space.covers(&a) && a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.covers(&space));
        assert!(!Cidr::parse("10.2.0.0/16").unwrap().overlaps(&a));
        let v6 = Cidr::parse("::/0").unwrap();
        assert!(!v6.covers(&space) && !space.overlaps(&v6));
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
        fn network_prefixes_round_trip_and_host_prefixes_name_their_network((ip, len) in prefix()) {
            let net = IpNet::new(ip, len).unwrap().trunc();
            let canonical = format!("{}/{len}", net.network());
            let parsed = Cidr::parse(&canonical).unwrap();
            prop_assert_eq!(parsed.to_string(), canonical);
            prop_assert!(parsed.covers(&parsed));
            let text = format!("{ip}/{len}");
            if ip == net.network() {
                prop_assert!(Cidr::parse(&text).is_ok());
            } else {
                let error = Cidr::parse(&text).unwrap_err();
                prop_assert!(error.contains(&format!("network address is {}", net.network())), "{}", error);
            }
        }

        #[test]
        fn usable_hosts_are_inside_and_reserved_ones_are_not((ip, len) in prefix(), n in any::<u64>()) {
            let cidr = Cidr::parse(&IpNet::new(ip, len).unwrap().trunc().to_string()).unwrap();
            let usable = cidr.usable();
            let network = cidr.0.network();
            prop_assert!(!cidr.is_usable(network), "the network address is reserved");
            match cidr.host(n) {
                Some(host) => {
                    prop_assert!(n < usable);
                    prop_assert!(cidr.contains(host) && cidr.is_usable(host), "{} in {}", host, cidr);
                }
                None => prop_assert!(n >= usable),
            }
            if usable > 0 {
                let last = cidr.host(usable - 1).unwrap();
                prop_assert!(cidr.is_usable(last));
                prop_assert_eq!(cidr.host(usable), None);
                if cidr.is_ipv4() {
                    prop_assert!(!cidr.is_usable(cidr.0.broadcast()), "the IPv4 broadcast is reserved");
                }
            }
        }
    }
}
