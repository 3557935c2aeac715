//! Permissions of the given roles that no recorded call used (over-broad RBAC).

use std::collections::BTreeSet;
use std::fmt;

use super::{Call, Grant, allows};

/// One verb on one resource (and object name) of a rule: the unit of "never used".
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Permission {
    /// Role that grants it.
    pub role: String,
    /// API group.
    pub group: String,
    /// `resource` or `resource/subresource`.
    pub resource: String,
    /// Verb.
    pub verb: String,
    /// Restricted to this name, "" when any.
    pub name: String,
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let group = if self.group.is_empty() {
            "core"
        } else {
            &self.group
        };
        write!(f, "{}: {} {group}/{}", self.role, self.verb, self.resource)?;
        if !self.name.is_empty() {
            write!(f, " name={}", self.name)?;
        }
        Ok(())
    }
}

/// Permissions of the non-built-in roles among `grants` that no call in `calls` used.
pub fn unused(grants: &[Grant], calls: &BTreeSet<Call>) -> Vec<Permission> {
    let mut out = Vec::new();
    for grant in grants.iter().filter(|g| g.generated) {
        let r = &grant.rule;
        let names = r
            .resource_names
            .clone()
            .unwrap_or_else(|| vec![String::new()]);
        for group in r.api_groups.iter().flatten() {
            for resource in r.resources.iter().flatten() {
                for verb in &r.verbs {
                    for name in &names {
                        let (res, sub) = resource.split_once('/').unwrap_or((resource, ""));
                        let used = calls.iter().any(|c| {
                            c.path.is_empty()
                                && c.verb == *verb
                                && c.group == *group
                                && c.resource == res
                                && c.subresource == sub
                                && (name.is_empty() || c.name == *name)
                                && allows(grant, c)
                        });
                        if !used {
                            out.push(Permission {
                                role: grant.role.clone(),
                                group: group.clone(),
                                resource: resource.clone(),
                                verb: verb.clone(),
                                name: name.clone(),
                            });
                        }
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
