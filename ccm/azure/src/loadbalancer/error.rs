//! [`LbError`]: why a Service reconcile stopped, and whether retrying can help.

use std::time::Duration;

use crate::arm::ArmError;
use crate::instances::InstanceError;

use super::nsg::NsgError;
use super::parse::ServiceConfigError;
use super::plan::LbPlanError;
use super::pools::PoolError;
use super::publicip::PipError;

/// A failed Service reconcile; the configuration variants change nothing in Azure.
#[derive(Debug, thiserror::Error)]
pub enum LbError {
    /// Bad annotations or spec: fixed by editing the Service.
    #[error(transparent)]
    Config(#[from] ServiceConfigError),
    /// Public IP selection failed (pinned IP or named PIP missing, DNS label taken).
    #[error(transparent)]
    PublicIp(#[from] PipError),
    /// The load balancer cannot hold the Service (conflicting rule, ...).
    #[error(transparent)]
    Plan(#[from] LbPlanError),
    /// The NSG cannot hold the Service's rules.
    #[error(transparent)]
    SecurityGroup(#[from] NsgError),
    /// Backend pool membership writes failed.
    #[error(transparent)]
    Pools(#[from] PoolError),
    /// Reading node or region facts failed.
    #[error(transparent)]
    Instances(#[from] InstanceError),
    /// An ARM call failed (after the client's own retries).
    #[error(transparent)]
    Arm(#[from] ArmError),
    /// The plan kept no load balancer for a Service that wants one.
    #[error("service {service}: no load balancer was planned")]
    NoLoadBalancer {
        /// `ns/name`.
        service: String,
    },
    /// The Service's frontends have no address yet.
    #[error("service {service}: its frontends have no IP address yet")]
    NoIngress {
        /// `ns/name`.
        service: String,
    },
}

/// A pool failure is worth retrying when an ARM call underneath is (or the write task died).
fn pool_error_retryable(error: &PoolError) -> bool {
    match error {
        PoolError::Arm(e) | PoolError::Instance(InstanceError::Arm(e)) => {
            e.is_retryable()
                || e.is_throttled()
                || e.is_rate_limited()
                || e.is_precondition_failed()
        }
        PoolError::Task(_) => true,
        PoolError::Incomplete { errors, .. } => errors.iter().any(pool_error_retryable),
        _ => false,
    }
}

impl LbError {
    /// The ARM error underneath, if any.
    fn arm(&self) -> Option<&ArmError> {
        match self {
            LbError::Arm(e) => Some(e),
            LbError::Instances(InstanceError::Arm(e)) => Some(e),
            _ => None,
        }
    }

    /// True for a 412: a document changed between our read and write.
    pub fn is_precondition_failed(&self) -> bool {
        self.arm().is_some_and(ArmError::is_precondition_failed)
    }

    /// True when the same call may succeed later (throttling, 5xx, failed operations, no address yet).
    pub fn is_retryable(&self) -> bool {
        match self {
            LbError::NoIngress { .. } => true,
            LbError::Pools(e) => pool_error_retryable(e),
            _ => self.arm().is_some_and(|e| {
                e.is_retryable()
                    || e.is_throttled()
                    || e.is_rate_limited()
                    || e.is_precondition_failed()
            }),
        }
    }

    /// True for ARM throttling (429 or the client's own gate).
    pub fn is_throttled(&self) -> bool {
        self.arm()
            .is_some_and(|e| e.is_throttled() || e.is_rate_limited())
    }

    /// Retry-After from ARM, when it sent one.
    pub fn retry_after(&self) -> Option<Duration> {
        self.arm().and_then(ArmError::retry_after)
    }
}
