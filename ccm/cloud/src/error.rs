//! The one error type every provider method returns, classified for the controllers' requeue logic.

use std::time::Duration;

/// How a failed call may be retried; decided by the provider, read by the controllers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Retrying the same call cannot help (bad input, permission denied, conflict needing a human).
    Never,
    /// Retry with the controller's own backoff (timeouts, 5xx, connection resets).
    Backoff,
    /// Retry no earlier than this delay (the cloud said so, e.g. `Retry-After`).
    After(Duration),
}

/// A provider call failure, typed so controllers never classify errors by matching strings.
#[derive(Debug, thiserror::Error)]
pub enum CloudError<E>
where
    E: std::error::Error + 'static,
{
    /// The node's instance does not exist in the cloud (`cloudprovider.InstanceNotFound`): the node
    /// lifecycle controller may delete the Node.
    #[error("instance not found")]
    InstanceNotFound,
    /// The provider does not implement this operation (`cloudprovider.NotImplemented`).
    #[error("{operation} is not implemented by this cloud provider")]
    NotImplemented {
        /// The trait method that was called.
        operation: &'static str,
    },
    /// The cloud throttled the caller; nothing was (or will be) sent until `retry_after` passes.
    #[error("throttled by the cloud, retry after {}s: {source}", retry_after.as_secs())]
    Throttled {
        /// Earliest useful retry.
        retry_after: Duration,
        /// The provider's error that carried the throttling answer.
        #[source]
        source: E,
    },
    /// Any other provider failure, with the provider's verdict on retrying it.
    #[error("{source}")]
    Provider {
        /// Whether and when a retry may help.
        retry: Retry,
        /// The provider's own typed error.
        #[source]
        source: E,
    },
}

impl<E> CloudError<E>
where
    E: std::error::Error + 'static,
{
    /// True when calling again later can succeed; the controllers requeue instead of reporting.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::InstanceNotFound | Self::NotImplemented { .. } => false,
            Self::Throttled { .. } => true,
            Self::Provider { retry, .. } => *retry != Retry::Never,
        }
    }

    /// The delay the cloud asked for, when it asked for one; requeues use it instead of backoff.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Throttled { retry_after, .. } => Some(*retry_after),
            Self::Provider {
                retry: Retry::After(delay),
                ..
            } => Some(*delay),
            _ => None,
        }
    }

    /// The same classification over another source type (a provider wrapping its parts' errors).
    pub fn map_source<F>(self, wrap: impl FnOnce(E) -> F) -> CloudError<F>
    where
        F: std::error::Error + 'static,
    {
        match self {
            Self::InstanceNotFound => CloudError::InstanceNotFound,
            Self::NotImplemented { operation } => CloudError::NotImplemented { operation },
            Self::Throttled {
                retry_after,
                source,
            } => CloudError::Throttled {
                retry_after,
                source: wrap(source),
            },
            Self::Provider { retry, source } => CloudError::Provider {
                retry,
                source: wrap(source),
            },
        }
    }

    /// True for [`CloudError::InstanceNotFound`]; spelled out for call sites that only branch.
    pub fn is_instance_not_found(&self) -> bool {
        matches!(self, Self::InstanceNotFound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("boom")]
    struct Boom;

    #[test]
    fn classification_follows_the_variant() {
        let not_found: CloudError<Boom> = CloudError::InstanceNotFound;
        assert!(!not_found.is_retryable());
        assert!(not_found.is_instance_not_found());
        assert_eq!(not_found.retry_after(), None);

        let throttled = CloudError::Throttled {
            retry_after: Duration::from_secs(7),
            source: Boom,
        };
        assert!(throttled.is_retryable());
        assert_eq!(throttled.retry_after(), Some(Duration::from_secs(7)));
        assert_eq!(
            throttled.to_string(),
            "throttled by the cloud, retry after 7s: boom"
        );

        let never = CloudError::Provider {
            retry: Retry::Never,
            source: Boom,
        };
        assert!(!never.is_retryable());
        let backoff = CloudError::Provider {
            retry: Retry::Backoff,
            source: Boom,
        };
        assert!(backoff.is_retryable());
        let wrapped = throttled.map_source(|b| std::io::Error::other(b.to_string()));
        assert_eq!(wrapped.retry_after(), Some(Duration::from_secs(7)));
        let wrapped = never.map_source(|b| std::io::Error::other(b.to_string()));
        assert!(!wrapped.is_retryable());
        assert_eq!(backoff.retry_after(), None);
        let after = CloudError::Provider {
            retry: Retry::After(Duration::from_secs(3)),
            source: Boom,
        };
        assert_eq!(after.retry_after(), Some(Duration::from_secs(3)));

        let not_impl: CloudError<Boom> = CloudError::NotImplemented {
            operation: "Routes::list_routes",
        };
        assert!(!not_impl.is_retryable());
        assert_eq!(
            not_impl.to_string(),
            "Routes::list_routes is not implemented by this cloud provider"
        );
    }
}
