//! Typed configuration errors; each names the source, the key and (redacted if secret) the value.

use super::origin::Origin;

/// Why a cloud config was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// Neither JSON nor YAML (the message carries only a position, never document content).
    #[error("{origin}: not valid JSON or YAML: {message}")]
    Syntax {
        /// Document source.
        origin: Box<Origin>,
        /// Parser message with line and column.
        message: String,
    },
    /// The document is valid but not a map of keys.
    #[error("{origin}: the document must be a map of keys, found {found}")]
    NotAnObject {
        /// Document source.
        origin: Box<Origin>,
        /// JSON type found instead.
        found: &'static str,
    },
    /// A key holds a value of the wrong type or outside its accepted set.
    #[error("{origin}: key `{key}` has invalid value {value}; accepted: {accepted}")]
    InvalidValue {
        /// Document source.
        origin: Box<Origin>,
        /// Canonical key (dotted for nested keys, e.g. `loadBalancerRateLimit.cloudProviderRateLimitQPS`).
        key: String,
        /// The value as written (`<redacted>` for secrets), shortened.
        value: String,
        /// What the key accepts.
        accepted: String,
    },
    /// A key asks for a feature this CCM parses but does not implement yet.
    #[error(
        "{origin}: key `{key}` = {value} is not supported yet by this cloud-controller-manager ({feature}); remove the key or keep the upstream CCM for this cluster"
    )]
    NotSupported {
        /// Document source.
        origin: Box<Origin>,
        /// Canonical key.
        key: &'static str,
        /// The value as written.
        value: String,
        /// The feature the key enables.
        feature: &'static str,
    },
    /// Keys that are valid one by one but not together (upstream's init-time validations).
    #[error("{origin}: {message} (keys: {})", keys.join(", "))]
    Inconsistent {
        /// Document source.
        origin: Box<Origin>,
        /// Keys involved.
        keys: Vec<&'static str>,
        /// What is wrong, in upstream's terms.
        message: String,
    },
    /// No document at all: neither a file nor the Secret was given.
    #[error(
        "no cloud config: neither a file nor the Secret kube-system/azure-cloud-provider was given"
    )]
    NoSource,
}
