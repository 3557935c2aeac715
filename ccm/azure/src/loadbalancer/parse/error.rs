//! [`ServiceConfigError`]: why a Service's load-balancer configuration was refused. The service
//! controller turns it into a Warning event on the Service; nothing in Azure changes.

/// A refused Service configuration; every message names the annotation key (or spec field), the
/// value given and what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceConfigError {
    /// A value that does not have the shape the annotation table (or the API) describes.
    #[error("{key}: invalid value {value:?}; accepted: {accepted}")]
    InvalidValue {
        /// Annotation key (concrete, e.g. `.../port_80_health-probe_interval`) or spec field.
        key: String,
        /// The value given.
        value: String,
        /// What is accepted (`ValueKind::describe()` for annotations).
        accepted: String,
    },
    /// Two settings that may not be given together.
    #[error("{key}: cannot be set together with {other} (given {value:?}); use only one of them")]
    Conflict {
        /// The setting refused.
        key: String,
        /// The value given for it.
        value: String,
        /// The setting it conflicts with.
        other: String,
    },
    /// Probe interval times probe count reaches Azure's limit.
    #[error(
        "{key}: health probe of port {port}: interval {interval} s (from {interval_from}) x \
         {count} probes (from {count_from}) = {total} s; accepted: a product below 120 s"
    )]
    ProbeTooLong {
        /// The annotation whose value made the product too large (interval or count).
        key: String,
        /// The port whose probe is refused.
        port: u16,
        /// Effective interval in seconds.
        interval: i64,
        /// Where the interval came from (annotation key or `default`).
        interval_from: String,
        /// Effective probe count.
        count: i64,
        /// Where the count came from (annotation key or `default`).
        count_from: String,
        /// `interval * count`.
        total: i64,
    },
    /// A feature this provider does not implement yet.
    #[error("{key}: value {value:?} asks for {feature}, which is not supported yet")]
    NotSupported {
        /// Annotation key.
        key: String,
        /// The value given.
        value: String,
        /// The feature (e.g. "a Private Link Service").
        feature: &'static str,
    },
    /// A setting that is valid alone but not for this kind of load balancer.
    #[error("{key}: value {value:?} is not supported here; accepted: {accepted}")]
    Unsupported {
        /// Annotation key or spec field.
        key: String,
        /// The value given.
        value: String,
        /// When it would be accepted.
        accepted: String,
    },
    /// A spec field the load balancer needs is missing.
    #[error("{key}: missing; required {reason}")]
    Missing {
        /// Spec field.
        key: String,
        /// Why it is required.
        reason: &'static str,
    },
}

impl ServiceConfigError {
    /// The annotation key or spec field the error is about (for events and tests).
    pub fn key(&self) -> &str {
        match self {
            ServiceConfigError::InvalidValue { key, .. }
            | ServiceConfigError::Conflict { key, .. }
            | ServiceConfigError::ProbeTooLong { key, .. }
            | ServiceConfigError::NotSupported { key, .. }
            | ServiceConfigError::Unsupported { key, .. }
            | ServiceConfigError::Missing { key, .. } => key,
        }
    }
}
