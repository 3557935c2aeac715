//! [`LbService`]: everything the load-balancer reconcile needs to know about one Service, parsed
//! and validated once from its spec and `service.beta.kubernetes.io/*` annotations, so the plans
//! ([`super::frontend`], [`super::nsg`], ...) never look at raw strings.

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;

/// An IP family; dual-stack Services get one frontend, rule set and PIP per family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IpFamily {
    /// IPv4 (names carry no suffix).
    V4,
    /// IPv6 (names carry `-IPv6`).
    V6,
}

impl IpFamily {
    /// ARM's spelling (`IPv4`/`IPv6`): `privateIPAddressVersion`, NSG rule names.
    pub const fn arm(self) -> &'static str {
        match self {
            IpFamily::V4 => "IPv4",
            IpFamily::V6 => "IPv6",
        }
    }

    /// Suffix upstream appends to per-family names in a dual-stack Service (`""` for IPv4).
    pub const fn name_suffix(self) -> &'static str {
        match self {
            IpFamily::V4 => "",
            IpFamily::V6 => "-IPv6",
        }
    }

    /// Family of an address.
    pub fn of(ip: &IpAddr) -> IpFamily {
        if ip.is_ipv6() {
            IpFamily::V6
        } else {
            IpFamily::V4
        }
    }
}

impl fmt::Display for IpFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.arm())
    }
}

/// One value per IP family (requested IPs, PIP names, prefixes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerFamily<T> {
    /// The IPv4 value.
    pub v4: T,
    /// The IPv6 value.
    pub v6: T,
}

impl<T> PerFamily<T> {
    /// The value for `family`.
    pub fn get(&self, family: IpFamily) -> &T {
        match family {
            IpFamily::V4 => &self.v4,
            IpFamily::V6 => &self.v6,
        }
    }

    /// The value for `family`, mutable.
    pub fn get_mut(&mut self, family: IpFamily) -> &mut T {
        match family {
            IpFamily::V4 => &mut self.v4,
            IpFamily::V6 => &mut self.v6,
        }
    }
}

/// `namespace/name`: the identity written into PIP tags and NSG bookkeeping.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServiceKey {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl fmt::Display for ServiceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// L4 protocol of a Service port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
    /// SCTP (internal standard load balancers only).
    Sctp,
}

impl Protocol {
    /// Upper-case spelling used in rule and probe names (`TCP`, `UDP`, `SCTP`).
    pub const fn name_part(self) -> &'static str {
        match self {
            Protocol::Tcp => "TCP",
            Protocol::Udp => "UDP",
            Protocol::Sctp => "SCTP",
        }
    }
}

/// Health-probe protocol (`Tcp`/`Http`/`Https`, ARM spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProbeProtocol {
    /// TCP connect probe.
    Tcp,
    /// HTTP GET probe.
    Http,
    /// HTTPS GET probe (standard SKU only).
    Https,
}

impl ProbeProtocol {
    /// ARM spelling.
    pub const fn arm(self) -> &'static str {
        match self {
            ProbeProtocol::Tcp => "Tcp",
            ProbeProtocol::Http => "Http",
            ProbeProtocol::Https => "Https",
        }
    }
}

/// Probe settings a port or the whole Service overrides; `None` means "not given here".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeOverrides {
    /// `..._health-probe_protocol` (or the port's `appProtocol`, for a port).
    pub protocol: Option<ProbeProtocol>,
    /// `..._health-probe_request-path`.
    pub request_path: Option<String>,
    /// `..._health-probe_interval`, seconds.
    pub interval_seconds: Option<i64>,
    /// `..._health-probe_num-of-probe`.
    pub number_of_probes: Option<i64>,
}

/// One Service port as the load balancer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LbPort {
    /// `spec.ports[].name` (may be empty for a single port).
    pub name: String,
    /// Protocol.
    pub protocol: Protocol,
    /// Service port (frontend port, and backend port while floating IP is on).
    pub port: u16,
    /// Allocated NodePort (`None` until the API server assigned one, or when
    /// `allocateLoadBalancerNodePorts: false`).
    pub node_port: Option<u16>,
    /// `spec.ports[].appProtocol` as given (it feeds the probe protocol).
    pub app_protocol: Option<String>,
    /// `port_<N>_no_lb_rule=true`: neither rule nor probe.
    pub no_lb_rule: bool,
    /// `port_<N>_no_probe_rule=true`: a rule without probe.
    pub no_probe_rule: bool,
    /// `port_<N>_health-probe_port`, resolved to a number (a port name is resolved to that
    /// port's NodePort... as upstream does; see the parser).
    pub probe_port: Option<u16>,
    /// Per-port probe overrides (`port_<N>_health-probe_*`); `protocol` here is the annotation
    /// only, `app_protocol` stays separate so the precedence is applied in one place.
    pub probe: ProbeOverrides,
}

/// Source restrictions for the NSG (anchor-ccm.md §4.7).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecuritySettings {
    /// `azure-disable-load-balancer-nsg-rule=true`: leave the NSG alone for this Service.
    pub disabled: bool,
    /// Valid CIDRs from `spec.loadBalancerSourceRanges`, or (exclusive) `azure-allowed-ip-ranges` /
    /// the legacy `load-balancer-source-ranges` annotation.
    pub source_ranges: Vec<IpNet>,
    /// Entries of those lists that did not parse (they raise a Warning event and force deny-all).
    pub invalid_ranges: Vec<String>,
    /// `azure-allowed-service-tags`.
    pub service_tags: Vec<String>,
    /// `azure-deny-all-except-load-balancer-source-ranges=true`.
    pub deny_all_except_source_ranges: bool,
}

/// LB rule switches (anchor-ccm.md §4.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSettings {
    /// `azure-load-balancer-tcp-idle-timeout` in minutes (4-100); `None` = not set.
    pub idle_timeout_minutes: Option<i64>,
    /// Floating IP on (default) unless `azure-disable-load-balancer-floating-ip=true`.
    pub floating_ip: bool,
    /// TCP reset on (standard SKU) unless `azure-load-balancer-disable-tcp-reset=true`.
    pub tcp_reset: bool,
    /// `azure-load-balancer-enable-high-availability-ports=true` (internal standard only).
    pub ha_ports: bool,
    /// `spec.sessionAffinity: ClientIP` ⇒ `loadDistribution: SourceIP`.
    pub client_ip_affinity: bool,
}

impl Default for RuleSettings {
    fn default() -> Self {
        RuleSettings {
            idle_timeout_minutes: None,
            floating_ip: true,
            tcp_reset: true,
            ha_ports: false,
            client_ip_affinity: false,
        }
    }
}

/// Public IP wishes of the Service (anchor-ccm.md §4.8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublicIpSettings {
    /// `azure-pip-name` / `azure-pip-name-ipv6`.
    pub names: PerFamily<Option<String>>,
    /// `azure-load-balancer-resource-group`: RG of the PIPs (default: config `resourceGroup`).
    pub resource_group: Option<String>,
    /// `azure-dns-label-name`: `None` = annotation absent, `Some("")` = remove the label.
    pub dns_label: Option<String>,
    /// `azure-pip-prefix-id` / `azure-pip-prefix-id-ipv6`.
    pub prefix_ids: PerFamily<Option<String>>,
    /// `azure-pip-tags` (`a=b,c=d`), written on managed PIPs.
    pub tags: BTreeMap<String, String>,
    /// `azure-pip-ip-tags` as (ipTagType, tag) pairs, in the order given.
    pub ip_tags: Vec<(String, String)>,
}

/// A Service with a parsed, validated load-balancer configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LbService {
    /// `namespace/name`.
    pub key: ServiceKey,
    /// `metadata.uid`.
    pub uid: String,
    /// `a` + UID without dashes, cut to 32 characters ([`super::names::base_name`]).
    pub base_name: String,
    /// `azure-load-balancer-internal=true`.
    pub internal: bool,
    /// `azure-load-balancer-internal-subnet`.
    pub internal_subnet: Option<String>,
    /// `spec.ipFamilies` in order (default `[IPv4]`).
    pub families: Vec<IpFamily>,
    /// Requested frontend IPs: `azure-load-balancer-ipv4/ipv6`, else `spec.loadBalancerIP` (its family).
    pub requested_ips: PerFamily<Option<IpAddr>>,
    /// Public IP wishes.
    pub public_ip: PublicIpSettings,
    /// The ports that get rules (all of `spec.ports`, with their per-port annotations).
    pub ports: Vec<LbPort>,
    /// Rule switches.
    pub rules: RuleSettings,
    /// `externalTrafficPolicy: Local` ⇒ `Some(healthCheckNodePort)`.
    pub local_health_check_node_port: Option<u16>,
    /// Service-wide probe overrides (`azure-load-balancer-health-probe-*`).
    pub probe: ProbeOverrides,
    /// NSG sources.
    pub security: SecuritySettings,
    /// `azure-additional-public-ips`.
    pub additional_public_ips: Vec<IpAddr>,
}

impl LbPort {
    /// A port with its NodePort and no per-port annotation.
    pub fn new(protocol: Protocol, port: u16, node_port: Option<u16>) -> LbPort {
        LbPort {
            name: format!("p{port}"),
            protocol,
            port,
            node_port,
            app_protocol: None,
            no_lb_rule: false,
            no_probe_rule: false,
            probe_port: None,
            probe: ProbeOverrides::default(),
        }
    }
}

impl LbService {
    /// A public IPv4 Service without ports, every setting at its default: the identity a
    /// deletion works from when the annotations no longer parse.
    pub fn minimal(namespace: &str, name: &str, uid: &str) -> LbService {
        LbService {
            key: ServiceKey {
                namespace: namespace.to_string(),
                name: name.to_string(),
            },
            uid: uid.to_string(),
            base_name: super::names::base_name(uid),
            internal: false,
            internal_subnet: None,
            families: vec![IpFamily::V4],
            requested_ips: PerFamily::default(),
            public_ip: PublicIpSettings::default(),
            ports: Vec::new(),
            rules: RuleSettings::default(),
            local_health_check_node_port: None,
            probe: ProbeOverrides::default(),
            security: SecuritySettings::default(),
            additional_public_ips: Vec::new(),
        }
    }

    /// True for an IPv4+IPv6 Service (per-family names get `-IPv6`).
    pub fn is_dual_stack(&self) -> bool {
        self.families.len() > 1
    }
}
