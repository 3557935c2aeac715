//! Compact JWS (JWT) encoding and splitting: the token format Entra ID issues and the format of the
//! client assertions apps send back to it.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// Why a compact JWT could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    /// Not three dot-separated base64url segments.
    #[error("the token is not a compact JWT (expected three base64url segments)")]
    Shape,
    /// A segment is not valid base64url.
    #[error("the token's {0} is not valid base64url")]
    Base64(&'static str),
    /// Header or claims are not a JSON object.
    #[error("the token's {0} is not a JSON object")]
    Json(&'static str),
}

/// A JWT split into its parts; the signature is not checked here.
#[derive(Debug, Clone)]
pub struct Jwt<'a> {
    /// Decoded JOSE header.
    pub header: Value,
    /// Decoded claims.
    pub claims: Value,
    /// `base64url(header) "." base64url(claims)`: the bytes the signature covers.
    pub signing_input: &'a str,
    /// Raw signature bytes.
    pub signature: Vec<u8>,
}

impl<'a> Jwt<'a> {
    /// Splits and decodes `token` without verifying it.
    pub fn parse(token: &'a str) -> Result<Self, JwtError> {
        let mut parts = token.split('.');
        let (Some(h), Some(c), Some(s), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(JwtError::Shape);
        };
        let header = decode_object(h, "header")?;
        let claims = decode_object(c, "claims")?;
        let signature = URL_SAFE_NO_PAD
            .decode(s)
            .map_err(|_| JwtError::Base64("signature"))?;
        let signing_input = &token[..h.len() + 1 + c.len()];
        Ok(Self {
            header,
            claims,
            signing_input,
            signature,
        })
    }

    /// String header parameter (`alg`, `kid`, `x5t`...).
    pub fn header_str(&self, name: &str) -> Option<&str> {
        self.header.get(name).and_then(Value::as_str)
    }

    /// String claim (`iss`, `sub`, `aud`...).
    pub fn claim_str(&self, name: &str) -> Option<&str> {
        self.claims.get(name).and_then(Value::as_str)
    }

    /// Numeric-date claim (`exp`, `nbf`, `iat`) in unix seconds.
    pub fn claim_time(&self, name: &str) -> Option<i64> {
        let value = self.claims.get(name)?;
        value.as_i64().or_else(|| value.as_f64().map(|f| f as i64))
    }

    /// `aud` as a list (JWT allows a string or an array).
    pub fn audiences(&self) -> Vec<&str> {
        match self.claims.get("aud") {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }
}

/// `base64url(json(header)) "." base64url(json(claims))`, ready to be signed.
pub fn signing_input(header: &Value, claims: &Value) -> String {
    format!("{}.{}", encode_json(header), encode_json(claims))
}

/// Appends the base64url signature to a signing input.
pub fn assemble(signing_input: &str, signature: &[u8]) -> String {
    format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature))
}

fn encode_json(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

fn decode_object(segment: &str, what: &'static str) -> Result<Value, JwtError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(segment)
        .map_err(|_| JwtError::Base64(what))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|_| JwtError::Json(what))?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(JwtError::Json(what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn round_trips_header_claims_and_signature() {
        let input = signing_input(&json!({"alg":"HS256"}), &json!({"aud":["a","b"],"exp":5}));
        let token = assemble(&input, b"sig");
        let jwt = Jwt::parse(&token).unwrap();
        assert_eq!(jwt.header_str("alg"), Some("HS256"));
        assert_eq!(jwt.audiences(), vec!["a", "b"]);
        assert_eq!(jwt.claim_time("exp"), Some(5));
        assert_eq!(jwt.signing_input, input);
        assert_eq!(jwt.signature, b"sig");
    }

    #[test]
    fn rejects_wrong_shapes() {
        assert_eq!(Jwt::parse("a.b").unwrap_err(), JwtError::Shape);
        assert_eq!(Jwt::parse("a.b.c.d").unwrap_err(), JwtError::Shape);
        assert_eq!(
            Jwt::parse("!!.e30.").unwrap_err(),
            JwtError::Base64("header")
        );
        let not_object = format!("{}.e30.", URL_SAFE_NO_PAD.encode("[1]"));
        assert_eq!(
            Jwt::parse(&not_object).unwrap_err(),
            JwtError::Json("header")
        );
    }

    proptest! {
        #[test]
        fn parse_never_panics(text in ".{0,200}") {
            let _ = Jwt::parse(&text);
        }
    }
}
