//! Text to document: JSON or YAML (upstream reads both through `sigs.k8s.io/yaml`), with errors
//! that name the source and a position but never quote the document (it holds secrets).

use serde_json::Value;

use super::document::{DecodeFailure, Decoded, decode_value};
use super::error::ConfigError;
use super::origin::Origin;

/// Parses JSON (when the text starts with `{`) or YAML, then decodes every known key.
pub fn parse_document(text: &str, origin: &Origin) -> Result<Decoded, ConfigError> {
    let value = parse_value(text, origin)?;
    decode_value(value).map_err(|failure| match failure {
        DecodeFailure::NotAnObject(found) => ConfigError::NotAnObject {
            origin: Box::new(origin.clone()),
            found,
        },
        DecodeFailure::Value(error) => ConfigError::InvalidValue {
            origin: Box::new(origin.clone()),
            key: error.key,
            value: error.value,
            accepted: error.accepted,
        },
    })
}

/// Parses the text; a document that is `null` (empty, comments only, `~`) is an empty map, as Go's
/// decoder leaves the struct untouched for `null`.
fn parse_value(text: &str, origin: &Origin) -> Result<Value, ConfigError> {
    match parse_any(text, origin)? {
        Value::Null => Ok(Value::Object(serde_json::Map::new())),
        value => Ok(value),
    }
}

fn parse_any(text: &str, origin: &Origin) -> Result<Value, ConfigError> {
    let syntax = |message: String| ConfigError::Syntax {
        origin: Box::new(origin.clone()),
        message,
    };
    if text.trim().is_empty() {
        // An empty document decodes to no keys, as in Go.
        return Ok(Value::Object(serde_json::Map::new()));
    }
    if text.trim_start().starts_with('{') {
        // serde_json's messages carry only a category and a position.
        return serde_json::from_str(text).map_err(|error| syntax(format!("JSON: {error}")));
    }
    serde_saphyr::from_str::<Value>(text).map_err(|error| {
        syntax(match error.location() {
            Some(at) => format!("YAML error at line {} column {}", at.line(), at.column()),
            None => "YAML error".to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin {
        Origin::File("azure.json".into())
    }

    #[test]
    fn json_and_yaml_give_the_same_document() {
        let json = parse_document(
            r#"{"cloud": "AzurePublicCloud", "cloudProviderRatelimitQPS": 6, "useInstanceMetadata": true}"#,
            &origin(),
        )
        .expect("json");
        let yaml = parse_document(
            "cloud: AzurePublicCloud\ncloudProviderRatelimitQPS: 6\nuseInstanceMetadata: true\n",
            &origin(),
        )
        .expect("yaml");
        assert_eq!(json, yaml);
    }

    #[test]
    fn syntax_errors_do_not_quote_the_document() {
        let err = parse_document(r#"{"aadClientSecret": "s3cr3t-value" "#, &origin())
            .expect_err("unterminated");
        assert!(matches!(err, ConfigError::Syntax { .. }));
        assert!(!err.to_string().contains("s3cr3t"), "{err}");
        let err = parse_document("aadClientSecret: [s3cr3t-value\n", &origin())
            .expect_err("unterminated flow sequence");
        assert!(!err.to_string().contains("s3cr3t"), "{err}");
    }

    #[test]
    fn yaml_1_1_booleans_are_booleans_as_in_go_yaml_v2() {
        let decoded = parse_document(
            "useInstanceMetadata: yes\ncloudProviderBackoff: off\n",
            &origin(),
        )
        .expect("yaml 1.1 booleans");
        assert_eq!(decoded.document.use_instance_metadata, Some(true));
        assert_eq!(decoded.document.cloud_provider_backoff, Some(false));
    }

    #[test]
    fn empty_text_is_an_empty_document() {
        for text in ["  \n", "# only a comment\n", "---\n", "null", "~\n"] {
            let decoded = parse_document(text, &origin()).expect("an empty document is fine");
            assert!(decoded.unknown_keys.is_empty(), "{text:?}");
        }
    }
}
