//! The Kubernetes client both binaries build from `--kubeconfig` (or the in-cluster
//! configuration) and `--master`, with errors naming the flag and the value.

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
    let builder = kube::client::ClientBuilder::try_from(config)?;
    Ok(match rate_limit {
        Some(limit) => builder.with_layer(&limit.layer()).build(),
        None => builder.build(),
    })
}
