//! One proxied request, after [`super::decide`]: an IMDS request is dispatched in-process into the
//! fake's IMDS stack (journal -> faults -> IMDS, the very router `/imds/...` is served by), a
//! CONNECT is answered `200` and handed to a tunnel task once hyper upgrades the connection, and a
//! refusal is answered and journalled (surface `proxy`). Nothing here dials anything but the
//! fake's own loopback tunnel endpoint.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::ConnectInfo;
use fake_tls::AbortConnection;
use http::{HeaderValue, Method, Request, Response, StatusCode, Uri, header};
use hyper::body::Incoming;
use hyper::ext::ReasonPhrase;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tower::ServiceExt;

use super::decide::{Decision, Scope, decide};
use super::{HostImds, Routes};
use crate::imds;
use crate::journal::{Journal, JournalEntry, Surface};

/// Headers addressed to the proxy itself, not passed on to IMDS.
const PROXY_HEADERS: [&str; 2] = ["proxy-connection", "proxy-authorization"];

/// A fault asked for the connection to be cut instead of answered (hyper then closes it).
#[derive(Debug, thiserror::Error)]
#[error("connection aborted on purpose (injected fault)")]
pub(super) struct ConnectionAborted;

/// What every connection of one proxy shares.
pub(super) struct Context {
    /// What the proxy serves.
    pub routes: Routes,
    /// Where refusals and tunnels are journalled.
    pub journal: Arc<Journal>,
    /// Turns `true` when the proxy stops (open tunnels end then).
    pub stopped: watch::Receiver<bool>,
}

/// Answers one request from `peer`.
pub(super) async fn handle(
    ctx: Arc<Context>,
    peer: SocketAddr,
    mut request: Request<Incoming>,
) -> Result<Response<Body>, ConnectionAborted> {
    let started = Instant::now();
    let scope = Scope {
        tunnel_hosts: &ctx.routes.tunnels.hosts,
        imds: ctx.routes.imds.is_some(),
    };
    match (
        decide(request.method(), request.uri(), scope),
        &ctx.routes.imds,
    ) {
        (Decision::Imds { path_and_query }, Some(imds)) => {
            dispatch(imds, &path_and_query, peer, request).await
        }
        (Decision::Tunnel, _) => {
            let upstream = match ctx.routes.tunnels.endpoint.addr().await {
                Ok(addr) => TcpStream::connect(addr).await.map_err(|e| e.to_string()),
                Err(error) => Err(error.to_string()),
            };
            let upstream = match upstream {
                Ok(upstream) => upstream,
                Err(error) => {
                    tracing::warn!(%error, target = %request.uri(), "proxy cannot reach its tunnel endpoint");
                    return Ok(refuse(&ctx, &request, StatusCode::BAD_GATEWAY, started));
                }
            };
            record(&ctx.journal, &request, StatusCode::OK, started);
            let upgrade = hyper::upgrade::on(&mut request);
            tokio::spawn(tunnel(upgrade, upstream, ctx.stopped.clone()));
            let mut response = Response::new(Body::empty());
            response
                .extensions_mut()
                .insert(ReasonPhrase::from_static(b"Connection Established"));
            Ok(response)
        }
        (Decision::Refuse(status), _) => Ok(refuse(&ctx, &request, status, started)),
        // `decide` answers `Imds` only when the proxy has an IMDS to answer from.
        (Decision::Imds { .. }, None) => Ok(refuse(
            &ctx,
            &request,
            StatusCode::METHOD_NOT_ALLOWED,
            started,
        )),
    }
}

/// Serves `request` from the IMDS stack as `/imds/{host}{path_and_query}`; the stack journals it.
async fn dispatch(
    imds: &HostImds,
    path_and_query: &str,
    peer: SocketAddr,
    request: Request<Incoming>,
) -> Result<Response<Body>, ConnectionAborted> {
    let target = format!("{}{path_and_query}", imds::vm_base_path(&imds.host));
    let Ok(uri) = target.parse::<Uri>() else {
        // Cannot happen for a validated host name and a path hyper parsed; answer as IMDS would.
        return Ok(plain(
            StatusCode::BAD_REQUEST,
            "Bad Request",
            "bad request target",
        ));
    };
    let (mut parts, body) = request.into_parts();
    parts.uri = uri;
    for name in PROXY_HEADERS {
        parts.headers.remove(name);
    }
    // As the main listener tags its requests.
    parts.extensions.insert(ConnectInfo(peer));
    let request = Request::from_parts(parts, Body::new(body));
    let response = match imds.service.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if response.extensions().get::<AbortConnection>().is_some() {
        return Err(ConnectionAborted);
    }
    Ok(response)
}

/// Copies bytes both ways until either side closes or the proxy stops.
async fn tunnel(upgrade: OnUpgrade, mut upstream: TcpStream, mut stopped: watch::Receiver<bool>) {
    let _ = upstream.set_nodelay(true);
    let client = match upgrade.await {
        Ok(upgraded) => upgraded,
        Err(error) => {
            tracing::debug!(%error, "proxy CONNECT upgrade failed");
            return;
        }
    };
    let mut client = TokioIo::new(client);
    tokio::select! {
        copied = tokio::io::copy_bidirectional(&mut client, &mut upstream) => {
            if let Err(error) = copied {
                tracing::debug!(%error, "proxy tunnel ended with an error");
            }
        }
        _ = stopped.wait_for(|s| *s) => {}
    }
}

/// Journals and answers a refusal; the connection is closed after it, as the proxy always did.
fn refuse(
    ctx: &Context,
    request: &Request<Incoming>,
    status: StatusCode,
    started: Instant,
) -> Response<Body> {
    record(&ctx.journal, request, status, started);
    tracing::warn!(method = %request.method(), target = %request.uri(), status = status.as_u16(), "proxy refused a request: the rehearsal is offline");
    let reason = status.canonical_reason().unwrap_or("Refused");
    let served = if ctx.routes.imds.is_some() {
        "only http://169.254.169.254 (this host's IMDS) and CONNECT to the Entra ID hosts are served"
    } else {
        "only CONNECT to the Entra ID hosts is served"
    };
    plain(status, reason, &format!("{served} (offline rehearsal)"))
}

fn plain(status: StatusCode, reason: &str, detail: &str) -> Response<Body> {
    let mut response = Response::new(Body::from(format!(
        "azure-fakes proxy: {reason}: {detail}\n"
    )));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// One `proxy` journal entry: the request line the client sent and what it got.
fn record(journal: &Journal, request: &Request<Incoming>, status: StatusCode, started: Instant) {
    let method: &Method = request.method();
    let target = request.uri().to_string();
    journal.record(JournalEntry {
        seq: 0,
        time: time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        surface: Surface::Proxy,
        operation: format!("{method} {target}"),
        method: method.to_string(),
        path: target,
        api_version: None,
        status: status.as_u16(),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        user_agent: request
            .headers()
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        client_id: None,
        throttled: false,
        faults: Vec::new(),
        request_id: None,
        correlation_id: None,
        client_request_id: None,
    });
}
