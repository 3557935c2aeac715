//! `--controllers` of the CCM: its five cloud controllers by canonical name or alias
//! (`cloud-node`, `cloud-node-lifecycle`, `service`, `route`); the parsing rules are
//! `ccm_controllers::host::enabled`'s.

use ccm_controllers::host::{self, FlagName, UnknownController};
use ccm_names::controllers::{CLOUD_CONTROLLERS, lookup};

/// The canonical names enabled by `entries`, in start order.
pub fn enabled(entries: &[String]) -> Result<Vec<&'static str>, UnknownController> {
    let hosted: Vec<&'static str> = CLOUD_CONTROLLERS.iter().map(|c| c.canonical).collect();
    host::enabled(
        entries,
        &hosted,
        |name| lookup(name).map(|c| FlagName::Hosted(c.canonical)),
        known_names,
    )
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
