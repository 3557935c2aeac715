//! The RBAC authorizer: which rules the Roles, ClusterRoles and their bindings grant a user, and
//! whether they allow one request, as kube-apiserver's RBAC authorizer decides
//! (kubernetes `plugin/pkg/auth/authorizer/rbac/rbac.go` and `pkg/apis/rbac/v1/evaluation_helpers.go`:
//! `VerbMatches`, `APIGroupMatches`, `ResourceMatches` with `resource/subresource` and `*`,
//! `ResourceNameMatches`, `NonResourceURLMatches`; subjects as `appliesToUser` matches them).
//!
//! Used by the SubjectAccessReview endpoint and by tests that check generated RBAC against the
//! calls the binaries made (read back from the audit log, [`audit_calls`]).
//! Built-in roles: see [`bootstrap`]; `system:masters` is allowed everything, as the real
//! server's privileged-group authorizer does.

pub mod audit_calls;
pub mod bootstrap;
mod grants;
mod matching;
mod unused;

pub use grants::{Grant, Subject, grants_for, missing_roles};
pub use matching::allows;
pub use unused::{Permission, unused};

use std::fmt;

/// One request as the authorizer sees it (`authorizer.Attributes`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Call {
    /// Kubernetes verb.
    pub verb: String,
    /// API group ("" = core).
    pub group: String,
    /// Resource plural ("" for a non-resource request).
    pub resource: String,
    /// Subresource, "" when none.
    pub subresource: String,
    /// Namespace, "" for cluster-scoped or all-namespaces requests.
    pub namespace: String,
    /// Object name ("" for collections without a `metadata.name` field selector).
    pub name: String,
    /// Path of a non-resource request ("" for resource requests).
    pub path: String,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            return write!(f, "{} {}", self.verb, self.path);
        }
        let group = if self.group.is_empty() {
            "core"
        } else {
            &self.group
        };
        write!(f, "{} {group}/{}", self.verb, self.resource)?;
        if !self.subresource.is_empty() {
            write!(f, "/{}", self.subresource)?;
        }
        if !self.namespace.is_empty() {
            write!(f, " in {}", self.namespace)?;
        }
        if !self.name.is_empty() {
            write!(f, " name={}", self.name)?;
        }
        Ok(())
    }
}

/// The privileged group every request of which is allowed.
pub const MASTERS: &str = "system:masters";

/// The authorizer's answer for `subject` doing `call` over the RBAC objects `docs`: the grant
/// that allows it (`None`: no opinion, which the real server answers as not allowed).
pub fn decide(docs: &[serde_json::Value], subject: &Subject, call: &Call) -> Option<String> {
    if subject.groups.iter().any(|g| g == MASTERS) {
        return Some(format!("{MASTERS} is a privileged group"));
    }
    grants_for(docs, subject)
        .into_iter()
        .find(|g| allows(g, call))
        .map(|g| format!("RBAC: allowed by {} {}", g.binding, g.role))
}
