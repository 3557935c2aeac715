//! Integration tests of the testgrid crate: golden tests of TestGrid's reading rules, the
//! writer's output read back through them, and a headless-Chromium screenshot of the report.

mod fixture;
mod rules;
mod screenshot;
mod writer_roundtrip;
