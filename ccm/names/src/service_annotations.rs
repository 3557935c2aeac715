//! Service annotations read by the Azure load-balancer code, with value kinds and defaults as data
//! so the parser, the docs and the migration checks share one definition.

/// Prefix shared by every Azure service annotation.
pub const PREFIX: &str = "service.beta.kubernetes.io/";

/// Placeholder for the service port number inside per-port annotation templates.
pub const PORT_PLACEHOLDER: &str = "{port}";

macro_rules! svc {
    ($suffix:literal) => {
        concat!("service.beta.kubernetes.io/", $suffix)
    };
}

/// `true` makes the Service use the internal load balancer `<cluster>-internal`.
pub const INTERNAL: &str = svc!("azure-load-balancer-internal");
/// Subnet for the internal frontend IP.
pub const INTERNAL_SUBNET: &str = svc!("azure-load-balancer-internal-subnet");
/// DNS label on the public IP.
pub const DNS_LABEL_NAME: &str = svc!("azure-dns-label-name");
/// Name of a public IP to use or share.
pub const PIP_NAME: &str = svc!("azure-pip-name");
/// Name of the IPv6 public IP (dual-stack).
pub const PIP_NAME_IPV6: &str = svc!("azure-pip-name-ipv6");
/// Resource group of the (pre-created) public IP.
pub const LOAD_BALANCER_RESOURCE_GROUP: &str = svc!("azure-load-balancer-resource-group");
/// Requested IPv4 address (replaces `spec.loadBalancerIP`).
pub const LOAD_BALANCER_IPV4: &str = svc!("azure-load-balancer-ipv4");
/// Requested IPv6 address.
pub const LOAD_BALANCER_IPV6: &str = svc!("azure-load-balancer-ipv6");
/// Public IP prefix to allocate the IPv4 public IP from.
pub const PIP_PREFIX_ID: &str = svc!("azure-pip-prefix-id");
/// Public IP prefix to allocate the IPv6 public IP from.
pub const PIP_PREFIX_ID_IPV6: &str = svc!("azure-pip-prefix-id-ipv6");
/// Extra tags on the public IP.
pub const PIP_TAGS: &str = svc!("azure-pip-tags");
/// IP tags on the public IP.
pub const PIP_IP_TAGS: &str = svc!("azure-pip-ip-tags");
/// TCP idle timeout in minutes.
pub const TCP_IDLE_TIMEOUT: &str = svc!("azure-load-balancer-tcp-idle-timeout");
/// Default health probe protocol.
pub const HEALTH_PROBE_PROTOCOL: &str = svc!("azure-load-balancer-health-probe-protocol");
/// Default HTTP(S) health probe path.
pub const HEALTH_PROBE_REQUEST_PATH: &str = svc!("azure-load-balancer-health-probe-request-path");
/// Health probe interval in seconds.
pub const HEALTH_PROBE_INTERVAL: &str = svc!("azure-load-balancer-health-probe-interval");
/// Consecutive probe failures before a backend is unhealthy.
pub const HEALTH_PROBE_NUM_OF_PROBE: &str = svc!("azure-load-balancer-health-probe-num-of-probe");
/// NSG source service tags.
pub const ALLOWED_SERVICE_TAGS: &str = svc!("azure-allowed-service-tags");
/// NSG source CIDRs.
pub const ALLOWED_IP_RANGES: &str = svc!("azure-allowed-ip-ranges");
/// Legacy alias of [`ALLOWED_IP_RANGES`].
pub const LEGACY_SOURCE_RANGES: &str = svc!("load-balancer-source-ranges");
/// Adds a deny-all rule for the Service IPs.
pub const DENY_ALL_EXCEPT_SOURCE_RANGES: &str =
    svc!("azure-deny-all-except-load-balancer-source-ranges");
/// Disables floating IP on the LB rules.
pub const DISABLE_FLOATING_IP: &str = svc!("azure-disable-load-balancer-floating-ip");
/// Leaves NSG rules of the Service alone.
pub const DISABLE_NSG_RULE: &str = svc!("azure-disable-load-balancer-nsg-rule");
/// One HA-ports rule instead of per-port rules.
pub const ENABLE_HA_PORTS: &str = svc!("azure-load-balancer-enable-high-availability-ports");
/// Turns TCP reset off.
pub const DISABLE_TCP_RESET: &str = svc!("azure-load-balancer-disable-tcp-reset");
/// Basic-SKU load balancer selection.
pub const LOAD_BALANCER_MODE: &str = svc!("azure-load-balancer-mode");
/// Multi-SLB: allowed load-balancer configuration names.
pub const LOAD_BALANCER_CONFIGURATIONS: &str = svc!("azure-load-balancer-configurations");
/// Extra IPs appended to the Service status and NSG destinations.
pub const ADDITIONAL_PUBLIC_IPS: &str = svc!("azure-additional-public-ips");
/// Create a Private Link Service.
pub const PLS_CREATE: &str = svc!("azure-pls-create");
/// Private Link Service name.
pub const PLS_NAME: &str = svc!("azure-pls-name");
/// Private Link Service resource group.
pub const PLS_RESOURCE_GROUP: &str = svc!("azure-pls-resource-group");
/// Private Link Service NAT subnet.
pub const PLS_IP_CONFIGURATION_SUBNET: &str = svc!("azure-pls-ip-configuration-subnet");
/// Number of Private Link Service NAT IPs.
pub const PLS_IP_CONFIGURATION_IP_ADDRESS_COUNT: &str =
    svc!("azure-pls-ip-configuration-ip-address-count");
/// Static Private Link Service NAT IPs.
pub const PLS_IP_CONFIGURATION_IP_ADDRESS: &str = svc!("azure-pls-ip-configuration-ip-address");
/// Private Link Service FQDNs.
pub const PLS_FQDNS: &str = svc!("azure-pls-fqdns");
/// TCP proxy protocol on the Private Link Service.
pub const PLS_PROXY_PROTOCOL: &str = svc!("azure-pls-proxy-protocol");
/// Subscriptions that can see the Private Link Service.
pub const PLS_VISIBILITY: &str = svc!("azure-pls-visibility");
/// Subscriptions auto-approved on the Private Link Service.
pub const PLS_AUTO_APPROVAL: &str = svc!("azure-pls-auto-approval");
/// Per-port probe protocol override (template).
pub const PORT_HEALTH_PROBE_PROTOCOL: &str = svc!("port_{port}_health-probe_protocol");
/// Per-port probe port override (template).
pub const PORT_HEALTH_PROBE_PORT: &str = svc!("port_{port}_health-probe_port");
/// Per-port probe interval override (template).
pub const PORT_HEALTH_PROBE_INTERVAL: &str = svc!("port_{port}_health-probe_interval");
/// Per-port probe threshold override (template).
pub const PORT_HEALTH_PROBE_NUM_OF_PROBE: &str = svc!("port_{port}_health-probe_num-of-probe");
/// Per-port probe path override (template).
pub const PORT_HEALTH_PROBE_REQUEST_PATH: &str = svc!("port_{port}_health-probe_request-path");
/// No LB rule and no probe for the port (template).
pub const PORT_NO_LB_RULE: &str = svc!("port_{port}_no_lb_rule");
/// LB rule without probe for the port (template).
pub const PORT_NO_PROBE_RULE: &str = svc!("port_{port}_no_probe_rule");

/// Shape of an annotation value; parsers validate against it and docs print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `true` or `false`, in any letter case (upstream compares case-insensitively).
    Bool,
    /// Decimal integer within the inclusive bounds.
    Integer {
        /// Lowest accepted value.
        min: Option<i64>,
        /// Highest accepted value.
        max: Option<i64>,
    },
    /// Free text (a name, a path, an ID).
    Text,
    /// One IP address of the given family ("IPv4"/"IPv6").
    IpAddress(&'static str),
    /// ARM resource ID.
    ResourceId,
    /// Comma-separated list of items.
    CommaList(&'static str),
    /// Space-separated list of items.
    SpaceList(&'static str),
    /// Comma-separated `key=value` pairs.
    KeyValuePairs,
    /// One of the listed values.
    OneOf(&'static [&'static str]),
    /// A port number or a port name of the Service.
    PortOrName,
}

impl ValueKind {
    /// Short description of accepted values for docs and error messages.
    pub fn describe(self) -> String {
        match self {
            ValueKind::Bool => "`true` or `false` (any case)".to_string(),
            ValueKind::Integer {
                min: Some(a),
                max: Some(b),
            } => format!("integer {a}-{b}"),
            ValueKind::Integer {
                min: Some(a),
                max: None,
            } => format!("integer >= {a}"),
            ValueKind::Integer {
                min: None,
                max: Some(b),
            } => format!("integer <= {b}"),
            ValueKind::Integer {
                min: None,
                max: None,
            } => "integer".to_string(),
            ValueKind::Text => "string".to_string(),
            ValueKind::IpAddress(family) => format!("{family} address"),
            ValueKind::ResourceId => "ARM resource ID".to_string(),
            ValueKind::CommaList(item) => format!("comma-separated {item}"),
            ValueKind::SpaceList(item) => format!("space-separated {item}"),
            ValueKind::KeyValuePairs => "comma-separated `key=value` pairs".to_string(),
            ValueKind::OneOf(values) => values
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", "),
            ValueKind::PortOrName => "port number or Service port name".to_string(),
        }
    }
}

/// Feature area an annotation belongs to; groups the reference page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Area {
    /// Load balancer selection and frontend.
    LoadBalancer,
    /// Public IP creation and sharing.
    PublicIp,
    /// Health probes.
    HealthProbe,
    /// LB rules.
    Rules,
    /// Network security group.
    Security,
    /// Private Link Service.
    PrivateLink,
}

impl Area {
    /// Section title in the reference page.
    pub const fn title(self) -> &'static str {
        match self {
            Area::LoadBalancer => "Load balancer and frontend",
            Area::PublicIp => "Public IP",
            Area::HealthProbe => "Health probes",
            Area::Rules => "Load-balancing rules",
            Area::Security => "Network security group",
            Area::PrivateLink => "Private Link Service",
        }
    }
}

/// One service annotation with everything needed to parse and document it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServiceAnnotation {
    /// Full key; per-port keys contain [`PORT_PLACEHOLDER`].
    pub key: &'static str,
    /// Feature area.
    pub area: Area,
    /// Accepted values.
    pub kind: ValueKind,
    /// Behaviour when absent.
    pub default: &'static str,
    /// What it does.
    pub description: &'static str,
    /// One of the most used annotations (judgment in the anchor fact sheet, not measured).
    pub common: bool,
}

impl ServiceAnnotation {
    /// True for per-port templates such as `port_{port}_no_lb_rule`.
    pub fn is_per_port(&self) -> bool {
        self.key.contains(PORT_PLACEHOLDER)
    }

    /// Concrete key for a port (identity for annotations that are not per-port).
    pub fn for_port(&self, port: u16) -> String {
        self.key.replace(PORT_PLACEHOLDER, &port.to_string())
    }
}

const ANY_BOOL: ValueKind = ValueKind::Bool;
const PROBE_PROTOCOLS: ValueKind = ValueKind::OneOf(&["Tcp", "Http", "Https"]);

/// Every service annotation the Azure provider reads, in documentation order.
pub static SERVICE_ANNOTATIONS: &[ServiceAnnotation] = &[
    ServiceAnnotation {
        key: INTERNAL,
        area: Area::LoadBalancer,
        kind: ANY_BOOL,
        default: "`false` (public load balancer `<cluster-name>`)",
        description: "`true` places the Service on the internal load balancer `<cluster-name>-internal`.",
        common: true,
    },
    ServiceAnnotation {
        key: INTERNAL_SUBNET,
        area: Area::LoadBalancer,
        kind: ValueKind::Text,
        default: "`subnetName` from the cloud config",
        description: "Subnet of the internal frontend IP (ignored on public Services); also appended \
                      to frontend and rule names.",
        common: true,
    },
    ServiceAnnotation {
        key: LOAD_BALANCER_IPV4,
        area: Area::LoadBalancer,
        kind: ValueKind::IpAddress("IPv4"),
        default: "allocated by Azure",
        description: "Requested IPv4 frontend address; replaces the deprecated `spec.loadBalancerIP`. \
                      For public Services the public IP must already exist.",
        common: true,
    },
    ServiceAnnotation {
        key: LOAD_BALANCER_IPV6,
        area: Area::LoadBalancer,
        kind: ValueKind::IpAddress("IPv6"),
        default: "allocated by Azure",
        description: "Requested IPv6 frontend address.",
        common: false,
    },
    ServiceAnnotation {
        key: LOAD_BALANCER_MODE,
        area: Area::LoadBalancer,
        kind: ValueKind::CommaList("VM set names, or `__auto__`"),
        default: "the primary VM set's load balancer",
        description: "Basic SKU only: which VM sets' load balancers may host the Service; \
                      `__auto__` picks the one with the fewest rules.",
        common: false,
    },
    ServiceAnnotation {
        key: LOAD_BALANCER_CONFIGURATIONS,
        area: Area::LoadBalancer,
        kind: ValueKind::CommaList("load-balancer configuration names"),
        default: "any eligible configuration",
        description: "Multiple standard load balancers: restricts placement to these configurations.",
        common: false,
    },
    ServiceAnnotation {
        key: ADDITIONAL_PUBLIC_IPS,
        area: Area::LoadBalancer,
        kind: ValueKind::CommaList("IP addresses"),
        default: "none",
        description: "Extra IPs appended to `status.loadBalancer.ingress` and to NSG destinations.",
        common: false,
    },
    ServiceAnnotation {
        key: PIP_NAME,
        area: Area::PublicIp,
        kind: ValueKind::Text,
        default: "`<cluster-name>-a<service UID without dashes>` created by the CCM",
        description: "Use (or share) the public IP with this name (IPv4 or single stack).",
        common: true,
    },
    ServiceAnnotation {
        key: PIP_NAME_IPV6,
        area: Area::PublicIp,
        kind: ValueKind::Text,
        default: "generated name with suffix `-IPv6`",
        description: "Name of the IPv6 public IP of a dual-stack Service.",
        common: false,
    },
    ServiceAnnotation {
        key: LOAD_BALANCER_RESOURCE_GROUP,
        area: Area::PublicIp,
        kind: ValueKind::Text,
        default: "`resourceGroup` from the cloud config",
        description: "Resource group holding the Service's (pre-created) public IP.",
        common: true,
    },
    ServiceAnnotation {
        key: DNS_LABEL_NAME,
        area: Area::PublicIp,
        kind: ValueKind::Text,
        default: "no DNS label",
        description: "DNS label on the public IP; an empty value removes it. Only one Service may own a label.",
        common: true,
    },
    ServiceAnnotation {
        key: PIP_PREFIX_ID,
        area: Area::PublicIp,
        kind: ValueKind::ResourceId,
        default: "no prefix",
        description: "Create the IPv4 (or single-stack) public IP from this public IP prefix.",
        common: false,
    },
    ServiceAnnotation {
        key: PIP_PREFIX_ID_IPV6,
        area: Area::PublicIp,
        kind: ValueKind::ResourceId,
        default: "no prefix",
        description: "Create the IPv6 public IP of a dual-stack Service from this public IP prefix.",
        common: false,
    },
    ServiceAnnotation {
        key: PIP_TAGS,
        area: Area::PublicIp,
        kind: ValueKind::KeyValuePairs,
        default: "no extra tags",
        description: "Extra tags written on the public IP.",
        common: true,
    },
    ServiceAnnotation {
        key: PIP_IP_TAGS,
        area: Area::PublicIp,
        kind: ValueKind::KeyValuePairs,
        default: "no IP tags",
        description: "IP tags of the public IP, e.g. `RoutingPreference=Internet`.",
        common: false,
    },
    ServiceAnnotation {
        key: HEALTH_PROBE_PROTOCOL,
        area: Area::HealthProbe,
        kind: PROBE_PROTOCOLS,
        default: "the port's `appProtocol`, else `Tcp`",
        description: "Probe protocol for ports of an `externalTrafficPolicy: Cluster` Service. \
                      `Https` falls back to `Tcp` on basic SKU.",
        common: true,
    },
    ServiceAnnotation {
        key: HEALTH_PROBE_REQUEST_PATH,
        area: Area::HealthProbe,
        kind: ValueKind::Text,
        default: "`/`",
        description: "Path of HTTP(S) probes.",
        common: true,
    },
    ServiceAnnotation {
        key: HEALTH_PROBE_INTERVAL,
        area: Area::HealthProbe,
        kind: ValueKind::Integer {
            min: Some(5),
            max: None,
        },
        default: "`5`",
        description: "Probe interval in seconds; interval x probe count must stay below 120.",
        common: false,
    },
    ServiceAnnotation {
        key: HEALTH_PROBE_NUM_OF_PROBE,
        area: Area::HealthProbe,
        kind: ValueKind::Integer {
            min: Some(2),
            max: None,
        },
        default: "`2`",
        description: "Consecutive failures before a backend is taken out.",
        common: false,
    },
    ServiceAnnotation {
        key: PORT_HEALTH_PROBE_PROTOCOL,
        area: Area::HealthProbe,
        kind: PROBE_PROTOCOLS,
        default: "the Service-wide probe protocol",
        description: "Probe protocol for one port; wins over `appProtocol` and the Service-wide annotation.",
        common: false,
    },
    ServiceAnnotation {
        key: PORT_HEALTH_PROBE_PORT,
        area: Area::HealthProbe,
        kind: ValueKind::PortOrName,
        default: "the port's NodePort",
        description: "Port probed for this Service port: a Service port number or name means that \
                      port's NodePort; any other number is probed as is.",
        common: false,
    },
    ServiceAnnotation {
        key: PORT_HEALTH_PROBE_INTERVAL,
        area: Area::HealthProbe,
        kind: ValueKind::Integer {
            min: Some(5),
            max: None,
        },
        default: "the Service-wide interval",
        description: "Probe interval for one port.",
        common: false,
    },
    ServiceAnnotation {
        key: PORT_HEALTH_PROBE_NUM_OF_PROBE,
        area: Area::HealthProbe,
        kind: ValueKind::Integer {
            min: Some(2),
            max: None,
        },
        default: "the Service-wide probe count",
        description: "Probe threshold for one port.",
        common: false,
    },
    ServiceAnnotation {
        key: PORT_HEALTH_PROBE_REQUEST_PATH,
        area: Area::HealthProbe,
        kind: ValueKind::Text,
        default: "the Service-wide path",
        description: "HTTP(S) probe path for one port.",
        common: false,
    },
    ServiceAnnotation {
        key: PORT_NO_PROBE_RULE,
        area: Area::HealthProbe,
        kind: ANY_BOOL,
        default: "`false`",
        description: "`true` creates the rule for the port without a probe.",
        common: false,
    },
    ServiceAnnotation {
        key: TCP_IDLE_TIMEOUT,
        area: Area::Rules,
        kind: ValueKind::Integer {
            min: Some(4),
            max: Some(100),
        },
        default: "`4`",
        description: "TCP idle timeout of the rules, in minutes.",
        common: true,
    },
    ServiceAnnotation {
        key: DISABLE_FLOATING_IP,
        area: Area::Rules,
        kind: ANY_BOOL,
        default: "`false` (floating IP on)",
        description: "`true` turns floating IP off; rules then target the NodePort.",
        common: true,
    },
    ServiceAnnotation {
        key: ENABLE_HA_PORTS,
        area: Area::Rules,
        kind: ANY_BOOL,
        default: "`false`",
        description: "Internal standard load balancer only (ignored otherwise): one HA-ports rule \
                      (all protocols, all ports).",
        common: true,
    },
    ServiceAnnotation {
        key: DISABLE_TCP_RESET,
        area: Area::Rules,
        kind: ANY_BOOL,
        default: "`false` (TCP reset on for standard SKU)",
        description: "`true` turns TCP reset off.",
        common: false,
    },
    ServiceAnnotation {
        key: PORT_NO_LB_RULE,
        area: Area::Rules,
        kind: ANY_BOOL,
        default: "`false`",
        description: "`true` creates neither rule nor probe for the port.",
        common: false,
    },
    ServiceAnnotation {
        key: ALLOWED_SERVICE_TAGS,
        area: Area::Security,
        kind: ValueKind::CommaList("Azure service tags"),
        default: "`Internet` for public Services; no allow rule for internal ones",
        description: "NSG sources allowed to reach the Service.",
        common: true,
    },
    ServiceAnnotation {
        key: ALLOWED_IP_RANGES,
        area: Area::Security,
        kind: ValueKind::CommaList("CIDRs"),
        default: "no restriction",
        description: "NSG source ranges. Setting it together with `spec.loadBalancerSourceRanges` \
                      is an error; invalid CIDRs raise a Warning event and add a deny-all rule.",
        common: true,
    },
    ServiceAnnotation {
        key: LEGACY_SOURCE_RANGES,
        area: Area::Security,
        kind: ValueKind::CommaList("CIDRs"),
        default: "no restriction",
        description: "Legacy alias of `azure-allowed-ip-ranges`, with the same conflict rules.",
        common: false,
    },
    ServiceAnnotation {
        key: DENY_ALL_EXCEPT_SOURCE_RANGES,
        area: Area::Security,
        kind: ANY_BOOL,
        default: "`false`",
        description: "`true` adds a deny-all rule for the Service IPs below the allow rules.",
        common: false,
    },
    ServiceAnnotation {
        key: DISABLE_NSG_RULE,
        area: Area::Security,
        kind: ANY_BOOL,
        default: "`false`",
        description: "`true` leaves the Service's NSG rules alone (break-glass).",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_CREATE,
        area: Area::PrivateLink,
        kind: ANY_BOOL,
        default: "`false`",
        description: "Internal standard load balancer only: create a Private Link Service per frontend.",
        common: true,
    },
    ServiceAnnotation {
        key: PLS_NAME,
        area: Area::PrivateLink,
        kind: ValueKind::Text,
        default: "`pls-<frontend name>`",
        description: "Private Link Service name.",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_RESOURCE_GROUP,
        area: Area::PrivateLink,
        kind: ValueKind::Text,
        default: "`privateLinkServiceResourceGroup`, else `resourceGroup`",
        description: "Private Link Service resource group.",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_IP_CONFIGURATION_SUBNET,
        area: Area::PrivateLink,
        kind: ValueKind::Text,
        default: "the frontend's subnet",
        description: "Subnet of the NAT IP configurations.",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_IP_CONFIGURATION_IP_ADDRESS_COUNT,
        area: Area::PrivateLink,
        kind: ValueKind::Integer {
            min: Some(1),
            max: None,
        },
        default: "`1`",
        description: "Number of NAT IP configurations.",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_IP_CONFIGURATION_IP_ADDRESS,
        area: Area::PrivateLink,
        kind: ValueKind::SpaceList("IP addresses"),
        default: "dynamic",
        description: "Static NAT IPs.",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_FQDNS,
        area: Area::PrivateLink,
        kind: ValueKind::SpaceList("FQDNs"),
        default: "none",
        description: "FQDNs of the Private Link Service.",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_PROXY_PROTOCOL,
        area: Area::PrivateLink,
        kind: ANY_BOOL,
        default: "`false`",
        description: "Enable TCP proxy protocol.",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_VISIBILITY,
        area: Area::PrivateLink,
        kind: ValueKind::SpaceList("subscription IDs, or `*`"),
        default: "not visible to other subscriptions",
        description: "Subscriptions that can see the Private Link Service.",
        common: false,
    },
    ServiceAnnotation {
        key: PLS_AUTO_APPROVAL,
        area: Area::PrivateLink,
        kind: ValueKind::SpaceList("subscription IDs"),
        default: "none",
        description: "Subscriptions whose connections are approved automatically.",
        common: false,
    },
];

/// Looks an annotation up by its full key, matching per-port templates for any port number.
pub fn lookup(key: &str) -> Option<&'static ServiceAnnotation> {
    SERVICE_ANNOTATIONS.iter().find(|a| {
        if !a.is_per_port() {
            return a.key == key;
        }
        let Some((head, tail)) = a.key.split_once(PORT_PLACEHOLDER) else {
            return false;
        };
        key.strip_prefix(head)
            .and_then(|rest| rest.strip_suffix(tail))
            .is_some_and(|port| !port.is_empty() && port.parse::<u16>().is_ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_prefixed() {
        let mut keys: Vec<&str> = SERVICE_ANNOTATIONS.iter().map(|a| a.key).collect();
        assert!(keys.iter().all(|k| k.starts_with(PREFIX)));
        keys.sort_unstable();
        let n = keys.len();
        keys.dedup();
        assert_eq!(n, keys.len());
    }

    #[test]
    fn per_port_lookup_accepts_numbers_only() {
        assert_eq!(
            lookup("service.beta.kubernetes.io/port_443_no_lb_rule").map(|a| a.key),
            Some(PORT_NO_LB_RULE)
        );
        assert!(lookup("service.beta.kubernetes.io/port_http_no_lb_rule").is_none());
        assert!(lookup("service.beta.kubernetes.io/port__no_lb_rule").is_none());
        assert_eq!(lookup(INTERNAL).map(|a| a.key), Some(INTERNAL));
    }

    #[test]
    fn fifteen_common_annotations_as_starred_in_the_fact_sheet() {
        assert_eq!(SERVICE_ANNOTATIONS.iter().filter(|a| a.common).count(), 15);
    }

    #[test]
    fn describe_lists_accepted_values() {
        assert_eq!(
            ValueKind::Integer {
                min: Some(4),
                max: Some(100)
            }
            .describe(),
            "integer 4-100"
        );
        assert_eq!(PROBE_PROTOCOLS.describe(), "`Tcp`, `Http`, `Https`");
        assert_eq!(ANY_BOOL.describe(), "`true` or `false` (any case)");
    }
}
