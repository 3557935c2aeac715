//! Verifies signed client assertions: certificate-credential JWTs (checked against the app's
//! registered certificates, matched by `x5t` / `x5t#S256`) and service-account tokens presented for
//! workload-identity federation (checked against the issuer keys the credential carries).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::digest;
use ring::signature::{self, UnparsedPublicKey, VerificationAlgorithm};
use x509_parser::prelude::FromDer;
use x509_parser::x509::SubjectPublicKeyInfo;

use super::jwt::Jwt;

/// Why an assertion's signature could not be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssertionError {
    /// `alg` is not one Entra accepts for assertions.
    #[error(
        "unsupported assertion algorithm '{0}' (accepted: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384)"
    )]
    UnsupportedAlgorithm(String),
    /// A registered certificate or key cannot be parsed.
    #[error("registered key is not a PEM certificate or public key: {0}")]
    BadKey(String),
    /// No registered key verifies the signature.
    #[error("signature does not verify with any registered key")]
    BadSignature,
}

/// A public key read from a PEM certificate or SPKI block, with the certificate's thumbprints.
#[derive(Debug, Clone)]
pub struct PublicKey {
    /// Raw `subjectPublicKey` bits (PKCS#1 for RSA, the point for EC), what ring verifies with.
    key: Vec<u8>,
    /// `base64url(SHA-1(cert DER))`, the `x5t` header value (certificates only).
    x5t: Option<String>,
    /// `base64url(SHA-256(cert DER))`, the `x5t#S256` header value (certificates only).
    x5t_s256: Option<String>,
}

impl PublicKey {
    /// Parses a `CERTIFICATE` or `PUBLIC KEY` PEM block.
    pub fn from_pem(pem: &str) -> Result<Self, AssertionError> {
        let (_, block) = x509_parser::pem::parse_x509_pem(pem.as_bytes())
            .map_err(|e| AssertionError::BadKey(e.to_string()))?;
        match block.label.as_str() {
            "CERTIFICATE" => {
                let cert = block
                    .parse_x509()
                    .map_err(|e| AssertionError::BadKey(e.to_string()))?;
                let spki = cert.public_key();
                Ok(Self {
                    key: spki.subject_public_key.data.to_vec(),
                    x5t: Some(thumbprint(
                        &digest::SHA1_FOR_LEGACY_USE_ONLY,
                        &block.contents,
                    )),
                    x5t_s256: Some(thumbprint(&digest::SHA256, &block.contents)),
                })
            }
            "PUBLIC KEY" => {
                let (_, spki) = SubjectPublicKeyInfo::from_der(&block.contents)
                    .map_err(|e| AssertionError::BadKey(e.to_string()))?;
                Ok(Self {
                    key: spki.subject_public_key.data.to_vec(),
                    x5t: None,
                    x5t_s256: None,
                })
            }
            other => Err(AssertionError::BadKey(format!("PEM label '{other}'"))),
        }
    }

    /// Whether the token's `x5t`/`x5t#S256` header (if any) names this certificate.
    fn named_by(&self, token: &Jwt<'_>) -> bool {
        match (token.header_str("x5t#S256"), token.header_str("x5t")) {
            (Some(s256), _) => self.x5t_s256.as_deref() == Some(s256),
            (None, Some(sha1)) => self.x5t.as_deref() == Some(sha1),
            (None, None) => true,
        }
    }
}

fn thumbprint(algorithm: &'static digest::Algorithm, der: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(digest::digest(algorithm, der))
}

fn algorithm(alg: &str) -> Result<&'static dyn VerificationAlgorithm, AssertionError> {
    Ok(match alg {
        "RS256" => &signature::RSA_PKCS1_2048_8192_SHA256,
        "RS384" => &signature::RSA_PKCS1_2048_8192_SHA384,
        "RS512" => &signature::RSA_PKCS1_2048_8192_SHA512,
        "PS256" => &signature::RSA_PSS_2048_8192_SHA256,
        "PS384" => &signature::RSA_PSS_2048_8192_SHA384,
        "PS512" => &signature::RSA_PSS_2048_8192_SHA512,
        "ES256" => &signature::ECDSA_P256_SHA256_FIXED,
        "ES384" => &signature::ECDSA_P384_SHA384_FIXED,
        other => return Err(AssertionError::UnsupportedAlgorithm(other.to_string())),
    })
}

/// Verifies `token`'s signature with one of `pems` (certificates named by `x5t` are preferred).
pub fn verify_signature(token: &Jwt<'_>, pems: &[String]) -> Result<(), AssertionError> {
    let verifier = algorithm(token.header_str("alg").unwrap_or("none"))?;
    let keys = pems
        .iter()
        .map(|p| PublicKey::from_pem(p))
        .collect::<Result<Vec<_>, _>>()?;
    let verified = keys.iter().filter(|k| k.named_by(token)).any(|k| {
        UnparsedPublicKey::new(verifier, &k.key)
            .verify(token.signing_input.as_bytes(), &token.signature)
            .is_ok()
    });
    if verified {
        Ok(())
    } else {
        Err(AssertionError::BadSignature)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::entra::jwt;
    use serde_json::{Value, json};

    pub(crate) const APP_CERT: &str = include_str!("../../tests/fixtures/app-cert.crt");
    pub(crate) const APP_KEY: &str = include_str!("../../tests/fixtures/app-cert.pk8.pem");
    pub(crate) const OTHER_CERT: &str = include_str!("../../tests/fixtures/other-cert.crt");
    pub(crate) const OTHER_KEY: &str = include_str!("../../tests/fixtures/other-cert.pk8.pem");

    /// Signs an RS256 JWT with a PKCS#8 PEM key, adding `x5t` of `cert` when given.
    pub(crate) fn sign_rs256(key_pem: &str, cert: Option<&str>, claims: &Value) -> String {
        let (_, block) = x509_parser::pem::parse_x509_pem(key_pem.as_bytes()).unwrap();
        let key = signature::RsaKeyPair::from_pkcs8(&block.contents).unwrap();
        let mut header = json!({"alg": "RS256", "typ": "JWT"});
        if let Some(cert) = cert {
            header["x5t"] = json!(PublicKey::from_pem(cert).unwrap().x5t.unwrap());
        }
        let input = jwt::signing_input(&header, claims);
        let mut sig = vec![0; key.public().modulus_len()];
        key.sign(
            &signature::RSA_PKCS1_SHA256,
            &ring::rand::SystemRandom::new(),
            input.as_bytes(),
            &mut sig,
        )
        .unwrap();
        jwt::assemble(&input, &sig)
    }

    #[test]
    fn accepts_the_registered_certificate_and_rejects_another() {
        let good = sign_rs256(APP_KEY, Some(APP_CERT), &json!({"iss": "a"}));
        let token = Jwt::parse(&good).unwrap();
        assert_eq!(
            verify_signature(&token, &[OTHER_CERT.to_string(), APP_CERT.to_string()]),
            Ok(())
        );
        let bad = sign_rs256(OTHER_KEY, None, &json!({"iss": "a"}));
        let token = Jwt::parse(&bad).unwrap();
        assert_eq!(
            verify_signature(&token, &[APP_CERT.to_string()]),
            Err(AssertionError::BadSignature)
        );
    }

    #[test]
    fn x5t_selects_the_certificate() {
        let named_other = sign_rs256(APP_KEY, Some(OTHER_CERT), &json!({}));
        let token = Jwt::parse(&named_other).unwrap();
        assert_eq!(
            verify_signature(&token, &[APP_CERT.to_string(), OTHER_CERT.to_string()]),
            Err(AssertionError::BadSignature)
        );
    }

    #[test]
    fn unsupported_algorithms_and_bad_keys_are_named() {
        let input = jwt::signing_input(&json!({"alg": "HS256"}), &json!({}));
        let token_text = jwt::assemble(&input, b"x");
        let token = Jwt::parse(&token_text).unwrap();
        assert!(matches!(
            verify_signature(&token, &[APP_CERT.to_string()]),
            Err(AssertionError::UnsupportedAlgorithm(_))
        ));
        let rs = sign_rs256(APP_KEY, None, &json!({}));
        let token = Jwt::parse(&rs).unwrap();
        assert!(matches!(
            verify_signature(&token, &["junk".to_string()]),
            Err(AssertionError::BadKey(_))
        ));
    }
}
