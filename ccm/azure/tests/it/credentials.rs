//! Credentials and clouds against the real `azure-fakes serve`: every credential kind gets a token
//! from the fake Entra ID (or IMDS) and that token opens ARM; the custom cloud is discovered once;
//! bad inputs are typed errors naming the key and file; no secret or token reaches the logs.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ccm_azure::cloud::trust;
use ccm_azure::config::{CredentialKind, Identity, Inputs, Origin, SourceText, load};
use ccm_azure::credential::{CredentialError, CredentialOptions, Credentials};
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use serde_json::{Value, json};

use crate::fake_azure::{FakeAzure, example};

const CLIENT_ID: &str = "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11";
const SECRET: &str = "fake-secret-not-for-production";
const KUBELET_IDENTITY: &str = "9a0c1b2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d";
const ISSUER: &str = "https://oidc.example.test/cluster";
const SUBJECT: &str = "system:serviceaccount:kube-system:cloud-controller-manager";
const RESOURCE_GROUP: &str = "k8s-small-rg";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fakes/tests/fixtures")
        .join(name)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// small.yaml whose app also holds the fixture certificate and a federated credential.
fn start_with_certificate_and_federation(dir: &Path) -> FakeAzure {
    let text = read(&example("small.yaml"));
    let secret_line = format!("    secret: {SECRET}\n");
    assert!(text.contains(&secret_line), "small.yaml changed shape");
    let extended = text.replace(
        &secret_line,
        &format!(
            "{secret_line}    certificatePath: {}\n    federatedCredentials:\n      - issuer: {ISSUER}\n        subject: {SUBJECT}\n",
            fixture("app-cert.crt").display()
        ),
    );
    let topology = dir.join("topology.yaml");
    std::fs::write(&topology, extended).expect("write topology");
    FakeAzure::start(&topology, &[])
}

/// The azure.json upstream runs against the fake (custom cloud discovered from the fake's ARM)
/// plus `keys`, loaded through the real config pipeline.
fn identity(fake: &FakeAzure, keys: &str) -> Identity {
    let text = format!(
        r#"{{"cloud": "AzureStackCloud", "disableAzureStackCloud": true,
             "resourceManagerEndpoint": "{}/", "tenantId": "{}", "subscriptionId": "{}",
             "aadClientId": "{CLIENT_ID}", "resourceGroup": "{RESOURCE_GROUP}", "location": "eastus",
             "useInstanceMetadata": true {keys}}}"#,
        fake.base, fake.tenant, fake.subscription
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
    .identity
}

/// Options over a client that trusts the fake's CA through `SSL_CERT_FILE`, as upstream is pointed at it.
fn options(fake: &FakeAzure) -> CredentialOptions {
    let env = BTreeMap::from([(
        trust::SSL_CERT_FILE.to_string(),
        fake.ca_file.display().to_string(),
    )]);
    let http = trust::client_builder(&env)
        .expect("trust roots")
        .build()
        .expect("client");
    CredentialOptions::new(http)
}

async fn build(fake: &FakeAzure, keys: &str) -> Result<Credentials, CredentialError> {
    Credentials::from_config(&identity(fake, keys), &options(fake)).await
}

/// Gets an ARM token from `credentials` and GETs the node resource group with it: (status, token).
async fn open_arm(fake: &FakeAzure, credentials: &Credentials) -> (u16, String) {
    let token = credentials
        .credential
        .get_token(&[&credentials.arm_scope()], None)
        .await
        .unwrap_or_else(|e| panic!("token: {e}"));
    let token = token.token.secret().to_string();
    let url = format!(
        "{}/subscriptions/{}/resourcegroups/{RESOURCE_GROUP}?api-version=2021-04-01",
        credentials
            .cloud
            .resource_manager
            .as_str()
            .trim_end_matches('/'),
        fake.subscription
    );
    let response = fake
        .http
        .get(url)
        .bearer_auth(&token)
        .send()
        .await
        .expect("ARM GET");
    (response.status().as_u16(), token)
}

/// A service-account token like the kubelet projects (unverified by the fake: no issuer keys).
fn service_account_token() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let header = json!({"alg": "RS256", "typ": "JWT"});
    let claims = json!({"iss": ISSUER, "sub": SUBJECT, "aud": ["api://AzureADTokenExchange"],
                        "iat": now, "nbf": now, "exp": now + 3600});
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let key_pem = read(&fixture("other-cert.pk8.pem"));
    let mut reader = key_pem.as_bytes();
    let der = rustls_pemfile::private_key(&mut reader)
        .expect("PEM")
        .expect("a key");
    let key = RsaKeyPair::from_pkcs8(der.secret_der()).expect("RSA key");
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(
        &RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        input.as_bytes(),
        &mut signature,
    )
    .expect("sign");
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature))
}

/// The fixture certificate and key as one PEM file (key first, to check the leaf is found by key).
fn pem_file(dir: &Path) -> PathBuf {
    let path = dir.join("client.pem");
    let text = format!(
        "{}{}",
        read(&fixture("app-cert.pk8.pem")),
        read(&fixture("app-cert.crt"))
    );
    std::fs::write(&path, text).expect("write PEM");
    path
}

/// The fixture certificate and key as a PKCS#12 file protected by `password`.
fn pfx_file(dir: &Path, password: &str) -> PathBuf {
    let key_pem = read(&fixture("app-cert.pk8.pem"));
    let cert_pem = read(&fixture("app-cert.crt"));
    let key_der = rustls_pemfile::private_key(&mut key_pem.as_bytes())
        .expect("PEM")
        .expect("key");
    let cert_der = rustls_pemfile::certs(&mut cert_pem.as_bytes())
        .next()
        .expect("a certificate")
        .expect("PEM");
    let chain = p12_keystore::PrivateKeyChain::new(
        vec![1u8, 2, 3, 4],
        p12_keystore::PrivateKey::from_der(key_der.secret_der()).expect("key"),
        [p12_keystore::Certificate::from_der(&cert_der).expect("certificate")],
    );
    let mut store = p12_keystore::KeyStore::new();
    store.add_entry("ccm", p12_keystore::KeyStoreEntry::PrivateKeyChain(chain));
    let bytes = store.writer(password).write().expect("PKCS#12");
    let path = dir.join("client.pfx");
    std::fs::write(&path, bytes).expect("write PFX");
    path
}

fn imds_of(fake: &FakeAzure, node_prefix: &str) -> String {
    fake.imds
        .iter()
        .find(|(node, _)| node.starts_with(node_prefix))
        .map(|(_, url)| url.clone())
        .unwrap_or_else(|| panic!("no IMDS for {node_prefix}: {:?}", fake.imds))
}

fn metadata_requests(journal: &Value) -> usize {
    journal["entries"]
        .as_array()
        .expect("journal entries")
        .iter()
        .filter(|e| {
            e["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/metadata/endpoints"))
        })
        .count()
}

#[tokio::test]
async fn client_secret_token_opens_arm_and_discovery_runs_once() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let keys = format!(r#", "aadClientSecret": "{SECRET}""#);
    let credentials = build(&fake, &keys).await.expect("client secret credential");
    assert_eq!(credentials.kind, CredentialKind::ClientSecret);
    assert_eq!(credentials.cloud.name, "AzureStackCloud");
    assert_eq!(open_arm(&fake, &credentials).await.0, 200);
    for _ in 0..3 {
        let again = build(&fake, &keys).await.expect("rebuilt");
        assert_eq!(again.cloud, credentials.cloud);
    }
    assert_eq!(
        metadata_requests(&fake.journal().await),
        1,
        "discovered once for four builds"
    );
}

#[tokio::test]
async fn azure_stack_environment_file_points_at_the_fake() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let env_file = dir.path().join("azurestackcloud.json");
    let document = json!({
        "name": "AzureStackCloud",
        "resourceManagerEndpoint": format!("{}/", fake.base),
        "activeDirectoryEndpoint": format!("{}/", fake.base),
        "tokenAudience": "https://management.azure.com/",
        "storageEndpointSuffix": "local.azurestack.external",
    });
    std::fs::write(&env_file, document.to_string()).expect("write environment file");
    // Not disabled: the environment file wins over resourceManagerEndpoint (no discovery).
    let mut identity = identity(&fake, &format!(r#", "aadClientSecret": "{SECRET}""#));
    identity.disable_azure_stack_cloud = false;
    identity.environment_file_path = Some(env_file.display().to_string());
    let credentials = Credentials::from_config(&identity, &options(&fake))
        .await
        .expect("credentials");
    assert_eq!(
        credentials.arm_scope(),
        "https://management.azure.com/.default"
    );
    assert_eq!(open_arm(&fake, &credentials).await.0, 200);
    assert_eq!(metadata_requests(&fake.journal().await), 0);
}

#[tokio::test]
async fn without_ssl_cert_file_the_fake_is_not_trusted() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let http = trust::client_builder(&BTreeMap::new())
        .expect("no extra roots")
        .build()
        .expect("client");
    let keys = format!(r#", "aadClientSecret": "{SECRET}""#);
    let error = Credentials::from_config(&identity(&fake, &keys), &CredentialOptions::new(http))
        .await
        .expect_err("the fake's CA is not a system root");
    assert!(
        matches!(
            error,
            CredentialError::Cloud(ccm_azure::cloud::CloudError::Discovery { .. })
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn client_certificate_pem_and_pfx_tokens_open_arm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = start_with_certificate_and_federation(dir.path());
    let pem = pem_file(dir.path());
    let credentials = build(
        &fake,
        &format!(r#", "aadClientCertPath": "{}""#, pem.display()),
    )
    .await
    .expect("PEM certificate credential");
    assert_eq!(credentials.kind, CredentialKind::ClientCertificate);
    assert_eq!(open_arm(&fake, &credentials).await.0, 200);

    let pfx = pfx_file(dir.path(), "pfx-pass");
    let keys = format!(
        r#", "aadClientCertPath": "{}", "aadClientCertPassword": "pfx-pass""#,
        pfx.display()
    );
    let credentials = build(&fake, &keys)
        .await
        .expect("PFX certificate credential");
    assert_eq!(open_arm(&fake, &credentials).await.0, 200);
}

#[tokio::test]
async fn workload_identity_token_opens_arm_and_rereads_its_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = start_with_certificate_and_federation(dir.path());
    let token_file = dir.path().join("azure-identity-token");
    std::fs::write(&token_file, service_account_token()).expect("write token");
    let keys = format!(
        r#", "useFederatedWorkloadIdentityExtension": true, "aadFederatedTokenFile": "{}""#,
        token_file.display()
    );
    let credentials = build(&fake, &keys)
        .await
        .expect("workload identity credential");
    assert_eq!(credentials.kind, CredentialKind::WorkloadIdentity);
    assert_eq!(open_arm(&fake, &credentials).await.0, 200);

    // The next fetch (another scope, so not served from the cache) reads the file again.
    std::fs::remove_file(&token_file).expect("remove token");
    let error = credentials
        .credential
        .get_token(&["https://storage.azure.com/.default"], None)
        .await
        .expect_err("the token file is gone");
    let text = format!("{error:?} {error}");
    assert!(text.contains("aadFederatedTokenFile"), "{text}");
    assert!(text.contains(&token_file.display().to_string()), "{text}");
}

#[tokio::test]
async fn managed_identity_tokens_from_the_overridden_imds_open_arm() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let imds = imds_of(&fake, "k8s-agentpool");
    let resource_id = format!(
        "/subscriptions/{}/resourceGroups/{RESOURCE_GROUP}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet-identity",
        fake.subscription
    );
    for selector in [
        String::new(),
        format!(r#", "userAssignedIdentityID": "{KUBELET_IDENTITY}""#),
        format!(r#", "userAssignedIdentityID": "{resource_id}""#),
    ] {
        let keys = format!(r#", "useManagedIdentityExtension": true {selector}"#);
        let options = options(&fake).with_imds_endpoint(&imds).expect("IMDS URL");
        let credentials = Credentials::from_config(&identity(&fake, &keys), &options)
            .await
            .expect("managed identity credential");
        assert_eq!(credentials.kind, CredentialKind::ManagedIdentity);
        assert_eq!(open_arm(&fake, &credentials).await.0, 200, "{selector}");
    }
    let identity_requests = fake.journal().await["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| {
            e["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("/metadata/identity/oauth2/token"))
        })
        .count();
    assert_eq!(
        identity_requests, 3,
        "one IMDS token request per credential"
    );
}

#[tokio::test]
async fn bad_inputs_are_typed_errors_naming_key_and_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeAzure::start(&example("small.yaml"), &[]);

    let missing = dir.path().join("missing.pem");
    let error = build(
        &fake,
        &format!(r#", "aadClientCertPath": "{}""#, missing.display()),
    )
    .await
    .expect_err("missing certificate");
    assert!(
        matches!(&error, CredentialError::ReadFile { key: "aadClientCertPath", path, .. } if path == &missing),
        "{error:?}"
    );
    assert!(error.to_string().contains(&missing.display().to_string()));

    let pfx = pfx_file(dir.path(), "right");
    let keys = format!(
        r#", "aadClientCertPath": "{}", "aadClientCertPassword": "wrong-password""#,
        pfx.display()
    );
    let error = build(&fake, &keys).await.expect_err("wrong password");
    assert!(
        matches!(&error, CredentialError::PfxPassword { path } if path == &pfx),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("aadClientCertPassword") && text.contains(&pfx.display().to_string()),
        "{text}"
    );
    assert!(!text.contains("wrong-password"), "{text}");

    let unreadable = dir.path().join("no-token");
    let keys = format!(
        r#", "useFederatedWorkloadIdentityExtension": true, "aadFederatedTokenFile": "{}""#,
        unreadable.display()
    );
    let error = build(&fake, &keys)
        .await
        .expect_err("unreadable token file");
    assert!(
        matches!(&error, CredentialError::ReadFile { key: "aadFederatedTokenFile", path, .. } if path == &unreadable),
        "{error:?}"
    );
}

#[tokio::test]
async fn network_tenant_gets_its_own_credential_and_the_auxiliary_header() {
    let fake = FakeAzure::start(&example("small.yaml"), &[]);
    let other_tenant = "11111111-2222-3333-4444-555555555555";
    let keys =
        format!(r#", "aadClientSecret": "{SECRET}", "networkResourceTenantID": "{other_tenant}""#);
    let credentials = build(&fake, &keys).await.expect("credentials");
    let network = credentials.network.as_ref().expect("a network tenant");
    assert_eq!(network.tenant_id, other_tenant);
    let header = network
        .auxiliary_header_value(&credentials.arm_scope())
        .await
        .expect("auxiliary token");
    let (status, main_token) = open_arm(&fake, &credentials).await;
    assert_eq!(status, 200);
    assert_eq!(header, format!("Bearer {main_token}"));
    // The network credential asks the other tenant (unknown to this fake: AADSTS90002).
    let error = network
        .credential
        .get_token(&[&credentials.arm_scope()], None)
        .await
        .expect_err("the fake has one tenant");
    assert!(error.to_string().contains("90002"), "{error}");

    let keys = format!(
        r#", "useManagedIdentityExtension": true, "networkResourceTenantID": "{other_tenant}""#
    );
    let error = build(&fake, &keys)
        .await
        .expect_err("MSI cannot be multi-tenant");
    assert!(
        matches!(error, CredentialError::NetworkTenantUnsupported { .. }),
        "{error:?}"
    );
}

/// A `MakeWriter` appending to a shared buffer.
#[derive(Clone, Default)]
pub(crate) struct Captured(pub(crate) Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("buffer").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

/// The process-wide capture of every log line at TRACE from the first call on (a global
/// subscriber: per-thread ones miss events whose callsites other test threads registered first).
pub(crate) fn capture() -> Captured {
    static CAPTURED: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    CAPTURED
        .get_or_init(|| {
            let captured = Captured::default();
            let subscriber = tracing_subscriber::fmt()
                .with_max_level(tracing::Level::TRACE)
                .with_writer(captured.clone())
                .with_ansi(false)
                .finish();
            tracing::subscriber::set_global_default(subscriber).expect("one global subscriber");
            captured
        })
        .clone()
}

#[tokio::test]
async fn no_secret_or_token_in_logs_errors_or_debug() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = start_with_certificate_and_federation(dir.path());
    let captured = capture();

    let keys = format!(r#", "aadClientSecret": "{SECRET}""#);
    let credentials = build(&fake, &keys).await.expect("credentials");
    let (status, token) = open_arm(&fake, &credentials).await;
    assert_eq!(status, 200);
    let pfx = pfx_file(dir.path(), "pfx-secret-password");
    let bad = format!(
        r#", "aadClientCertPath": "{}", "aadClientCertPassword": "not-the-pfx-secret""#,
        pfx.display()
    );
    let error = build(&fake, &bad).await.expect_err("wrong password");
    let wrong_secret = identity(&fake, r#", "aadClientSecret": "another-wrong-secret""#);
    let rejected = Credentials::build(&wrong_secret, &credentials.cloud, &options(&fake))
        .expect("builds")
        .credential
        .get_token(&[&credentials.arm_scope()], None)
        .await
        .expect_err("Entra refuses a wrong secret");

    let logs = String::from_utf8(captured.0.lock().expect("buffer").clone()).expect("UTF-8");
    assert!(
        logs.contains("building Azure credential"),
        "the capture works: {logs}"
    );
    let shown = format!(
        "{logs}\n{credentials:?}\n{error}\n{error:?}\n{rejected}\n{rejected:?}\n{:?}",
        identity(&fake, &keys)
    );
    for secret in [
        SECRET,
        token.as_str(),
        "not-the-pfx-secret",
        "pfx-secret-password",
        "another-wrong-secret",
    ] {
        assert!(!shown.contains(secret), "'{secret}' leaked:\n{shown}");
    }
}
