//! Client of the fake's admin API (`/admin/...` on its HTTPS listener, no token, loopback only):
//! the request journal, fault rules, whole-cloud state and compute churn the scenarios drive.

use std::path::Path;

use reqwest::Method;
use serde_json::{Value, json};

/// An admin call failed (transport, or an answer that is not JSON).
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// The CA file could not be read or parsed.
    #[error("reading the fake's CA {path}: {reason}")]
    Ca {
        /// The CA file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The request could not be sent or its body read.
    #[error("{method} {path}: {source}")]
    Http {
        /// Method.
        method: Method,
        /// Admin path.
        path: String,
        /// The underlying error.
        source: reqwest::Error,
    },
    /// The body was not JSON.
    #[error("{method} {path}: answer is not JSON ({source}): {body}")]
    Json {
        /// Method.
        method: Method,
        /// Admin path.
        path: String,
        /// The body.
        body: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// The fake answered with an error status.
    #[error("{method} {path}: status {status}: {body}")]
    Status {
        /// Method.
        method: Method,
        /// Admin path.
        path: String,
        /// Status code.
        status: u16,
        /// The body.
        body: Value,
    },
}

/// HTTPS client of one fake's admin API.
#[derive(Debug, Clone)]
pub struct FakeAdmin {
    base: String,
    http: reqwest::Client,
}

impl FakeAdmin {
    /// A client for the fake at `base` (`https://127.0.0.1:PORT`) trusting the CA in `ca_file`.
    pub fn new(base: &str, ca_file: &Path) -> Result<Self, AdminError> {
        let ca_error = |reason: String| AdminError::Ca {
            path: ca_file.display().to_string(),
            reason,
        };
        let pem = std::fs::read(ca_file).map_err(|e| ca_error(e.to_string()))?;
        let ca = reqwest::Certificate::from_pem(&pem).map_err(|e| ca_error(e.to_string()))?;
        // The workspace's one TLS stack; a second install is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .add_root_certificate(ca)
            .build()
            .map_err(|e| ca_error(e.to_string()))?;
        Ok(Self {
            base: base.trim_end_matches('/').to_string(),
            http,
        })
    }

    /// The HTTPS client (trusts the fake's CA), for ARM, IMDS or token calls of the caller's own.
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// Any admin call: (status, JSON body or `Null`), whatever the status.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<(u16, Value), AdminError> {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let http_error = |source| AdminError::Http {
            method: method.clone(),
            path: path.to_string(),
            source,
        };
        let response = request.send().await.map_err(http_error)?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(http_error)?;
        let value = if text.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).map_err(|source| AdminError::Json {
                method: method.clone(),
                path: path.to_string(),
                body: text.clone(),
                source,
            })?
        };
        Ok((status, value))
    }

    /// An admin call that must succeed (2xx): its JSON body.
    pub async fn expect_ok(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, AdminError> {
        let (status, value) = self.call(method.clone(), path, body).await?;
        if (200..300).contains(&status) {
            Ok(value)
        } else {
            Err(AdminError::Status {
                method,
                path: path.to_string(),
                status,
                body: value,
            })
        }
    }

    /// `GET /admin/info`: endpoints, ids, and the nodes ARM holds now.
    pub async fn info(&self) -> Result<Value, AdminError> {
        self.expect_ok(Method::GET, "/admin/info", None).await
    }

    /// `GET /admin/state`: the whole cloud as JSON.
    pub async fn state(&self) -> Result<Value, AdminError> {
        self.expect_ok(Method::GET, "/admin/state", None).await
    }

    /// `GET /admin/journal`: `{"entries": [...]}` (method, path, status, clientId, userAgent...).
    pub async fn journal(&self) -> Result<Value, AdminError> {
        self.expect_ok(Method::GET, "/admin/journal", None).await
    }

    /// `PUT /admin/faults`: replaces the fault schedule (`{"seed", "rules"}`).
    pub async fn replace_faults(&self, schedule: Value) -> Result<Value, AdminError> {
        self.expect_ok(Method::PUT, "/admin/faults", Some(schedule))
            .await
    }

    /// `DELETE /admin/faults`: no more faults.
    pub async fn clear_faults(&self) -> Result<(), AdminError> {
        self.expect_ok(Method::DELETE, "/admin/faults", None)
            .await
            .map(drop)
    }

    /// `GET /admin/compute/nodes/{node}`: the node as ARM describes it.
    pub async fn describe_node(&self, node: &str) -> Result<Value, AdminError> {
        self.expect_ok(Method::GET, &format!("/admin/compute/nodes/{node}"), None)
            .await
    }

    /// `POST /admin/compute/vms`: adds a standalone VM (body as the admin API documents it).
    pub async fn add_vm(&self, body: Value) -> Result<Value, AdminError> {
        self.expect_ok(Method::POST, "/admin/compute/vms", Some(body))
            .await
    }

    /// `DELETE /admin/compute/nodes/{node}`: deletes the node's VM and NICs.
    pub async fn delete_node(&self, node: &str) -> Result<(), AdminError> {
        self.expect_ok(
            Method::DELETE,
            &format!("/admin/compute/nodes/{node}"),
            None,
        )
        .await
        .map(drop)
    }

    /// `POST /admin/compute/nodes/{node}/power-state`: `running`, `stopped` or `deallocated`.
    pub async fn set_power_state(&self, node: &str, state: &str) -> Result<Value, AdminError> {
        self.expect_ok(
            Method::POST,
            &format!("/admin/compute/nodes/{node}/power-state"),
            Some(json!({ "state": state })),
        )
        .await
    }

    /// `POST /admin/compute/scale-sets/{name}/scale`: sets the instance count.
    pub async fn scale(&self, scale_set: &str, instances: u32) -> Result<Value, AdminError> {
        self.expect_ok(
            Method::POST,
            &format!("/admin/compute/scale-sets/{scale_set}/scale"),
            Some(json!({ "instances": instances })),
        )
        .await
    }

    /// `POST /admin/proxies`: the URL (`http://127.0.0.1:PORT`) of the proxy dedicated to
    /// `host`, which answers `http://169.254.169.254` as that host's IMDS and tunnels the public
    /// Entra hosts (started on first ask, the same one after).
    pub async fn host_proxy(&self, host: &str) -> Result<String, AdminError> {
        let path = "/admin/proxies";
        let answer = self
            .expect_ok(Method::POST, path, Some(json!({ "host": host })))
            .await?;
        match answer["url"].as_str() {
            Some(url) => Ok(url.to_owned()),
            None => Err(AdminError::Status {
                method: Method::POST,
                path: path.to_owned(),
                status: 200,
                body: answer,
            }),
        }
    }
}
