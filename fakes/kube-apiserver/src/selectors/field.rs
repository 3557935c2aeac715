//! Field selectors (`metadata.name=x,spec.nodeName!=y`) restricted, like the real server, to the
//! fields each kind declares.

use serde_json::Value;

use crate::kinds::KindInfo;

/// One `path=value` or `path!=value` term.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    path: String,
    value: String,
    equal: bool,
}

/// A parsed field selector; empty matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<Term>,
}

impl FieldSelector {
    /// Parses `fieldSelector` for `kind`; unsupported fields are rejected with the real message.
    pub fn parse(text: &str, kind: &KindInfo) -> Result<Self, String> {
        let mut terms = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (path, value, equal) = if let Some((p, v)) = part.split_once("!=") {
                (p, v, false)
            } else if let Some((p, v)) = part.split_once("==") {
                (p, v, true)
            } else if let Some((p, v)) = part.split_once('=') {
                (p, v, true)
            } else {
                return Err(format!(
                    "invalid selector: '{part}'; can't understand '{part}'"
                ));
            };
            let path = path.trim();
            let supported = path == "metadata.name"
                || (path == "metadata.namespace" && kind.namespaced)
                || kind.field_labels.contains(&path);
            if !supported {
                return Err(format!("field label not supported: {path}"));
            }
            terms.push(Term {
                path: path.to_string(),
                value: value.trim().to_string(),
                equal,
            });
        }
        Ok(Self { terms })
    }

    /// Whether `object` satisfies every term (a missing field reads as "").
    pub fn matches(&self, object: &Value) -> bool {
        self.terms
            .iter()
            .all(|t| (field_text(object, &t.path) == t.value) == t.equal)
    }

    /// The name a `metadata.name=x` term pins, for `kubectl get x -w` style single-object watches.
    pub fn pinned_name(&self) -> Option<&str> {
        self.terms
            .iter()
            .find(|t| t.equal && t.path == "metadata.name")
            .map(|t| t.value.as_str())
    }
}

/// The field's value as the selector compares it: strings as-is, booleans and numbers printed.
fn field_text(object: &Value, path: &str) -> String {
    // `source` on core events is `source.component`.
    let path = if path == "source" {
        "source.component"
    } else {
        path
    };
    let mut cur = object;
    for seg in path.split('.') {
        match cur.get(seg) {
            Some(v) => cur = v,
            None => return String::new(),
        }
    }
    match cur {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{by_resource, info};
    use serde_json::json;

    #[test]
    fn matches_event_involved_object() {
        let kind = info(by_resource("", "v1", "events").unwrap());
        let sel = FieldSelector::parse(
            "involvedObject.kind=Node,involvedObject.name=n1,involvedObject.namespace=",
            kind,
        )
        .unwrap();
        let ev = json!({"involvedObject": {"kind": "Node", "name": "n1"}});
        assert!(sel.matches(&ev));
        let other = json!({"involvedObject": {"kind": "Node", "name": "n2"}});
        assert!(!sel.matches(&other));
    }

    #[test]
    fn rejects_unknown_fields_and_handles_booleans() {
        let nodes = info(by_resource("", "v1", "nodes").unwrap());
        assert_eq!(
            FieldSelector::parse("spec.podCIDR=x", nodes).unwrap_err(),
            "field label not supported: spec.podCIDR"
        );
        assert!(FieldSelector::parse("metadata.namespace=x", nodes).is_err());
        let sel = FieldSelector::parse("spec.unschedulable!=true", nodes).unwrap();
        assert!(sel.matches(&json!({"spec": {}})));
        assert!(!sel.matches(&json!({"spec": {"unschedulable": true}})));
        assert_eq!(
            FieldSelector::parse("metadata.name=a", nodes)
                .unwrap()
                .pinned_name(),
            Some("a")
        );
    }
}
