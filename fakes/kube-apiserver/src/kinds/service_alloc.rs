//! Cluster IP and node port allocation: unique across all Services, released on delete, rebuilt
//! from stored Services at start, like the real server's allocators.

use std::collections::{HashMap, HashSet};
use std::net::Ipv4Addr;

use crate::store::ObjectKey;

/// Lowest node port of the default range (`--service-node-port-range=30000-32767`).
pub const NODE_PORT_MIN: u16 = 30000;
/// Highest node port of the default range.
pub const NODE_PORT_MAX: u16 = 32767;

/// An IPv4 service CIDR such as `10.0.0.0/16` (AKS default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServiceCidr {
    base: u32,
    prefix: u8,
}

impl ServiceCidr {
    /// Parses `a.b.c.d/n`; the error says what is accepted.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (ip, prefix) = text
            .split_once('/')
            .ok_or("expected an IPv4 CIDR like 10.0.0.0/16")?;
        let ip: Ipv4Addr = ip
            .parse()
            .map_err(|_| "expected an IPv4 CIDR like 10.0.0.0/16".to_string())?;
        let prefix: u8 = prefix
            .parse()
            .map_err(|_| "prefix length must be a number".to_string())?;
        if !(8..=30).contains(&prefix) {
            return Err("prefix length must be between 8 and 30".into());
        }
        let mask = u32::MAX << (32 - prefix);
        Ok(Self {
            base: u32::from(ip) & mask,
            prefix,
        })
    }

    fn size(&self) -> u32 {
        1u32 << (32 - self.prefix)
    }

    /// Whether `ip` is a usable host address of the range (not network or broadcast).
    pub fn contains(&self, ip: Ipv4Addr) -> bool {
        let v = u32::from(ip);
        v > self.base && v < self.base + self.size() - 1
    }

    /// The first host address, reserved for the `default/kubernetes` Service.
    pub fn first(&self) -> Ipv4Addr {
        Ipv4Addr::from(self.base + 1)
    }
}

impl Default for ServiceCidr {
    fn default() -> Self {
        Self {
            base: u32::from(Ipv4Addr::new(10, 0, 0, 0)),
            prefix: 16,
        }
    }
}

impl std::fmt::Display for ServiceCidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", Ipv4Addr::from(self.base), self.prefix)
    }
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

    /// A free cluster IP (lowest first), `None` when the range is exhausted.
    pub fn next_ip(&self, also_taken: &[Ipv4Addr]) -> Option<Ipv4Addr> {
        (2..self.cidr.size() - 1)
            .map(|off| Ipv4Addr::from(self.cidr.base + off))
            .find(|ip| !self.ips.contains(ip) && !also_taken.contains(ip))
    }

    /// A free node port (lowest first), `None` when the range is exhausted.
    pub fn next_port(&self, also_taken: &[u16]) -> Option<u16> {
        (NODE_PORT_MIN..=NODE_PORT_MAX).find(|p| !self.ports.contains(p) && !also_taken.contains(p))
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
        assert_eq!(ip, Ipv4Addr::new(10, 0, 0, 2));
        a.set(
            &k1,
            Claims {
                ips: vec![ip],
                ports: vec![30000],
            },
        );
        assert!(a.ip_taken(ip, &k2));
        assert!(!a.ip_taken(ip, &k1));
        assert_eq!(a.next_port(&[]), Some(30001));
        a.release(&k1);
        assert!(!a.port_taken(30000, &k2));
        assert!(ServiceCidr::parse("10.0.0.0").is_err());
        assert!(ServiceCidr::default().contains(Ipv4Addr::new(10, 0, 255, 254)));
        assert!(!ServiceCidr::default().contains(Ipv4Addr::new(10, 1, 0, 1)));
    }
}
