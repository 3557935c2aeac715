//! One fault rule as written in a faults file or posted to the admin API: which requests it matches
//! (surface + method + path glob or regex), what happens to them, and how often.

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::journal::Surface;

/// A rule before compilation (the wire / file format).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaultRule {
    /// Name shown in the journal and admin listings; generated (`fault-N`) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Endpoint family the rule applies to (`arm`, `imds`, `entra`). When absent it is inferred from
    /// the path: `/imds/...` is IMDS, a path containing `/oauth2/` is Entra ID, anything else ARM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<Surface>,
    /// HTTP method to match (case-insensitive); any method when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Path glob, matched case-insensitively against the path without query: `*` = one segment or
    /// part of one, `**` = any number of segments. Exclusive with `pathRegex`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Path regular expression (case-insensitive, implicitly anchored). Exclusive with `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_regex: Option<String>,
    /// What happens to a matched request.
    pub fault: FaultKind,
    /// Apply to this many matching requests, then stop (unlimited when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Apply to each matching request with this probability (0.0-1.0, seeded RNG); always when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
}

/// The fault itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum FaultKind {
    /// 429 `SubscriptionRequestsThrottled` with `Retry-After`.
    #[serde(rename_all = "camelCase")]
    Throttle {
        /// `Retry-After` seconds.
        #[serde(default = "default_retry_after")]
        retry_after_secs: u64,
    },
    /// An error status (4xx/5xx) with an ARM error body; 500/502/503/504 get ARM's usual codes.
    #[serde(rename_all = "camelCase")]
    Status {
        /// HTTP status, 400-599.
        status: u16,
        /// Error code (default by status: `InternalServerError`, `BadGateway`, `ServiceUnavailable`, `GatewayTimeout`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// `Retry-After` seconds to add (e.g. with 503).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_secs: Option<u64>,
    },
    /// Delay before the request is served normally (other rules still apply).
    #[serde(rename_all = "camelCase")]
    Latency {
        /// Delay in milliseconds.
        ms: u64,
    },
    /// The request is served, but the long-running operation it starts ends `Failed` (writes only).
    #[serde(rename_all = "camelCase")]
    LroFailed {
        /// Error code of the failed operation.
        #[serde(default = "default_lro_code")]
        code: String,
        /// Error message of the failed operation.
        #[serde(default = "default_lro_message")]
        message: String,
    },
    /// 412 `PreconditionFailed` as NRP answers an If-Match mismatch.
    PreconditionFailed,
    /// No answer: the HTTP/2 stream is reset (`INTERNAL_ERROR`), an HTTP/1.1 connection closes without a TLS
    /// close; either way the client sees a transport error, as after a TCP reset.
    Reset,
}

fn default_retry_after() -> u64 {
    10
}

fn default_lro_code() -> String {
    "InternalServerError".into()
}

fn default_lro_message() -> String {
    "An internal error occurred in the processing of this operation (injected fault).".into()
}

impl FaultKind {
    /// Short name for the journal (`throttle`, `status-503`, `latency`, ...).
    pub fn label(&self) -> String {
        match self {
            Self::Throttle { .. } => "throttle".into(),
            Self::Status { status, .. } => format!("status-{status}"),
            Self::Latency { .. } => "latency".into(),
            Self::LroFailed { .. } => "lro-failed".into(),
            Self::PreconditionFailed => "precondition-failed".into(),
            Self::Reset => "reset".into(),
        }
    }

    /// Whether the request still reaches ARM after this fault (latency, LRO failure).
    pub fn passes_through(&self) -> bool {
        matches!(self, Self::Latency { .. } | Self::LroFailed { .. })
    }

    /// Kind name as written in a rule (`kind:` value).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Self::Throttle { .. } => "throttle",
            Self::Status { .. } => "status",
            Self::Latency { .. } => "latency",
            Self::LroFailed { .. } => "lroFailed",
            Self::PreconditionFailed => "preconditionFailed",
            Self::Reset => "reset",
        }
    }

    /// Kinds that only mean something for ARM (ETags and long-running operations).
    fn arm_only(&self) -> bool {
        matches!(self, Self::LroFailed { .. } | Self::PreconditionFailed)
    }
}

/// Surfaces fault rules can target.
const FAULT_SURFACES: [Surface; 3] = [Surface::Arm, Surface::Imds, Surface::Entra];

fn surface_name(surface: Surface) -> &'static str {
    match surface {
        Surface::Arm => "arm",
        Surface::Imds => "imds",
        Surface::Entra => "entra",
        Surface::Metadata => "metadata",
        Surface::Admin => "admin",
        Surface::Proxy => "proxy",
    }
}

/// Surface a rule without an explicit `surface` targets, from the literal start of its path.
fn inferred_surface(source: &str) -> Surface {
    let lower = source.to_ascii_lowercase();
    if lower.starts_with("/imds/") {
        Surface::Imds
    } else if lower.contains("/oauth2/") {
        Surface::Entra
    } else {
        Surface::Arm
    }
}

/// Why a rule cannot be used; each names the field and what is accepted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuleError {
    /// Neither or both of `path` and `pathRegex`.
    #[error("{at}: exactly one of 'path' (glob) or 'pathRegex' must be set")]
    PathChoice {
        /// Where the rule is (`rules[2]`).
        at: String,
    },
    /// `pathRegex` does not compile.
    #[error("{at}.pathRegex: invalid regular expression: {reason}")]
    BadRegex {
        /// Where the rule is.
        at: String,
        /// Compiler message.
        reason: String,
    },
    /// `probability` outside 0.0-1.0.
    #[error("{at}.probability: {value} is not between 0.0 and 1.0")]
    BadProbability {
        /// Where the rule is.
        at: String,
        /// Given value.
        value: f64,
    },
    /// `fault.status` outside 400-599.
    #[error("{at}.fault.status: {value} is not an error status (accepted: 400-599)")]
    BadStatus {
        /// Where the rule is.
        at: String,
        /// Given value.
        value: u16,
    },
    /// `surface` names an endpoint family faults cannot target.
    #[error("{at}.surface: '{value}' cannot have faults (accepted: arm, imds, entra)")]
    BadSurface {
        /// Where the rule is.
        at: String,
        /// Given value.
        value: &'static str,
    },
    /// An ARM-only fault kind (`lroFailed`, `preconditionFailed`) on an IMDS or Entra ID rule.
    #[error(
        "{at}.fault.kind: '{kind}' only applies to ARM requests, but this rule targets surface '{surface}' (accepted kinds for {surface}: throttle, status, latency, reset)"
    )]
    ArmOnlyKind {
        /// Where the rule is.
        at: String,
        /// Given kind.
        kind: &'static str,
        /// Targeted surface.
        surface: &'static str,
    },
    /// `method` is not an HTTP method.
    #[error(
        "{at}.method: '{value}' is not an HTTP method (accepted: GET, HEAD, PUT, PATCH, POST, DELETE)"
    )]
    BadMethod {
        /// Where the rule is.
        at: String,
        /// Given value.
        value: String,
    },
}

/// A validated rule with its compiled matcher.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    /// The rule as given (with its id and surface filled in).
    pub rule: FaultRule,
    surface: Surface,
    method: Option<http::Method>,
    pattern: Regex,
}

impl CompiledRule {
    /// Validates and compiles `rule`; `at` locates it in error messages.
    pub fn compile(mut rule: FaultRule, at: &str, default_id: String) -> Result<Self, RuleError> {
        let (source, literal) = match (&rule.path, &rule.path_regex) {
            (Some(glob), None) => (glob_to_regex(glob), glob.as_str()),
            (None, Some(regex)) => (regex.clone(), regex.trim_start_matches('^')),
            _ => return Err(RuleError::PathChoice { at: at.to_string() }),
        };
        let surface = rule.surface.unwrap_or_else(|| inferred_surface(literal));
        if !FAULT_SURFACES.contains(&surface) {
            return Err(RuleError::BadSurface {
                at: at.to_string(),
                value: surface_name(surface),
            });
        }
        if surface != Surface::Arm && rule.fault.arm_only() {
            return Err(RuleError::ArmOnlyKind {
                at: at.to_string(),
                kind: rule.fault.kind_name(),
                surface: surface_name(surface),
            });
        }
        let pattern =
            Regex::new(&format!("(?i)^(?:{source})$")).map_err(|e| RuleError::BadRegex {
                at: at.to_string(),
                reason: e.to_string(),
            })?;
        if let Some(p) = rule.probability
            && !(0.0..=1.0).contains(&p)
        {
            return Err(RuleError::BadProbability {
                at: at.to_string(),
                value: p,
            });
        }
        if let FaultKind::Status { status, .. } = rule.fault
            && !(400..=599).contains(&status)
        {
            return Err(RuleError::BadStatus {
                at: at.to_string(),
                value: status,
            });
        }
        let method = match &rule.method {
            Some(m) => {
                let upper = m.to_ascii_uppercase();
                if !["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"].contains(&upper.as_str()) {
                    return Err(RuleError::BadMethod {
                        at: at.to_string(),
                        value: m.clone(),
                    });
                }
                http::Method::from_bytes(upper.as_bytes()).ok()
            }
            None => None,
        };
        if rule.id.is_none() {
            rule.id = Some(default_id);
        }
        rule.surface = Some(surface);
        Ok(Self {
            rule,
            surface,
            method,
            pattern,
        })
    }

    /// Endpoint family the rule applies to.
    pub fn surface(&self) -> Surface {
        self.surface
    }

    /// Whether a request of `surface` with `method` + `path` selects this rule (LRO failures only
    /// select writes).
    pub fn matches(&self, surface: Surface, method: &http::Method, path: &str) -> bool {
        if self.surface != surface {
            return false;
        }
        if self.method.as_ref().is_some_and(|m| m != method) {
            return false;
        }
        if matches!(self.rule.fault, FaultKind::LroFailed { .. })
            && matches!(*method, http::Method::GET | http::Method::HEAD)
        {
            return false;
        }
        self.pattern.is_match(path)
    }
}

/// `*` = `[^/]*`, `**` = `.*`, `?` = one non-`/` character; everything else literal.
fn glob_to_regex(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len() * 2);
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push_str(".*");
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            other => out.push_str(&regex::escape(&other.to_string())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rule(path: &str) -> FaultRule {
        FaultRule {
            id: None,
            surface: None,
            method: None,
            path: Some(path.into()),
            path_regex: None,
            fault: FaultKind::Reset,
            count: None,
            probability: None,
        }
    }

    #[test]
    fn globs_match_segments_case_insensitively() {
        let r = CompiledRule::compile(
            rule("/subscriptions/*/resourceGroups/*/providers/Microsoft.Network/loadBalancers/*"),
            "r",
            "f".into(),
        )
        .unwrap();
        assert!(r.matches(Surface::Arm, &http::Method::PUT, "/subscriptions/s/resourcegroups/rg/providers/microsoft.network/loadBalancers/kubernetes"));
        assert!(!r.matches(Surface::Arm, &http::Method::PUT, "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/p"));
        let deep =
            CompiledRule::compile(rule("/subscriptions/**/loadBalancers/**"), "r", "f".into())
                .unwrap();
        assert!(deep.matches(Surface::Arm, &http::Method::GET, "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/p"));
        assert_eq!(r.rule.id.as_deref(), Some("f"));
    }

    #[test]
    fn method_and_regex_select() {
        let mut r = rule("x");
        r.path = None;
        r.path_regex = Some("/subscriptions/[^/]+/resourceGroups/rg(/.*)?".into());
        r.method = Some("delete".into());
        let c = CompiledRule::compile(r, "r", "f".into()).unwrap();
        assert!(c.matches(
            Surface::Arm,
            &http::Method::DELETE,
            "/subscriptions/s/resourceGroups/RG"
        ));
        assert!(!c.matches(
            Surface::Arm,
            &http::Method::GET,
            "/subscriptions/s/resourceGroups/rg"
        ));
    }

    #[test]
    fn lro_failures_never_select_reads() {
        let mut r = rule("/**");
        r.fault = FaultKind::LroFailed {
            code: "X".into(),
            message: "m".into(),
        };
        let c = CompiledRule::compile(r, "r", "f".into()).unwrap();
        assert!(!c.matches(Surface::Arm, &http::Method::GET, "/a"));
        assert!(c.matches(Surface::Arm, &http::Method::PUT, "/a"));
    }

    #[test]
    fn bad_rules_name_the_field() {
        let mut both = rule("/a");
        both.path_regex = Some("/b".into());
        assert!(
            CompiledRule::compile(both, "rules[0]", "f".into())
                .unwrap_err()
                .to_string()
                .starts_with("rules[0]: exactly one")
        );
        let mut prob = rule("/a");
        prob.probability = Some(1.5);
        assert_eq!(
            CompiledRule::compile(prob, "rules[1]", "f".into())
                .unwrap_err()
                .to_string(),
            "rules[1].probability: 1.5 is not between 0.0 and 1.0"
        );
        let mut status = rule("/a");
        status.fault = FaultKind::Status {
            status: 200,
            code: None,
            retry_after_secs: None,
        };
        assert!(
            CompiledRule::compile(status, "r", "f".into())
                .unwrap_err()
                .to_string()
                .contains("400-599")
        );
        let mut method = rule("/a");
        method.method = Some("FETCH".into());
        assert!(
            CompiledRule::compile(method, "r", "f".into())
                .unwrap_err()
                .to_string()
                .contains("r.method: 'FETCH'")
        );
        let mut regex = rule("/a");
        regex.path = None;
        regex.path_regex = Some("(".into());
        assert!(
            CompiledRule::compile(regex, "r", "f".into())
                .unwrap_err()
                .to_string()
                .starts_with("r.pathRegex: invalid")
        );
    }

    #[test]
    fn surfaces_are_inferred_from_the_path_or_given() {
        let compile = |r: FaultRule| CompiledRule::compile(r, "rules[0]", "f".into()).unwrap();
        let imds = compile(rule("/imds/*/metadata/**"));
        assert_eq!(imds.surface(), Surface::Imds);
        assert_eq!(imds.rule.surface, Some(Surface::Imds));
        assert!(imds.matches(
            Surface::Imds,
            &http::Method::GET,
            "/imds/node-0/metadata/instance"
        ));
        assert!(!imds.matches(
            Surface::Arm,
            &http::Method::GET,
            "/imds/node-0/metadata/instance"
        ));
        let mut regex = rule("x");
        regex.path = None;
        regex.path_regex = Some("^/[^/]+/oauth2/(v2.0/)?token".into());
        assert_eq!(compile(regex).surface(), Surface::Entra);
        assert_eq!(compile(rule("/**")).surface(), Surface::Arm);
        let explicit = compile(FaultRule {
            surface: Some(Surface::Entra),
            ..rule("/**")
        });
        assert!(explicit.matches(Surface::Entra, &http::Method::POST, "/t/oauth2/v2.0/token"));
        assert!(!explicit.matches(Surface::Arm, &http::Method::POST, "/t/oauth2/v2.0/token"));
    }

    #[test]
    fn arm_only_kinds_are_refused_elsewhere() {
        let mut lro = rule("/imds/**");
        lro.fault = FaultKind::LroFailed {
            code: "C".into(),
            message: "M".into(),
        };
        assert_eq!(
            CompiledRule::compile(lro, "rules[3]", "f".into())
                .unwrap_err()
                .to_string(),
            "rules[3].fault.kind: 'lroFailed' only applies to ARM requests, but this rule targets surface 'imds' (accepted kinds for imds: throttle, status, latency, reset)"
        );
        let precondition = FaultRule {
            surface: Some(Surface::Entra),
            fault: FaultKind::PreconditionFailed,
            ..rule("/**")
        };
        assert!(
            CompiledRule::compile(precondition, "r", "f".into())
                .unwrap_err()
                .to_string()
                .starts_with("r.fault.kind: 'preconditionFailed' only applies to ARM")
        );
        let admin = FaultRule {
            surface: Some(Surface::Admin),
            ..rule("/admin/**")
        };
        assert_eq!(
            CompiledRule::compile(admin, "r", "f".into())
                .unwrap_err()
                .to_string(),
            "r.surface: 'admin' cannot have faults (accepted: arm, imds, entra)"
        );
    }

    #[test]
    fn wire_format_round_trips() {
        let json = r#"{"method":"PUT","path":"/subscriptions/**","fault":{"kind":"throttle","retryAfterSecs":3},"count":2}"#;
        let r: FaultRule = serde_json::from_str(json).unwrap();
        assert_eq!(
            r.fault,
            FaultKind::Throttle {
                retry_after_secs: 3
            }
        );
        assert_eq!(serde_json::to_string(&r).unwrap(), json);
        let status: FaultKind = serde_json::from_str(r#"{"kind":"status","status":503}"#).unwrap();
        assert_eq!(status.label(), "status-503");
        assert!(serde_json::from_str::<FaultKind>(r#"{"kind":"explode"}"#).is_err());
    }

    proptest! {
        #[test]
        fn literal_globs_match_only_themselves(path in "/[a-zA-Z0-9.()+\\[\\]-]{1,12}(/[a-zA-Z0-9.()+-]{1,12}){0,4}") {
            let c = CompiledRule::compile(FaultRule { surface: Some(Surface::Arm), ..rule(&path) }, "r", "f".into()).unwrap();
            prop_assert!(c.matches(Surface::Arm, &http::Method::GET, &path));
            prop_assert!(c.matches(Surface::Arm, &http::Method::GET, &path.to_ascii_uppercase()));
            let longer = format!("{path}x");
            prop_assert!(!c.matches(Surface::Arm, &http::Method::GET, &longer));
        }
    }
}
