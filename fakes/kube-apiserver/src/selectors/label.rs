//! Label selector parsing and matching with the real grammar: equality (`a=b`, `a==b`, `a!=b`),
//! set-based (`a in (x,y)`, `a notin (x)`, `a`, `!a`) and numeric `a>1` / `a<1`.

use std::collections::BTreeMap;

/// One requirement of a selector; all requirements must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// `key in (values)`, also `key=value`.
    In(String, Vec<String>),
    /// `key notin (values)`, also `key!=value` (matches when the key is absent).
    NotIn(String, Vec<String>),
    /// `key`.
    Exists(String),
    /// `!key`.
    DoesNotExist(String),
    /// `key>n`.
    Gt(String, i64),
    /// `key<n`.
    Lt(String, i64),
}

/// A parsed label selector; empty matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Parses `labelSelector` query text; the error names the offending part.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut requirements = Vec::new();
        for part in split_top_level(text) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            requirements.push(parse_requirement(part)?);
        }
        Ok(Self { requirements })
    }

    /// Whether `labels` satisfies every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| match r {
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
            Requirement::Gt(k, n) => labels
                .get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v > *n),
            Requirement::Lt(k, n) => labels
                .get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v < *n),
        })
    }

    /// Whether the selector has no requirement.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

/// Splits on commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn parse_requirement(part: &str) -> Result<Requirement, String> {
    if let Some(key) = part.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(valid_key(key.trim())?));
    }
    for (op, build) in [
        ("!=", Op::NotEq),
        ("==", Op::Eq),
        ("=", Op::Eq),
        (">", Op::Gt),
        ("<", Op::Lt),
    ] {
        if let Some((k, v)) = part.split_once(op) {
            let key = valid_key(k.trim())?;
            let value = v.trim().to_string();
            valid_value(&value)?;
            return match build {
                Op::Eq => Ok(Requirement::In(key, vec![value])),
                Op::NotEq => Ok(Requirement::NotIn(key, vec![value])),
                Op::Gt => value.parse().map(|n| Requirement::Gt(key, n)).map_err(|_| {
                    format!("{part}: for 'Gt', 'Lt' operators, the value must be an integer")
                }),
                Op::Lt => value.parse().map(|n| Requirement::Lt(key, n)).map_err(|_| {
                    format!("{part}: for 'Gt', 'Lt' operators, the value must be an integer")
                }),
            };
        }
    }
    let words: Vec<&str> = part.splitn(2, char::is_whitespace).collect();
    if words.len() == 2 {
        let key = valid_key(words[0])?;
        let rest = words[1].trim();
        let (negate, set) = if let Some(s) = rest.strip_prefix("notin") {
            (true, s)
        } else if let Some(s) = rest.strip_prefix("in") {
            (false, s)
        } else {
            return Err(format!(
                "unable to parse requirement: {part:?}: expected one of [in notin]"
            ));
        };
        let inner = set
            .trim()
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| {
                format!(
                    "unable to parse requirement: {part:?}: expected a parenthesised value list"
                )
            })?;
        let values: Vec<String> = inner
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect();
        for v in &values {
            valid_value(v)?;
        }
        return Ok(if negate {
            Requirement::NotIn(key, values)
        } else {
            Requirement::In(key, values)
        });
    }
    Ok(Requirement::Exists(valid_key(part)?))
}

enum Op {
    Eq,
    NotEq,
    Gt,
    Lt,
}

fn valid_key(key: &str) -> Result<String, String> {
    let ok = !key.is_empty()
        && key.len() <= 317
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if ok {
        Ok(key.to_string())
    } else {
        Err(format!(
            "invalid label key {key:?}: name part must consist of alphanumeric characters, '-', '_' or '.'"
        ))
    }
}

fn valid_value(value: &str) -> Result<(), String> {
    let ok = value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "invalid label value: {value:?}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn equality_and_sets() {
        let l = labels(&[("app", "web"), ("tier", "front"), ("n", "5")]);
        for (sel, want) in [
            ("app=web", true),
            ("app==web,tier=front", true),
            ("app!=web", false),
            ("missing!=x", true),
            ("app in (web, api)", true),
            ("tier notin (front)", false),
            ("app", true),
            ("!app", false),
            ("!missing", true),
            ("n>4", true),
            ("n<5", false),
            ("app in (api),tier", false),
            ("", true),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).unwrap().matches(&l),
                want,
                "{sel}"
            );
        }
    }

    #[test]
    fn rejects_bad_input() {
        assert!(LabelSelector::parse("a b").is_err());
        assert!(LabelSelector::parse("a in x").is_err());
        assert!(LabelSelector::parse("a=b c").is_err());
        assert!(LabelSelector::parse("n>x").is_err());
    }

    proptest! {
        #[test]
        fn equality_selector_matches_exactly_its_label(key in "[a-z]{1,8}", value in "[a-z0-9]{0,8}", other in "[a-z0-9]{0,8}") {
            let sel = LabelSelector::parse(&format!("{key}={value}")).unwrap();
            let mut l = BTreeMap::new();
            l.insert(key.clone(), other.clone());
            prop_assert_eq!(sel.matches(&l), value == other);
            let neg = LabelSelector::parse(&format!("{key}!={value}")).unwrap();
            prop_assert_eq!(neg.matches(&l), value != other);
        }
    }
}
