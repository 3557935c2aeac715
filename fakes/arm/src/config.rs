//! Tunables of one fake ARM instance.

/// Behaviour knobs of the fake.
#[derive(Debug, Clone)]
pub struct ArmConfig {
    /// Location used in operation URLs and messages when a resource has none.
    pub default_location: String,
    /// Polls an LRO reports InProgress before finishing; 0 = finish at first poll.
    pub lro_polls_in_progress: u32,
    /// List page size before `nextLink`.
    pub page_size: usize,
    /// Initial `Retry-After` seconds of operation-starting answers (see [`crate::ArmState::set_retry_after`]).
    pub retry_after: Option<u64>,
}

impl Default for ArmConfig {
    fn default() -> Self {
        Self {
            default_location: "eastus".into(),
            lro_polls_in_progress: 1,
            page_size: 100,
            retry_after: Some(1),
        }
    }
}
