//! The fake Azure cloud as a process (shared `fake-process` crate): `azure-fakes serve` over HTTPS,
//! so the provider is tested against a separate process like the CCM in production.

pub use fake_process::{FakeAzure, example};
