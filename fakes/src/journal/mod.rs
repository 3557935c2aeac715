//! Request journal: every request the fake serves (method, path, api-version, status, duration,
//! user agent, caller, throttled, faults, request ids), exportable as JSON, plus per-operation
//! counters (operation = method + resource type) for ARM call budgets.

mod layer;
mod operation;
mod store;

pub use layer::{JournalLayer, layer};
pub use operation::{arm_operation, resource_type};
pub use store::{Journal, JournalEntry, JournalExport, OperationCounter, Surface};
