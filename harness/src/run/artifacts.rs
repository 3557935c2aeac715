//! A scenario's files beside its logs: the plan it ran, each snapshot, the samples, the run's marks,
//! the roster of manager processes and the outcome, as pretty JSON a human can diff; and the
//! switch timeline drawn from them (`timeline.svg`).

use std::path::Path;

use serde::Serialize;

use crate::outcome::ScenarioOutcome;
use crate::record::Mark;
use crate::roster::ManagedProcess;
use crate::scenario::ScenarioPlan;
use crate::snapshot::{Sample, Snapshot};
use crate::timeline;

/// Writing a scenario file failed.
#[derive(Debug, thiserror::Error)]
#[error("writing {path}: {reason}")]
pub struct ArtifactError {
    /// The file.
    pub path: String,
    /// Why.
    pub reason: String,
}

fn write<T: Serialize + ?Sized>(dir: &Path, name: &str, value: &T) -> Result<(), ArtifactError> {
    let path = dir.join(name);
    let error = |reason: String| ArtifactError {
        path: path.display().to_string(),
        reason,
    };
    let text = serde_json::to_string_pretty(value).map_err(|e| error(e.to_string()))?;
    std::fs::create_dir_all(dir).map_err(|e| error(e.to_string()))?;
    std::fs::write(&path, text).map_err(|e| error(e.to_string()))
}

/// Writes `plan.json`, `snapshot-<label>.json` per snapshot, `samples.json`, `marks.json`,
/// `roster.json`, `outcome.json` and `timeline.svg` into `dir`.
pub fn write_scenario(
    dir: &Path,
    plan: &ScenarioPlan,
    snapshots: &[&Snapshot],
    samples: &[Sample],
    marks: &[Mark],
    roster: &[ManagedProcess],
    outcome: &ScenarioOutcome,
) -> Result<(), ArtifactError> {
    write(dir, "plan.json", plan)?;
    for snap in snapshots {
        write(dir, &format!("snapshot-{}.json", snap.label), snap)?;
    }
    write(dir, "samples.json", samples)?;
    write(dir, "marks.json", marks)?;
    write(dir, "roster.json", roster)?;
    write(dir, "outcome.json", outcome)?;
    let journal = snapshots
        .last()
        .map(|s| s.journal.as_slice())
        .unwrap_or_default();
    let recorded = timeline::Recorded {
        outcome,
        roster,
        marks,
        samples,
        journal,
    };
    timeline::write_svg(dir, &recorded).map_err(|e| ArtifactError {
        path: e.path,
        reason: e.reason,
    })
}
