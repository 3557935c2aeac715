//! azure.json: parsing (JSON or YAML, case-insensitive keys), `AZURE_*` environment overrides,
//! the file/Secret precedence, upstream's code defaults and init-time validations, with secrets
//! redacted from every `Debug`, `Display` and error.
//!
//! Pipeline (one file per step): [`text`] (JSON/YAML to a value) → [`decode`]/[`document`]
//! (canonical keys, typed values, unknown keys collected) → [`sources`] (`cloudConfigType`
//! precedence) → [`env`](mod@env) (`AZURE_*`) → [`validate::refuse_unsupported`] → [`defaults`] →
//! [`validate::validate`]. [`load`] runs it all.
//!
//! # Verified behaviour (sources: anchor-ccm.md §2 and §6.3/6.4, and these files of
//! kubernetes-sigs/cloud-provider-azure read for this module)
//! - Keys and their code defaults (`loadBalancerSku` standard, `vmType` vmss, backend pools
//!   `nodeIPConfiguration`, cache TTLs, route batching 30 s/30 s, probe port 10256 `/healthz`,
//!   `maximumLoadBalancerRuleCount` 250, `excludeMasterFromStandardLB` true, backoff 6/1.5/5 s/1.0
//!   when on and 1 attempt when off). The key set follows `pkg/provider/config/azure.go`
//!   (including `podCidrIPv4`/`podCidrIPv6`), `azure_cache.go` (including
//!   `vmssVirtualMachineCacheInstanceView`) and `pkg/azclient/auth_conf.go` (including
//!   `auxiliaryTokenSecretURI`).
//! - Keys match case-insensitively (Go `encoding/json` behind `sigs.k8s.io/yaml`), so
//!   `cloudProviderRatelimit` works.
//! - `pkg/provider/config/env.go` `ParseConfig`: `resourceGroup` lower-cased; non-empty
//!   `AZURE_TENANT_ID`, `AZURE_CLIENT_ID`, `AZURE_FEDERATED_TOKEN_FILE` (also forcing
//!   `useFederatedWorkloadIdentityExtension`) override the file; `pkg/azclient/auth_conf.go`:
//!   non-empty `AZURE_CLIENT_SECRET` overrides `aadClientSecret`.
//! - `pkg/azclient/configloader/load.go`: `cloudConfigType` is read from the file (default
//!   merge, compared case-insensitively); `file` = file only, `secret` = the Secret only,
//!   otherwise the Secret's keys overlay the file's. Secret `kube-system/azure-cloud-provider`
//!   key `cloud-config` (anchor-ccm.md §2.1).
//! - `pkg/azclient/config.go`: cloud names `AZURECHINACLOUD`, `AZURECLOUD`, `AZUREPUBLICCLOUD`,
//!   `AZUREUSGOVERNMENT`, `AZUREUSGOVERNMENTCLOUD` (upper-cased before lookup), empty = public, any
//!   other name an error (`ConfigNotFoundError`); `AZURESTACKCLOUD` per anchor-ccm.md §6.4.
//! - Validations (`pkg/provider/azure.go` `InitializeCloudFromConfig` and `setLBDefaults`):
//!   `disableAvailabilitySetNodes` needs vmType vmss; `disableOutboundSNAT` needs the standard
//!   SKU; unknown `cloudConfigType`, pool type and probe mode values are refused; with no
//!   credential (none of the workload-identity switch, the MSI switch, a client secret, a
//!   certificate path) a config from the Secret is refused ("no credentials provided for Azure
//!   cloud provider") and a file config is refused only when `cloudConfigType` is `file` and
//!   `useInstanceMetadata` is off. `excludeMasterFromStandardLB` defaults to true for the
//!   standard SKU only; `maximumLoadBalancerRuleCount` 0 means 250.
//! - Rate limits: read QPS/bucket default to 1/5 when zero, write falls back to read; a per-client
//!   object that is absent takes the defaults, one with `cloudProviderRateLimit: false` disables
//!   that client, otherwise its zero fields are filled from the defaults (kubernetes/kubernetes
//!   legacy-cloud-providers `azure_ratelimit.go`, `InitializeCloudProviderRateLimitConfig` and
//!   `overrideDefaultRateLimitConfig`).
//!
//! # Inferred or deliberately different
//! - [infer] YAML 1.1 booleans (`yes`/`no`/`on`/`off`) read as booleans, as go-yaml v2 behind
//!   `sigs.k8s.io/yaml` reads them (serde-saphyr's default).
//! - [infer] Case folding is ASCII only; Go also folds U+212A (Kelvin) and U+017F (long s).
//! - [infer] The per-client override list is the legacy provider's plus azclient's
//!   `availabilitySetRateLimit`, `privateLinkServiceRateLimit`, `natGatewayRateLimit`; other
//!   client keys are reported as unknown.
//! - [infer] With only one source, `cloudConfigType` is not consulted (upstream's CCM binary
//!   never combines the two, anchor-ccm.md §2.1).
//! - Deliberate: an unknown value of any closed-set key (`cloud`, `vmType`, `loadBalancerSku`,
//!   pool type, probe mode, `cloudConfigType`, `identitySystem`,
//!   `preConfiguredBackendPoolLoadBalancerTypes`) is an error listing the accepted values.
//!   Upstream also refuses unknown `cloud` names (autorest/azclient lookups), pool types and
//!   probe modes, but treats any `vmType` other than vmss/vmssflex as availability sets, which
//!   silently changes node identities; with `resourceManagerEndpoint` set upstream takes any
//!   `cloud` name as a label, we still require a known one.
//! - Deliberate: closed-set values match in any case; upstream compares `cloudConfigType` with
//!   exact case in `InitializeCloudFromConfig` (so `File` fails there).
//! - Deliberate: `loadBalancerBackendPoolConfigurationType: podIP` is refused as not supported
//!   yet; upstream's legacy path silently treats it as `nodeIPConfiguration`.
//! - Deliberate: negative TTLs/intervals/counts, a probe port outside 1–65535, and malformed
//!   `tags` pairs are errors (upstream accepts or skips them).
//! - [infer] `tags` keys keep their case and `tagsMap` wins on a shared key.
//! - [infer] The backoff exponent/duration/jitter defaults apply even when backoff is off (they
//!   are then unused, since one attempt is made).
//! - Keys in [`validate::NOT_SUPPORTED_YET`] are refused with "not supported yet" when they ask
//!   for their feature; with their default or empty value they are accepted.

pub mod decode;
pub mod defaults;
pub mod document;
pub mod enums;
pub mod env;
pub mod error;
pub mod fields;
pub mod in_tree;
pub mod origin;
pub mod secret;
pub mod sources;
pub mod tags;
pub mod text;
pub mod validate;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub use document::AzureJson;
pub use enums::{
    BackendPoolType, Cloud, CloudConfigType, IdentitySystem, LoadBalancerSku, PreconfiguredPools,
    ProbeMode, VmType,
};
pub use error::ConfigError;
pub use fields::{
    Backoff, CacheSettings, Cluster, Config, CredentialKind, Identity, LoadBalancerSettings,
    RateLimit, RateLimits, RouteSettings, SourceSettings,
};
pub use in_tree::InTreeCompat;
pub use origin::Origin;
pub use secret::SecretString;
pub use sources::SourceText;

/// Everything [`load`] reads: the sources' text and the environment (as a map, so callers and
/// tests decide what the environment is). `Debug` prints neither document text nor environment
/// values (`AZURE_CLIENT_SECRET` is one).
#[derive(Clone, Default)]
pub struct Inputs<'a> {
    /// The `--cloud-config` file, if any.
    pub file: Option<SourceText<'a>>,
    /// The Secret's `cloud-config` value, if read.
    pub secret: Option<SourceText<'a>>,
    /// The process environment (only `AZURE_*` keys are read).
    pub env: BTreeMap<String, String>,
}

impl std::fmt::Debug for Inputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inputs")
            .field("file", &self.file)
            .field("secret", &self.secret)
            .field("env_names", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A loaded configuration and the unknown keys the binary should warn about.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The resolved configuration.
    pub config: Config,
    /// Keys that matched nothing, as written (dotted for nested objects).
    pub unknown_keys: Vec<String>,
}

impl Loaded {
    /// The one warning naming every unknown key, or `None` when there are none.
    pub fn unknown_keys_warning(&self) -> Option<String> {
        if self.unknown_keys.is_empty() {
            None
        } else {
            Some(format!(
                "cloud config: ignoring unknown keys: {}",
                self.unknown_keys.join(", ")
            ))
        }
    }
}

/// Parses, selects, overrides, defaults and validates: the whole azure.json pipeline.
pub fn load(inputs: &Inputs<'_>) -> Result<Loaded, ConfigError> {
    let selected = sources::select(inputs.file, inputs.secret)?;
    let document = env::apply_env(selected.document, &inputs.env);
    validate::refuse_unsupported(&document, &selected.origin)?;
    let config = defaults::resolve(
        &document,
        env::environment_file_path(&inputs.env),
        &selected.origin,
    )?;
    validate::validate(&config, &selected.origin)?;
    Ok(Loaded {
        config,
        unknown_keys: selected.unknown_keys,
    })
}
