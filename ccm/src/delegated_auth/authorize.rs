//! Whether a caller may make a request of the secure port: `system:masters` always, the
//! `--authorization-always-allow-paths` always, anything else as a SubjectAccessReview
//! (non-resource path + lower-cased HTTP method as verb) answers (k8s.io/apiserver
//! `DelegatingAuthorizationOptions.toAuthorizer`, `authorizer/path`, `endpoints/request`
//! `RequestInfoFactory` for the verb of a non-resource request).

use std::time::Duration;

use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::Api;
use kube::api::PostParams;

use super::authenticate::Caller;
use super::cache::TtlCache;

/// The group allowed everything without a review.
const PRIVILEGED_GROUP: &str = "system:masters";

/// The authorizer's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Serve it.
    Allow,
    /// 403, with the reviewer's reason (may be empty).
    Deny(String),
    /// 500: the review could not be made.
    Error(String),
}

/// One always-allowed path: exact, or a prefix when it ends in `*` (a leading `/` optional).
#[derive(Debug, Clone, PartialEq, Eq)]
enum PathRule {
    Exact(String),
    Prefix(String),
}

impl PathRule {
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let text = text.strip_prefix('/').unwrap_or(text);
        Some(match text.strip_suffix('*') {
            Some(prefix) => Self::Prefix(prefix.to_string()),
            None => Self::Exact(text.to_string()),
        })
    }

    fn matches(&self, path: &str) -> bool {
        let path = path.trim_start_matches('/');
        match self {
            Self::Exact(p) => p == path,
            Self::Prefix(p) => path.starts_with(p.as_str()),
        }
    }
}

type ReviewKey = (String, Vec<String>, String, String);

/// Authorizes the requests of the secure port.
pub struct Authorizer {
    always_allow: Vec<PathRule>,
    reviews: Option<Api<SubjectAccessReview>>,
    cache: TtlCache<ReviewKey, Decision>,
    allowed_ttl: Duration,
    denied_ttl: Duration,
}

impl Authorizer {
    /// Reviews through `client` (none: only the always-allowed paths and group), cached for the
    /// two TTLs.
    pub fn new(
        always_allow: &[String],
        client: Option<kube::Client>,
        allowed_ttl: Duration,
        denied_ttl: Duration,
    ) -> Self {
        Self {
            always_allow: always_allow
                .iter()
                .filter_map(|p| PathRule::parse(p))
                .collect(),
            reviews: client.map(Api::all),
            cache: TtlCache::new(),
            allowed_ttl,
            denied_ttl,
        }
    }

    /// Whether `path` is served to anyone.
    pub fn always_allowed(&self, path: &str) -> bool {
        self.always_allow.iter().any(|r| r.matches(path))
    }

    /// The decision for `caller` doing `verb` on `path`.
    pub async fn authorize(&self, caller: &Caller, verb: &str, path: &str) -> Decision {
        if caller.groups.iter().any(|g| g == PRIVILEGED_GROUP) || self.always_allowed(path) {
            return Decision::Allow;
        }
        let Some(reviews) = &self.reviews else {
            return Decision::Deny(String::new());
        };
        let key = (
            caller.name.clone(),
            caller.groups.clone(),
            verb.to_string(),
            path.to_string(),
        );
        if let Some(decision) = self.cache.get(&key) {
            return decision;
        }
        let decision = review(reviews, caller, verb, path).await;
        match &decision {
            Decision::Allow => self.cache.put(key, decision.clone(), self.allowed_ttl),
            Decision::Deny(_) => self.cache.put(key, decision.clone(), self.denied_ttl),
            Decision::Error(_) => {}
        }
        decision
    }
}

async fn review(
    reviews: &Api<SubjectAccessReview>,
    caller: &Caller,
    verb: &str,
    path: &str,
) -> Decision {
    let request = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(caller.name.clone()),
            groups: Some(caller.groups.clone()),
            non_resource_attributes: Some(NonResourceAttributes {
                path: Some(path.to_string()),
                verb: Some(verb.to_string()),
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    match reviews.create(&PostParams::default(), &request).await {
        Ok(answer) => {
            let status = answer.status.unwrap_or_default();
            if status.allowed {
                Decision::Allow
            } else {
                Decision::Deny(status.reason.unwrap_or_default())
            }
        }
        Err(e) => Decision::Error(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn paths_groups_and_no_reviewer() {
        let a = Authorizer::new(
            &["/healthz".into(), "readyz".into(), "/debug/*".into()],
            None,
            Duration::ZERO,
            Duration::ZERO,
        );
        let anon = Caller::anonymous();
        assert_eq!(a.authorize(&anon, "get", "/healthz").await, Decision::Allow);
        assert_eq!(a.authorize(&anon, "get", "/readyz").await, Decision::Allow);
        assert_eq!(
            a.authorize(&anon, "get", "/debug/flags/v").await,
            Decision::Allow
        );
        assert!(matches!(
            a.authorize(&anon, "get", "/healthz/ping").await,
            Decision::Deny(_)
        ));
        assert!(matches!(
            a.authorize(&anon, "get", "/metrics").await,
            Decision::Deny(_)
        ));
        let admin = Caller {
            name: "x".into(),
            groups: vec![PRIVILEGED_GROUP.into()],
        };
        assert_eq!(
            a.authorize(&admin, "get", "/metrics").await,
            Decision::Allow
        );
    }
}
