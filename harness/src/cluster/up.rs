//! What `harness up` prints about an embedded cluster: the kubeconfig, the fake's URLs, the CA,
//! the processes and commands to try. The command itself lives in `run::up` (it can also start a
//! scenario's in-tree control plane, which sits above the cluster layer).

use super::{ClusterProvider, Component, EmbeddedCluster};

/// What `harness up` prints once the cluster is ready.
pub fn describe(cluster: &EmbeddedCluster) -> String {
    let azure = cluster.azure();
    let printed = cluster.printed();
    let kubeconfig = cluster.kubeconfig().display();
    let ca = printed.ca.display();
    let mut text = format!(
        "harness up: embedded cluster ready (artifacts {})\n",
        cluster.artifacts().display()
    );
    text += &format!("kubeconfig: {kubeconfig}\n");
    text += &format!("arm: {}\n", azure.arm);
    text += &format!("admin: {}\n", printed.admin);
    text += &format!("tenant: {}\n", azure.tenant);
    text += &format!("subscription: {}\n", azure.subscription);
    text += &format!("ca: {ca}\n");
    if let Some(proxy) = &printed.proxy {
        // HTTPS_PROXY for an MSAL client (e.g. the upstream CCM) run by hand against the fake.
        text += &format!("proxy: {proxy}\n");
    }
    for node in cluster.nodes() {
        if let Some(imds) = &node.imds {
            text += &format!("imds {}: {imds}\n", node.name);
        }
    }
    for component in Component::ALL {
        if let Some(path) = cluster.azure_json(component) {
            text += &format!("azure.json {component}: {}\n", path.display());
        }
    }
    for process in cluster.supervisor().handles() {
        text += &format!(
            "process {}: pid {}, log {}\n",
            process.name,
            process.pid,
            process.log.display()
        );
    }
    let app = Component::InTree.app();
    let token_url = format!("{}{}/oauth2/v2.0/token", printed.authority, azure.tenant);
    text += &format!(
        "\nTry:\n  kubectl --kubeconfig {kubeconfig} get nodes\n  curl --cacert {ca} {admin}info\n  \
         TOKEN=$(curl -s --cacert {ca} -d grant_type=client_credentials -d client_id={id} \
         -d client_secret={secret} -d scope=https://management.azure.com/.default {token_url} \
         | sed 's/.*\"access_token\":\"\\([^\"]*\\)\".*/\\1/')\n  \
         curl --cacert {ca} -H \"Authorization: Bearer $TOKEN\" \
         '{arm}subscriptions/{sub}/resourceGroups/{rg}?api-version=2021-04-01'\n\
         Press Ctrl-C to stop.\n",
        admin = printed.admin,
        id = app.client_id,
        secret = app.secret,
        arm = azure.arm,
        sub = azure.subscription,
        rg = cluster.settings().resource_group,
    );
    text
}
