//! Shards of one run (`harness run --shard I/N`, one build directory each) merged into one
//! TestGrid build directory, as an unsharded run writes it: every scenario's directory copied
//! under `OUT/artifacts/scenarios/`, `started.json` at the earliest start, `finished.json` at the
//! latest end and SUCCESS only when every scenario met its expectation, one `junit_01.xml` and
//! one `report.html` with the scenarios in the unsharded order (the suite order each shard
//! records in `artifacts/shard.json`). The shards must be complete: each of 1..N exactly once,
//! every scenario of the suite present exactly once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::meta::RunMeta;
use super::write::{ReportError, Written, write_results};
use crate::outcome::ScenarioOutcome;
use crate::run::scenario::scenario_dir;
use crate::run::shard::{SHARD_FILE, ShardRecord};

/// Why the shards could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A file of a shard could not be read or parsed.
    #[error("{path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The shards do not form one complete run.
    #[error("the build directories are not the complete shards of one run: {0}")]
    Incomplete(String),
    /// A scenario directory could not be copied.
    #[error("copying {from} to {to}: {source}")]
    Copy {
        /// Source.
        from: String,
        /// Destination.
        to: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The merged build could not be written.
    #[error(transparent)]
    Write(#[from] ReportError),
}

/// One shard's build directory, read.
struct ShardBuild {
    dir: PathBuf,
    record: ShardRecord,
    started: Value,
    finished: Value,
    outcomes: Vec<ScenarioOutcome>,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, MergeError> {
    let error = |reason: String| MergeError::Read {
        path: path.display().to_string(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| error(e.to_string()))
}

/// The outcomes of a build directory's scenarios (`artifacts/scenarios/*/outcome.json`), by
/// directory name.
pub(super) fn read_outcomes(dir: &Path) -> Result<Vec<ScenarioOutcome>, MergeError> {
    let scenarios = dir.join("artifacts").join("scenarios");
    let mut outcomes = Vec::new();
    if scenarios.is_dir() {
        let entries = std::fs::read_dir(&scenarios).map_err(|e| MergeError::Read {
            path: scenarios.display().to_string(),
            reason: e.to_string(),
        })?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path().join("outcome.json"))
            .collect();
        paths.sort();
        for path in paths {
            outcomes.push(read_json(&path)?);
        }
    }
    Ok(outcomes)
}

fn read_shard(dir: &Path) -> Result<ShardBuild, MergeError> {
    let record: ShardRecord = read_json(&dir.join(SHARD_FILE))?;
    let outcomes = read_outcomes(dir)?;
    Ok(ShardBuild {
        dir: dir.to_path_buf(),
        record,
        started: read_json(&dir.join("started.json"))?,
        finished: read_json(&dir.join("finished.json"))?,
        outcomes,
    })
}

/// Checks the shards are 1..N of one suite, each once, and every scenario ran exactly once;
/// the suite order.
fn check_complete(shards: &[ShardBuild]) -> Result<Vec<String>, MergeError> {
    let first = shards
        .first()
        .ok_or_else(|| MergeError::Incomplete("no build directory given".into()))?;
    let (count, suite) = (first.record.shard.count, &first.record.suite);
    let mut problems = Vec::new();
    let mut seen: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for s in shards {
        if s.record.shard.count != count || &s.record.suite != suite {
            problems.push(format!(
                "{} is shard {} of another run (first: {} shards of {} scenarios)",
                s.dir.display(),
                s.record.shard,
                count,
                suite.len()
            ));
        }
        seen.entry(s.record.shard.index)
            .or_default()
            .push(s.dir.display().to_string());
    }
    for index in 1..=count {
        match seen.get(&index).map(Vec::as_slice) {
            None | Some([]) => problems.push(format!("shard {index}/{count} is missing")),
            Some([_]) => {}
            Some(dirs) => problems.push(format!(
                "shard {index}/{count} given {} times: {}",
                dirs.len(),
                dirs.join(", ")
            )),
        }
    }
    let mut ran: BTreeMap<&str, usize> = BTreeMap::new();
    for o in shards.iter().flat_map(|s| &s.outcomes) {
        *ran.entry(o.name.as_str()).or_default() += 1;
    }
    let expected: BTreeSet<&str> = suite.iter().map(String::as_str).collect();
    for name in suite {
        match ran.get(name.as_str()) {
            None => problems.push(format!("scenario {name} has no outcome")),
            Some(1) => {}
            Some(n) => problems.push(format!("scenario {name} ran {n} times")),
        }
    }
    for name in ran.keys().filter(|n| !expected.contains(*n)) {
        problems.push(format!("scenario {name} is not in the suite"));
    }
    if problems.is_empty() {
        Ok(suite.clone())
    } else {
        Err(MergeError::Incomplete(problems.join("; ")))
    }
}

/// Seconds field `key` of a started/finished document.
fn seconds(doc: &Value, key: &str) -> Option<i64> {
    doc.get(key)?.as_i64()
}

fn metadata<'a>(doc: &'a Value, key: &str) -> Option<&'a str> {
    doc.get("metadata")?.get(key)?.as_str()
}

/// The run's facts from the shards: earliest start, latest end, the first shard's job,
/// provider, harness version and commit.
fn merged_meta(shards: &[ShardBuild]) -> RunMeta {
    let started = shards
        .iter()
        .filter_map(|s| seconds(&s.started, "timestamp"))
        .min()
        .unwrap_or(0);
    let finished = shards
        .iter()
        .filter_map(|s| seconds(&s.finished, "timestamp"))
        .max();
    let mut meta = RunMeta::new(started.saturating_mul(1_000));
    meta.finished_ms = finished.map(|f| f.saturating_mul(1_000));
    if let Some(first) = shards.first() {
        if let Some(job) = metadata(&first.started, "job") {
            job.clone_into(&mut meta.job);
        }
        if let Some(provider) = metadata(&first.started, "provider") {
            provider.clone_into(&mut meta.provider);
        }
        if let Some(version) = metadata(&first.started, "harness-version") {
            version.clone_into(&mut meta.harness_version);
        }
        if let Some(version) = metadata(&first.started, testgrid::finished::CCM_VERSION_KEY) {
            version.clone_into(&mut meta.ccm_version);
        }
        meta.commit = first
            .started
            .get("repo-commit")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    meta
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), MergeError> {
    let error = |source| MergeError::Copy {
        from: from.display().to_string(),
        to: to.display().to_string(),
        source,
    };
    std::fs::create_dir_all(to).map_err(error)?;
    for entry in std::fs::read_dir(from).map_err(error)? {
        let entry = entry.map_err(error)?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().map_err(error)?.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|source| MergeError::Copy {
                from: src.display().to_string(),
                to: dst.display().to_string(),
                source,
            })?;
        }
    }
    Ok(())
}

/// Merges the shard build directories `shards` into the build directory `out` (created; it
/// must not be one of the shards).
pub fn merge_shards(out: &Path, shards: &[PathBuf]) -> Result<Written, MergeError> {
    let builds = shards
        .iter()
        .map(|d| read_shard(d))
        .collect::<Result<Vec<_>, _>>()?;
    let suite = check_complete(&builds)?;
    let out_abs = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    if builds
        .iter()
        .any(|b| std::path::absolute(&b.dir).is_ok_and(|d| d == out_abs))
    {
        return Err(MergeError::Incomplete(format!(
            "the merged directory {} is one of the shards",
            out.display()
        )));
    }
    let order: BTreeMap<&str, usize> = suite
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut outcomes: Vec<ScenarioOutcome> = Vec::new();
    for build in &builds {
        for o in &build.outcomes {
            let from = scenario_dir(&build.dir, &o.name);
            let to = scenario_dir(out, &o.name);
            if to.exists() {
                std::fs::remove_dir_all(&to).map_err(|source| MergeError::Copy {
                    from: from.display().to_string(),
                    to: to.display().to_string(),
                    source,
                })?;
            }
            copy_dir(&from, &to)?;
            let mut moved = o.clone();
            moved.artifacts = to;
            outcomes.push(moved);
        }
    }
    outcomes.sort_by_key(|o| order.get(o.name.as_str()).copied().unwrap_or(usize::MAX));
    // Which binaries were tested: every shard of one run tested the same, the first one's says so.
    if let Some(first) = builds.first() {
        let from = first.dir.join("artifacts").join(super::BINARIES_FILE);
        if from.is_file() {
            let to = out.join("artifacts").join(super::BINARIES_FILE);
            let error = |source| MergeError::Copy {
                from: from.display().to_string(),
                to: to.display().to_string(),
                source,
            };
            std::fs::create_dir_all(out.join("artifacts")).map_err(error)?;
            std::fs::copy(&from, &to).map_err(error)?;
        }
    }
    let meta = merged_meta(&builds);
    Ok(write_results(out, &meta, &outcomes, false)?)
}
