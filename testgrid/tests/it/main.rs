//! Integration tests of the testgrid crate: golden tests of TestGrid's reading rules, the
//! writer's output read back through them, the terminal summary, and a headless-Chromium
//! screenshot of the report.

mod display_rules;
mod findings;
mod fixture;
mod grid_rules;
mod junit_rules;
mod layout_rules;
mod rules;
mod screenshot;
mod summary;
mod writer_roundtrip;
