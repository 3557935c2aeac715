//! Object name rules per kind (DNS-1123 subdomain, DNS-1123 label, DNS-1035 label, path segment),
//! with the real server's error texts so kubectl shows the familiar message.

/// Which name rule a kind uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// Most kinds: `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`, at most 253.
    Subdomain,
    /// Namespaces: one DNS-1123 label, at most 63.
    Label,
    /// Services: a DNS-1035 label (starts with a letter), at most 63.
    Dns1035,
    /// RBAC kinds: anything but `.`, `..`, or text containing `/` or `%`.
    PathSegment,
}

/// The rule for a kind name.
pub fn rule_for(kind: &str) -> NameRule {
    match kind {
        "Namespace" => NameRule::Label,
        "Service" => NameRule::Dns1035,
        "Role" | "RoleBinding" | "ClusterRole" | "ClusterRoleBinding" => NameRule::PathSegment,
        _ => NameRule::Subdomain,
    }
}

/// Checks `name`; the error is the real message after `Invalid value: "<name>": `.
pub fn check(rule: NameRule, name: &str) -> Result<(), String> {
    match rule {
        NameRule::Subdomain => {
            if name.len() > 253 {
                return Err("must be no more than 253 characters".into());
            }
            if !name.split('.').all(is_label) {
                return Err("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into());
            }
        }
        NameRule::Label => {
            if name.len() > 63 {
                return Err("must be no more than 63 characters".into());
            }
            if !is_label(name) {
                return Err("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".into());
            }
        }
        NameRule::Dns1035 => {
            if name.len() > 63 {
                return Err("must be no more than 63 characters".into());
            }
            if !is_label(name) || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
                return Err("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')".into());
            }
        }
        NameRule::PathSegment => {
            if name == "." || name == ".." {
                return Err(format!("may not be '{name}'"));
            }
            for bad in ["/", "%"] {
                if name.contains(bad) {
                    return Err(format!("may not contain '{bad}'"));
                }
            }
        }
    }
    Ok(())
}

/// DNS-1123 label check.
pub fn is_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// Label value check (also taint values): empty, or at most 63 alphanumerics, `-`, `_` and `.`
/// that begin and end with an alphanumeric. The error is the real server's text.
pub fn check_label_value(value: &str) -> Result<(), String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters");
    }
    let well_formed = value.is_empty()
        || (value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()));
    if !well_formed {
        errors.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Qualified name check for label and taint keys (`prefix/name`).
pub fn check_qualified_name(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix
        && (p.is_empty() || check(NameRule::Subdomain, p).is_err())
    {
        return Err("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character".into());
    }
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert!(check(NameRule::Subdomain, "node-1.example").is_ok());
        assert!(check(NameRule::Subdomain, "Node").is_err());
        assert!(check(NameRule::Label, "a.b").is_err());
        assert!(check(NameRule::Dns1035, "1abc").is_err());
        assert!(check(NameRule::Dns1035, "abc-1").is_ok());
        assert!(check(NameRule::PathSegment, "system:controller:x").is_ok());
        assert!(check(NameRule::PathSegment, "a/b").is_err());
        assert!(check_qualified_name("node.kubernetes.io/unreachable").is_ok());
        assert!(check_qualified_name("bad key").is_err());
        for ok in ["", "a", "my_value", "1.2-x"] {
            assert!(check_label_value(ok).is_ok(), "{ok}");
        }
        for bad in ["-a", "a-", "_a", "a.", "has space", &"x".repeat(64)] {
            assert!(check_label_value(bad).is_err(), "{bad}");
        }
    }
}
