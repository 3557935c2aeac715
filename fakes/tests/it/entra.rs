//! Entra ID through the real binary: the certificate client assertion (what azure_identity's
//! ClientCertificateCredential sends), the workload-identity federated assertion, the v1 endpoint, and the AADSTS
//! refusals for a bad signature, audience, lifetime, federated subject and tenant; the reserved OIDC scopes MSAL adds
//! and the scope refusals. Every issued token must open ARM.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Method;
use ring::digest;
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use serde_json::{Value, json};

use crate::support::{CLIENT_ID, Fake, form, small_topology};

const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const ISSUER: &str = "https://oidc.example.test/cluster";
const SUBJECT: &str = "system:serviceaccount:kube-system:cloud-controller-manager";
const ARM_SCOPE: &str = "https://management.azure.com/.default";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pem_der(pem: &str) -> Vec<u8> {
    let (_, block) = x509_parser::pem::parse_x509_pem(pem.as_bytes()).expect("PEM");
    block.contents
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64
}

/// An RS256 JWT signed with the PKCS#8 key `key_pem`, naming `cert_pem` by `x5t` when given.
fn sign(key_pem: &str, cert_pem: Option<&str>, claims: &Value) -> String {
    let mut header = json!({"alg": "RS256", "typ": "JWT"});
    if let Some(cert) = cert_pem {
        let sha1 = digest::digest(&digest::SHA1_FOR_LEGACY_USE_ONLY, &pem_der(cert));
        header["x5t"] = json!(URL_SAFE_NO_PAD.encode(sha1));
    }
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let key = RsaKeyPair::from_pkcs8(&pem_der(key_pem)).expect("RSA key");
    let mut sig = vec![0; key.public().modulus_len()];
    key.sign(
        &RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        input.as_bytes(),
        &mut sig,
    )
    .expect("sign");
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig))
}

/// small.yaml with its app also holding the fixture certificate and a federated credential.
fn start() -> Fake {
    let dir = tempfile::tempdir().expect("tempdir");
    let cert = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/app-cert.crt");
    let text = std::fs::read_to_string(small_topology()).expect("small.yaml");
    let secret_line = "    secret: fake-secret-not-for-production\n";
    assert!(text.contains(secret_line), "small.yaml changed shape");
    let extended = text.replace(
        secret_line,
        &format!(
            "{secret_line}    certificatePath: {}\n    federatedCredentials:\n      - issuer: {ISSUER}\n        subject: {SUBJECT}\n",
            cert.display()
        ),
    );
    let topology = dir.path().join("topology.yaml");
    std::fs::write(&topology, extended).expect("write topology");
    Fake::start_in(dir, &topology, &[])
}

impl Fake {
    /// Posts a token form to the v2 (or v1) endpoint of `tenant`.
    async fn token_form(&self, tenant: &str, v1: bool, pairs: &[(&str, &str)]) -> (u16, Value) {
        let path = if v1 {
            "oauth2/token"
        } else {
            "oauth2/v2.0/token"
        };
        let response = self
            .http
            .post(self.url(&format!("/{tenant}/{path}")))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(pairs))
            .send()
            .await
            .expect("token request");
        let status = response.status().as_u16();
        (status, response.json().await.expect("token JSON"))
    }

    /// Client-assertion grant with `assertion`.
    async fn assert_with(&self, assertion: &str) -> (u16, Value) {
        self.token_form(
            &self.tenant.clone(),
            false,
            &[
                ("grant_type", "client_credentials"),
                ("client_id", CLIENT_ID),
                ("client_assertion_type", JWT_BEARER),
                ("client_assertion", assertion),
                ("scope", ARM_SCOPE),
            ],
        )
        .await
    }

    /// The issued token lists the node resource group's resources.
    async fn opens_arm(&self, token: &str) -> bool {
        let response = self
            .arm(
                token,
                Method::GET,
                &format!(
                    "/subscriptions/{}/resourceGroups?api-version=2021-04-01",
                    self.subscription
                ),
                None,
            )
            .await;
        response.status() == 200
    }
}

/// The AADSTS number of a refusal, checked against the error field.
fn refusal(reply: &(u16, Value)) -> (u16, &str, i64) {
    let (status, body) = reply;
    (
        *status,
        body["error"].as_str().unwrap_or_default(),
        body["error_codes"][0].as_i64().unwrap_or_default(),
    )
}

fn certificate_claims(aud: &str, exp: i64) -> Value {
    json!({"iss": CLIENT_ID, "sub": CLIENT_ID, "aud": aud, "jti": "3f1b", "nbf": now() - 60, "exp": exp})
}

#[tokio::test]
async fn certificate_assertion_is_verified_against_the_registered_certificate() {
    let fake = start();
    let (key, cert) = (fixture("app-cert.pk8.pem"), fixture("app-cert.crt"));
    let aud = fake.url(&format!("/{}/oauth2/v2.0/token", fake.tenant));
    let good = sign(&key, Some(&cert), &certificate_claims(&aud, now() + 600));
    let (status, body) = fake.assert_with(&good).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["token_type"], "Bearer");
    let token = body["access_token"].as_str().expect("access_token");
    assert!(fake.opens_arm(token).await, "the token opens ARM");

    // Signed by a key the app never registered.
    let other = sign(
        &fixture("other-cert.pk8.pem"),
        None,
        &certificate_claims(&aud, now() + 600),
    );
    assert_eq!(
        refusal(&fake.assert_with(&other).await),
        (401, "invalid_client", 700027)
    );
    // Addressed to another token endpoint.
    let wrong_aud = sign(
        &key,
        Some(&cert),
        &certificate_claims(
            "https://login.example.test/other/oauth2/v2.0/token",
            now() + 600,
        ),
    );
    assert_eq!(
        refusal(&fake.assert_with(&wrong_aud).await),
        (401, "invalid_client", 700027)
    );
    // Expired beyond the five-minute skew.
    let expired = sign(&key, Some(&cert), &certificate_claims(&aud, now() - 3600));
    assert_eq!(
        refusal(&fake.assert_with(&expired).await),
        (401, "invalid_client", 700024)
    );
    // Not a JWT at all.
    assert_eq!(
        refusal(&fake.assert_with("not-a-jwt").await),
        (400, "invalid_client", 50027)
    );
}

#[tokio::test]
async fn federated_assertion_needs_a_matching_record() {
    let fake = start();
    // The cluster's service-account token: its signer is the cluster issuer, not a registered certificate.
    let sa_token = |sub: &str, aud: &str| {
        sign(
            &fixture("other-cert.pk8.pem"),
            None,
            &json!({"iss": ISSUER, "sub": sub, "aud": [aud], "nbf": now() - 60, "exp": now() + 3600}),
        )
    };
    let (status, body) = fake
        .assert_with(&sa_token(SUBJECT, "api://AzureADTokenExchange"))
        .await;
    assert_eq!(status, 200, "{body}");
    let token = body["access_token"].as_str().expect("access_token");
    assert!(fake.opens_arm(token).await, "the token opens ARM");

    let other_sa = sa_token(
        "system:serviceaccount:default:intruder",
        "api://AzureADTokenExchange",
    );
    assert_eq!(
        refusal(&fake.assert_with(&other_sa).await),
        (400, "invalid_request", 70021)
    );
    let wrong_aud = sa_token(SUBJECT, "api://SomethingElse");
    assert_eq!(
        refusal(&fake.assert_with(&wrong_aud).await),
        (400, "invalid_request", 700212)
    );
    // The assertion type is required with an assertion.
    let reply = fake
        .token_form(
            &fake.tenant.clone(),
            false,
            &[
                ("grant_type", "client_credentials"),
                ("client_id", CLIENT_ID),
                (
                    "client_assertion",
                    &sa_token(SUBJECT, "api://AzureADTokenExchange"),
                ),
                ("scope", ARM_SCOPE),
            ],
        )
        .await;
    assert_eq!(refusal(&reply), (400, "invalid_request", 900144));
}

#[tokio::test]
async fn v1_endpoint_and_unknown_tenants() {
    let fake = start();
    let (status, body) = fake
        .token_form(
            &fake.tenant.clone(),
            true,
            &[
                ("grant_type", "client_credentials"),
                ("client_id", CLIENT_ID),
                ("client_secret", crate::support::CLIENT_SECRET),
                ("resource", "https://management.azure.com/"),
            ],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["resource"], "https://management.azure.com/");
    assert!(
        body["expires_in"].is_string() && body["expires_on"].is_string(),
        "v1 answers numbers as strings: {body}"
    );
    assert!(fake.opens_arm(body["access_token"].as_str().unwrap()).await);

    let reply = fake
        .token_form(
            "00000000-0000-0000-0000-00000000dead",
            false,
            &[
                ("grant_type", "client_credentials"),
                ("client_id", CLIENT_ID),
                ("client_secret", crate::support::CLIENT_SECRET),
                ("scope", ARM_SCOPE),
            ],
        )
        .await;
    assert_eq!(refusal(&reply), (400, "invalid_request", 90002));
    assert!(
        !reply.1.to_string().contains(crate::support::CLIENT_SECRET),
        "a refusal never echoes the secret: {}",
        reply.1
    );
}

/// The scope MSAL Go (under azidentity, so under a production CCM) sends on every client-credentials grant.
fn msal_scope(resource_scope: &str) -> String {
    format!("{resource_scope} openid offline_access profile")
}

#[tokio::test]
async fn reserved_oidc_scopes_are_ignored_for_every_client_credential() {
    let fake = start();
    let (key, cert) = (fixture("app-cert.pk8.pem"), fixture("app-cert.crt"));
    let aud = fake.url(&format!("/{}/oauth2/v2.0/token", fake.tenant));
    let certificate = sign(&key, Some(&cert), &certificate_claims(&aud, now() + 600));
    let federated = sign(
        &fixture("other-cert.pk8.pem"),
        None,
        &json!({"iss": ISSUER, "sub": SUBJECT, "aud": ["api://AzureADTokenExchange"], "nbf": now() - 60, "exp": now() + 3600}),
    );
    let scope = msal_scope(ARM_SCOPE);
    let credentials: [(&str, Vec<(&str, &str)>); 3] = [
        (
            "secret",
            vec![("client_secret", crate::support::CLIENT_SECRET)],
        ),
        (
            "certificate",
            vec![
                ("client_assertion_type", JWT_BEARER),
                ("client_assertion", &certificate),
            ],
        ),
        (
            "federated",
            vec![
                ("client_assertion_type", JWT_BEARER),
                ("client_assertion", &federated),
            ],
        ),
    ];
    for (name, credential) in credentials {
        let mut pairs = vec![
            ("grant_type", "client_credentials"),
            ("client_id", CLIENT_ID),
            ("client_info", "1"),
            ("scope", scope.as_str()),
        ];
        pairs.extend(credential);
        let (status, body) = fake.token_form(&fake.tenant.clone(), false, &pairs).await;
        assert_eq!(status, 200, "{name}: {body}");
        let token = body["access_token"].as_str().expect("access_token");
        assert!(fake.opens_arm(token).await, "{name}: the token opens ARM");
    }
}

#[tokio::test]
async fn malformed_client_credential_scopes_keep_their_refusals() {
    let fake = start();
    let with_scope = |scope: String| {
        let fake = &fake;
        async move {
            fake.token_form(
                &fake.tenant.clone(),
                false,
                &[
                    ("grant_type", "client_credentials"),
                    ("client_id", CLIENT_ID),
                    ("client_secret", crate::support::CLIENT_SECRET),
                    ("scope", &scope),
                ],
            )
            .await
        }
    };
    let two_resources = format!("{ARM_SCOPE} https://storage.azure.com/.default");
    assert_eq!(
        refusal(&with_scope(two_resources.clone()).await),
        (400, "invalid_scope", 70011)
    );
    assert_eq!(
        refusal(&with_scope(msal_scope(&two_resources)).await),
        (400, "invalid_scope", 70011)
    );
    assert_eq!(
        refusal(&with_scope(msal_scope("https://graph.microsoft.com/User.Read.All")).await),
        (400, "invalid_scope", 1002012)
    );
    assert_eq!(
        refusal(&with_scope("openid offline_access profile".into()).await),
        (400, "invalid_scope", 1002012)
    );
}
