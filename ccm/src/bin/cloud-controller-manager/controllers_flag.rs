//! `--controllers`: which cloud controllers this process may run.
//!
//! Verified (migration.md §1.3, k8s.io/controller-manager `IsControllerEnabled` and
//! `GenericControllerManagerConfigurationOptions.Validate`/`ApplyTo`): entries are read in order and
//! the first that names a controller decides (`name` enables, `-name` disables); otherwise `*`
//! enables it (no controller is disabled by default); aliases (`cloud-node`, `cloud-node-lifecycle`,
//! `service`, `route`) are normalised to canonical names; an unknown name is an error.
//! **[infer]** empty entries (`*,,-route`) are skipped.

use ccm_names::controllers::{CLOUD_CONTROLLERS, lookup};

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

/// The canonical names enabled by `entries`, in start order.
pub fn enabled(entries: &[String]) -> Result<Vec<&'static str>, UnknownController> {
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
        let controller = lookup(name).ok_or_else(|| UnknownController {
            entry: entry.to_owned(),
            known: known_names(),
        })?;
        normalised.push(Entry::Named {
            canonical: controller.canonical,
            enabled: !negated,
        });
    }
    Ok(CLOUD_CONTROLLERS
        .iter()
        .map(|c| c.canonical)
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

fn known_names() -> String {
    CLOUD_CONTROLLERS
        .iter()
        .flat_map(|c| std::iter::once(c.canonical).chain(c.alias))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(flag: &str) -> Result<Vec<&'static str>, UnknownController> {
        let entries: Vec<String> = flag.split(',').map(str::to_owned).collect();
        enabled(&entries)
    }

    #[test]
    fn star_minus_and_aliases() {
        assert_eq!(
            run("*").unwrap(),
            [
                "cloud-node-controller",
                "cloud-node-lifecycle-controller",
                "service-lb-controller",
                "node-route-controller",
                "node-ipam"
            ]
        );
        assert_eq!(
            run("*,-cloud-node").unwrap(),
            [
                "cloud-node-lifecycle-controller",
                "service-lb-controller",
                "node-route-controller",
                "node-ipam"
            ]
        );
        assert_eq!(
            run("service,route").unwrap(),
            ["service-lb-controller", "node-route-controller"]
        );
        assert_eq!(run("-route,*,route").unwrap().len(), 4, "first match wins");
        assert_eq!(run("").unwrap(), Vec::<&str>::new());
    }

    #[test]
    fn unknown_names_are_errors() {
        let error = run("*,-nodeipam").unwrap_err();
        assert_eq!(error.entry, "-nodeipam");
        assert!(error.to_string().contains("--controllers"));
        assert!(run("garbage-collector").is_err());
    }
}
