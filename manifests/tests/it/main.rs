//! Integration tests for the manifest generator: checked-in examples, typed round trips, lint on
//! generated output, snapshots, and error handling of the writer.

mod examples;
mod generated;
mod kubectl_apply;
mod settings;
mod snapshots;
mod writing;
