//! Service → [`LbService`]: reads the spec and the `service.beta.kubernetes.io/*` annotations once,
//! validates them, and returns the parsed Service plus the Warning events upstream raises for
//! accepted-but-suspicious input. Keys and value kinds come from the shared table
//! `ccm_names::service_annotations::SERVICE_ANNOTATIONS` (the same table the reference page is
//! generated from), so docs and errors agree.
//!
//! Verified against upstream (`kubernetes-sigs/cloud-provider-azure`):
//! - booleans are compared case-insensitively with `true` (`pkg/consts/helpers.go`
//!   `expectAttributeInSvcAnnotationBeEqualTo`);
//! - integers are trimmed and parsed as 32-bit decimals (`extractInt32FromString`); probe interval
//!   at least 5 and count at least 2 are checked on each annotation, then the effective (port,
//!   else Service-wide, else default 5/2) interval x count must be below 120 for every probe
//!   built (`azure_loadbalancer_healthprobe.go`);
//! - probe protocol: `port_<N>_health-probe_protocol` > `appProtocol` > Service-wide annotation,
//!   trimmed and case-insensitive (the plan applies the precedence; HTTPS on basic falls back to
//!   TCP there);
//! - `port_<N>_health-probe_port`: a number equal to a Service port means that port's NodePort,
//!   another number is used as is, a port name (case-insensitive) means that port's NodePort
//!   (`buildHealthProbeRulesForPort`);
//! - source ranges: items split on `,` and trimmed; a CIDR with host bits set is invalid
//!   (`iputil.ParsePrefix`); invalid entries are dropped with a Warning and force deny-all;
//!   valid spec ranges together with valid `azure-allowed-ip-ranges`/legacy
//!   `load-balancer-source-ranges` ranges are an error (`loadbalancer/accesscontrol.go`,
//!   `configuration.go`); service tags are split on `,` and trimmed; Warning events
//!   `InvalidSourceRanges`, `InvalidAllowedIPRanges`, and `ConflictConfiguration` when valid spec
//!   ranges meet service tags (`NewAccessControl` in `loadbalancer/accesscontrol.go`);
//! - `azure-additional-public-ips`: one bad address refuses the list (`AdditionalPublicIPs`);
//! - `azure-dns-label-name`: absent and empty differ (`getPublicIPDomainNameLabel`);
//!   `azure-load-balancer-resource-group` is trimmed and a blank value means the config's
//!   resource group (`getPublicIPAddressResourceGroup`);
//! - requested IPs: `azure-load-balancer-ipv4`/`-ipv6` when not empty, else `spec.loadBalancerIP`
//!   for its own family (`getServiceLoadBalancerIP`); a Service is dual-stack when it lists two
//!   families, and a single-stack one (IPv4 or IPv6) takes its PIP name and prefix from the
//!   unsuffixed `azure-pip-name`/`azure-pip-prefix-id` (`getServicePIPName`,
//!   `getServicePIPPrefixID` in `azure_utils.go`);
//! - SCTP is refused on public or basic load balancers, but only on ports that get a rule
//!   (`port_<N>_no_lb_rule` is checked first); HA ports take effect only on internal standard
//!   load balancers and are ignored otherwise; TCP reset is on with the standard SKU
//!   (`getExpectedLBRules`, `getExpectedLoadBalancingRulePropertiesForPort`);
//! - the Local (healthCheckNodePort) probe honours the interval/count annotations too
//!   (cloud-provider-azure PR #4207), so it gets the combined check.
//!
//! Not supported yet: `azure-pls-create=true` is refused with [`ServiceConfigError::NotSupported`];
//! the other `azure-pls-*` values are only validated. `azure-load-balancer-mode` and
//! `azure-load-balancer-configurations` are read by the load-balancer selection, not here.
//!
//! Stricter than upstream, on purpose (DESIGN.md "Bad input and faults": bad input is answered
//! with an error naming the key and the accepted values, and nothing in Azure changes):
//! - a boolean that is neither `true` nor `false` (any case) is refused; upstream reads it as
//!   `false`;
//! - a probe protocol annotation outside `Tcp`/`Http`/`Https` is refused; upstream falls back to
//!   TCP (an unknown `appProtocol` still falls back, in the plan);
//! - malformed `key=value` items in `azure-pip-tags`/`azure-pip-ip-tags` and empty service tags
//!   are refused; upstream skips or forwards them;
//! - every present annotation is validated, even where upstream would not read it (for example a
//!   per-port interval on a UDP port);
//! - an unparsable `spec.loadBalancerIP`, a Local Service without `spec.healthCheckNodePort` and
//!   a `health-probe_port` naming a port without NodePort are refused; upstream passes them on
//!   to ARM.
//!
//! [infer] (not verified from a public source):
//! - blank `azure-pip-name(-ipv6)` and `azure-pip-prefix-id(-ipv6)` count as absent;
//! - `azure-additional-public-ips` items are trimmed;
//! - the `service` SKU counts as standard (TCP reset, SCTP, HA ports);
//! - per-port probe overrides for a Local Service's probe are looked up under the
//!   healthCheckNodePort number; they are validated for the combined rule but not carried in
//!   [`LbService`] (the plan uses the Service-wide values for the Local probe).

mod annotations;
mod error;
mod frontend;
mod ports;
mod private_link;
mod probes;
mod security;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use ccm_names::service_annotations as sa;
use k8s_openapi::api::core::v1::{Service, ServiceSpec};

pub use error::ServiceConfigError;
pub use probes::{DEFAULT_INTERVAL_SECONDS, DEFAULT_NUMBER_OF_PROBES, MAX_TOTAL_SECONDS};
pub use security::{
    REASON_CONFLICT_CONFIGURATION, REASON_INVALID_ALLOWED_IP_RANGES, REASON_INVALID_SOURCE_RANGES,
};

use self::annotations::Annotations;
use super::names::base_name;
use super::service::{LbService, Protocol, RuleSettings, ServiceKey};
use crate::config::{LoadBalancerSku, ProbeMode};

/// The configuration the parser needs to validate a Service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseContext {
    /// `loadBalancerSku`: SCTP, HA ports and TCP reset depend on it.
    pub sku: LoadBalancerSku,
    /// `clusterServiceLoadBalancerHealthProbeMode`: decides which probes exist, hence which get
    /// the interval x count check.
    pub probe_mode: ProbeMode,
}

/// A parsed Service and the Warning events to record for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The load-balancer view of the Service.
    pub service: LbService,
    /// Accepted-but-suspicious input, recorded as Warning events.
    pub warnings: Vec<ServiceWarning>,
}

/// One Warning event to record on the Service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceWarning {
    /// Event reason (upstream's, e.g. [`REASON_INVALID_SOURCE_RANGES`]).
    pub reason: &'static str,
    /// Event message.
    pub message: String,
}

/// Parses and validates a Service's load-balancer configuration.
pub fn parse_service(service: &Service, ctx: &ParseContext) -> Result<Parsed, ServiceConfigError> {
    let no_annotations = BTreeMap::new();
    let a = Annotations::new(
        service
            .metadata
            .annotations
            .as_ref()
            .unwrap_or(&no_annotations),
    );
    let default_spec = ServiceSpec::default();
    let spec = service.spec.as_ref().unwrap_or(&default_spec);
    parse_with(&a, service, spec, ctx)
}

fn parse_with(
    a: &Annotations<'_>,
    service: &Service,
    spec: &ServiceSpec,
    ctx: &ParseContext,
) -> Result<Parsed, ServiceConfigError> {
    let meta = &service.metadata;
    let uid = meta.uid.clone().unwrap_or_default();
    if uid.is_empty() {
        return Err(ServiceConfigError::Missing {
            key: "metadata.uid".to_string(),
            reason: "for the names of the Azure resources",
        });
    }
    let mut warnings = Vec::new();
    private_link::check(a)?;

    let internal = a.flag(sa::INTERNAL)?;
    let internal_subnet = frontend::internal_subnet(a, internal);
    let families = frontend::families(spec)?;
    let requested_ips = frontend::requested_ips(a, spec, &families)?;
    let public_ip = frontend::public_ip(a, &families)?;
    let additional_public_ips = frontend::additional_public_ips(a)?;

    let ports = ports::ports(a, spec)?;
    let standard = ctx.sku != LoadBalancerSku::Basic;
    // Upstream checks SCTP only on ports that get a rule.
    if let Some(i) = ports
        .iter()
        .position(|p| p.protocol == Protocol::Sctp && !p.no_lb_rule)
        && !(internal && standard)
    {
        return Err(ServiceConfigError::Unsupported {
            key: format!("spec.ports[{i}].protocol"),
            value: "SCTP".to_string(),
            accepted: format!(
                "`TCP` or `UDP`; SCTP needs an internal Service ({}=true) on a standard \
                 load balancer",
                sa::INTERNAL
            ),
        });
    }

    let rules = RuleSettings {
        idle_timeout_minutes: a
            .get(sa::TCP_IDLE_TIMEOUT)
            .map(|s| s.integer())
            .transpose()?,
        floating_ip: !a.flag(sa::DISABLE_FLOATING_IP)?,
        tcp_reset: standard && !a.flag(sa::DISABLE_TCP_RESET)?,
        ha_ports: a.flag(sa::ENABLE_HA_PORTS)? && internal && standard,
        client_ip_affinity: spec.session_affinity.as_deref() == Some("ClientIP"),
    };

    let local_health_check_node_port = local_health_check_node_port(spec)?;
    let probe = probes::service_probe(a)?;
    probes::check_durations(
        a,
        &probes::ProbedPorts {
            local_health_check_node_port,
            mode: ctx.probe_mode,
            ports: &ports,
        },
        &probe,
    )?;

    let security = security::security(a, spec, &mut warnings)?;

    Ok(Parsed {
        service: LbService {
            key: ServiceKey {
                namespace: meta.namespace.clone().unwrap_or_default(),
                name: meta.name.clone().unwrap_or_default(),
            },
            base_name: base_name(&uid),
            uid,
            internal,
            internal_subnet,
            families,
            requested_ips,
            public_ip,
            ports,
            rules,
            local_health_check_node_port,
            probe,
            security,
            additional_public_ips,
        },
        warnings,
    })
}

/// `externalTrafficPolicy: Local` ⇒ the healthCheckNodePort the API server allocated.
fn local_health_check_node_port(spec: &ServiceSpec) -> Result<Option<u16>, ServiceConfigError> {
    if spec.external_traffic_policy.as_deref() != Some("Local") {
        return Ok(None);
    }
    match spec.health_check_node_port {
        Some(n) => u16::try_from(n)
            .ok()
            .filter(|n| *n != 0)
            .map(Some)
            .ok_or_else(|| ServiceConfigError::InvalidValue {
                key: "spec.healthCheckNodePort".to_string(),
                value: n.to_string(),
                accepted: "integer 1-65535".to_string(),
            }),
        None => Err(ServiceConfigError::Missing {
            key: "spec.healthCheckNodePort".to_string(),
            reason: "for `externalTrafficPolicy: Local` (the load balancer probes it)",
        }),
    }
}
