//! Publishing a finished build: copy it into a bucket-shaped directory (a mounted bucket, a
//! staging tree for a later sync), or print the `gsutil` / `gcloud storage` commands that upload
//! it. `finished.json` goes last so TestGrid never sees a complete-looking build without results.

use std::path::{Path, PathBuf};

use crate::build_id::BuildId;
use crate::layout::{LATEST_BUILD, LayoutError, update_latest, write_atomic};
use crate::natural::natural_less;

/// Errors publishing.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The source is not a finished build directory.
    #[error("{path} is not a finished build directory: {reason}")]
    NotABuild {
        /// The directory.
        path: String,
        /// What is missing.
        reason: String,
    },
    /// The destination already has this build.
    #[error("{0} already exists: a published build is never overwritten")]
    Exists(String),
    /// The destination URL is not `gs://bucket[/path]`.
    #[error(
        "invalid destination {0:?}: expected gs://BUCKET[/PATH] (the job directory is appended)"
    )]
    Url(String),
    /// File system error.
    #[error("cannot copy {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing latest-build.txt failed.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

/// Which Google Cloud CLI the printed commands use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Uploader {
    /// `gsutil`.
    Gsutil,
    /// `gcloud storage`.
    Gcloud,
}

/// What a local publish did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// `<to>/<job>/<build>`.
    pub dest: PathBuf,
    /// Whether `latest-build.txt` now names this build.
    pub latest_updated: bool,
    /// Builds already at the destination that sort after this one (TestGrid may skip ours).
    pub newer_builds: Vec<String>,
}

struct Source {
    dir: PathBuf,
    job: String,
    build: BuildId,
}

fn source(build_dir: &Path) -> Result<Source, PublishError> {
    let not_build = |reason: &str| PublishError::NotABuild {
        path: build_dir.display().to_string(),
        reason: reason.to_owned(),
    };
    let dir = build_dir
        .canonicalize()
        .map_err(|e| not_build(&e.to_string()))?;
    for required in ["started.json", "finished.json"] {
        if !dir.join(required).is_file() {
            return Err(not_build(&format!(
                "{required} is missing (publish after the run has finished)"
            )));
        }
    }
    let build = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let build = BuildId::new(build).map_err(|e| not_build(&e.to_string()))?;
    let job = dir
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if job.is_empty() {
        return Err(not_build("it has no parent job directory"));
    }
    Ok(Source { dir, job, build })
}

/// Copies `build_dir` to `<to>/<job>/<build>/` and advances `<to>/<job>/latest-build.txt`.
pub fn publish_to_dir(build_dir: &Path, to: &Path) -> Result<Published, PublishError> {
    let src = source(build_dir)?;
    let job_dir = to.join(&src.job);
    let dest = job_dir.join(src.build.as_str());
    if dest.exists() {
        return Err(PublishError::Exists(dest.display().to_string()));
    }
    let newer_builds = match std::fs::read_dir(&job_dir) {
        Ok(entries) => entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.') && natural_less(src.build.as_str(), n))
            .collect(),
        Err(_) => Vec::new(),
    };
    // Copy into a hidden staging name, then rename, so readers never list a half-copied build.
    let staging = job_dir.join(format!(".{}.partial", src.build));
    if staging.exists() {
        // Left over from an interrupted publish of this same build.
        std::fs::remove_dir_all(&staging).map_err(|e| io(&staging, e))?;
    }
    copy_tree(&src.dir, &staging, Path::new("finished.json"))?;
    let finished = std::fs::read(src.dir.join("finished.json"))
        .map_err(|e| io(&src.dir.join("finished.json"), e))?;
    write_atomic(&staging.join("finished.json"), &finished)?;
    std::fs::rename(&staging, &dest).map_err(|e| io(&dest, e))?;
    update_latest(&job_dir, &src.build)?;
    let latest = std::fs::read_to_string(job_dir.join(LATEST_BUILD)).unwrap_or_default();
    let latest_updated = latest.trim() == src.build.as_str();
    Ok(Published {
        dest,
        latest_updated,
        newer_builds,
    })
}

fn copy_tree(from: &Path, to: &Path, skip: &Path) -> Result<(), PublishError> {
    fn walk(root: &Path, from: &Path, to: &Path, skip: &Path) -> Result<(), PublishError> {
        std::fs::create_dir_all(to).map_err(|e| io(to, e))?;
        for entry in std::fs::read_dir(from).map_err(|e| io(from, e))? {
            let entry = entry.map_err(|e| io(from, e))?;
            let path = entry.path();
            let ty = entry.file_type().map_err(|e| io(&path, e))?;
            let target = to.join(entry.file_name());
            if ty.is_dir() {
                walk(root, &path, &target, skip)?;
            } else if ty.is_file() && path.strip_prefix(root).ok() != Some(skip) {
                std::fs::copy(&path, &target).map_err(|e| io(&path, e))?;
            }
        }
        Ok(())
    }
    walk(from, from, to, skip)
}

fn io(path: &Path, source: std::io::Error) -> PublishError {
    PublishError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The shell commands that upload `build_dir` under `gs_url` (`gs://bucket/path`): everything
/// but `finished.json`, then `finished.json`, then `latest-build.txt`.
pub fn upload_commands(
    build_dir: &Path,
    gs_url: &str,
    uploader: Uploader,
) -> Result<Vec<String>, PublishError> {
    let src = source(build_dir)?;
    let rest = gs_url
        .strip_prefix("gs://")
        .ok_or_else(|| PublishError::Url(gs_url.to_owned()))?;
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() || rest.starts_with('/') || rest.contains(char::is_whitespace) {
        return Err(PublishError::Url(gs_url.to_owned()));
    }
    let job_url = format!("gs://{rest}/{}", src.job);
    let build_url = format!("{job_url}/{}", src.build);
    let dir = src.dir.display().to_string();
    let finished = src.dir.join("finished.json").display().to_string();
    let q = shell_quote;
    let exclude = r"^finished\.json$";
    Ok(match uploader {
        Uploader::Gsutil => vec![
            format!(
                "gsutil -m rsync -r -x {} {} {}",
                q(exclude),
                q(&dir),
                q(&build_url)
            ),
            format!(
                "gsutil cp {} {}",
                q(&finished),
                q(&format!("{build_url}/finished.json"))
            ),
            format!(
                "printf %s {} | gsutil -h Content-Type:text/plain cp - {}",
                q(src.build.as_str()),
                q(&format!("{job_url}/{LATEST_BUILD}"))
            ),
        ],
        Uploader::Gcloud => vec![
            format!(
                "gcloud storage rsync --recursive --exclude={} {} {}",
                q(exclude),
                q(&dir),
                q(&build_url)
            ),
            format!(
                "gcloud storage cp {} {}",
                q(&finished),
                q(&format!("{build_url}/finished.json"))
            ),
            format!(
                "printf %s {} | gcloud storage cp --content-type=text/plain - {}",
                q(src.build.as_str()),
                q(&format!("{job_url}/{LATEST_BUILD}"))
            ),
        ],
    })
}

/// POSIX single-quoting.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/-_.:=@%+,".contains(c))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(root: &Path, id: &str) -> PathBuf {
        let dir = root.join("src/ci-job").join(id);
        std::fs::create_dir_all(dir.join("artifacts")).unwrap();
        std::fs::write(dir.join("started.json"), r#"{"timestamp": 1}"#).unwrap();
        std::fs::write(
            dir.join("finished.json"),
            r#"{"timestamp": 2, "passed": true}"#,
        )
        .unwrap();
        std::fs::write(dir.join("artifacts/junit_x.xml"), "<testsuites/>").unwrap();
        dir
    }

    #[test]
    fn copies_build_and_advances_latest() {
        let root = tempfile::tempdir().unwrap();
        let to = root.path().join("bucket");
        let p = publish_to_dir(&build(root.path(), "20"), &to).unwrap();
        assert!(
            p.dest.join("artifacts/junit_x.xml").is_file()
                && p.dest.join("finished.json").is_file()
        );
        assert!(p.latest_updated);
        let p = publish_to_dir(&build(root.path(), "3"), &to).unwrap();
        assert!(!p.latest_updated);
        assert_eq!(p.newer_builds, ["20"]);
        assert_eq!(
            std::fs::read_to_string(to.join("ci-job/latest-build.txt")).unwrap(),
            "20"
        );
        assert!(matches!(
            publish_to_dir(&build(root.path(), "20"), &to),
            Err(PublishError::Exists(_))
        ));
    }

    #[test]
    fn refuses_unfinished_builds() {
        let root = tempfile::tempdir().unwrap();
        let dir = build(root.path(), "5");
        std::fs::remove_file(dir.join("finished.json")).unwrap();
        let e = publish_to_dir(&dir, root.path()).unwrap_err().to_string();
        assert!(e.contains("finished.json is missing"), "{e}");
    }

    #[test]
    fn prints_upload_commands_finished_last() {
        let root = tempfile::tempdir().unwrap();
        let dir = build(root.path(), "1767225600");
        let shown = dir.canonicalize().unwrap().display().to_string();
        let cmds =
            upload_commands(&dir, "gs://k8s-conformance-azure/logs/", Uploader::Gsutil).unwrap();
        let text = cmds.join("\n").replace(&shown, "BUILD");
        insta::assert_snapshot!("gsutil", text);
        let cmds =
            upload_commands(&dir, "gs://k8s-conformance-azure/logs", Uploader::Gcloud).unwrap();
        insta::assert_snapshot!("gcloud", cmds.join("\n").replace(&shown, "BUILD"));
        assert!(matches!(
            upload_commands(&dir, "s3://x", Uploader::Gsutil),
            Err(PublishError::Url(_))
        ));
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("a b'c"), r"'a b'\''c'");
        assert_eq!(shell_quote("gs://x/y"), "gs://x/y");
    }
}
