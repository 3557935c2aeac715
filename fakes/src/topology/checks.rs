//! Field-level rules shared by the validators (ARM name rules, GUIDs, tags, VM sizes, node names) and the
//! collector that records every problem with its line and field path.

use super::error::Problem;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// Line of a spanned value (`None` when the parser did not record one).
pub(crate) fn line<T>(s: &Spanned<T>) -> Option<u64> {
    let l = s.referenced.line();
    (l > 0).then_some(l)
}

/// Accumulates problems so a user sees all of them at once.
#[derive(Default)]
pub(crate) struct Checker {
    pub problems: Vec<Problem>,
}

impl Checker {
    /// Records a problem.
    pub fn err(&mut self, line: Option<u64>, field: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            line,
            field: field.into(),
            message: message.into(),
        });
    }

    /// Records a problem at a spanned value.
    pub fn at<T>(
        &mut self,
        value: &Spanned<T>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.err(line(value), field, message);
    }

    /// Checks a GUID-shaped id.
    pub fn guid(&mut self, value: &Spanned<String>, field: &str) {
        if !is_guid(&value.value) {
            self.at(value, field, format!("'{}' is not a GUID (expected 8-4-4-4-12 hex digits, e.g. 00000000-0000-0000-0000-000000000000)", value.value));
        }
    }

    /// Checks an ARM resource name (NRP rule: 1-80 word characters, '.', '-', '_'; starts with a word character, ends with a word character or '_').
    pub fn resource_name(&mut self, value: &Spanned<String>, field: &str) {
        if !is_resource_name(&value.value) {
            self.at(
                value,
                field,
                format!("'{}' is not a valid Azure resource name (1-80 characters: letters, digits, '.', '-', '_'; must start with a letter, digit or '_' and end with a letter, digit or '_')", value.value),
            );
        }
    }

    /// Checks a resource group name (1-90 characters: letters, digits, '.', '-', '_', '(', ')'; not ending in '.').
    pub fn group_name(&mut self, value: &Spanned<String>, field: &str) {
        let v = &value.value;
        let ok = !v.is_empty()
            && v.len() <= 90
            && !v.ends_with('.')
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-()".contains(c));
        if !ok {
            self.at(value, field, format!("'{v}' is not a valid resource group name (1-90 characters: letters, digits, '.', '-', '_', '(', ')'; must not end with '.')"));
        }
    }

    /// Checks a node (computer) name: a lower-case DNS label, as Kubernetes node names must be.
    pub fn node_name(&mut self, name: &str, max: usize, line: Option<u64>, field: &str) {
        if !is_dns_label(name, max) {
            self.err(line, field, format!("'{name}' cannot be a node name: use 1-{max} lower-case letters, digits and '-', starting and ending with a letter or digit"));
        }
    }

    /// Checks tags against ARM limits.
    pub fn tags(&mut self, tags: &BTreeMap<String, String>, line: Option<u64>, field: &str) {
        if tags.len() > 50 {
            self.err(
                line,
                field,
                format!(
                    "{} tags given; Azure allows at most 50 per resource",
                    tags.len()
                ),
            );
        }
        for (k, v) in tags {
            if k.is_empty() || k.len() > 512 || k.chars().any(|c| "<>%&\\?/".contains(c)) {
                self.err(
                    line,
                    format!("{field}.{k}"),
                    "tag names must be 1-512 characters without any of < > % & \\ ? /",
                );
            }
            if v.len() > 256 {
                self.err(
                    line,
                    format!("{field}.{k}"),
                    format!(
                        "tag value is {} characters; Azure allows at most 256",
                        v.len()
                    ),
                );
            }
        }
    }

    /// Checks a VM size name (`Standard_D2s_v3`, `Basic_A1`).
    pub fn vm_size(&mut self, value: &Spanned<String>, field: &str) {
        let v = &value.value;
        let ok = (v.starts_with("Standard_") || v.starts_with("Basic_"))
            && v.len() > 9
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !ok {
            self.at(value, field, format!("'{v}' is not a VM size (expected Standard_<series> or Basic_<series>, e.g. Standard_D2s_v3)"));
        }
    }
}

/// 8-4-4-4-12 hex digits.
pub(crate) fn is_guid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.chars().all(|c| c.is_ascii_hexdigit()))
}

/// NRP resource-name rule.
pub(crate) fn is_resource_name(s: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    !s.is_empty()
        && s.len() <= 80
        && s.chars().next().is_some_and(word)
        && s.chars().last().is_some_and(word)
        && s.chars().all(|c| word(c) || c == '.' || c == '-')
}

/// Lower-case RFC 1123 label of at most `max` characters.
pub(crate) fn is_dns_label(s: &str, max: usize) -> bool {
    let edge = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    !s.is_empty()
        && s.len() <= max
        && s.chars().next().is_some_and(edge)
        && s.chars().last().is_some_and(edge)
        && s.chars().all(|c| edge(c) || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_rules() {
        assert!(is_guid("72f988bf-86f1-41af-91ab-2d7cd011db47"));
        assert!(!is_guid("72f988bf86f141af91ab2d7cd011db47"));
        assert!(is_resource_name("k8s-agentpool_1"));
        assert!(!is_resource_name("-bad"));
        assert!(!is_resource_name("bad."));
        assert!(is_dns_label("aks-nodepool1-vmss000000", 63));
        assert!(!is_dns_label("Upper", 63));
        assert!(!is_dns_label("node-", 63));
    }
}
