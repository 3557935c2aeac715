//! Starting and stopping the server: TLS material, store (optionally loaded from the data file),
//! the built-in namespaces and Services, the router, the kubeconfig, and persistence.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::middleware;
use axum::routing::get;
use fake_tls::{ClientAuth, HttpsServer, Pki, server_config};
use rand::RngCore;
use serde_json::json;

use crate::audit::AuditLog;
use crate::auth::{Authenticator, TokenUser};
use crate::config::ApiServerConfig;
use crate::handlers::{
    self, AppState,
    write::{WriteCtx, create_in, ensure_default_service_account},
};
use crate::kinds::{self, ids};
use crate::kubeconfig::{self, AdminCredentials};
use crate::store::{Store, StoreConfig, persist};
use crate::{Error, discovery, openapi, reviews, timestamps};

/// Namespaces every cluster has.
pub const SYSTEM_NAMESPACES: &[&str] =
    &["default", "kube-system", "kube-public", "kube-node-lease"];

/// A running server and what clients need to reach it.
#[derive(Debug)]
pub struct RunningApiServer {
    server: HttpsServer,
    store: Arc<Store>,
    url: String,
    kubeconfig: Option<PathBuf>,
    credentials: AdminCredentials,
    persister: Option<persist::Persister>,
    flusher: Option<tokio::task::JoinHandle<()>>,
}

impl RunningApiServer {
    /// `https://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.server.local_addr()
    }

    /// Where the kubeconfig was written, if asked to.
    pub fn kubeconfig_path(&self) -> Option<&Path> {
        self.kubeconfig.as_deref()
    }

    /// The CA certificate clients must trust, PEM.
    pub fn ca_pem(&self) -> &str {
        &self.credentials.ca_pem
    }

    /// Admin client certificate, key and token for in-process clients.
    pub fn credentials(&self) -> &AdminCredentials {
        &self.credentials
    }

    /// The kubeconfig text (admin context current), for clients that take it in memory.
    pub fn kubeconfig_yaml(&self) -> Result<String, Error> {
        kubeconfig::render(&self.url, &self.credentials)
    }

    /// Direct access to the object store (test hooks, snapshots).
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Drops all watch history: resuming from any older resourceVersion now gets 410 Gone.
    pub fn compact_history(&self) {
        self.store.compact_history();
    }

    /// Ends every watch so that each resume gets 410 Gone (forces clients to re-list).
    pub fn expire_watches(&self) {
        self.store.expire_watches();
    }

    /// Every stored object (all kinds), for harness snapshots.
    pub fn all_objects(&self) -> Vec<serde_json::Value> {
        self.store
            .all_objects()
            .into_iter()
            .map(|o| (*o).clone())
            .collect()
    }

    /// Stops serving, cuts open connections and writes the data file one last time.
    pub async fn shutdown(self) -> Result<(), Error> {
        self.store.close_watches();
        let addr = self.server.local_addr().to_string();
        self.server
            .shutdown()
            .await
            .map_err(|source| Error::Serve { addr, source })?;
        if let Some(f) = self.flusher {
            f.abort();
        }
        if let Some(persister) = &self.persister {
            persister.flush().await;
        }
        Ok(())
    }
}

/// Starts the server described by `config`.
pub async fn start(config: ApiServerConfig) -> Result<RunningApiServer, Error> {
    fake_tls::install_crypto_provider();
    let tls_dir = config.tls_dir.clone().unwrap_or_default();
    let tls_err = |source| Error::Tls {
        dir: tls_dir.clone(),
        source,
    };
    let pki = match &config.tls_dir {
        Some(dir) => Pki::load_or_create(dir, "fake-kube-apiserver-ca").map_err(tls_err)?,
        None => Pki::generate("fake-kube-apiserver-ca").map_err(tls_err)?,
    };
    let leaf = pki
        .issue_server(&["kubernetes", "kubernetes.default", "kubernetes.default.svc"])
        .map_err(tls_err)?;
    let tls = server_config(&pki, &leaf, ClientAuth::Optional).map_err(tls_err)?;
    let admin = pki
        .issue_client("kubernetes-admin", Some("system:masters"))
        .map_err(tls_err)?;
    let token = load_or_create_token(config.tls_dir.as_deref())?;
    let credentials = AdminCredentials {
        ca_pem: pki.ca_pem().to_string(),
        client_cert_pem: admin.cert_pem,
        client_key_pem: admin.key_pem,
        token: token.clone(),
    };

    let (rv, objects) = match &config.data_file {
        Some(path) => persist::load(path)?,
        None => (0, Vec::new()),
    };
    let store_config = StoreConfig {
        history_capacity: config.history_capacity,
        watch_buffer: config.watch_buffer,
        service_cidr: config.service_cidr,
    };
    let store = Arc::new(Store::new(store_config, rv, objects));
    let app = AppState {
        store: store.clone(),
        bookmark_interval: config.bookmark_interval,
        default_watch_timeout: config.default_watch_timeout,
    };
    let mut tokens = vec![TokenUser {
        token,
        user: "token-admin".into(),
        groups: vec!["system:masters".into()],
    }];
    if let Some(path) = &config.token_auth_file {
        tokens.extend(crate::token_file::read(path)?);
    }
    let auth = Authenticator::new(tokens);
    let audit = config
        .audit_log
        .as_deref()
        .map(AuditLog::open)
        .transpose()?;
    let server = HttpsServer::start(config.listen, tls, router(app, auth, audit))
        .await
        .map_err(|source| Error::Serve {
            addr: config.listen.to_string(),
            source,
        })?;
    let addr = server.local_addr();
    let host = if addr.ip().is_unspecified() {
        "127.0.0.1".to_string()
    } else {
        addr.ip().to_string()
    };
    let url = if addr.is_ipv6() {
        format!("https://[{host}]:{}", addr.port())
    } else {
        format!("https://{host}:{}", addr.port())
    };
    seed(&store, addr.port());
    if let Some(path) = &config.kubeconfig_out {
        kubeconfig::write(path, &url, &credentials)?;
    }
    let persister = config
        .data_file
        .clone()
        .map(|path| persist::Persister::new(store.clone(), path));
    let mut flusher = None;
    if let Some(p) = &persister {
        p.flush().await;
        flusher = Some(tokio::spawn(p.clone().run(config.persist_interval)));
    }
    tracing::info!(%url, "embedded kube-apiserver serving");
    Ok(RunningApiServer {
        server,
        store,
        url,
        kubeconfig: config.kubeconfig_out,
        credentials,
        persister,
        flusher,
    })
}

fn router(app: AppState, auth: Authenticator, audit: Option<AuditLog>) -> Router {
    let routes = Router::new()
        .route("/version", get(discovery::version))
        .route("/healthz", get(|| async { "ok" }))
        .route("/livez", get(|| async { "ok" }))
        .route("/readyz", get(|| async { "ok" }))
        .route("/api", get(discovery::core_versions))
        .route("/api/v1", get(discovery::core_resources))
        .route("/apis", get(discovery::group_list))
        .route("/apis/{group}", get(discovery::group))
        .route("/apis/{group}/{version}", get(discovery::group_resources))
        .route("/openapi/v3", get(openapi::index))
        .route("/openapi/v3/{*rest}", get(openapi::group_version))
        .fallback(handlers::resource)
        .with_state(app.clone())
        .merge(reviews::router(app.store.clone(), auth.clone()));
    // Audit runs inside authentication: it sees the authenticated user.
    let routes = match audit {
        Some(log) => routes.layer(middleware::from_fn_with_state(log, crate::audit::record)),
        None => routes,
    };
    routes.layer(middleware::from_fn_with_state(auth, crate::auth::require))
}

/// Creates what a fresh cluster has: system namespaces with their default ServiceAccounts and
/// the `default/kubernetes` Service and Endpoints. Existing objects (from a data file) are kept.
fn seed(store: &Store, port: u16) {
    let ctx = WriteCtx {
        manager: "kube-apiserver".into(),
        subresource: None,
        dry_run: false,
        now: timestamps::now(),
        applied_fields: None,
    };
    let result = store.write(|s| {
        for ns in SYSTEM_NAMESPACES {
            if s.get(ids::namespaces(), "", ns).is_none() {
                create_in(s, ids::namespaces(), None, json!({"metadata": {"name": ns}}), &ctx)?;
            }
            ensure_default_service_account(s, ns, &ctx.now);
        }
        if s.get(ids::services(), "default", "kubernetes").is_none() {
            let ip = s.services.cidr.first().to_string();
            let svc = json!({"metadata": {"name": "kubernetes", "labels": {"component": "apiserver", "provider": "kubernetes"}},
                "spec": {"type": "ClusterIP", "clusterIP": ip, "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}]}});
            create_in(s, ids::services(), Some("default"), svc, &ctx)?;
        }
        let ep_kind = kinds::by_resource("", "v1", "endpoints").unwrap_or_default();
        let endpoints = json!({"metadata": {"name": "kubernetes", "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
            "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}]});
        match s.get(ep_kind, "default", "kubernetes") {
            None => {
                create_in(s, ep_kind, Some("default"), endpoints, &ctx)?;
            }
            Some(old) if old["subsets"] != endpoints["subsets"] => {
                let mut new = (*old).clone();
                new["subsets"] = endpoints["subsets"].clone();
                handlers::write::commit_update(s, ep_kind, &old, new, &ctx)?;
            }
            Some(_) => {}
        }
        Ok(())
    });
    if let Err(error) = result {
        tracing::error!(%error, "seeding built-in objects failed");
    }
}

/// The token user's token: kept in the TLS dir so restarted servers accept the same kubeconfig.
fn load_or_create_token(dir: Option<&Path>) -> Result<String, Error> {
    let fresh = || {
        let mut bytes = [0u8; 24];
        rand::rng().fill_bytes(&mut bytes);
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let Some(dir) = dir else { return Ok(fresh()) };
    let path = dir.join("token");
    match std::fs::read_to_string(&path) {
        Ok(t) if !t.trim().is_empty() => Ok(t.trim().to_string()),
        Ok(_) => {
            let t = fresh();
            kubeconfig::write_private(&path, &t)?;
            Ok(t)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let t = fresh();
            kubeconfig::write_private(&path, &t)?;
            Ok(t)
        }
        Err(source) => Err(Error::Io { path, source }),
    }
}
