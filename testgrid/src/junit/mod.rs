//! The JUnit dialect TestGrid parses: our writer adapter over `quick-junit`, and a reader that
//! applies TestGrid's own parsing rules (used by the validator and the HTML grid).

pub mod model;
pub mod reader;
pub mod text;
pub mod writer;

pub use model::{Case, Failure, JunitError, Metric, Outcome, SkipReason, Suite};
pub use writer::JunitReport;
