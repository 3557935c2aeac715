//! The shape of a request body as written: object keys in document order with duplicates kept.
//! `serde_json::Value` keeps only the last of two equal keys, but the real server reports
//! `duplicate field "..."`, so bodies are also parsed into this tree.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// A JSON document reduced to its structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyTree {
    /// An object's entries in document order, duplicates included.
    Object(Vec<(String, KeyTree)>),
    /// An array's items.
    Array(Vec<KeyTree>),
    /// `null`: cannot be told apart from an unset optional field after decoding.
    Null,
    /// Any other scalar.
    Leaf,
}

impl KeyTree {
    /// Parses raw JSON bytes, keeping duplicate keys.
    pub fn parse(body: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(body)
    }

    /// The tree of an already decoded value (which cannot hold duplicates).
    pub fn of(value: &Value) -> Self {
        match value {
            Value::Object(m) => {
                Self::Object(m.iter().map(|(k, v)| (k.clone(), Self::of(v))).collect())
            }
            Value::Array(a) => Self::Array(a.iter().map(Self::of).collect()),
            Value::Null => Self::Null,
            _ => Self::Leaf,
        }
    }

    /// The tree of a value with object keys sorted, the order Go encodes a map in (which is
    /// the order the real server reports unknown fields of a patched object).
    pub fn of_sorted(value: &Value) -> Self {
        match value {
            Value::Object(m) => {
                let mut entries: Vec<(String, Self)> = m
                    .iter()
                    .map(|(k, v)| (k.clone(), Self::of_sorted(v)))
                    .collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Self::Object(entries)
            }
            Value::Array(a) => Self::Array(a.iter().map(Self::of_sorted).collect()),
            other => Self::of(other),
        }
    }
}

impl<'de> Deserialize<'de> for KeyTree {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = KeyTree;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<KeyTree, E> {
        Ok(KeyTree::Leaf)
    }
    fn visit_i64<E>(self, _: i64) -> Result<KeyTree, E> {
        Ok(KeyTree::Leaf)
    }
    fn visit_u64<E>(self, _: u64) -> Result<KeyTree, E> {
        Ok(KeyTree::Leaf)
    }
    fn visit_f64<E>(self, _: f64) -> Result<KeyTree, E> {
        Ok(KeyTree::Leaf)
    }
    fn visit_str<E>(self, _: &str) -> Result<KeyTree, E> {
        Ok(KeyTree::Leaf)
    }
    fn visit_unit<E>(self) -> Result<KeyTree, E> {
        Ok(KeyTree::Null)
    }
    fn visit_none<E>(self) -> Result<KeyTree, E> {
        Ok(KeyTree::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<KeyTree, D::Error> {
        KeyTree::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeyTree, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(KeyTree::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyTree, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value()?));
        }
        Ok(KeyTree::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_and_order_survive() {
        let t = KeyTree::parse(br#"{"b": 1, "a": {"x": null}, "b": [true]}"#).unwrap();
        assert_eq!(
            t,
            KeyTree::Object(vec![
                ("b".into(), KeyTree::Leaf),
                (
                    "a".into(),
                    KeyTree::Object(vec![("x".into(), KeyTree::Null)])
                ),
                ("b".into(), KeyTree::Array(vec![KeyTree::Leaf])),
            ])
        );
        assert_eq!(
            KeyTree::of(&serde_json::json!({"k": [1]})),
            KeyTree::Object(vec![("k".into(), KeyTree::Array(vec![KeyTree::Leaf]))])
        );
    }
}
