//! Request throttling in two layers, as in Azure: the ARM front door's token buckets per
//! subscription and region (per principal, plus the subscription-wide global bucket at 15x) with
//! the 429 `SubscriptionRequestsThrottled` answer, then the Compute RP's policy windows
//! (`x-ms-ratelimit-remaining-resource`, 429 `OperationNotAllowed`), both with `Retry-After`.

mod arm_limits;
mod bucket;
mod compute_policies;
mod compute_windows;
mod layer;

pub use arm_limits::{Admission, ArmThrottle, OpClass, Scope, ThrottleConfig};
pub use bucket::{BucketSpec, Take, TokenBucket};
pub use compute_policies::{ComputeLimits, PolicyError, PolicySpec, policies_for, policy_names};
pub use compute_windows::{CRP_THROTTLED_MESSAGE, ComputeAdmission, ComputeWindows, PolicyCount};
pub use layer::{Throttled, compute_layer, layer};
