//! Remembers bearer tokens that passed signature and claim checks, so the ARM front door does not
//! decode and re-verify the same token on every request (clients reuse one token for up to an
//! hour). Entries expire with the token; the cache is bounded and simply emptied when full.

use std::collections::HashMap;

use parking_lot::RwLock;

use crate::entra::TokenClaims;

/// Most tokens remembered at once (a run has a handful of principals; this only bounds abuse).
const CAPACITY: usize = 4096;

/// Validated tokens by their exact text.
#[derive(Debug, Default)]
pub struct TokenCache {
    entries: RwLock<HashMap<Box<str>, TokenClaims>>,
}

impl TokenCache {
    /// Claims of `token` if it was validated before and has not expired at `now` (unix seconds).
    pub fn get(&self, token: &str, now: i64) -> Option<TokenClaims> {
        let entries = self.entries.read();
        let claims = entries.get(token)?;
        (claims.expires_on > now).then(|| claims.clone())
    }

    /// Remembers `token` as valid with `claims` (call only after full validation).
    pub fn insert(&self, token: &str, claims: &TokenClaims) {
        let mut entries = self.entries.write();
        if entries.len() >= CAPACITY {
            entries.clear();
        }
        entries.insert(token.into(), claims.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(expires_on: i64) -> TokenClaims {
        TokenClaims {
            tenant_id: "t".into(),
            client_id: "c".into(),
            object_id: "o".into(),
            audience: "https://management.azure.com/".into(),
            expires_on,
        }
    }

    #[test]
    fn hits_until_the_token_expires() {
        let cache = TokenCache::default();
        assert_eq!(cache.get("a", 100), None);
        cache.insert("a", &claims(200));
        assert_eq!(cache.get("a", 100), Some(claims(200)));
        assert_eq!(cache.get("a", 200), None, "expired tokens are not served");
        assert_eq!(cache.get("b", 100), None);
    }

    #[test]
    fn stays_bounded() {
        let cache = TokenCache::default();
        for i in 0..=CAPACITY {
            cache.insert(&i.to_string(), &claims(10));
        }
        assert!(cache.entries.read().len() <= CAPACITY);
        assert!(cache.get(&CAPACITY.to_string(), 0).is_some());
    }
}
