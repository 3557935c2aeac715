//! NSG security-rule names: the consolidated `k8s-azure-lb_*` names the upstream CCM writes since
//! v1.29 (`pkg/provider/securitygroup/securityrule.go`), and recognisers for the per-Service and
//! `shared-*` names older providers wrote.

use md5::{Digest, Md5};

use crate::loadbalancer::service::{IpFamily, Protocol};

/// Name prefix of every rule the CCM manages (with a priority in [`super::MIN_PRIORITY`]..=
/// [`super::MAX_PRIORITY`]).
pub const MANAGED_PREFIX: &str = "k8s-azure-lb";

/// Separator between the parts of a managed rule name.
const SEP: &str = "_";

/// ARM `protocol` of a security rule for a Service port protocol (`Tcp`, `Udp`, `*` for SCTP).
pub const fn arm_protocol(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::Tcp => "Tcp",
        Protocol::Udp => "Udp",
        Protocol::Sctp => "*",
    }
}

/// `k8s-azure-lb_allow_<IPv4|IPv6>_<md5hex>`: the hash input is
/// `<protocol>_<sources sorted, joined by ",">_<ports as decimal strings sorted as strings, joined
/// by ",">`, e.g. `Tcp_Internet_443,80`.
pub fn allow_rule_name(
    arm_protocol: &str,
    family: IpFamily,
    sources: &[String],
    ports: &[u16],
) -> String {
    let mut sources: Vec<&str> = sources.iter().map(String::as_str).collect();
    sources.sort_unstable();
    let ports = port_strings(ports);
    let input = format!(
        "{arm_protocol}{SEP}{}{SEP}{}",
        sources.join(","),
        ports.join(",")
    );
    let digest = Md5::digest(input.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{MANAGED_PREFIX}{SEP}allow{SEP}{}{SEP}{hex}", family.arm())
}

/// `k8s-azure-lb_deny-all_<IPv4|IPv6>`: one deny rule per family, shared by every Service.
pub fn deny_all_rule_name(family: IpFamily) -> String {
    format!("{MANAGED_PREFIX}{SEP}deny-all{SEP}{}", family.arm())
}

/// Ports as decimal strings, deduplicated and sorted as strings (`"443"` before `"80"`), the order
/// upstream hashes and writes them in.
pub fn port_strings(ports: &[u16]) -> Vec<String> {
    let mut out: Vec<String> = ports.iter().map(u16::to_string).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// True for a legacy (< v1.29) per-Service rule of the Service with base name `base`:
/// `<base>-<TCP|UDP|SCTP>-<port>-<source>[-IPv6]` (matched case-insensitively, like upstream's
/// `serviceOwnsRule` prefix test, but narrowed to the rule shape so LB-rule-like names of other
/// kinds are not caught).
pub fn is_legacy_service_rule(name: &str, base: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix(&format!("{}-", base.to_ascii_lowercase())) else {
        return false;
    };
    ["tcp-", "udp-", "sctp-"]
        .iter()
        .any(|proto| rest.starts_with(proto))
}

/// True for a legacy `shared-<PROTO>-<port>-<source>` rule (annotation `azure-shared-securityrule`)
/// that one of the Service's `(protocol, port)` pairs fed.
pub fn is_legacy_shared_rule(name: &str, protocol: Protocol, port: u16) -> bool {
    name.to_ascii_lowercase().starts_with(&format!(
        "shared-{}-{port}-",
        protocol.name_part().to_ascii_lowercase()
    ))
}
