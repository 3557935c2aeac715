//! Label and field selectors used by list and watch.

mod field;
mod label;

pub use field::FieldSelector;
pub use label::{LabelSelector, Requirement};
