//! Cluster IP and node port allocation: unique across all Services, released on delete, rebuilt
//! from stored Services at start, like the real server's allocators. Free values are picked at
//! random, first in the upper band of the range and then in the lower band that the real
//! allocators keep for values clients choose (`ServiceIPStaticSubrange`,
//! `ServiceNodePortStaticSubrange`, GA since 1.26 and 1.29; band sizes from
//! `calculateRangeOffset` in pkg/registry/core/service/{ipallocator,portallocator}), so nothing
//! can come to depend on the order of allocation.

use std::collections::{HashMap, HashSet};
use std::net::Ipv4Addr;

use ipnet::Ipv4Net;
use rand::Rng;

use crate::store::ObjectKey;

/// Lowest node port of the default range (`--service-node-port-range=30000-32767`).
pub const NODE_PORT_MIN: u16 = 30000;
/// Highest node port of the default range.
pub const NODE_PORT_MAX: u16 = 32767;

/// An IPv4 service CIDR such as `10.0.0.0/16` (AKS default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServiceCidr {
    net: Ipv4Net,
}

impl ServiceCidr {
    /// Parses `a.b.c.d/n` (host bits are cleared); the error says what is accepted.
    pub fn parse(text: &str) -> Result<Self, String> {
        let net: Ipv4Net = text
            .parse()
            .map_err(|_| "expected an IPv4 CIDR like 10.0.0.0/16".to_string())?;
        if !(8..=30).contains(&net.prefix_len()) {
            return Err("prefix length must be between 8 and 30".into());
        }
        Ok(Self { net: net.trunc() })
    }

    fn base(&self) -> u32 {
        u32::from(self.net.network())
    }

    fn size(&self) -> u32 {
        1u32 << (32 - self.net.prefix_len())
    }

    /// Whether `ip` is a usable host address of the range (not network or broadcast).
    pub fn contains(&self, ip: Ipv4Addr) -> bool {
        self.net.contains(&ip) && ip != self.net.network() && ip != self.net.broadcast()
    }

    /// The first host address, reserved for the `default/kubernetes` Service.
    pub fn first(&self) -> Ipv4Addr {
        Ipv4Addr::from(self.base() + 1)
    }
}

impl Default for ServiceCidr {
    fn default() -> Self {
        Self {
            net: Ipv4Net::new(Ipv4Addr::new(10, 0, 0, 0), 16).unwrap_or_default(),
        }
    }
}

impl std::fmt::Display for ServiceCidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.net.fmt(f)
    }
}

/// Size of the lower band kept for chosen values: `min(max(16, size / step), cap)`, 0 for
/// ranges of 16 values or fewer.
fn static_band(size: u32, step: u32, cap: u32) -> u32 {
    if size <= 16 {
        0
    } else {
        (size / step).clamp(16, cap)
    }
}

/// A random free value among `count` values numbered from 0: a random start in the upper band
/// `[band, count)` scanned forward with wrap-around, then the lower band `[0, band)` the same way.
fn pick_free(count: u32, band: u32, free: impl Fn(u32) -> bool) -> Option<u32> {
    let mut rng = rand::rng();
    let mut scan = |lo: u32, hi: u32| {
        if lo >= hi {
            return None;
        }
        let start = rng.random_range(lo..hi);
        (start..hi).chain(lo..start).find(|v| free(*v))
    };
    scan(band.min(count), count).or_else(|| scan(0, band.min(count)))
}

/// What one Service holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claims {
    /// Cluster IPs.
    pub ips: Vec<Ipv4Addr>,
    /// Node ports and the health check node port.
    pub ports: Vec<u16>,
}

/// Allocation state.
#[derive(Debug, Clone, Default)]
pub struct ServiceAllocations {
    /// The range cluster IPs come from.
    pub cidr: ServiceCidr,
    ips: HashSet<Ipv4Addr>,
    ports: HashSet<u16>,
    by_service: HashMap<ObjectKey, Claims>,
}

impl ServiceAllocations {
    /// Empty allocations over `cidr`.
    pub fn new(cidr: ServiceCidr) -> Self {
        Self {
            cidr,
            ..Self::default()
        }
    }

    /// Re-registers the claims of a stored Service (startup from a data file).
    pub fn restore(&mut self, key: &ObjectKey, service: &serde_json::Value) {
        let claims = claims_of(service);
        self.ips.extend(claims.ips.iter().copied());
        self.ports.extend(claims.ports.iter().copied());
        self.by_service.insert(key.clone(), claims);
    }

    /// Whether `ip` is held by a Service other than `key`.
    pub fn ip_taken(&self, ip: Ipv4Addr, key: &ObjectKey) -> bool {
        self.ips.contains(&ip) && !self.holds(key, |c| c.ips.contains(&ip))
    }

    /// Whether `port` is held by a Service other than `key`.
    pub fn port_taken(&self, port: u16, key: &ObjectKey) -> bool {
        self.ports.contains(&port) && !self.holds(key, |c| c.ports.contains(&port))
    }

    fn holds(&self, key: &ObjectKey, f: impl Fn(&Claims) -> bool) -> bool {
        self.by_service.get(key).is_some_and(f)
    }

    /// A random free cluster IP, `None` when the range is exhausted. The network, the broadcast
    /// and the first host address (the `kubernetes` Service's) are never handed out.
    pub fn next_ip(&self, also_taken: &[Ipv4Addr]) -> Option<Ipv4Addr> {
        let base = self.cidr.base();
        // Host addresses numbered from the first one (base + 1) to the last (broadcast - 1).
        let hosts = self.cidr.size() - 2;
        let band = static_band(self.cidr.size(), 16, 256);
        pick_free(hosts, band, |off| {
            let ip = Ipv4Addr::from(base + 1 + off);
            off != 0 && !self.ips.contains(&ip) && !also_taken.contains(&ip)
        })
        .map(|off| Ipv4Addr::from(base + 1 + off))
    }

    /// A random free node port, `None` when the range is exhausted.
    pub fn next_port(&self, also_taken: &[u16]) -> Option<u16> {
        let count = u32::from(NODE_PORT_MAX - NODE_PORT_MIN) + 1;
        let band = static_band(count, 32, 128);
        let port = |off: u32| NODE_PORT_MIN + u16::try_from(off).unwrap_or(0);
        pick_free(count, band, |off| {
            let p = port(off);
            !self.ports.contains(&p) && !also_taken.contains(&p)
        })
        .map(port)
    }

    /// Replaces what `key` holds with `claims` (callers checked for clashes).
    pub fn set(&mut self, key: &ObjectKey, claims: Claims) {
        self.release(key);
        self.ips.extend(claims.ips.iter().copied());
        self.ports.extend(claims.ports.iter().copied());
        self.by_service.insert(key.clone(), claims);
    }

    /// Frees everything `key` holds.
    pub fn release(&mut self, key: &ObjectKey) {
        if let Some(old) = self.by_service.remove(key) {
            for ip in old.ips {
                self.ips.remove(&ip);
            }
            for p in old.ports {
                self.ports.remove(&p);
            }
        }
    }
}

/// Cluster IPs and node ports a Service object holds.
pub fn claims_of(service: &serde_json::Value) -> Claims {
    let spec = &service["spec"];
    let ips = spec["clusterIPs"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(std::iter::once(&spec["clusterIP"]))
        .filter_map(|v| v.as_str()?.parse::<Ipv4Addr>().ok())
        .fold(Vec::new(), |mut acc, ip| {
            if !acc.contains(&ip) {
                acc.push(ip);
            }
            acc
        });
    let mut ports: Vec<u16> = spec["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["nodePort"].as_u64().and_then(|n| u16::try_from(n).ok()))
        .filter(|p| *p != 0)
        .collect();
    if let Some(hc) = spec["healthCheckNodePort"]
        .as_u64()
        .and_then(|n| u16::try_from(n).ok())
        .filter(|p| *p != 0)
    {
        ports.push(hc);
    }
    Claims { ips, ports }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_unique_values_and_releases_them() {
        let mut a = ServiceAllocations::new(ServiceCidr::parse("10.0.0.0/16").unwrap());
        let k1: ObjectKey = ("default".into(), "a".into());
        let k2: ObjectKey = ("default".into(), "b".into());
        let ip = a.next_ip(&[]).unwrap();
        let port = a.next_port(&[]).unwrap();
        a.set(
            &k1,
            Claims {
                ips: vec![ip],
                ports: vec![port],
            },
        );
        assert!(a.ip_taken(ip, &k2));
        assert!(!a.ip_taken(ip, &k1));
        assert_ne!(a.next_port(&[port]), Some(port));
        a.release(&k1);
        assert!(!a.port_taken(port, &k2));
        assert!(ServiceCidr::parse("10.0.0.0").is_err());
        assert!(ServiceCidr::parse("10.0.0.0/31").is_err());
        assert_eq!(
            ServiceCidr::parse("10.0.3.7/16").unwrap().to_string(),
            "10.0.0.0/16"
        );
        assert!(ServiceCidr::default().contains(Ipv4Addr::new(10, 0, 255, 254)));
        assert!(!ServiceCidr::default().contains(Ipv4Addr::new(10, 0, 255, 255)));
        assert!(!ServiceCidr::default().contains(Ipv4Addr::new(10, 1, 0, 1)));
    }

    #[test]
    fn dynamic_values_come_from_the_upper_band_in_no_particular_order() {
        let mut a = ServiceAllocations::new(ServiceCidr::default());
        let mut ips = Vec::new();
        let mut ports = Vec::new();
        for i in 0..20 {
            let key: ObjectKey = ("default".into(), format!("s{i}"));
            let ip = a.next_ip(&[]).unwrap();
            let port = a.next_port(&[]).unwrap();
            // The lower bands (256 addresses of a /16, 86 ports of the default range) are
            // left for values clients choose.
            assert!(
                u32::from(ip) >= u32::from(Ipv4Addr::new(10, 0, 1, 1)),
                "{ip}"
            );
            assert!(port >= NODE_PORT_MIN + 86, "{port}");
            a.set(
                &key,
                Claims {
                    ips: vec![ip],
                    ports: vec![port],
                },
            );
            ips.push(u32::from(ip));
            ports.push(port);
        }
        let sequential = |v: &[u32]| v.windows(2).all(|w| w[1] == w[0] + 1);
        assert!(!sequential(&ips), "{ips:?}");
        let ports: Vec<u32> = ports.into_iter().map(u32::from).collect();
        assert!(!sequential(&ports), "{ports:?}");
    }

    #[test]
    fn a_small_range_is_used_up_then_full() {
        // A /28 has 14 host addresses; the first is the kubernetes Service's; no lower band.
        let mut a = ServiceAllocations::new(ServiceCidr::parse("10.1.0.0/28").unwrap());
        let mut seen = HashSet::new();
        for i in 0..13 {
            let key: ObjectKey = ("default".into(), format!("s{i}"));
            let ip = a.next_ip(&[]).unwrap();
            assert!(a.cidr.contains(ip) && ip != a.cidr.first(), "{ip}");
            assert!(seen.insert(ip), "{ip} twice");
            a.set(
                &key,
                Claims {
                    ips: vec![ip],
                    ports: vec![],
                },
            );
        }
        assert_eq!(a.next_ip(&[]), None);
    }
}
