//! Which document wins when both the file and the Secret `kube-system/azure-cloud-provider`
//! (key `cloud-config`) exist: upstream's configloader precedence, as a pure function.

use super::document::{AzureJson, Decoded};
use super::enums::CloudConfigType;
use super::error::ConfigError;
use super::origin::Origin;
use super::text::parse_document;

/// One source's text, with where it came from. `Debug` prints the origin and the length only:
/// the text holds secrets.
#[derive(Clone, Copy)]
pub struct SourceText<'a> {
    /// The source, printed in errors.
    pub origin: &'a Origin,
    /// Its JSON or YAML content.
    pub text: &'a str,
}

impl std::fmt::Debug for SourceText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceText")
            .field("origin", self.origin)
            .field("text_bytes", &self.text.len())
            .finish()
    }
}

/// The selected (possibly merged) document, its origin and every unknown key seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// The document to resolve.
    pub document: AzureJson,
    /// Where it came from (a merge names both sources).
    pub origin: Origin,
    /// Unknown keys from the sources that were used.
    pub unknown_keys: Vec<String>,
}

/// Applies `cloudConfigType` (read from the file; default `merge`): `file` = the file only,
/// `secret` = the Secret replaces the file, `merge` = the Secret's keys overlay the file's.
/// With one source, that source is used whatever its type.
pub fn select(
    file: Option<SourceText<'_>>,
    secret: Option<SourceText<'_>>,
) -> Result<Selected, ConfigError> {
    let Some(file) = file else {
        let secret = secret.ok_or(ConfigError::NoSource)?;
        let decoded = parse_document(secret.text, secret.origin)?;
        return Ok(selected(decoded, secret.origin.clone()));
    };
    let file_doc = parse_document(file.text, file.origin)?;
    let mode = file_doc
        .document
        .cloud_config_type
        .unwrap_or(CloudConfigType::Merge);
    let secret = match secret {
        Some(secret) if mode != CloudConfigType::File => secret,
        _ => return Ok(selected(file_doc, file.origin.clone())),
    };
    let secret_doc = parse_document(secret.text, secret.origin)?;
    if mode == CloudConfigType::Secret {
        return Ok(selected(secret_doc, secret.origin.clone()));
    }
    let mut unknown_keys = file_doc.unknown_keys;
    unknown_keys.extend(secret_doc.unknown_keys);
    Ok(Selected {
        document: file_doc.document.overlay(secret_doc.document),
        origin: Origin::Merged(
            Box::new(file.origin.clone()),
            Box::new(secret.origin.clone()),
        ),
        unknown_keys,
    })
}

fn selected(decoded: Decoded, origin: Origin) -> Selected {
    Selected {
        document: decoded.document,
        origin,
        unknown_keys: decoded.unknown_keys,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_origin() -> Origin {
        Origin::File("/etc/kubernetes/azure.json".into())
    }

    fn run(file: Option<&str>, secret: Option<&str>) -> Result<Selected, ConfigError> {
        let file_origin = file_origin();
        let secret_origin = Origin::default_secret();
        select(
            file.map(|text| SourceText {
                origin: &file_origin,
                text,
            }),
            secret.map(|text| SourceText {
                origin: &secret_origin,
                text,
            }),
        )
    }

    #[test]
    fn merge_is_the_default_and_overlays_only_the_secret_keys() {
        let out = run(
            Some(r#"{"location": "westeurope", "vmType": "standard"}"#),
            Some(r#"{"vmType": "vmss", "extra": 1}"#),
        )
        .expect("merges");
        assert_eq!(out.document.location.as_deref(), Some("westeurope"));
        assert_eq!(out.document.vm_type.map(|v| v.as_str()), Some("vmss"));
        assert_eq!(out.unknown_keys, vec!["extra".to_string()]);
        assert!(matches!(out.origin, Origin::Merged(..)));
    }

    #[test]
    fn file_type_ignores_the_secret_and_secret_type_replaces_the_file() {
        let out = run(
            Some(r#"{"cloudConfigType": "file", "location": "a"}"#),
            Some(r#"{"location": "b"}"#),
        )
        .expect("file");
        assert_eq!(out.document.location.as_deref(), Some("a"));
        assert_eq!(out.origin, file_origin());
        let out = run(
            Some(r#"{"cloudConfigType": "secret", "location": "a", "vmType": "standard"}"#),
            Some(r#"{"location": "b"}"#),
        )
        .expect("secret");
        assert_eq!(out.document.location.as_deref(), Some("b"));
        assert_eq!(out.document.vm_type, None);
        assert_eq!(out.origin, Origin::default_secret());
    }

    #[test]
    fn one_source_is_used_as_is_and_none_is_an_error() {
        let out = run(None, Some(r#"{"location": "b"}"#)).expect("secret only");
        assert_eq!(out.origin, Origin::default_secret());
        assert_eq!(run(None, None), Err(ConfigError::NoSource));
    }

    #[test]
    fn an_invalid_secret_value_names_the_secret() {
        let err = run(Some("{}"), Some(r#"{"vmType": 3}"#)).expect_err("bad vmType");
        assert!(
            err.to_string()
                .starts_with("cloud config Secret kube-system/azure-cloud-provider key cloud-config: key `vmType`"),
            "{err}"
        );
    }
}
