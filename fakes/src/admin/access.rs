//! Who may use the admin API: it has no bearer token, so only clients on the same machine (a
//! loopback peer address) are served; anyone else gets 403. Run the fake on a loopback address, or
//! behind something that enforces the same, when other machines can reach the listener.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::error::AdminError;

/// Middleware refusing non-loopback peers.
pub async fn loopback_only(request: Request<Body>, next: Next) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    match peer {
        Some(addr) if addr.ip().is_loopback() => next.run(request).await,
        _ => AdminError {
            status: StatusCode::FORBIDDEN,
            code: "AdminLoopbackOnly",
            message: "the admin API only serves clients connecting from a loopback address".into(),
        }
        .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::routing::get;
    use tower::ServiceExt;

    async fn status_from(peer: Option<&str>) -> StatusCode {
        let app = Router::new()
            .route("/admin/x", get(|| async { "ok" }))
            .layer(axum::middleware::from_fn(loopback_only));
        let mut request = Request::builder()
            .uri("/admin/x")
            .body(Body::empty())
            .unwrap();
        if let Some(peer) = peer {
            request
                .extensions_mut()
                .insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
        }
        app.oneshot(request).await.unwrap().status()
    }

    #[tokio::test]
    async fn only_loopback_peers_are_served() {
        assert_eq!(status_from(Some("127.0.0.1:5000")).await, StatusCode::OK);
        assert_eq!(status_from(Some("[::1]:5000")).await, StatusCode::OK);
        assert_eq!(
            status_from(Some("10.0.0.7:5000")).await,
            StatusCode::FORBIDDEN
        );
        assert_eq!(status_from(None).await, StatusCode::FORBIDDEN);
    }
}
