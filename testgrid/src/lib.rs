//! TestGrid results layout, JUnit dialect, configuration and the offline HTML grid.
//!
//! Writers produce exactly what TestGrid's updater reads (`layout`, `junit`, `started`,
//! `finished`); readers apply the same rules to show what TestGrid would draw (`grid`, `check`,
//! `html`).

#![warn(missing_docs)]

pub mod build_id;
pub mod check;
pub mod cli;
pub mod config;
pub mod finding;
pub mod finished;
pub mod grid;
pub mod html;
pub mod junit;
pub mod layout;
pub mod natural;
pub mod publish;
pub mod started;
pub mod summary;
pub mod timefmt;
pub mod version;
