//! The embedded API server as a process (shared `fake-process` crate).

pub use fake_process::ApiServer;
