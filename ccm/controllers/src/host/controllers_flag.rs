//! `--controllers`: which of a manager's controllers this process may run.
//!
//! Verified (migration.md §1.3, k8s.io/controller-manager `IsControllerEnabled` and
//! `GenericControllerManagerConfigurationOptions.Validate`/`ApplyTo`): entries are read in order and
//! the first that names a controller decides (`name` enables, `-name` disables); otherwise `*`
//! enables it (no controller is disabled by default); aliases are normalised to canonical names;
//! an unknown name is an error. **[infer]** empty entries (`*,,-route`) are skipped.

/// What a `--controllers` name means to one manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagName {
    /// One of the controllers this process can run (canonical name).
    Hosted(&'static str),
    /// A controller of the real manager this process does not emulate: accepted, never run.
    NotHosted,
}

/// An entry of `--controllers` naming no known controller.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "--controllers: {entry:?} is not in the list of known controllers (accepted: *, {known}, each optionally prefixed with -)"
)]
pub struct UnknownController {
    /// The entry as given.
    pub entry: String,
    /// Every accepted name and alias.
    pub known: String,
}

/// The canonical names among `hosted` (in that order) that `entries` enable; `resolve` maps a
/// name or alias to its meaning (`None`: unknown), `known` lists the accepted names for errors.
pub fn enabled(
    entries: &[String],
    hosted: &[&'static str],
    resolve: impl Fn(&str) -> Option<FlagName>,
    known: impl Fn() -> String,
) -> Result<Vec<&'static str>, UnknownController> {
    // Normalise first, refusing unknown names, like ApplyTo + Validate.
    let mut normalised = Vec::with_capacity(entries.len());
    for entry in entries.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
        if entry == "*" {
            normalised.push(Entry::Star);
            continue;
        }
        let (negated, name) = match entry.strip_prefix('-') {
            Some(name) => (true, name),
            None => (false, entry),
        };
        match resolve(name) {
            Some(FlagName::Hosted(canonical)) => normalised.push(Entry::Named {
                canonical,
                enabled: !negated,
            }),
            Some(FlagName::NotHosted) => {}
            None => {
                return Err(UnknownController {
                    entry: entry.to_owned(),
                    known: known(),
                });
            }
        }
    }
    Ok(hosted
        .iter()
        .copied()
        .filter(|name| is_enabled(name, &normalised))
        .collect())
}

enum Entry {
    Star,
    Named {
        canonical: &'static str,
        enabled: bool,
    },
}

fn is_enabled(name: &str, entries: &[Entry]) -> bool {
    let mut star = false;
    for entry in entries {
        match entry {
            Entry::Named { canonical, enabled } if *canonical == name => return *enabled,
            Entry::Star => star = true,
            Entry::Named { .. } => {}
        }
    }
    star
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTED: [&str; 3] = ["a-controller", "b-controller", "c-controller"];

    fn run(flag: &str) -> Result<Vec<&'static str>, UnknownController> {
        let entries: Vec<String> = flag.split(',').map(str::to_owned).collect();
        let resolve = |name: &str| match name {
            "a" | "a-controller" => Some(FlagName::Hosted("a-controller")),
            "b-controller" => Some(FlagName::Hosted("b-controller")),
            "c-controller" => Some(FlagName::Hosted("c-controller")),
            "other" => Some(FlagName::NotHosted),
            _ => None,
        };
        enabled(&entries, &HOSTED, resolve, || "a, b-controller".to_owned())
    }

    #[test]
    fn star_minus_aliases_and_first_match() {
        assert_eq!(run("*").unwrap(), HOSTED);
        assert_eq!(run("*,-a").unwrap(), ["b-controller", "c-controller"]);
        assert_eq!(
            run("a,c-controller").unwrap(),
            ["a-controller", "c-controller"]
        );
        assert_eq!(run("-a,*,a").unwrap().len(), 2, "first match wins");
        assert_eq!(run("").unwrap(), Vec::<&str>::new());
        assert_eq!(run("*,,-other,other").unwrap(), HOSTED);
    }

    #[test]
    fn unknown_names_are_errors() {
        let error = run("*,-nodeipam").unwrap_err();
        assert_eq!(error.entry, "-nodeipam");
        assert!(error.to_string().contains("--controllers"));
        assert!(error.to_string().contains("a, b-controller"));
    }
}
