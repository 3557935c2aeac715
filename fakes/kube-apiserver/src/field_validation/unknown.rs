//! Compares what a body holds with what its typed round trip kept: keys the round trip lost are
//! unknown fields, keys written twice are duplicate fields, reported in document order with the
//! path the real server prints. Also prunes unknown fields, as the real decoder drops them.

use serde_json::Value;

use super::keytree::KeyTree;
use crate::patch::schema::{ListKind, list_kind};

/// How field paths are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStyle<'a> {
    /// The strict JSON decoder's `spec.template.spec.containers[0].name`.
    Decoder,
    /// Server-side apply's `.spec.template.spec.containers[name="c"].name` for kind `kind`.
    Apply(&'a str),
}

/// One strict-decoding problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// A field the type does not declare, with its path.
    Unknown(String),
    /// A key written twice in one object, with its path.
    Duplicate(String),
}

impl Finding {
    /// The decoder's text: `unknown field "spec.replicaz"`.
    pub fn message(&self) -> String {
        match self {
            Self::Unknown(p) => format!("unknown field {p:?}"),
            Self::Duplicate(p) => format!("duplicate field {p:?}"),
        }
    }
}

/// Unknown and duplicate fields of `tree` given the round-tripped `known`.
pub fn findings(tree: &KeyTree, known: &Value, style: PathStyle<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut walker = Walker {
        style,
        path: String::new(),
        fields: Vec::new(),
        out: &mut out,
    };
    walker.walk(tree, known);
    out
}

struct Walker<'a, 'o> {
    style: PathStyle<'a>,
    path: String,
    fields: Vec<String>,
    out: &'o mut Vec<Finding>,
}

impl Walker<'_, '_> {
    fn walk(&mut self, tree: &KeyTree, known: &Value) {
        match tree {
            KeyTree::Object(entries) => {
                let known_map = known.as_object();
                let mut seen: Vec<&str> = Vec::with_capacity(entries.len());
                for (key, child) in entries {
                    let first = !seen.contains(&key.as_str());
                    seen.push(key);
                    let Some(known_child) = known_map.and_then(|m| m.get(key)) else {
                        // A null for an optional field decodes to nothing, like an unknown one:
                        // only non-null values can be told to be unknown.
                        if first && *child != KeyTree::Null {
                            self.out.push(Finding::Unknown(self.child_path(key)));
                        }
                        continue;
                    };
                    if !first {
                        self.out.push(Finding::Duplicate(self.child_path(key)));
                    }
                    let saved = self.path.len();
                    self.path = self.child_path(key);
                    self.fields.push(key.clone());
                    self.walk(child, known_child);
                    self.fields.pop();
                    self.path.truncate(saved);
                }
            }
            KeyTree::Array(items) => {
                let Some(known_items) = known.as_array() else {
                    return;
                };
                for (i, (item, known_item)) in items.iter().zip(known_items).enumerate() {
                    let saved = self.path.len();
                    let segment = self.element(i, known_item);
                    self.path.push_str(&segment);
                    self.walk(item, known_item);
                    self.path.truncate(saved);
                }
            }
            KeyTree::Null | KeyTree::Leaf => {}
        }
    }

    fn child_path(&self, key: &str) -> String {
        match self.style {
            PathStyle::Decoder if self.path.is_empty() => key.to_string(),
            PathStyle::Decoder => format!("{}.{key}", self.path),
            PathStyle::Apply(_) => format!("{}.{key}", self.path),
        }
    }

    /// `[3]`, or for apply the element's key as structured-merge-diff prints it.
    fn element(&self, index: usize, item: &Value) -> String {
        let PathStyle::Apply(kind) = self.style else {
            return format!("[{index}]");
        };
        let fields: Vec<&str> = self.fields.iter().map(String::as_str).collect();
        match list_kind(kind, &fields) {
            ListKind::Map { ssa_keys, .. } => {
                let parts: Vec<String> = ssa_keys
                    .iter()
                    .filter_map(|k| item.get(*k).map(|v| format!("{k}={v}")))
                    .collect();
                format!("[{}]", parts.join(","))
            }
            ListKind::Set => format!("[={item}]"),
            ListKind::Atomic => format!("[{index}]"),
        }
    }
}

/// Removes from `obj` every field the round trip `known` lacks (what the real decoder drops).
pub fn prune(obj: &mut Value, known: &Value) {
    match (obj, known) {
        (Value::Object(map), Value::Object(kept)) => {
            map.retain(|k, _| kept.contains_key(k));
            for (k, v) in map.iter_mut() {
                if let Some(kv) = kept.get(k) {
                    prune(v, kv);
                }
            }
        }
        (Value::Array(items), Value::Array(kept)) => {
            for (v, kv) in items.iter_mut().zip(kept) {
                prune(v, kv);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(f: &[Finding]) -> Vec<String> {
        f.iter().map(Finding::message).collect()
    }

    #[test]
    fn reports_in_document_order_like_the_decoder() {
        let body = br#"{"metadata": {"name": "a", "name": "b", "bogus": 1},
            "spec": {"x": 1, "x": 2, "paused": true, "paused": false, "nothing": null,
              "template": {"spec": {"containers": [{"name": "c", "extra": {"deep": 1}}]}}}}"#;
        let known = json!({"metadata": {"name": "b"}, "spec": {"paused": false,
            "template": {"spec": {"containers": [{"name": "c"}]}}}});
        let tree = KeyTree::parse(body).unwrap();
        assert_eq!(
            messages(&findings(&tree, &known, PathStyle::Decoder)),
            vec![
                r#"duplicate field "metadata.name""#,
                r#"unknown field "metadata.bogus""#,
                r#"unknown field "spec.x""#,
                r#"duplicate field "spec.paused""#,
                r#"unknown field "spec.template.spec.containers[0].extra""#,
            ]
        );
    }

    #[test]
    fn apply_paths_name_list_elements_by_key() {
        let obj =
            json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "bad": 1}]}}}});
        let known = json!({"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}});
        assert_eq!(
            findings(&KeyTree::of(&obj), &known, PathStyle::Apply("Deployment")),
            vec![Finding::Unknown(
                r#".spec.template.spec.containers[name="c"].bad"#.into()
            )]
        );
    }

    #[test]
    fn prune_keeps_known_fields_only() {
        let mut obj = json!({"a": {"b": 1, "c": [{"d": 1, "e": 2}]}, "z": 0});
        prune(&mut obj, &json!({"a": {"b": 1, "c": [{"d": 1}]}}));
        assert_eq!(obj, json!({"a": {"b": 1, "c": [{"d": 1}]}}));
    }
}
