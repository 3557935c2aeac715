//! The Kubernetes client both binaries build from `--kubeconfig` (or the in-cluster
//! configuration) and `--master`, with errors naming the flag and the value.
//!
//! A proxy taken from `HTTPS_PROXY`/`https_proxy` is not used for an API server that
//! `NO_PROXY`/`no_proxy` exempts, as client-go's transport reads them (Go's
//! `golang.org/x/net/http/httpproxy`: `*`, host names matching themselves and their subdomains,
//! `.domain` suffixes, IP addresses and CIDR ranges, each optionally with `:port`); kube-rs without
//! its proxy feature would otherwise refuse to start whenever the variable is set (e.g. in a Pod
//! given a proxy for Entra ID). A `proxy-url` in the kubeconfig is always used, as in client-go.

use std::path::{Path, PathBuf};

use crate::kube_rate_limit::KubeRateLimit;

/// Why no client could be built.
#[derive(Debug, thiserror::Error)]
pub enum KubeClientError {
    /// `--kubeconfig` cannot be read or parsed.
    #[error("--kubeconfig {}: cannot read", path.display())]
    Read {
        /// The file given.
        path: PathBuf,
        /// The parse or I/O error.
        source: kube::config::KubeconfigError,
    },
    /// `--kubeconfig` parses but is not usable.
    #[error("--kubeconfig {}: invalid", path.display())]
    Invalid {
        /// The file given.
        path: PathBuf,
        /// Why it is unusable.
        source: kube::config::KubeconfigError,
    },
    /// Neither a kubeconfig nor an in-cluster environment.
    #[error("no --kubeconfig and no in-cluster configuration")]
    Infer(#[from] kube::config::InferConfigError),
    /// `--master` is not a URL.
    #[error("--master {value:?} is not a URL")]
    Master {
        /// The value given.
        value: String,
    },
    /// The client itself could not be built (TLS material, proxy).
    #[error("building the Kubernetes client")]
    Build(#[from] kube::Error),
}

/// A client from `kubeconfig` (or the in-cluster configuration), with `master` overriding the
/// server URL and `rate_limit` (`--kube-api-qps`/`--kube-api-burst`) throttling every request.
pub async fn build(
    kubeconfig: Option<&Path>,
    master: Option<&str>,
    rate_limit: Option<KubeRateLimit>,
) -> Result<kube::Client, KubeClientError> {
    let mut config = match kubeconfig {
        Some(path) => {
            let file = kube::config::Kubeconfig::read_from(path).map_err(|source| {
                KubeClientError::Read {
                    path: path.to_owned(),
                    source,
                }
            })?;
            kube::Config::from_custom_kubeconfig(file, &Default::default())
                .await
                .map_err(|source| KubeClientError::Invalid {
                    path: path.to_owned(),
                    source,
                })?
        }
        None => kube::Config::infer().await?,
    };
    if let Some(master) = master.filter(|m| !m.is_empty()) {
        config.cluster_url = master.parse().map_err(|_| KubeClientError::Master {
            value: master.to_owned(),
        })?;
    }
    let env = |keys: [&str; 2]| {
        keys.iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
    };
    let proxy_from_env = match (&config.proxy_url, env(["HTTPS_PROXY", "https_proxy"])) {
        (Some(used), Some(var)) => {
            used.to_string().trim_end_matches('/') == var.trim().trim_end_matches('/')
        }
        _ => false,
    };
    if proxy_from_env
        && let (Some(no_proxy), Some(host)) =
            (env(["NO_PROXY", "no_proxy"]), config.cluster_url.host())
    {
        let port = config.cluster_url.port_u16().unwrap_or(
            if config.cluster_url.scheme_str() == Some("http") {
                80
            } else {
                443
            },
        );
        if no_proxy_exempts(&no_proxy, host, port) {
            config.proxy_url = None;
        }
    }
    let builder = kube::client::ClientBuilder::try_from(config)?;
    Ok(match rate_limit {
        Some(limit) => builder.with_layer(&limit.layer()).build(),
        None => builder.build(),
    })
}

/// Whether the `NO_PROXY` value `no_proxy` exempts `host` (`[...]` around an IPv6 address allowed)
/// on `port` from the proxy, with the entries Go's `httpproxy` accepts (see the module docs).
fn no_proxy_exempts(no_proxy: &str, host: &str, port: u16) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    let ip: Option<std::net::IpAddr> = host.parse().ok();
    no_proxy
        .split(',')
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .any(|entry| {
            if entry == "*" {
                return true;
            }
            if let Some((net, bits)) = entry.split_once('/') {
                return match (ip, net.parse(), bits.parse::<u32>()) {
                    (Some(ip), Ok(net), Ok(bits)) => in_cidr(ip, net, bits),
                    _ => false,
                };
            }
            let entry = entry.trim_start_matches('[');
            if let Ok(addr) = entry.trim_end_matches(']').parse::<std::net::IpAddr>() {
                return ip == Some(addr);
            }
            let (name, entry_port) = match entry.rsplit_once(':') {
                Some((name, p)) => match p.parse::<u16>() {
                    Ok(p) => (name.trim_end_matches(']'), Some(p)),
                    Err(_) => return false,
                },
                None => (entry, None),
            };
            if entry_port.is_some_and(|p| p != port) {
                return false;
            }
            if let Ok(addr) = name.parse::<std::net::IpAddr>() {
                return ip == Some(addr);
            }
            let name = name.trim_start_matches('*');
            match name.strip_prefix('.') {
                Some(domain) => host.ends_with(name) || host == domain,
                None => host == name || host.ends_with(&format!(".{name}")),
            }
        })
}

/// Whether `ip` lies in `net`/`bits` (same address family only).
fn in_cidr(ip: std::net::IpAddr, net: std::net::IpAddr, bits: u32) -> bool {
    use std::net::IpAddr::{V4, V6};
    match (ip, net) {
        (V4(ip), V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (V6(ip), V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod no_proxy_tests {
    use super::no_proxy_exempts;

    #[test]
    fn no_proxy_entries_match_as_go_reads_them() {
        let list = "127.0.0.1,localhost";
        assert!(no_proxy_exempts(list, "127.0.0.1", 6443));
        assert!(no_proxy_exempts(list, "localhost", 443));
        assert!(!no_proxy_exempts(list, "10.0.0.1", 443));
        assert!(no_proxy_exempts("*", "anything.example", 443));
        assert!(no_proxy_exempts("example.com", "api.example.com", 443));
        assert!(no_proxy_exempts(".example.com", "api.example.com", 443));
        assert!(!no_proxy_exempts("example.com", "notexample.com", 443));
        assert!(no_proxy_exempts("10.0.0.0/8", "10.1.2.3", 443));
        assert!(!no_proxy_exempts("10.0.0.0/8", "11.1.2.3", 443));
        assert!(no_proxy_exempts(
            "api.example.com:6443",
            "api.example.com",
            6443
        ));
        assert!(!no_proxy_exempts(
            "api.example.com:6443",
            "api.example.com",
            443
        ));
        assert!(no_proxy_exempts("::1", "[::1]", 443));
        assert!(!no_proxy_exempts("", "127.0.0.1", 443));
    }
}
