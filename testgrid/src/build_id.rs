//! Build ids: the names of build directories, which TestGrid only reads when they sort
//! strictly after the newest id it has already ingested (natural order).

use std::fmt;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::natural::natural_cmp;

/// Errors about build ids.
#[derive(Debug, thiserror::Error)]
pub enum BuildIdError {
    /// The name cannot be a single GCS path segment.
    #[error(
        "invalid build id {id:?}: use a non-empty name without '/', whitespace or control characters (digits recommended)"
    )]
    Invalid {
        /// The rejected name.
        id: String,
    },
    /// Listing the job directory failed.
    #[error("cannot list job directory {path}: {source}")]
    ListJob {
        /// The job directory.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A validated build directory name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BuildId(String);

impl BuildId {
    /// Validates a build id taken from a directory name or a flag.
    pub fn new(id: impl Into<String>) -> Result<Self, BuildIdError> {
        let id = id.into();
        let ok = !id.is_empty()
            && id != "."
            && id != ".."
            && !id
                .chars()
                .any(|c| c == '/' || c == '\\' || c.is_whitespace() || c.is_control());
        if ok {
            Ok(Self(id))
        } else {
            Err(BuildIdError::Invalid { id })
        }
    }

    /// The id as written in paths.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The numeric value when the id is all digits (how our generator writes them).
    pub fn numeric(&self) -> Option<u64> {
        numeric_id(&self.0)
    }
}

impl fmt::Display for BuildId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialOrd for BuildId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for BuildId {
    /// Natural order, the order TestGrid lists builds in.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        natural_cmp(&self.0, &other.0)
    }
}

fn numeric_id(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return None;
    }
    s.parse().ok()
}

/// How ids are derived from the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum IdScheme {
    /// Epoch seconds, the convention of the conformance KEP's `upload_e2e.py`. Ids below 10^18
    /// make TestGrid re-list the whole prefix every cycle (still correct, just slower).
    EpochSeconds,
    /// 19 digits: epoch milliseconds × 10^6. Same length as Prow's ids, so TestGrid can list
    /// only the new builds.
    #[default]
    Wide,
}

impl IdScheme {
    fn id_at(self, millis: u64) -> u64 {
        match self {
            IdScheme::EpochSeconds => millis / 1000,
            IdScheme::Wide => millis.saturating_mul(1_000_000),
        }
    }
}

/// Hands out numeric build ids that always increase, even when the clock steps back.
#[derive(Debug, Clone)]
pub struct BuildIdGenerator {
    scheme: IdScheme,
    last: Option<u64>,
}

impl BuildIdGenerator {
    /// A generator with no history.
    pub fn new(scheme: IdScheme) -> Self {
        Self { scheme, last: None }
    }

    /// A generator that continues after every numeric build already in `job_dir`
    /// (directories and the `latest-build.txt` pointer), so a rerun never goes backwards.
    pub fn resume(scheme: IdScheme, job_dir: &Path) -> Result<Self, BuildIdError> {
        let mut generator = Self::new(scheme);
        let entries = match std::fs::read_dir(job_dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(generator),
            Err(source) => {
                return Err(BuildIdError::ListJob {
                    path: job_dir.display().to_string(),
                    source,
                });
            }
        };
        for entry in entries.flatten() {
            if entry.path().is_dir()
                && let Some(n) = entry.file_name().to_str().and_then(numeric_id)
            {
                generator.observe(n);
            }
        }
        if let Ok(latest) = std::fs::read_to_string(job_dir.join(crate::layout::LATEST_BUILD))
            && let Some(n) = numeric_id(latest.trim())
        {
            generator.observe(n);
        }
        Ok(generator)
    }

    /// Records an id that exists already; later ids will be greater.
    pub fn observe(&mut self, id: u64) {
        self.last = Some(self.last.map_or(id, |last| last.max(id)));
    }

    /// The next id for a run starting at `millis` since the epoch.
    pub fn next_at(&mut self, millis: u64) -> BuildId {
        let candidate = self.scheme.id_at(millis);
        let id = match self.last {
            Some(last) if candidate <= last => last.saturating_add(1),
            _ => candidate,
        };
        self.last = Some(id);
        BuildId(id.to_string())
    }

    /// The next id for a run starting now.
    pub fn next_now(&mut self) -> BuildId {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        self.next_at(millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rejects_path_like_ids() {
        for bad in ["", "a/b", "..", "a b", "x\n"] {
            assert!(BuildId::new(bad).is_err(), "{bad:?}");
        }
        assert!(BuildId::new("1767225600").is_ok());
    }

    #[test]
    fn wide_ids_have_19_digits() {
        let mut g = BuildIdGenerator::new(IdScheme::Wide);
        assert_eq!(g.next_at(1_767_225_600_123).as_str(), "1767225600123000000");
    }

    #[test]
    fn clock_going_back_still_increases() {
        let mut g = BuildIdGenerator::new(IdScheme::EpochSeconds);
        assert_eq!(g.next_at(2_000_000).as_str(), "2000");
        assert_eq!(g.next_at(1_000_000).as_str(), "2001");
        assert_eq!(g.next_at(2_000_500).as_str(), "2002");
    }

    #[test]
    fn resume_continues_after_existing_builds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("5000")).unwrap();
        std::fs::create_dir(dir.path().join("not-numeric")).unwrap();
        std::fs::write(dir.path().join("latest-build.txt"), "4000").unwrap();
        let mut g = BuildIdGenerator::resume(IdScheme::EpochSeconds, dir.path()).unwrap();
        assert_eq!(g.next_at(1_000).as_str(), "5001");
    }

    proptest! {
        #[test]
        fn ids_strictly_increase_in_natural_order(
            clocks in proptest::collection::vec(0u64..4_000_000_000_000, 1..40),
            wide in any::<bool>(),
        ) {
            let scheme = if wide { IdScheme::Wide } else { IdScheme::EpochSeconds };
            let mut g = BuildIdGenerator::new(scheme);
            let mut prev: Option<BuildId> = None;
            for c in clocks {
                let id = g.next_at(c);
                prop_assert!(BuildId::new(id.as_str()).is_ok());
                if let Some(p) = &prev {
                    prop_assert!(p < &id, "{p} !< {id}");
                }
                prev = Some(id);
            }
        }
    }
}
