//! Reads a Service's annotations through the shared table (`ccm_names::service_annotations`):
//! every read names a table key, takes the value kind from the table, and is recorded so a test
//! can prove the parser reads every documented annotation.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use ccm_names::service_annotations::{Area, SERVICE_ANNOTATIONS, ServiceAnnotation, ValueKind};

use super::error::ServiceConfigError;

/// The table entry for `key` (a constant from `ccm_names::service_annotations`).
pub(super) fn entry(key: &'static str) -> ServiceAnnotation {
    SERVICE_ANNOTATIONS
        .iter()
        .find(|a| a.key == key)
        .copied()
        // Unreachable for the constants we pass (tested); a free-text fallback keeps it total.
        .unwrap_or(ServiceAnnotation {
            key,
            area: Area::LoadBalancer,
            kind: ValueKind::Text,
            default: "",
            description: "",
            common: false,
        })
}

/// One annotation value found on the Service, with its concrete key and table kind.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot<'a> {
    /// Concrete key (per-port templates filled in).
    pub key: &'a str,
    /// Kind from the table.
    pub kind: ValueKind,
    /// The value as given.
    pub value: &'a str,
}

impl Slot<'_> {
    /// The error for a value that does not match the table kind.
    pub fn invalid(&self) -> ServiceConfigError {
        self.invalid_because(self.kind.describe())
    }

    /// The error for a value refused for a reason narrower than the kind.
    pub fn invalid_because(&self, accepted: String) -> ServiceConfigError {
        ServiceConfigError::InvalidValue {
            key: self.key.to_string(),
            value: self.value.to_string(),
            accepted,
        }
    }

    /// `true`/`false`, case-insensitive (upstream compares with `EqualFold("true")`); anything
    /// else is refused where upstream would read it as `false`.
    pub fn bool(&self) -> Result<bool, ServiceConfigError> {
        if self.value.eq_ignore_ascii_case("true") {
            Ok(true)
        } else if self.value.eq_ignore_ascii_case("false") {
            Ok(false)
        } else {
            Err(self.invalid())
        }
    }

    /// A decimal integer (surrounding spaces trimmed, 32-bit like upstream) within the kind's
    /// bounds.
    pub fn integer(&self) -> Result<i64, ServiceConfigError> {
        let n: i32 = self.value.trim().parse().map_err(|_| self.invalid())?;
        let n = i64::from(n);
        if let ValueKind::Integer { min, max } = self.kind
            && (min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m))
        {
            return Err(self.invalid());
        }
        Ok(n)
    }

    /// One address of the kind's family, exactly as given (no trimming).
    pub fn ip_address(&self) -> Result<IpAddr, ServiceConfigError> {
        let ip: IpAddr = self.value.parse().map_err(|_| self.invalid())?;
        let family_ok = match self.kind {
            ValueKind::IpAddress("IPv4") => ip.is_ipv4(),
            ValueKind::IpAddress("IPv6") => ip.is_ipv6(),
            _ => true,
        };
        if family_ok {
            Ok(ip)
        } else {
            Err(self.invalid())
        }
    }

    /// One of the kind's values, case-insensitive after trimming; returns the table spelling.
    pub fn one_of(&self) -> Result<&'static str, ServiceConfigError> {
        let ValueKind::OneOf(values) = self.kind else {
            return Err(self.invalid());
        };
        let given = self.value.trim();
        values
            .iter()
            .copied()
            .find(|v| v.eq_ignore_ascii_case(given))
            .ok_or_else(|| self.invalid())
    }

    /// Comma-separated items, each trimmed; empty items are kept (upstream splits the same way,
    /// so `""` is one empty item).
    pub fn comma_items(&self) -> Vec<String> {
        self.value
            .trim()
            .split(',')
            .map(|s| s.trim().to_string())
            .collect()
    }

    /// Space-separated items (runs of whitespace), empty items dropped.
    pub fn space_items(&self) -> Vec<&str> {
        self.value.split_whitespace().collect()
    }

    /// Comma-separated `key=value` pairs, key and value trimmed, in the order given. Empty items
    /// are skipped; an item without exactly one `=` or with an empty key is refused.
    pub fn key_value_pairs(&self) -> Result<Vec<(String, String)>, ServiceConfigError> {
        let mut pairs = Vec::new();
        for item in self.value.split(',') {
            if item.trim().is_empty() {
                continue;
            }
            let mut parts = item.split('=');
            let (Some(k), Some(v), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(self.invalid());
            };
            let (k, v) = (k.trim(), v.trim());
            if k.is_empty() {
                return Err(self.invalid());
            }
            pairs.push((k.to_string(), v.to_string()));
        }
        Ok(pairs)
    }
}

/// A Service's annotations, read only through table keys.
pub(super) struct Annotations<'a> {
    map: &'a BTreeMap<String, String>,
    read: RefCell<BTreeSet<&'static str>>,
}

impl<'a> Annotations<'a> {
    /// Wraps the annotation map of a Service.
    pub fn new(map: &'a BTreeMap<String, String>) -> Self {
        Annotations {
            map,
            read: RefCell::new(BTreeSet::new()),
        }
    }

    /// The value of a Service-wide annotation, if present.
    pub fn get(&self, key: &'static str) -> Option<Slot<'a>> {
        self.read.borrow_mut().insert(key);
        let e = entry(key);
        self.map.get_key_value(key).map(|(k, v)| Slot {
            key: k.as_str(),
            kind: e.kind,
            value: v.as_str(),
        })
    }

    /// The value of a per-port annotation (template key) for `port`, if present.
    pub fn get_port(&self, template: &'static str, port: u16) -> Option<Slot<'a>> {
        self.read.borrow_mut().insert(template);
        let e = entry(template);
        let key = e.for_port(port);
        self.map.get_key_value(&key).map(|(k, v)| Slot {
            key: k.as_str(),
            kind: e.kind,
            value: v.as_str(),
        })
    }

    /// A boolean annotation; absent means `false`.
    pub fn flag(&self, key: &'static str) -> Result<bool, ServiceConfigError> {
        self.get(key).map_or(Ok(false), |s| s.bool())
    }

    /// A per-port boolean annotation; absent means `false`.
    pub fn port_flag(&self, template: &'static str, port: u16) -> Result<bool, ServiceConfigError> {
        self.get_port(template, port)
            .map_or(Ok(false), |s| s.bool())
    }

    /// Table keys (templates for per-port ones) read so far.
    #[cfg(test)]
    pub fn keys_read(&self) -> BTreeSet<&'static str> {
        self.read.borrow().clone()
    }
}
