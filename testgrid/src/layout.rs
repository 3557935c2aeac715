//! Writes one run as `<prefix>/<job>/<build-id>/` in the layout Prow uploads and TestGrid reads:
//! `started.json`, `artifacts/junit_<suffix>.xml`, `build-log.txt`, `finished.json`, and the
//! job-level `latest-build.txt` pointer.

use std::path::{Path, PathBuf};

use crate::build_id::{BuildId, BuildIdError, BuildIdGenerator, IdScheme};
use crate::finished::Finished;
use crate::junit::{JunitError, JunitReport};
use crate::natural::natural_less;
use crate::started::Started;

/// Job-level pointer to the newest build (read by Deck/Gubernator, not by TestGrid).
pub const LATEST_BUILD: &str = "latest-build.txt";

/// Errors writing a build directory.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// Bad job name.
    #[error("invalid job name {0:?}: use one path segment of letters, digits, '-', '_' or '.'")]
    JobName(String),
    /// Bad JUnit file suffix.
    #[error(
        "invalid JUnit suffix {0:?}: use letters, digits, '-', '_' or '.' (file becomes artifacts/junit_<suffix>.xml)"
    )]
    Suffix(String),
    /// Build ids are never reused.
    #[error("build directory {0} already exists: build ids must be new and increasing")]
    Exists(String),
    /// Bad build id.
    #[error(transparent)]
    BuildId(#[from] BuildIdError),
    /// JUnit writing failed.
    #[error(transparent)]
    Junit(#[from] JunitError),
    /// I/O error.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Accepts names that are safe as one GCS path segment and in TestGrid row names.
fn valid_segment(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// One build directory being written.
#[derive(Debug, Clone)]
pub struct BuildLayout {
    job_dir: PathBuf,
    id: BuildId,
    dir: PathBuf,
}

impl BuildLayout {
    /// Creates `<prefix>/<job>/<id>/`; fails if it exists.
    pub fn create(prefix: &Path, job: &str, id: BuildId) -> Result<Self, LayoutError> {
        if !valid_segment(job) {
            return Err(LayoutError::JobName(job.to_owned()));
        }
        let job_dir = prefix.join(job);
        let dir = job_dir.join(id.as_str());
        if dir.exists() {
            return Err(LayoutError::Exists(dir.display().to_string()));
        }
        std::fs::create_dir_all(&dir).map_err(|source| io_err(&dir, source))?;
        Ok(Self { job_dir, id, dir })
    }

    /// Writes into the directory `dir` itself, creating it if needed and keeping what is already
    /// there (a run's own artifacts directory). The build id is the directory's name and the job
    /// its parent's; nothing is written outside `dir` (see [`BuildLayout::write_finished`]).
    pub fn open(dir: &Path) -> Result<Self, LayoutError> {
        std::fs::create_dir_all(dir).map_err(|source| io_err(dir, source))?;
        // `.` or `out/..` name the directory only once resolved.
        let resolved = dir.canonicalize().map_err(|source| io_err(dir, source))?;
        let id = resolved
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let id = BuildId::new(id)?;
        let job_dir = resolved
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        Ok(Self {
            job_dir,
            id,
            dir: dir.to_path_buf(),
        })
    }

    /// Creates the next build of `job`, with an id greater than every id already there.
    pub fn next(prefix: &Path, job: &str, scheme: IdScheme) -> Result<Self, LayoutError> {
        let mut generator = BuildIdGenerator::resume(scheme, &prefix.join(job))?;
        Self::create(prefix, job, generator.next_now())
    }

    /// The build directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The build id.
    pub fn id(&self) -> &BuildId {
        &self.id
    }

    /// Writes `started.json` (do this first: it gives the column its time).
    pub fn write_started(&self, started: &Started) -> Result<(), LayoutError> {
        write_json(&self.dir.join("started.json"), started)
    }

    /// Writes `artifacts/junit_<suffix>.xml` and returns its path.
    pub fn write_junit(&self, suffix: &str, report: &JunitReport) -> Result<PathBuf, LayoutError> {
        if !valid_segment(suffix) {
            return Err(LayoutError::Suffix(suffix.to_owned()));
        }
        let path = self
            .dir
            .join("artifacts")
            .join(format!("junit_{suffix}.xml"));
        let xml = report.to_xml()?;
        write_atomic(&path, xml.as_bytes())?;
        Ok(path)
    }

    /// Writes `build-log.txt` (the run's console log; for people, not read by TestGrid).
    pub fn write_build_log(&self, log: &str) -> Result<(), LayoutError> {
        write_atomic(&self.dir.join("build-log.txt"), log.as_bytes())
    }

    /// Writes `finished.json` only (last: it completes the column), leaving the job directory's
    /// `latest-build.txt` alone, for a build written where its parent is not a job directory
    /// (publishing copies it into one and updates the pointer there).
    pub fn write_finished(&self, finished: &Finished) -> Result<(), LayoutError> {
        write_json(&self.dir.join("finished.json"), finished)
    }

    /// Writes `finished.json` last, then points `latest-build.txt` at this build unless a newer
    /// build already holds it.
    pub fn finish(&self, finished: &Finished) -> Result<(), LayoutError> {
        write_json(&self.dir.join("finished.json"), finished)?;
        update_latest(&self.job_dir, &self.id)
    }
}

/// Points `<job_dir>/latest-build.txt` at `id` unless it names a naturally greater build.
pub fn update_latest(job_dir: &Path, id: &BuildId) -> Result<(), LayoutError> {
    let path = job_dir.join(LATEST_BUILD);
    if let Ok(current) = std::fs::read_to_string(&path) {
        let current = current.trim();
        if !current.is_empty() && !natural_less(current, id.as_str()) && current != id.as_str() {
            return Ok(());
        }
    }
    write_atomic(&path, id.as_str().as_bytes())
}

fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), LayoutError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| {
        io_err(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })?;
    write_atomic(path, text.as_bytes())
}

/// Writes via a temporary file and rename, so a reader never sees half a file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), LayoutError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| io_err(parent, source))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|source| io_err(&tmp, source))?;
    std::fs::rename(&tmp, path).map_err(|source| io_err(path, source))
}

fn io_err(path: &Path, source: std::io::Error) -> LayoutError {
    LayoutError::Io {
        path: path.display().to_string(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finished::JobResult;
    use crate::junit::{Case, Suite};

    #[test]
    fn writes_the_prow_layout() {
        let root = tempfile::tempdir().unwrap();
        let b = BuildLayout::create(
            root.path(),
            "ci-azure-ccm-parity",
            BuildId::new("1767225600").unwrap(),
        )
        .unwrap();
        b.write_started(&Started::at(1_767_225_600)).unwrap();
        let mut suite = Suite::new("ccm-parity").unwrap();
        suite.add_case(Case::pass("x")).unwrap();
        let mut report = JunitReport::new();
        report.add_suite(suite);
        b.write_junit("parity", &report).unwrap();
        b.write_build_log("log").unwrap();
        b.finish(&Finished::new(1_767_229_200, JobResult::Success))
            .unwrap();
        let job = root.path().join("ci-azure-ccm-parity");
        for f in [
            "started.json",
            "finished.json",
            "build-log.txt",
            "artifacts/junit_parity.xml",
        ] {
            assert!(job.join("1767225600").join(f).is_file(), "{f}");
        }
        assert_eq!(
            std::fs::read_to_string(job.join(LATEST_BUILD)).unwrap(),
            "1767225600"
        );
        let started = std::fs::read_to_string(job.join("1767225600/started.json")).unwrap();
        assert!(started.contains("\"timestamp\": 1767225600"), "{started}");
        assert!(
            BuildLayout::create(
                root.path(),
                "ci-azure-ccm-parity",
                BuildId::new("1767225600").unwrap()
            )
            .is_err()
        );
    }

    #[test]
    fn open_writes_into_an_existing_directory_and_nowhere_else() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("artifacts-run");
        std::fs::create_dir_all(dir.join("01-cold")).unwrap();
        std::fs::write(dir.join("01-cold/kcm.log"), "log").unwrap();
        let b = BuildLayout::open(&dir).unwrap();
        assert_eq!(b.id().as_str(), "artifacts-run");
        b.write_started(&Started::at(1_767_225_600)).unwrap();
        b.write_finished(&Finished::new(1_767_225_700, JobResult::Success))
            .unwrap();
        assert!(dir.join("01-cold/kcm.log").is_file());
        assert!(dir.join("started.json").is_file());
        assert!(dir.join("finished.json").is_file());
        assert!(!root.path().join(LATEST_BUILD).exists());
        let fresh = BuildLayout::open(&root.path().join("new/1767225600")).unwrap();
        assert!(fresh.dir().is_dir());
        let dotted = BuildLayout::open(&root.path().join("new/1767225600/x/..")).unwrap();
        assert_eq!(dotted.id().as_str(), "1767225600");
        assert!(matches!(
            BuildLayout::open(&root.path().join("has space")),
            Err(LayoutError::BuildId(_))
        ));
    }

    #[test]
    fn latest_build_never_moves_back() {
        let root = tempfile::tempdir().unwrap();
        update_latest(root.path(), &BuildId::new("20").unwrap()).unwrap();
        update_latest(root.path(), &BuildId::new("9").unwrap()).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.path().join(LATEST_BUILD)).unwrap(),
            "20"
        );
        update_latest(root.path(), &BuildId::new("100").unwrap()).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.path().join(LATEST_BUILD)).unwrap(),
            "100"
        );
    }

    #[test]
    fn next_build_goes_after_existing_ones() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("job/9999999999999999999")).unwrap();
        let b = BuildLayout::next(root.path(), "job", IdScheme::Wide).unwrap();
        assert!(natural_less("9999999999999999999", b.id().as_str()));
        assert!(matches!(
            BuildLayout::next(root.path(), "a/b", IdScheme::Wide),
            Err(LayoutError::JobName(_))
        ));
    }
}
