//! Whole-pipeline tests: realistic azure.json files snapshotted after defaults, error messages,
//! redaction, and property tests over random documents.

mod errors;
mod properties;
mod realistic;
mod redaction;

use std::collections::BTreeMap;

use super::{ConfigError, Inputs, Loaded, Origin, SourceText, load};

/// Loads one file's text with the given environment.
pub(super) fn load_file(text: &str, env: &[(&str, &str)]) -> Result<Loaded, ConfigError> {
    let origin = Origin::File("/etc/kubernetes/azure.json".into());
    load(&Inputs {
        file: Some(SourceText {
            origin: &origin,
            text,
        }),
        secret: None,
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
    })
}
