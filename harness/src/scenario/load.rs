//! Reading scenario files: one file, a text, a directory or a list of paths. Directories and lists are
//! parsed completely before anything is returned, so every bad file is reported at once.

use super::error::{LoadErrors, Problem, ScenarioError};
use super::model::Scenario;
use super::problems::line;
use super::validate::{Origin, validate};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Reads and validates one scenario file; the repository root is found from the file's location.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        file: file.clone(),
        source,
    })?;
    let root = repo_root(path);
    let stem = path.file_stem().and_then(|s| s.to_str());
    parse(
        &text,
        &Origin {
            file: &file,
            stem,
            repo_root: root.as_deref(),
        },
    )
}

/// Parses and validates scenario text; `file_name` labels errors, `repo_root` (when given) is where
/// topology files must exist. The name is not compared with a file name.
pub fn load_str(
    text: &str,
    file_name: &str,
    repo_root: Option<&Path>,
) -> Result<Scenario, ScenarioError> {
    parse(
        text,
        &Origin {
            file: file_name,
            stem: None,
            repo_root,
        },
    )
}

fn parse(text: &str, origin: &Origin) -> Result<Scenario, ScenarioError> {
    let spec =
        serde_saphyr::from_str(text).map_err(|e| ScenarioError::syntax(origin.file, text, &e))?;
    validate(spec, origin).map_err(|problems| ScenarioError::Invalid {
        file: origin.file.to_string(),
        problems,
    })
}

/// Every `*.yaml` / `*.yml` file directly in `dir`, sorted by name.
pub fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, ScenarioError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ScenarioError::Read {
        file: dir.display().to_string(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file() && matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Loads every scenario of `dir`; all errors of all files when any is bad.
pub fn load_all(dir: &Path) -> Result<Vec<Scenario>, LoadErrors> {
    let files = scenario_files(dir).map_err(|e| LoadErrors { errors: vec![e] })?;
    load_paths(&files)
}

/// Loads the given files (directories expand to their scenario files); all errors when any is bad,
/// including two files with one scenario name.
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<Scenario>, LoadErrors> {
    let mut errors = Vec::new();
    let mut scenarios = Vec::new();
    for (_, result) in load_each(paths) {
        match result {
            Ok(s) => scenarios.push(s),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(scenarios)
    } else {
        Err(LoadErrors { errors })
    }
}

/// Loads each file on its own (directories expand), keeping every result in order: what
/// `harness scenarios validate` prints. A file reusing an earlier file's scenario name is an error.
pub fn load_each(paths: &[PathBuf]) -> Vec<(PathBuf, Result<Scenario, ScenarioError>)> {
    let mut files = Vec::new();
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            match scenario_files(path) {
                Ok(found) => files.extend(found),
                Err(e) => out.push((path.clone(), Err(e))),
            }
        } else {
            files.push(path.clone());
        }
    }
    let mut names: HashMap<String, String> = HashMap::new();
    for file in files {
        let result = load(&file).and_then(|s| match names.get(s.name()) {
            Some(first) => Err(duplicate(&s, first)),
            None => {
                names.insert(s.name().to_string(), s.file.clone());
                Ok(s)
            }
        });
        out.push((file, result));
    }
    out
}

fn duplicate(s: &Scenario, first: &str) -> ScenarioError {
    ScenarioError::Invalid {
        file: s.file.clone(),
        problems: vec![Problem {
            line: line(&s.spec.name),
            field: "name".into(),
            message: format!(
                "'{}' is also the name of {first} (scenario names are unique)",
                s.name()
            ),
        }],
    }
}

/// The repository root of a scenario file: the nearest ancestor holding `fakes/examples`.
pub fn repo_root(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    absolute
        .ancestors()
        .skip(1)
        .find(|dir| dir.join("fakes").join("examples").is_dir())
        .map(Path::to_path_buf)
}
