//! TestGrid results layout, JUnit dialect, configuration and the offline HTML grid.

pub mod cli;
