//! Writes the kubeconfig clients use: the cluster CA, an admin user with a client certificate in
//! `system:masters`, and a bearer-token user. The file is created 0600 (it holds credentials).

use std::path::Path;

use base64::Engine;
use serde_json::json;

use crate::Error;

/// Credentials an in-process client needs to reach the server.
#[derive(Clone)]
pub struct AdminCredentials {
    /// CA certificate to trust, PEM.
    pub ca_pem: String,
    /// Admin client certificate (CN kubernetes-admin, O system:masters), PEM.
    pub client_cert_pem: String,
    /// Its private key, PEM. Never log this.
    pub client_key_pem: String,
    /// Bearer token of the token user. Never log this.
    pub token: String,
}

impl std::fmt::Debug for AdminCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminCredentials")
            .field("client_key_pem", &"<redacted>")
            .field("token", &"<redacted>")
            .finish_non_exhaustive()
    }
}

/// Context name of the certificate admin (the current context).
pub const ADMIN_CONTEXT: &str = "fake-admin";
/// Context name of the token user.
pub const TOKEN_CONTEXT: &str = "fake-token";

/// The kubeconfig as YAML text.
pub fn render(url: &str, creds: &AdminCredentials) -> Result<String, Error> {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s.as_bytes());
    let doc = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": url, "certificate-authority-data": b64(&creds.ca_pem)}}],
        "users": [
            {"name": "admin", "user": {"client-certificate-data": b64(&creds.client_cert_pem), "client-key-data": b64(&creds.client_key_pem)}},
            {"name": "token-user", "user": {"token": creds.token}},
        ],
        "contexts": [
            {"name": ADMIN_CONTEXT, "context": {"cluster": "fake", "user": "admin", "namespace": "default"}},
            {"name": TOKEN_CONTEXT, "context": {"cluster": "fake", "user": "token-user", "namespace": "default"}},
        ],
        "current-context": ADMIN_CONTEXT,
        "preferences": {},
    });
    serde_saphyr::to_string(&doc).map_err(|e| Error::Kubeconfig(e.to_string()))
}

/// Writes the kubeconfig to `path` with mode 0600.
pub fn write(path: &Path, url: &str, creds: &AdminCredentials) -> Result<(), Error> {
    let text = render(url, creds)?;
    write_private(path, &text)
}

/// Writes a file readable only by its owner.
pub fn write_private(path: &Path, text: &str) -> Result<(), Error> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(io)?;
    f.write_all(text.as_bytes()).map_err(io)
}
