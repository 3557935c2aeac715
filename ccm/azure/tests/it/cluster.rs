//! A running fake with a client-secret app, the azure.json and provider that run against it, and
//! the journal's ARM calls: shared by the node-metadata tests and the `node_metadata` bench.

use std::collections::BTreeMap;

use ccm_azure::arm::{ArmClient, ArmClientOptions};
use ccm_azure::cloud::trust;
use ccm_azure::config::{Config, Inputs, Origin, SourceText, load};
use ccm_azure::credential::{CredentialOptions, Credentials};
use ccm_azure::metrics::ArmMetrics;
use ccm_azure::provider::{AzureProvider, ProviderOptions};
use ccm_cloud::NodeView;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use reqwest::Method;
use serde_json::Value;

use crate::fake_azure::FakeAzure;
use crate::resource_models::{READER_CLIENT_ID, READER_SECRET, with_reader_app_file};

/// A fake started on `topology` plus a reader app with a client secret.
pub(crate) struct Cluster {
    pub(crate) fake: FakeAzure,
    pub(crate) resource_group: String,
    pub(crate) location: String,
    _dir: tempfile::TempDir,
}

impl Cluster {
    pub(crate) fn start(topology: &str) -> Cluster {
        Cluster::start_file(&crate::fake_azure::example(topology))
    }

    /// Like [`Cluster::start`] for a topology file anywhere.
    pub(crate) fn start_file(file: &std::path::Path) -> Cluster {
        let topology = file
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = with_reader_app_file(file, dir.path());
        let text = std::fs::read_to_string(&path).expect("topology");
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.trim().strip_prefix(&format!("{key}: ")))
                .unwrap_or_else(|| panic!("{key} in {topology}"))
                .to_string()
        };
        let location = field("location");
        let resource_group = text
            .split("node:\n")
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .and_then(|l| l.trim().strip_prefix("name: "))
            .expect("node resource group")
            .to_string();
        Cluster {
            fake: FakeAzure::start(&path, &[]),
            resource_group,
            location,
            _dir: dir,
        }
    }

    /// The azure.json upstream runs against the fake, through the real config pipeline.
    pub(crate) fn config(&self, extra: &str) -> Config {
        let fake = &self.fake;
        let text = format!(
            r#"{{"cloud": "AzureStackCloud", "disableAzureStackCloud": true,
                 "resourceManagerEndpoint": "{}/", "tenantId": "{}", "subscriptionId": "{}",
                 "aadClientId": "{READER_CLIENT_ID}", "aadClientSecret": "{READER_SECRET}",
                 "resourceGroup": "{}", "location": "{}", "vmType": "vmss" {extra}}}"#,
            fake.base, fake.tenant, fake.subscription, self.resource_group, self.location
        );
        let origin = Origin::File("/etc/kubernetes/azure.json".into());
        load(&Inputs {
            file: Some(SourceText {
                origin: &origin,
                text: &text,
            }),
            secret: None,
            env: BTreeMap::new(),
        })
        .expect("azure.json loads")
        .config
    }

    /// Credential options over a client trusting the fake's CA through `SSL_CERT_FILE`.
    pub(crate) fn credential_options(&self) -> CredentialOptions {
        let env = BTreeMap::from([(
            trust::SSL_CERT_FILE.to_string(),
            self.fake.ca_file.display().to_string(),
        )]);
        let http = trust::client_builder(&env)
            .expect("trust roots")
            .build()
            .expect("client");
        CredentialOptions::new(http)
    }

    /// A provider built by `AzureProvider::new` from azure.json.
    pub(crate) async fn provider(&self) -> AzureProvider {
        self.provider_with("").await
    }

    /// A provider from azure.json with `extra` keys (`, "key": value`).
    pub(crate) async fn provider_with(&self, extra: &str) -> AzureProvider {
        let mut registry = prometheus_client::registry::Registry::default();
        AzureProvider::new(
            &self.config(extra),
            ProviderOptions {
                credentials: self.credential_options(),
                metrics: ArmMetrics::register(&mut registry),
            },
        )
        .await
        .expect("provider")
    }

    /// An ARM client for `config` that polls the fake's operations every 20 ms (tests assert the
    /// order of calls, not their timing; production polls follow Retry-After).
    pub(crate) async fn fast_arm(&self, config: &Config) -> ArmClient {
        let options = self.credential_options();
        let credentials = Credentials::from_config(&config.identity, &options)
            .await
            .expect("credentials");
        let mut arm_options = ArmClientOptions::from_config(
            config,
            credentials.cloud.resource_manager.clone(),
            credentials.arm_scope(),
        )
        .expect("ARM options");
        arm_options.lro.default_interval = std::time::Duration::from_millis(20);
        arm_options.lro.max_interval = std::time::Duration::from_millis(20);
        let mut registry = prometheus_client::registry::Registry::default();
        ArmClient::new(
            arm_options,
            credentials.credential.clone(),
            options.http.clone(),
            ArmMetrics::register(&mut registry),
        )
    }

    /// Node names the fake holds now (one IMDS per node).
    pub(crate) fn node_names(&self) -> Vec<String> {
        self.fake.imds.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The fake's own description of a node from its ARM state.
    pub(crate) async fn described(&self, node: &str) -> Value {
        let (status, body) = self
            .fake
            .admin(Method::GET, &format!("/admin/compute/nodes/{node}"), None)
            .await;
        assert_eq!(status, 200, "{node}: {body}");
        body
    }

    /// Forgets the journal so far.
    pub(crate) async fn clear_journal(&self) {
        let (status, body) = self
            .fake
            .admin(Method::DELETE, "/admin/journal", None)
            .await;
        assert!(status < 300, "{body}");
    }

    /// ARM requests in the journal since the last clear: (method, path) pairs.
    pub(crate) async fn arm_calls(&self) -> Vec<(String, String)> {
        let journal = self.fake.journal().await;
        journal["entries"]
            .as_array()
            .expect("journal entries")
            .iter()
            .filter(|e| {
                e["surface"]
                    .as_str()
                    .is_some_and(|s| s.eq_ignore_ascii_case("arm"))
            })
            .map(|e| {
                (
                    e["method"].as_str().unwrap_or_default().to_string(),
                    e["path"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    }
}

/// A Node object named `name` with `labels`.
pub(crate) fn node(name: &str, labels: &[(&str, &str)]) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Borrowed views of `nodes`, as the load balancer methods take them.
pub fn refs(nodes: &[Node]) -> Vec<&dyn NodeView> {
    nodes.iter().map(|n| n as &dyn NodeView).collect()
}
