//! The CA of the client certificates the secure port accepts: `--client-ca-file`, else (with an
//! authentication client and without `--authentication-skip-lookup`) the `client-ca-file` key of
//! the `kube-system/extension-apiserver-authentication` ConfigMap (k8s.io/apiserver
//! `DelegatingAuthenticationOptions.lookupMissingConfigInCluster`: a missing ConfigMap means no
//! client CA; any other failure is fatal unless `--authentication-tolerate-lookup-failure`).
//! **[infer]** the ConfigMap is read once at start (upstream follows its changes).

use std::path::Path;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;

use super::DelegatedAuthError;

/// The ConfigMap the API server publishes its client CA in.
pub const CONFIG_MAP: &str = "extension-apiserver-authentication";
/// Its namespace.
pub const NAMESPACE: &str = "kube-system";
/// The key of the client CA bundle.
pub const KEY: &str = "client-ca-file";

/// The PEM of `--client-ca-file`.
pub fn from_file(path: &Path) -> Result<Vec<u8>, DelegatedAuthError> {
    std::fs::read(path).map_err(|source| DelegatedAuthError::ClientCaFile {
        path: path.to_owned(),
        source,
    })
}

/// The PEM of the ConfigMap's `client-ca-file` (`None`: no ConfigMap or no such key).
pub async fn lookup(client: &kube::Client) -> Result<Option<Vec<u8>>, DelegatedAuthError> {
    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    match maps.get_opt(CONFIG_MAP).await {
        Ok(map) => Ok(map
            .and_then(|m| m.data)
            .and_then(|mut d| d.remove(KEY))
            .filter(|pem| !pem.trim().is_empty())
            .map(String::into_bytes)),
        Err(source) => Err(DelegatedAuthError::Lookup(source)),
    }
}

/// The verifier roots of a PEM bundle.
pub fn roots(pem: &[u8], origin: &str) -> Result<rustls::RootCertStore, DelegatedAuthError> {
    let bad = |reason: String| DelegatedAuthError::ClientCa {
        origin: origin.to_string(),
        reason,
    };
    let mut store = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut &pem[..]) {
        let cert = cert.map_err(|e| bad(e.to_string()))?;
        store.add(cert).map_err(|e| bad(e.to_string()))?;
    }
    if store.is_empty() {
        return Err(bad("no PEM certificate".into()));
    }
    Ok(store)
}
