//! The certificate client assertion Entra ID accepts: an RS256 JWT naming the certificate by
//! `x5t` (and carrying the chain as `x5c` when asked), for `aud` = the token endpoint.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::RSA_PKCS1_SHA256;
use serde_json::json;

use super::certificate::Certificate;

/// How long an assertion is valid (Entra accepts up to a few minutes of skew either side).
const LIFETIME_SECS: u64 = 600;

/// Signs a fresh assertion for `client_id` to present at `token_endpoint`.
pub fn sign(
    certificate: &Certificate,
    client_id: &str,
    token_endpoint: &str,
    send_chain: bool,
) -> Result<String, String> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .as_secs();
    let rng = SystemRandom::new();
    let mut jti = [0u8; 16];
    rng.fill(&mut jti)
        .map_err(|_| "no randomness".to_string())?;
    let mut header = json!({"alg": "RS256", "typ": "JWT", "x5t": certificate.x5t()});
    if send_chain {
        header["x5c"] = json!(
            certificate
                .chain()
                .iter()
                .map(|der| STANDARD.encode(der))
                .collect::<Vec<_>>()
        );
    }
    let claims = json!({
        "aud": token_endpoint,
        "iss": client_id,
        "sub": client_id,
        "jti": jti.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        "nbf": now,
        "iat": now,
        "exp": now + LIFETIME_SECS,
    });
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let key = certificate.key();
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(&RSA_PKCS1_SHA256, &rng, input.as_bytes(), &mut signature)
        .map_err(|_| "RSA signing failed".to_string())?;
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// The certificate credential's assertion source: a fresh signed JWT per token request.
#[derive(Debug)]
pub struct CertificateAssertion {
    /// The loaded certificate and key.
    pub certificate: std::sync::Arc<Certificate>,
    /// `aadClientId`.
    pub client_id: String,
    /// `<authority>/<tenant>/oauth2/v2.0/token`, the assertion's `aud`.
    pub token_endpoint: String,
    /// Whether to send the chain as `x5c`.
    pub send_chain: bool,
}

#[async_trait::async_trait]
impl azure_identity::ClientAssertion for CertificateAssertion {
    async fn secret(
        &self,
        _: Option<azure_core::http::ClientMethodOptions<'_>>,
    ) -> azure_core::Result<String> {
        sign(
            &self.certificate,
            &self.client_id,
            &self.token_endpoint,
            self.send_chain,
        )
        .map_err(|reason| {
            azure_core::Error::with_message(
                azure_core::error::ErrorKind::Credential,
                format!("aadClientCertPath: cannot sign the client assertion: {reason}"),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::digest::{SHA1_FOR_LEGACY_USE_ONLY, digest};
    use ring::signature::{RSA_PKCS1_2048_8192_SHA256, UnparsedPublicKey};
    use serde_json::Value;

    const CERT: &str = include_str!("../../../../fakes/tests/fixtures/app-cert.crt");
    const KEY: &str = include_str!("../../../../fakes/tests/fixtures/app-cert.pk8.pem");

    fn certificate() -> Certificate {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("client.pem");
        std::fs::write(&path, format!("{CERT}{KEY}")).expect("write");
        Certificate::load(&path, "").expect("PEM certificate")
    }

    fn part(jwt: &str, index: usize) -> Value {
        let text = jwt.split('.').nth(index).expect("part");
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).expect("base64url")).expect("JSON")
    }

    #[test]
    fn assertion_names_the_certificate_carries_the_chain_and_verifies() {
        let certificate = certificate();
        let endpoint = "https://login.example/t/oauth2/v2.0/token";
        let jwt = sign(&certificate, "client", endpoint, true).expect("signs");
        let header = part(&jwt, 0);
        let leaf = &certificate.chain()[0];
        assert_eq!(header["alg"], "RS256");
        assert_eq!(
            header["x5t"],
            URL_SAFE_NO_PAD.encode(digest(&SHA1_FOR_LEGACY_USE_ONLY, leaf))
        );
        assert_eq!(header["x5c"][0], STANDARD.encode(leaf));
        let claims = part(&jwt, 1);
        assert_eq!(claims["aud"], endpoint);
        assert_eq!(claims["iss"], "client");
        assert_eq!(claims["sub"], "client");
        assert_eq!(
            claims["exp"].as_u64().expect("exp") - claims["nbf"].as_u64().expect("nbf"),
            LIFETIME_SECS
        );
        let (input, signature) = jwt.rsplit_once('.').expect("three parts");
        let public = certificate.key().public().as_ref().to_vec();
        UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, public)
            .verify(
                input.as_bytes(),
                &URL_SAFE_NO_PAD.decode(signature).expect("signature"),
            )
            .expect("signature verifies");
        let without_chain = sign(&certificate, "client", endpoint, false).expect("signs");
        assert!(part(&without_chain, 0).get("x5c").is_none());
        assert!(!format!("{certificate:?}").contains("PRIVATE"));
    }
}
