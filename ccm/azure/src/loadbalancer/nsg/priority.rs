//! Priority bands of managed rules (`pkg/provider/securitygroup/securitygroup.go`
//! `nextRulePriority`): allow rules take the lowest free priority from 500 up, deny rules the
//! highest free from 4095 down; "free" means no rule of the NSG (managed or not) uses it.

use std::collections::BTreeSet;

use super::{MAX_PRIORITY, MIN_PRIORITY};

/// Which end of the band a new rule is placed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Band {
    /// Allow rules: lowest free priority from [`MIN_PRIORITY`] up.
    FromStart,
    /// Deny rules: highest free priority from `MAX_PRIORITY - 1` down.
    FromEnd,
}

/// The priorities in use in one NSG, updated as rules are added.
#[derive(Debug, Clone, Default)]
pub struct Priorities {
    used: BTreeSet<i64>,
}

impl Priorities {
    /// Starts from the priorities of the NSG's current rules.
    pub fn new(used: impl IntoIterator<Item = i64>) -> Self {
        Priorities {
            used: used.into_iter().collect(),
        }
    }

    /// Takes the next free priority in `band`; `None` when the band is full. Upstream's loop
    /// stops before [`MAX_PRIORITY`], so 4096 is never handed out (it only counts as managed).
    pub fn take(&mut self, band: Band) -> Option<i64> {
        let found = match band {
            Band::FromStart => (MIN_PRIORITY..MAX_PRIORITY).find(|p| !self.used.contains(p)),
            Band::FromEnd => (MIN_PRIORITY..MAX_PRIORITY)
                .rev()
                .find(|p| !self.used.contains(p)),
        }?;
        self.used.insert(found);
        Some(found)
    }
}
