//! Fault injection for the fake cloud: seeded, scheduled 429s (with `Retry-After`), 5xx, latency
//! and connection resets on ARM, IMDS and the Entra ID endpoints, plus LROs ending `Failed` and
//! 412s on ARM, matched by surface + method + path glob or regex, applied for a count or with a
//! probability. Scheduled from a faults file or the admin API.

mod answers;
mod engine;
mod file;
mod layer;
mod rule;

pub use engine::{Decision, FaultEngine, FaultListing, FaultPlan, RuleStatus};
pub use file::{FaultFileError, load};
pub use layer::{FaultInjected, FaultLayer, layer};
pub use rule::{CompiledRule, FaultKind, FaultRule, RuleError};
