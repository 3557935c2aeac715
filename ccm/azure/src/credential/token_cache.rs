//! Our own token cache (for the IMDS managed-identity client): one token per scope set, reused
//! until five minutes before it expires, fetched by one caller at a time.

use std::collections::HashMap;
use std::future::Future;

use azure_core::credentials::AccessToken;
use time::{Duration, OffsetDateTime};
use tokio::sync::Mutex;

/// Refresh this long before expiry (azure_identity's window, arm-imds-aad.md §5.1).
pub const REFRESH_BEFORE_EXPIRY: Duration = Duration::minutes(5);

/// Tokens by scope set. `Debug` prints only how many are cached.
#[derive(Default)]
pub struct TokenCache {
    tokens: Mutex<HashMap<Vec<String>, AccessToken>>,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCache").finish_non_exhaustive()
    }
}

impl TokenCache {
    /// The cached token for `scopes` if still fresh, else `fetch`'s (cached on success).
    pub async fn get_or_fetch<F, Fut>(
        &self,
        scopes: &[&str],
        fetch: F,
    ) -> azure_core::Result<AccessToken>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = azure_core::Result<AccessToken>>,
    {
        let key: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        let mut tokens = self.tokens.lock().await;
        if let Some(token) = tokens.get(&key)
            && token.expires_on - REFRESH_BEFORE_EXPIRY > OffsetDateTime::now_utc()
        {
            return Ok(token.clone());
        }
        let token = fetch().await?;
        tokens.insert(key, token.clone());
        Ok(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn reuses_fresh_tokens_and_refetches_near_expiry() {
        let cache = TokenCache::default();
        let fetches = AtomicUsize::new(0);
        let fetch = |lifetime: Duration| {
            fetches.fetch_add(1, Ordering::SeqCst);
            async move { Ok(AccessToken::new("t", OffsetDateTime::now_utc() + lifetime)) }
        };
        cache
            .get_or_fetch(&["a"], || fetch(Duration::hours(1)))
            .await
            .expect("first");
        cache
            .get_or_fetch(&["a"], || fetch(Duration::hours(1)))
            .await
            .expect("cached");
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        cache
            .get_or_fetch(&["b"], || fetch(Duration::minutes(2)))
            .await
            .expect("other scope");
        cache
            .get_or_fetch(&["b"], || fetch(Duration::minutes(2)))
            .await
            .expect("near expiry");
        assert_eq!(fetches.load(Ordering::SeqCst), 3);
    }
}
