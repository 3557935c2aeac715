//! Where IMDS is: `http://169.254.169.254` on Azure, or an override (`--imds-endpoint`,
//! `AZURE_IMDS_ENDPOINT`) such as the fake's per-VM `https://127.0.0.1:PORT/imds/<node>`; and the
//! request URLs with upstream's api-versions.

use super::ImdsError;

/// The real IMDS address (plain HTTP, link-local).
pub const DEFAULT_BASE: &str = "http://169.254.169.254";
/// Environment variable overriding the base URL.
pub const ENDPOINT_ENV: &str = "AZURE_IMDS_ENDPOINT";
/// api-version upstream uses for `/metadata/instance` (`consts.ImdsInstanceAPIVersion`).
pub const INSTANCE_API_VERSION: &str = "2021-10-01";
/// api-version upstream uses for `/metadata/loadbalancer` (`consts.ImdsLoadBalancerAPIVersion`).
pub const LOAD_BALANCER_API_VERSION: &str = "2020-10-01";

/// A validated IMDS base URL (no trailing slash); request paths are appended to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImdsEndpoint {
    base: String,
}

impl Default for ImdsEndpoint {
    fn default() -> Self {
        Self {
            base: DEFAULT_BASE.to_string(),
        }
    }
}

impl ImdsEndpoint {
    /// Parses a base URL: `http` or `https`, a host, an optional path prefix, no query or fragment.
    pub fn parse(base: &str) -> Result<Self, ImdsError> {
        let invalid = |reason: &str| ImdsError::InvalidEndpoint {
            url: base.to_string(),
            reason: reason.to_string(),
        };
        let url = url::Url::parse(base).map_err(|e| invalid(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("the scheme must be http or https"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(invalid("there is no host"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(invalid("a base URL takes no query or fragment"));
        }
        Ok(Self {
            base: url.as_str().trim_end_matches('/').to_string(),
        })
    }

    /// The endpoint in force: the flag value, else the environment value, else the real IMDS
    /// (empty values count as unset).
    pub fn resolve(flag: Option<&str>, env: Option<&str>) -> Result<Self, ImdsError> {
        match flag
            .filter(|s| !s.is_empty())
            .or(env.filter(|s| !s.is_empty()))
        {
            Some(base) => Self::parse(base),
            None => Ok(Self::default()),
        }
    }

    /// The base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Whether requests use TLS (a fake or an unusual host; the real IMDS is plain HTTP).
    pub fn is_https(&self) -> bool {
        self.base.starts_with("https:")
    }

    /// `GET` URL of the instance document, query as upstream encodes it (sorted keys).
    pub fn instance_url(&self) -> String {
        format!(
            "{}/metadata/instance?api-version={INSTANCE_API_VERSION}&format=json",
            self.base
        )
    }

    /// `GET` URL of the load-balancer document.
    pub fn load_balancer_url(&self) -> String {
        format!(
            "{}/metadata/loadbalancer?api-version={LOAD_BALANCER_API_VERSION}&format=json",
            self.base
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_carry_upstreams_api_versions() {
        let real = ImdsEndpoint::default();
        assert_eq!(
            real.instance_url(),
            "http://169.254.169.254/metadata/instance?api-version=2021-10-01&format=json"
        );
        assert_eq!(
            real.load_balancer_url(),
            "http://169.254.169.254/metadata/loadbalancer?api-version=2020-10-01&format=json"
        );
        let fake = ImdsEndpoint::parse("https://127.0.0.1:8443/imds/node-0/").unwrap();
        assert!(fake.is_https());
        assert_eq!(
            fake.instance_url(),
            "https://127.0.0.1:8443/imds/node-0/metadata/instance?api-version=2021-10-01&format=json"
        );
    }

    #[test]
    fn bad_bases_are_refused_naming_the_url() {
        for bad in ["ftp://x", "169.254.169.254", "http://h/?a=1", "http://h/#f"] {
            let err = ImdsEndpoint::parse(bad).unwrap_err().to_string();
            assert!(err.contains(bad), "{err}");
        }
    }

    #[test]
    fn flag_beats_environment_beats_default() {
        let r = |f, e| ImdsEndpoint::resolve(f, e).unwrap().base().to_string();
        assert_eq!(r(Some("http://a"), Some("http://b")), "http://a");
        assert_eq!(r(Some(""), Some("http://b")), "http://b");
        assert_eq!(r(None, None), DEFAULT_BASE);
    }
}
