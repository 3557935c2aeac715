//! ARM's request throttling: token buckets per subscription and region (per principal, plus the
//! subscription-wide global bucket at 15x), remaining-count headers and the 429
//! `SubscriptionRequestsThrottled` answer with `Retry-After`.

mod arm_limits;
mod bucket;
mod layer;

pub use arm_limits::{Admission, ArmThrottle, OpClass, Scope, ThrottleConfig};
pub use bucket::{BucketSpec, Take, TokenBucket};
pub use layer::{Throttled, layer};
