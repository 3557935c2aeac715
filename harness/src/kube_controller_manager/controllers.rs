//! Which of the in-tree cloud controllers `--controllers` enables. In-tree, KCM names them
//! `cloud-node-lifecycle-controller`, `service-lb-controller`, `node-route-controller` and
//! `node-ipam-controller` (aliases `cloud-node-lifecycle`, `service`, `route`, `nodeipam`;
//! migration.md §1.3); there is no cloud-node controller (the kubelet initialises Nodes).

use ccm_controllers::host::{self, FlagName, UnknownController};
use ccm_names::controllers::{
    CLOUD_NODE, CLOUD_NODE_LIFECYCLE, NODE_IPAM, NODE_ROUTE, SERVICE_LB, lookup,
};

/// The cloud controllers the stand-in hosts, in start order.
pub const HOSTED: [&str; 4] = [CLOUD_NODE_LIFECYCLE, SERVICE_LB, NODE_ROUTE, NODE_IPAM];

fn resolve(name: &str) -> Option<FlagName> {
    match name {
        "node-ipam-controller" | "nodeipam" => Some(FlagName::Hosted(NODE_IPAM)),
        // The CCM-only names: an in-tree KCM has no such controller.
        "cloud-node" | "node-ipam" => None,
        _ => match lookup(name) {
            Some(c) if c.canonical == CLOUD_NODE => None,
            Some(c) => Some(FlagName::Hosted(c.canonical)),
            // [infer] Every other name belongs to KCM's own controllers, which the stand-in
            // does not emulate: accepted without checking it exists.
            None => Some(FlagName::NotHosted),
        },
    }
}

fn known() -> String {
    "cloud-node-lifecycle-controller, cloud-node-lifecycle, service-lb-controller, service, \
     node-route-controller, route, node-ipam-controller, nodeipam, or any other KCM controller"
        .to_owned()
}

/// The hosted controllers `entries` enable.
pub fn enabled(entries: &[String]) -> Result<Vec<&'static str>, UnknownController> {
    host::enabled(entries, &HOSTED, resolve, known)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(flag: &str) -> Result<Vec<&'static str>, UnknownController> {
        enabled(&flag.split(',').map(str::to_owned).collect::<Vec<_>>())
    }

    #[test]
    fn kcm_names_and_aliases() {
        assert_eq!(run("*").unwrap(), HOSTED);
        assert_eq!(
            run("*,bootstrapsigner,tokencleaner,-nodeipam").unwrap(),
            [CLOUD_NODE_LIFECYCLE, SERVICE_LB, NODE_ROUTE]
        );
        assert_eq!(
            run("service,route,garbage-collector").unwrap(),
            [SERVICE_LB, NODE_ROUTE]
        );
        assert_eq!(
            run("*,-node-ipam-controller,-service-lb-controller").unwrap(),
            [CLOUD_NODE_LIFECYCLE, NODE_ROUTE]
        );
    }

    #[test]
    fn no_cloud_node_controller_in_tree() {
        for name in ["cloud-node", "-cloud-node-controller", "node-ipam"] {
            let error = run(&format!("*,{name}")).unwrap_err();
            assert_eq!(error.entry, name);
        }
    }
}
