//! Tests of the NSG plans: fixtures, example-based tests, snapshots and properties.

mod fixtures;
mod legacy;
mod naming;
mod plans;
mod properties;
