//! Decoding one JSON value per key, the way upstream's decoder does (Go `encoding/json` behind
//! `sigs.k8s.io/yaml`): keys match case-insensitively, `null` leaves a key unset, and a value of
//! the wrong type is an error naming the key instead of a silent zero.

use std::collections::BTreeMap;

use ipnet::IpNet;
use serde_json::{Map, Value};

use super::secret::{REDACTED, SecretString};

/// A value that failed to decode: the dotted key, the value as written and what is accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// Canonical dotted key.
    pub key: String,
    /// Rendered value (redacted for secrets).
    pub value: String,
    /// Accepted values or type.
    pub accepted: String,
}

/// Collects the keys of a document that match nothing we know.
#[derive(Debug, Default)]
pub struct Unknown {
    /// Dotted key paths, as written.
    pub keys: Vec<String>,
}

/// A type that can be read from one JSON value of a cloud config document.
pub trait Decode: Sized {
    /// Decodes `value` found at dotted key `key`, recording unknown nested keys in `unknown`.
    fn decode(value: Value, key: &str, unknown: &mut Unknown) -> Result<Self, DecodeError>;

    /// True when `value` means "not set" (Go leaves the field at its zero value): `null`, and for
    /// keys with a closed value set also the empty string.
    fn is_unset(value: &Value) -> bool {
        value.is_null()
    }
}

/// Renders a value for an error message, shortened so a huge value cannot flood a log line.
pub fn render(value: &Value) -> String {
    const LIMIT: usize = 80;
    let text = value.to_string();
    if text.chars().count() <= LIMIT {
        text
    } else {
        let cut: String = text.chars().take(LIMIT).collect();
        format!("{cut}…")
    }
}

fn mismatch(value: &Value, key: &str, accepted: &str) -> DecodeError {
    DecodeError {
        key: key.to_string(),
        value: render(value),
        accepted: accepted.to_string(),
    }
}

/// JSON type name of a value, for messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

impl Decode for bool {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        value
            .as_bool()
            .ok_or_else(|| mismatch(&value, key, "true or false"))
    }
}

impl Decode for String {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        match value {
            Value::String(text) => Ok(text),
            other => Err(mismatch(&other, key, "a string")),
        }
    }
}

impl Decode for SecretString {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        match value {
            Value::String(text) => Ok(SecretString::new(text)),
            _ => Err(DecodeError {
                key: key.to_string(),
                value: REDACTED.to_string(),
                accepted: "a string".to_string(),
            }),
        }
    }
}

impl Decode for i64 {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        value
            .as_i64()
            .ok_or_else(|| mismatch(&value, key, "an integer"))
    }
}

impl Decode for f64 {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        value
            .as_f64()
            .ok_or_else(|| mismatch(&value, key, "a number"))
    }
}

impl Decode for f32 {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        // Go rejects a float32 overflow; so do we, instead of rounding to infinity.
        match value.as_f64() {
            Some(number) if (number as f32).is_finite() => Ok(number as f32),
            _ => Err(mismatch(&value, key, "a number (32-bit float)")),
        }
    }
}

impl Decode for BTreeMap<String, String> {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        let Value::Object(map) = &value else {
            return Err(mismatch(&value, key, "a map of strings to strings"));
        };
        let mut out = BTreeMap::new();
        for (name, entry) in map {
            match entry {
                Value::String(text) => {
                    out.insert(name.clone(), text.clone());
                }
                other => {
                    return Err(mismatch(other, &format!("{key}.{name}"), "a string"));
                }
            }
        }
        Ok(out)
    }
}

impl Decode for Vec<IpNet> {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        let Value::Array(items) = &value else {
            return Err(mismatch(&value, key, "a list of CIDR prefixes"));
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                item.as_str()
                    .and_then(|text| text.parse::<IpNet>().ok())
                    .ok_or_else(|| {
                        mismatch(
                            item,
                            &format!("{key}[{index}]"),
                            "a CIDR prefix such as 10.244.0.0/16",
                        )
                    })
            })
            .collect()
    }
}

impl Decode for Vec<Map<String, Value>> {
    fn decode(value: Value, key: &str, _: &mut Unknown) -> Result<Self, DecodeError> {
        let Value::Array(items) = &value else {
            return Err(mismatch(&value, key, "a list of maps"));
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| match item {
                Value::Object(map) => Ok(map.clone()),
                other => Err(mismatch(other, &format!("{key}[{index}]"), "a map")),
            })
            .collect()
    }
}

/// Finds the canonical spelling of `written` among `keys`: exact match first, then ASCII
/// case-insensitive, as Go's `encoding/json` does for struct fields.
pub fn canonical(keys: &[&'static str], written: &str) -> Option<&'static str> {
    keys.iter()
        .find(|known| **known == written)
        .or_else(|| {
            keys.iter()
                .find(|known| known.eq_ignore_ascii_case(written))
        })
        .copied()
}

/// Splits an object into canonical-key entries (in document order, later spellings of the same key
/// winning as in Go) and records the unknown keys under `prefix`.
pub fn canonical_entries(
    object: Map<String, Value>,
    keys: &[&'static str],
    prefix: &str,
    unknown: &mut Unknown,
) -> Vec<(&'static str, Value)> {
    let mut entries: Vec<(&'static str, Value)> = Vec::new();
    for (written, value) in object {
        match canonical(keys, &written) {
            Some(key) => {
                entries.retain(|(seen, _)| *seen != key);
                entries.push((key, value));
            }
            None if prefix.is_empty() => unknown.keys.push(written),
            None => unknown.keys.push(format!("{prefix}.{written}")),
        }
    }
    entries
}

/// Declares a config object: a struct of optional fields named after their JSON keys, the list of
/// keys, per-key decoding (so errors name the key) and overlaying (for `cloudConfigType: merge`).
macro_rules! config_object {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident, keys $keys:ident {
            $( $key:literal => $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
        $vis struct $name {
            $(
                #[doc = concat!("`", $key, "` as written; `None` when absent or null.")]
                #[serde(rename = $key, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$ty>,
            )*
        }

        /// Every key of this object in upstream's canonical spelling.
        $vis const $keys: &[&str] = &[$($key),*];

        impl $name {
            /// Each key with the Rust type its value decodes to (for generators and docs).
            pub const KEY_TYPES: &'static [(&'static str, &'static str)] =
                &[$(($key, stringify!($ty))),*];

            /// Decodes an object, key by key; `prefix` is the dotted path of the object itself.
            pub fn decode_object(
                object: serde_json::Map<String, serde_json::Value>,
                prefix: &str,
                unknown: &mut $crate::config::decode::Unknown,
            ) -> Result<Self, $crate::config::decode::DecodeError> {
                let mut out = Self::default();
                for (key, value) in
                    $crate::config::decode::canonical_entries(object, $keys, prefix, unknown)
                {
                    let path = if prefix.is_empty() {
                        key.to_string()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    match key {
                        $(
                            $key => {
                                if <$ty as $crate::config::decode::Decode>::is_unset(&value) {
                                    continue;
                                }
                                out.$field = Some(
                                    <$ty as $crate::config::decode::Decode>::decode(
                                        value, &path, unknown,
                                    )?,
                                );
                            }
                        )*
                        _ => {}
                    }
                }
                Ok(out)
            }

            /// This object with every key set in `top` replaced by `top`'s value.
            pub fn overlay(mut self, top: Self) -> Self {
                $( if top.$field.is_some() { self.$field = top.$field; } )*
                self
            }
        }

        impl $crate::config::decode::Decode for $name {
            fn decode(
                value: serde_json::Value,
                key: &str,
                unknown: &mut $crate::config::decode::Unknown,
            ) -> Result<Self, $crate::config::decode::DecodeError> {
                match value {
                    serde_json::Value::Object(object) => Self::decode_object(object, key, unknown),
                    other => Err($crate::config::decode::DecodeError {
                        key: key.to_string(),
                        value: $crate::config::decode::render(&other),
                        accepted: "a map".to_string(),
                    }),
                }
            }
        }
    };
}

pub(crate) use config_object;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exact_spelling_wins_then_ascii_case_folds() {
        let keys = &["cloudProviderRateLimit", "vmType"];
        assert_eq!(
            canonical(keys, "cloudProviderRatelimit"),
            Some("cloudProviderRateLimit")
        );
        assert_eq!(canonical(keys, "VMTYPE"), Some("vmType"));
        assert_eq!(canonical(keys, "vm_type"), None);
    }

    #[test]
    fn later_spelling_of_the_same_key_wins_and_unknown_keys_are_collected() {
        let object = json!({"vmType": "a", "VMType": "b", "bogus": 1})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut unknown = Unknown::default();
        let entries = canonical_entries(object, &["vmType"], "", &mut unknown);
        assert_eq!(entries, vec![("vmType", json!("b"))]);
        assert_eq!(unknown.keys, vec!["bogus".to_string()]);
    }

    #[test]
    fn wrong_types_name_the_key_and_secrets_stay_hidden() {
        let mut unknown = Unknown::default();
        let err = bool::decode(json!("true"), "useInstanceMetadata", &mut unknown)
            .expect_err("a string is not a bool");
        assert_eq!(err.value, "\"true\"");
        assert_eq!(err.accepted, "true or false");
        assert!(i64::decode(json!(5.5), "k", &mut unknown).is_err());
        assert!(f32::decode(json!(1e300), "k", &mut unknown).is_err());
        let err = SecretString::decode(json!(12345), "aadClientSecret", &mut unknown)
            .expect_err("a number is not a string");
        assert_eq!(err.value, REDACTED);
        let err = BTreeMap::<String, String>::decode(json!({"a": 1}), "tagsMap", &mut unknown)
            .expect_err("values must be strings");
        assert_eq!(err.key, "tagsMap.a");
    }

    #[test]
    fn long_values_are_shortened() {
        let rendered = render(&json!("x".repeat(500)));
        assert!(rendered.chars().count() <= 81);
        assert!(rendered.ends_with('…'));
    }
}
