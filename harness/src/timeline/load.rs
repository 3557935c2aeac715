//! A scenario's recorded files (`outcome.json`, `roster.json`, `marks.json`, `samples.json`, the
//! latest `snapshot-*.json`'s journal) read back for the timeline, and `timeline.svg` written.

use std::path::Path;

use serde::de::DeserializeOwned;

use super::build::{Recorded, build};
use super::svg::render_svg;
use crate::outcome::ScenarioOutcome;
use crate::record::Mark;
use crate::roster::ManagedProcess;
use crate::snapshot::{JournalEntry, Sample, Snapshot};

/// A scenario file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct LoadError {
    /// The file.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// The records of one scenario directory, owned.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// `outcome.json`.
    pub outcome: ScenarioOutcome,
    /// `roster.json`.
    pub roster: Vec<ManagedProcess>,
    /// `marks.json`.
    pub marks: Vec<Mark>,
    /// `samples.json`.
    pub samples: Vec<Sample>,
    /// The journal of the latest snapshot (`rollback`, `final`, `switched`, `baseline`).
    pub journal: Vec<JournalEntry>,
}

impl Loaded {
    /// Borrowed, for [`build`].
    pub fn recorded(&self) -> Recorded<'_> {
        Recorded {
            outcome: &self.outcome,
            roster: &self.roster,
            marks: &self.marks,
            samples: &self.samples,
            journal: &self.journal,
        }
    }
}

fn read<T: DeserializeOwned>(path: &Path) -> Result<T, LoadError> {
    let error = |reason: String| LoadError {
        path: path.display().to_string(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| error(e.to_string()))
}

/// Reads the scenario directory `dir` (a missing roster, marks or samples file reads as empty:
/// a run that broke off early leaves some out; the outcome is required).
pub fn load_dir(dir: &Path) -> Result<Loaded, LoadError> {
    let optional = |name: &str| dir.join(name).is_file().then(|| dir.join(name));
    let journal = ["rollback", "final", "switched", "baseline"]
        .iter()
        .find_map(|label| optional(&format!("snapshot-{label}.json")))
        .map(|p| read::<Snapshot>(&p).map(|s| s.journal))
        .transpose()?
        .unwrap_or_default();
    Ok(Loaded {
        outcome: read(&dir.join("outcome.json"))?,
        roster: read_or_empty(dir, "roster.json")?,
        marks: read_or_empty(dir, "marks.json")?,
        samples: read_or_empty(dir, "samples.json")?,
        journal,
    })
}

fn read_or_empty<T: DeserializeOwned + Default>(dir: &Path, name: &str) -> Result<T, LoadError> {
    let path = dir.join(name);
    if path.is_file() {
        read(&path)
    } else {
        Ok(T::default())
    }
}

/// Writes `timeline.svg` for `rec` into `dir`.
pub fn write_svg(dir: &Path, rec: &Recorded<'_>) -> Result<(), LoadError> {
    let path = dir.join(super::SVG_FILE);
    std::fs::write(&path, render_svg(&build(rec))).map_err(|e| LoadError {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}
