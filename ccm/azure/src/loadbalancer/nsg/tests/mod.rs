//! Tests of the NSG plans: fixtures, example-based tests, snapshots and properties.

mod fixtures;
mod in_tree;
mod legacy;
mod naming;
mod plans;
mod properties;
