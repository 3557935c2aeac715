//! The ARM front door's request limits as documented since the 2024 migration: per region, a token
//! bucket per subscription + principal + operation class (reads 250 / 25 per s, writes and deletes
//! 200 / 10 per s), and a global subscription bucket 15x that size shared by every principal.
//! Calls outside a subscription (tenant level) use per-tenant + principal buckets of the same sizes.
//! The fake is one ARM region, so "region" is the configured routing region of the whole fake.

use fake_arm::ErrorCode;
use fake_arm::error_codes;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};

use super::bucket::{BucketSpec, Take, TokenBucket};
use super::compute_policies::{ComputeLimits, policies_for};
use super::compute_windows::{ComputeAdmission, ComputeWindows};

/// Bucket sizes and refill rates; every value is configurable because tenants see different
/// numbers (older hourly limits show 11999 / 1199) and tests need tiny buckets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThrottleConfig {
    /// `false` admits everything and sends no rate-limit headers (benchmarks).
    pub enabled: bool,
    /// GET / HEAD.
    pub reads: BucketSpec,
    /// PUT / PATCH / POST.
    pub writes: BucketSpec,
    /// DELETE.
    pub deletes: BucketSpec,
    /// Global subscription bucket = this factor x the per-principal bucket (15 in Azure).
    pub global_factor: u32,
    /// Compute RP policies applied after the front door admitted a `Microsoft.Compute` call
    /// (only while `enabled` is true too).
    #[serde(default)]
    pub compute: ComputeLimits,
}

impl Default for ThrottleConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            reads: BucketSpec {
                size: 250,
                refill_per_sec: 25.0,
            },
            writes: BucketSpec {
                size: 200,
                refill_per_sec: 10.0,
            },
            deletes: BucketSpec {
                size: 200,
                refill_per_sec: 10.0,
            },
            global_factor: 15,
            compute: ComputeLimits::default(),
        }
    }
}

impl ThrottleConfig {
    /// Same limits, throttling off (ARM and Compute RP).
    pub fn disabled() -> Self {
        Self {
            enabled: false,
            compute: ComputeLimits {
                enabled: false,
                ..ComputeLimits::default()
            },
            ..Self::default()
        }
    }

    fn spec(&self, class: OpClass) -> BucketSpec {
        match class {
            OpClass::Read => self.reads,
            OpClass::Write => self.writes,
            OpClass::Delete => self.deletes,
        }
    }
}

/// Which bucket family a request draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// GET and HEAD.
    Read,
    /// PUT, PATCH and POST.
    Write,
    /// DELETE.
    Delete,
}

impl OpClass {
    /// Class of an HTTP method.
    pub fn of(method: &http::Method) -> Self {
        match *method {
            http::Method::GET | http::Method::HEAD => Self::Read,
            http::Method::DELETE => Self::Delete,
            _ => Self::Write,
        }
    }

    /// Singular noun used in ARM's throttling message (`'read' requests`).
    pub fn noun(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Delete => "delete",
        }
    }
}

/// Whose limits apply: the subscription in the path, or the caller's tenant for tenant-level calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// `/subscriptions/{id}/...`.
    Subscription(String),
    /// Anything else (e.g. `/providers/...`), limited per tenant.
    Tenant(String),
}

impl Scope {
    /// Scope of an ARM path; `tenant` is the caller's `tid`.
    pub fn of_path(path: &str, tenant: &str) -> Self {
        let mut segments = path.split('/').filter(|s| !s.is_empty());
        match (segments.next(), segments.next()) {
            (Some(first), Some(sub)) if first.eq_ignore_ascii_case("subscriptions") => {
                Self::Subscription(sub.to_ascii_lowercase())
            }
            _ => Self::Tenant(tenant.to_ascii_lowercase()),
        }
    }

    fn word(&self) -> &'static str {
        match self {
            Self::Subscription(_) => "subscription",
            Self::Tenant(_) => "tenant",
        }
    }

    fn id(&self) -> &str {
        match self {
            Self::Subscription(id) | Self::Tenant(id) => id,
        }
    }
}

/// Outcome of one request against the buckets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Throttling disabled: no headers.
    Unlimited,
    /// Admitted; remaining whole tokens for the response headers.
    Granted {
        /// Class charged.
        class: OpClass,
        /// `subscription` or `tenant` (header infix).
        scope: &'static str,
        /// Tokens left in the caller's bucket.
        remaining: u32,
        /// Tokens left in the subscription-wide bucket (subscription scope only).
        remaining_global: Option<u32>,
    },
    /// Refused with 429.
    Throttled {
        /// Class refused.
        class: OpClass,
        /// `subscription` or `tenant`.
        scope: &'static str,
        /// Seconds until a token is available in every bucket involved.
        retry_after: u64,
        /// ARM error code (`SubscriptionRequestsThrottled` / `TenantRequestsThrottled`).
        code: ErrorCode,
        /// ARM's message naming the scope, the actor and the wait.
        message: String,
    },
}

impl Admission {
    /// `x-ms-ratelimit-remaining-*` headers for this outcome.
    pub fn headers(&self) -> Vec<(String, String)> {
        let (class, scope, remaining, global) = match self {
            Self::Unlimited => return Vec::new(),
            Self::Granted {
                class,
                scope,
                remaining,
                remaining_global,
            } => (*class, *scope, *remaining, *remaining_global),
            Self::Throttled { class, scope, .. } => {
                (*class, *scope, 0, (*scope == "subscription").then_some(0))
            }
        };
        let noun = class.noun();
        let mut headers = vec![(
            format!("x-ms-ratelimit-remaining-{scope}-{noun}s"),
            remaining.to_string(),
        )];
        if let Some(global) = global {
            headers.push((
                format!("x-ms-ratelimit-remaining-{scope}-global-{noun}s"),
                global.to_string(),
            ));
        }
        headers
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    scope: String,
    principal: Option<String>,
    class: OpClass,
}

/// The live buckets of one fake ARM region (front door and Compute RP).
#[derive(Debug)]
pub struct ArmThrottle {
    config: RwLock<Arc<ThrottleConfig>>,
    buckets: Mutex<HashMap<Key, TokenBucket>>,
    compute: ComputeWindows,
}

impl ArmThrottle {
    /// Buckets (all full) with `config`.
    pub fn new(config: ThrottleConfig) -> Self {
        Self {
            config: RwLock::new(Arc::new(config)),
            buckets: Mutex::new(HashMap::new()),
            compute: ComputeWindows::default(),
        }
    }

    /// Current limits.
    pub fn config(&self) -> ThrottleConfig {
        (**self.config.read()).clone()
    }

    /// Whether the front door throttles at all (when not, no request is charged or refused).
    pub fn enabled(&self) -> bool {
        self.config.read().enabled
    }

    /// Replaces the limits and refills every bucket and window (admin API).
    pub fn reconfigure(&self, config: ThrottleConfig) {
        *self.config.write() = Arc::new(config);
        self.buckets.lock().clear();
        self.compute.clear();
    }

    /// Counts a request against the Compute RP policies of `method` + `path`; `None` when
    /// throttling is off or the call is not a metered Compute call.
    pub fn admit_compute(
        &self,
        method: &http::Method,
        path: &str,
        now: Instant,
    ) -> Option<ComputeAdmission> {
        let config = self.config.read().clone();
        if !(config.enabled && config.compute.enabled) {
            return None;
        }
        let policies = policies_for(method, path);
        if policies.is_empty() {
            return None;
        }
        let subscription = match Scope::of_path(path, "") {
            Scope::Subscription(id) => id,
            Scope::Tenant(_) => return None,
        };
        Some(
            self.compute
                .admit(&config.compute, &subscription, policies, now),
        )
    }

    /// Charges one request of `class` by `principal` (object id) in `scope`.
    pub fn admit(&self, scope: &Scope, principal: &str, class: OpClass, now: Instant) -> Admission {
        let config = self.config.read().clone();
        if !config.enabled {
            return Admission::Unlimited;
        }
        let spec = config.spec(class);
        let own = Key {
            scope: scope.id().to_string(),
            principal: Some(principal.to_ascii_lowercase()),
            class,
        };
        let global = matches!(scope, Scope::Subscription(_)).then(|| Key {
            scope: scope.id().to_string(),
            principal: None,
            class,
        });
        let mut buckets = self.buckets.lock();
        let own_wait = buckets
            .entry(own.clone())
            .or_insert_with(|| TokenBucket::new(spec, now))
            .wait(now);
        let global_spec = spec.scaled(config.global_factor);
        let global_wait = match &global {
            Some(key) => buckets
                .entry(key.clone())
                .or_insert_with(|| TokenBucket::new(global_spec, now))
                .wait(now),
            None => 0,
        };
        let wait = own_wait.max(global_wait);
        if wait > 0 {
            let code = match scope {
                Scope::Subscription(_) => error_codes::SUBSCRIPTION_REQUESTS_THROTTLED,
                Scope::Tenant(_) => error_codes::TENANT_REQUESTS_THROTTLED,
            };
            let message = format!(
                "Number of '{}' requests for {} '{}' actor '{}' exceeded. Please try again after '{}' seconds after additional tokens are available. Refer to https://aka.ms/arm-throttling",
                class.noun(),
                scope.word(),
                scope.id(),
                principal,
                wait
            );
            return Admission::Throttled {
                class,
                scope: scope.word(),
                retry_after: wait,
                code,
                message,
            };
        }
        let remaining = match buckets.get_mut(&own).map(|b| b.take(now)) {
            Some(Take::Granted(n)) => n,
            _ => 0,
        };
        let remaining_global = global.map(|key| match buckets.get_mut(&key).map(|b| b.take(now)) {
            Some(Take::Granted(n)) => n,
            _ => 0,
        });
        Admission::Granted {
            class,
            scope: scope.word(),
            remaining,
            remaining_global,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn small() -> ThrottleConfig {
        ThrottleConfig {
            enabled: true,
            reads: BucketSpec {
                size: 3,
                refill_per_sec: 1.0,
            },
            writes: BucketSpec {
                size: 2,
                refill_per_sec: 0.5,
            },
            deletes: BucketSpec {
                size: 2,
                refill_per_sec: 0.5,
            },
            global_factor: 15,
            compute: ComputeLimits::default(),
        }
    }

    #[test]
    fn default_limits_are_the_documented_ones() {
        let c = ThrottleConfig::default();
        assert_eq!((c.reads.size, c.reads.refill_per_sec), (250, 25.0));
        assert_eq!((c.writes.size, c.writes.refill_per_sec), (200, 10.0));
        assert_eq!((c.deletes.size, c.deletes.refill_per_sec), (200, 10.0));
        assert_eq!(c.global_factor, 15);
    }

    #[test]
    fn first_read_reports_the_observed_remaining_counts() {
        let t = ArmThrottle::new(ThrottleConfig::default());
        let a = t.admit(
            &Scope::Subscription("s".into()),
            "oid",
            OpClass::Read,
            Instant::now(),
        );
        let headers = a.headers();
        assert_eq!(
            headers,
            vec![
                (
                    "x-ms-ratelimit-remaining-subscription-reads".to_string(),
                    "249".to_string()
                ),
                (
                    "x-ms-ratelimit-remaining-subscription-global-reads".to_string(),
                    "3749".to_string()
                ),
            ]
        );
    }

    #[test]
    fn exhausting_reads_throttles_reads_only_and_per_principal() {
        let t = ArmThrottle::new(small());
        let now = Instant::now();
        let sub = Scope::Subscription("S1".into());
        for _ in 0..3 {
            assert!(matches!(
                t.admit(&sub, "a", OpClass::Read, now),
                Admission::Granted { .. }
            ));
        }
        match t.admit(&sub, "a", OpClass::Read, now) {
            Admission::Throttled {
                retry_after,
                code,
                message,
                ..
            } => {
                assert_eq!(retry_after, 1);
                assert_eq!(code, error_codes::SUBSCRIPTION_REQUESTS_THROTTLED);
                assert!(
                    message.contains("'read' requests for subscription 'S1' actor 'a'"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            t.admit(&sub, "a", OpClass::Write, now),
            Admission::Granted { .. }
        ));
        assert!(matches!(
            t.admit(&sub, "b", OpClass::Read, now),
            Admission::Granted { .. }
        ));
        assert!(matches!(
            t.admit(&Scope::Subscription("s2".into()), "a", OpClass::Read, now),
            Admission::Granted { .. }
        ));
        assert!(matches!(
            t.admit(&sub, "a", OpClass::Read, now + Duration::from_secs(1)),
            Admission::Granted { .. }
        ));
    }

    #[test]
    fn the_global_bucket_is_shared_by_principals() {
        let t = ArmThrottle::new(ThrottleConfig {
            global_factor: 1,
            ..small()
        });
        let now = Instant::now();
        let sub = Scope::Subscription("s".into());
        for p in ["a", "b", "c"] {
            assert!(matches!(
                t.admit(&sub, p, OpClass::Read, now),
                Admission::Granted { .. }
            ));
        }
        assert!(matches!(
            t.admit(&sub, "d", OpClass::Read, now),
            Admission::Throttled { .. }
        ));
    }

    #[test]
    fn tenant_scope_has_no_global_bucket_and_its_own_code() {
        let t = ArmThrottle::new(ThrottleConfig {
            writes: BucketSpec {
                size: 1,
                refill_per_sec: 0.1,
            },
            ..small()
        });
        let now = Instant::now();
        let scope = Scope::of_path("/providers/Microsoft.Compute/operations", "T");
        assert_eq!(scope, Scope::Tenant("t".into()));
        let granted = t.admit(&scope, "a", OpClass::Write, now);
        assert_eq!(
            granted.headers(),
            vec![(
                "x-ms-ratelimit-remaining-tenant-writes".to_string(),
                "0".to_string()
            )]
        );
        match t.admit(&scope, "a", OpClass::Write, now) {
            Admission::Throttled {
                code, retry_after, ..
            } => assert_eq!(
                (code, retry_after),
                (error_codes::TENANT_REQUESTS_THROTTLED, 10)
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn disabled_admits_everything_without_headers() {
        let t = ArmThrottle::new(ThrottleConfig::disabled());
        let vm_list =
            "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines";
        assert_eq!(
            t.admit_compute(&http::Method::GET, vm_list, Instant::now()),
            None
        );
        let a = t.admit(
            &Scope::Subscription("s".into()),
            "a",
            OpClass::Delete,
            Instant::now(),
        );
        assert_eq!(a, Admission::Unlimited);
        assert!(a.headers().is_empty());
    }

    #[test]
    fn compute_calls_are_metered_per_subscription() {
        let t = ArmThrottle::new(ThrottleConfig::default());
        let vm_list =
            "/subscriptions/S/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines";
        let a = t
            .admit_compute(&http::Method::GET, vm_list, Instant::now())
            .unwrap();
        assert_eq!(
            a.header(),
            "Microsoft.Compute/HighCostGet3Min;139,Microsoft.Compute/HighCostGet30Min;699"
        );
        let lb = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb";
        assert_eq!(
            t.admit_compute(&http::Method::GET, lb, Instant::now()),
            None
        );
    }

    #[test]
    fn reconfigure_refills() {
        let t = ArmThrottle::new(small());
        let now = Instant::now();
        let sub = Scope::Subscription("s".into());
        for _ in 0..3 {
            t.admit(&sub, "a", OpClass::Read, now);
        }
        t.reconfigure(small());
        assert!(matches!(
            t.admit(&sub, "a", OpClass::Read, now),
            Admission::Granted { remaining: 2, .. }
        ));
    }

    #[test]
    fn class_and_scope_parsing() {
        assert_eq!(OpClass::of(&http::Method::HEAD), OpClass::Read);
        assert_eq!(OpClass::of(&http::Method::PATCH), OpClass::Write);
        assert_eq!(OpClass::of(&http::Method::POST), OpClass::Write);
        assert_eq!(OpClass::of(&http::Method::DELETE), OpClass::Delete);
        assert_eq!(
            Scope::of_path("/SUBSCRIPTIONS/AbC/resourceGroups/x", "t"),
            Scope::Subscription("abc".into())
        );
    }
}
