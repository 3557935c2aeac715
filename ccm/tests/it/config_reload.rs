//! `--enable-dynamic-reloading` through the real binary: an edit of azure.json (or of the Secret
//! holding it) is picked up without a restart and the next ARM calls carry the new `userAgent`;
//! an invalid edit is logged naming the source and the field, and the running provider keeps
//! serving.

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{Node, Secret, Service};
use kube::Api;
use kube::api::{ObjectMeta, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::ccm_services::create_web_until_served;
use crate::cloud_controller_manager::{Manager, wait_for};
use crate::processes::{ApiServer, FakeAzure, example};
use crate::processes::{agent_nodes, has_ingress, small_azure_json};

/// (sequence number, user agent, method, path) of every ARM request in the fake's journal.
async fn arm_calls(fake: &FakeAzure) -> Vec<(u64, String, String, String)> {
    let text = |e: &Value, k: &str| e[k].as_str().unwrap_or_default().to_string();
    fake.journal().await["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["surface"] == "arm")
        .map(|e| {
            (
                e["seq"].as_u64().unwrap_or_default(),
                text(e, "userAgent"),
                text(e, "method"),
                text(e, "path"),
            )
        })
        .collect()
}

/// small.yaml's azure.json with `userAgent` set.
fn config_text(fake: &FakeAzure, dir: &std::path::Path, user_agent: &str) -> String {
    let path = small_azure_json(fake, dir, Some(user_agent));
    std::fs::read_to_string(path).expect("azure.json")
}

/// Where the test writes the cloud config.
enum Source<'a> {
    File(std::path::PathBuf),
    Secret(Box<Api<Secret>>, &'a str),
}

impl Source<'_> {
    async fn write(&self, text: &str) {
        match self {
            Source::File(path) => {
                // Write then rename, as editors and kubelet volume updates do.
                let tmp = path.with_extension("tmp");
                std::fs::write(&tmp, text).expect("write azure.json");
                std::fs::rename(&tmp, path).expect("rename azure.json");
            }
            Source::Secret(secrets, name) => {
                let patch = json!({"data": {"cloud-config": ByteString(text.as_bytes().to_vec())}});
                secrets
                    .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
                    .await
                    .expect("patch the Secret");
            }
        }
    }
}

/// Runs the scenario against one source: valid config A, an invalid edit (kept: A serves an
/// update), then config B (the restarted controllers call ARM with B's user agent only).
async fn reload_scenario(fake: &FakeAzure, api: &ApiServer, source: Source<'_>, flags: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let client = api.client().await;
    let nodes: Api<Node> = Api::all(client.clone());
    for node in agent_nodes(fake).await {
        nodes
            .create(&PostParams::default(), &node)
            .await
            .expect("node");
    }
    let mut args = vec![
        "--leader-elect=false",
        "--controllers=service",
        "--enable-dynamic-reloading",
    ];
    args.extend_from_slice(flags);
    let kubeconfig = format!("--kubeconfig={}", api.kubeconfig().display());
    args.extend_from_slice(&[&kubeconfig, "--configure-cloud-routes=false"]);
    let manager = Manager::start_raw(fake, &args);
    let services: Api<Service> = Api::namespaced(client, "default");
    create_web_until_served(&services, &[&manager]).await;
    let calls = arm_calls(fake).await;
    assert!(
        !calls.is_empty() && calls.iter().all(|c| c.1 == "ccm-before"),
        "{calls:#?}"
    );

    // An invalid edit: logged with the source and the field; the running provider still serves.
    let invalid = config_text(fake, dir.path(), "ccm-before")
        .replace("\"vmType\":\"standard\"", "\"vmType\":\"nonsense\"");
    assert!(invalid.contains("nonsense"), "{invalid}");
    source.write(&invalid).await;
    wait_for("the invalid config is reported", &[&manager], || async {
        let logs = manager.logs();
        logs.contains("the new cloud config is invalid, keeping the running one")
            .then_some(logs)
    })
    .await;
    let logs = manager.logs();
    let line = logs
        .lines()
        .find(|l| l.contains("the new cloud config is invalid"))
        .expect("error line");
    assert!(line.contains("vmType"), "{line}");
    match &source {
        Source::File(path) => assert!(line.contains(&path.display().to_string()), "{line}"),
        Source::Secret(_, name) => assert!(line.contains(name), "{line}"),
    }
    let before_update = arm_calls(fake).await.len();
    let second_port = json!({"spec": {"ports": [
        {"name": "http", "protocol": "TCP", "port": 80, "nodePort": 30080},
        {"name": "https", "protocol": "TCP", "port": 443, "nodePort": 30443}]}});
    services
        .patch("web", &PatchParams::default(), &Patch::Merge(&second_port))
        .await
        .expect("update service");
    let after_update = wait_for("the update reaches ARM", &[&manager], || async {
        let calls = arm_calls(fake).await;
        calls[before_update..]
            .iter()
            .any(|c| c.2 == "PUT" && c.3.contains("/loadBalancers/"))
            .then_some(calls)
    })
    .await;
    assert!(
        after_update.iter().all(|c| c.1 == "ccm-before"),
        "{after_update:#?}"
    );
    assert!(
        !manager
            .logs()
            .contains("restarting the controllers with the new provider")
    );

    // A valid edit: the controllers restart and every later ARM call carries the new user agent.
    source
        .write(&config_text(fake, dir.path(), "ccm-after"))
        .await;
    let calls = wait_for("ARM calls with the new user agent", &[&manager], || async {
        let calls = arm_calls(fake).await;
        calls.iter().any(|c| c.1 == "ccm-after").then_some(calls)
    })
    .await;
    assert!(
        manager
            .logs()
            .contains("restarting the controllers with the new provider"),
        "{}",
        manager.logs()
    );
    let first_new = calls
        .iter()
        .position(|c| c.1 == "ccm-after")
        .expect("a new call");
    assert!(
        calls[first_new..].iter().all(|c| c.1 == "ccm-after"),
        "the old provider called ARM after the restart: {calls:#?}"
    );
    // The restarted service controller still owns the Service.
    assert!(services.get("web").await.is_ok_and(|s| has_ingress(&s)));
    let exit = manager.terminate();
    assert!(exit.success(), "{exit:?}\n{}", manager.logs());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_cloud_config_file_is_used_for_the_next_arm_calls() {
    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cloud-config.json");
    std::fs::write(&path, config_text(&fake, dir.path(), "ccm-before")).expect("write");
    let flag = format!("--cloud-config={}", path.display());
    reload_scenario(&fake, &api, Source::File(path), &[&flag]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_cloud_config_secret_is_used_for_the_next_arm_calls() {
    let fake = FakeAzure::start(&example("small.yaml"), &["--lro-polls", "0"]);
    let api = ApiServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let secrets: Api<Secret> = Api::namespaced(api.client().await, "kube-system");
    let text = config_text(&fake, dir.path(), "ccm-before");
    let secret = Secret {
        metadata: ObjectMeta {
            name: Some("azure-cloud-provider".to_owned()),
            ..Default::default()
        },
        data: Some([("cloud-config".to_owned(), ByteString(text.into_bytes()))].into()),
        ..Default::default()
    };
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .expect("create secret");
    reload_scenario(
        &fake,
        &api,
        Source::Secret(Box::new(secrets), "azure-cloud-provider"),
        &["--cloud-config-secret-name=azure-cloud-provider"],
    )
    .await;
}
