//! Fault injection for the fake ARM: seeded, scheduled 429s (with `Retry-After`), 5xx, latency,
//! LROs ending `Failed`, 412s and connection resets, matched by method + path glob or regex,
//! applied for a count or with a probability. Scheduled from a faults file or the admin API.

mod engine;
mod file;
mod layer;
mod rule;

pub use engine::{Decision, FaultEngine, FaultListing, FaultPlan, RuleStatus};
pub use file::{FaultFileError, load};
pub use layer::{FaultInjected, layer};
pub use rule::{CompiledRule, FaultKind, FaultRule, RuleError};
