//! Integration tests of ccm-controllers against the embedded API server run as a real process.

mod api_server;
mod election;
mod migration;
mod proxy;
mod run_log;
