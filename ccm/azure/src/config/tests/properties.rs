//! Random azure.json objects over the real key set, with random key casing and random values:
//! nothing panics; a document either decodes to a value whose re-serialisation decodes back equal,
//! or fails naming the key.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::load_file;
use crate::config::document::{KEYS, RATE_LIMIT_KEYS, decode_value};
use crate::config::enums::{BackendPoolType, Cloud, LoadBalancerSku, VmType};
use crate::config::text::parse_document;
use crate::config::{AzureJson, ConfigError, Origin};

fn random_case(key: &'static str) -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<bool>(), key.len()).prop_map(move |upper| {
        key.chars()
            .zip(upper)
            .map(|(c, up)| {
                if up {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect()
    })
}

fn scalar() -> impl Strategy<Value = Value> {
    let words: Vec<&'static str> = Cloud::ACCEPTED
        .iter()
        .chain(VmType::ACCEPTED)
        .chain(LoadBalancerSku::ACCEPTED)
        .chain(BackendPoolType::ACCEPTED)
        .copied()
        .chain(["", "merge", "file", "shared", "a=b,c=d", "rg"])
        .collect();
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..1000).prop_map(|n| json!(n)),
        (-1.0e3f64..1.0e3).prop_map(|f| json!(f)),
        proptest::sample::select(words).prop_map(|w| json!(w)),
        "[a-zA-Z0-9 =,/_.-]{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    proptest::sample::select(RATE_LIMIT_KEYS.to_vec()).prop_flat_map(random_case),
                    inner
                ),
                0..3
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn document() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::vec(
        (
            prop_oneof![
                9 => proptest::sample::select(KEYS.to_vec()).prop_flat_map(random_case),
                1 => "[a-z]{1,8}".prop_map(String::from),
            ],
            value(),
        ),
        0..5,
    )
    .prop_map(|entries| entries.into_iter().collect())
}

fn names_a_written_key(key: &str, written: &Map<String, Value>) -> bool {
    let top = key.split(['.', '[']).next().unwrap_or(key);
    written.keys().any(|w| w.eq_ignore_ascii_case(top))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn decoding_round_trips_or_names_the_key(object in document()) {
        let text = Value::Object(object.clone()).to_string();
        let origin = Origin::File("random.json".into());
        match parse_document(&text, &origin) {
            Ok(decoded) => {
                let again = serde_json::to_value(&decoded.document)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                let back = decode_value(again)
                    .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
                prop_assert_eq!(back.document, decoded.document);
                prop_assert!(back.unknown_keys.is_empty());
            }
            Err(ConfigError::InvalidValue { key, .. }) => {
                prop_assert!(names_a_written_key(&key, &object), "{} not in {:?}", key, object);
            }
            Err(other) => prop_assert!(false, "unexpected error {}", other),
        }
    }

    #[test]
    fn loading_never_panics_and_errors_name_keys(object in document()) {
        let text = Value::Object(object.clone()).to_string();
        if let Err(error) = load_file(&text, &[]) {
            match &error {
                ConfigError::InvalidValue { key, .. } => {
                    prop_assert!(names_a_written_key(key, &object) || key == "tags",
                        "{} not in {:?}", key, object);
                }
                ConfigError::NotSupported { key, .. } => {
                    prop_assert!(names_a_written_key(key, &object));
                }
                ConfigError::Inconsistent { keys, .. } => prop_assert!(!keys.is_empty()),
                other => prop_assert!(false, "unexpected error {}", other),
            }
        }
    }

    #[test]
    fn yaml_text_never_panics(text in "[a-zA-Z:{}\\[\\], \\n\"'-]{0,60}") {
        let _ = load_file(&text, &[]);
    }
}

/// A value of the right type for a key (`ty` is the decoded Rust type's name).
fn typed_value(key: &'static str, ty: &'static str) -> BoxedStrategy<Value> {
    let text = "[a-zA-Z0-9_/.-]{0,12}";
    let compact: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    match compact.as_str() {
        "bool" => any::<bool>().prop_map(Value::Bool).boxed(),
        "String" if key == "tags" => "([a-z]{1,5}=[a-z0-9]{0,5})(,[a-z]{1,5}=[a-z0-9]{0,5}){0,3}"
            .prop_map(Value::String)
            .boxed(),
        "String" | "SecretString" => text.prop_map(Value::String).boxed(),
        "i64" => (0i64..600).prop_map(|n| json!(n)).boxed(),
        "f64" => (0.0f64..10.0).prop_map(|f| json!(f)).boxed(),
        "f32" => (0.0f32..100.0).prop_map(|f| json!(f)).boxed(),
        "BTreeMap<String,String>" => proptest::collection::btree_map("[a-z]{1,6}", text, 0..3)
            .prop_map(|map| json!(map))
            .boxed(),
        "Vec<IpNet>" => proptest::collection::vec((any::<u8>(), 8u8..=32), 0..3)
            .prop_map(|cidrs| {
                json!(
                    cidrs
                        .into_iter()
                        .map(|(octet, bits)| format!("10.{octet}.0.0/{bits}"))
                        .collect::<Vec<_>>()
                )
            })
            .boxed(),
        "Vec<Map<String,Value>>" => proptest::collection::vec(text, 0..2)
            .prop_map(|names| {
                json!(
                    names
                        .into_iter()
                        .map(|n| json!({"name": n}))
                        .collect::<Vec<_>>()
                )
            })
            .boxed(),
        "RateLimitJson" => typed_object(crate::config::document::RateLimitJson::KEY_TYPES),
        "AuxiliaryTokenProviderJson" => {
            typed_object(crate::config::document::AuxiliaryTokenProviderJson::KEY_TYPES)
        }
        enum_name => {
            let accepted: &'static [&'static str] = match enum_name {
                "Cloud" => Cloud::ACCEPTED,
                "VmType" => VmType::ACCEPTED,
                "LoadBalancerSku" => LoadBalancerSku::ACCEPTED,
                "BackendPoolType" => BackendPoolType::ACCEPTED,
                "PreconfiguredPools" => crate::config::PreconfiguredPools::ACCEPTED,
                "ProbeMode" => crate::config::ProbeMode::ACCEPTED,
                "CloudConfigType" => crate::config::CloudConfigType::ACCEPTED,
                "IdentitySystem" => crate::config::IdentitySystem::ACCEPTED,
                other => panic!("no generator for {key}: {other}"),
            };
            proptest::sample::select(accepted)
                .prop_flat_map(random_case)
                .prop_map(Value::String)
                .boxed()
        }
    }
}

fn typed_object(key_types: &'static [(&'static str, &'static str)]) -> BoxedStrategy<Value> {
    proptest::sample::subsequence(key_types.to_vec(), 0..=key_types.len())
        .prop_flat_map(|chosen| {
            chosen
                .into_iter()
                .map(|(key, ty)| (random_case(key), typed_value(key, ty)))
                .collect::<Vec<_>>()
        })
        .prop_map(|entries| Value::Object(entries.into_iter().collect()))
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Well-typed documents over the whole key set always decode, round-trip exactly, and
    /// `load` refuses them only for cross-key or not-supported reasons, never a value error.
    #[test]
    fn well_typed_documents_round_trip(document in typed_object(AzureJson::KEY_TYPES)) {
        let text = document.to_string();
        let origin = Origin::File("typed.json".into());
        let decoded = parse_document(&text, &origin)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(decoded.unknown_keys.is_empty());
        let again = serde_json::to_value(&decoded.document)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back = decode_value(again).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(&back.document, &decoded.document);
        match load_file(&text, &[]) {
            Ok(loaded) => prop_assert!(loaded.unknown_keys.is_empty()),
            Err(ConfigError::NotSupported { .. } | ConfigError::Inconsistent { .. }) => {}
            Err(other) => prop_assert!(false, "well-typed document refused: {}", other),
        }
    }
}
