//! The HTTPS CONNECT proxy mode (`azure-fakes serve --proxy-listen ADDR`): clients built on MSAL
//! ask the public Entra hosts (`login.microsoftonline.com/common/discovery/instance`) about any
//! authority they do not know, so a rehearsal with such a client needs those hosts offline. Given
//! as `HTTPS_PROXY=http://ADDR`, the proxy tunnels `CONNECT <entra host>:443` to the fake's Entra
//! endpoint (a TLS listener presenting a certificate for the Entra hosts, signed by the fake's CA,
//! serving the Entra routes only); a CONNECT to any other host, or any other method, is refused
//! with 403 (405) and journalled (surface `proxy`), since the rehearsal is offline.
//!
//! The proxy speaks plain HTTP/1.1 up to the tunnel (RFC 9110 §9.3.6: a 2xx answer to CONNECT
//! turns the connection into a tunnel); clients then run TLS to the target through it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::journal::{Journal, JournalEntry, Surface};

/// Longest request head read before the proxy gives up on a client.
const MAX_HEAD: usize = 8 * 1024;

/// Where a CONNECT may go: the hosts tunnelled to one local TLS endpoint.
#[derive(Debug, Clone)]
pub struct Tunnels {
    /// Host names (lower case) tunnelled on port 443.
    pub hosts: Vec<String>,
    /// The local TLS endpoint serving them.
    pub endpoint: SocketAddr,
}

/// A running CONNECT proxy.
#[derive(Debug)]
pub struct ConnectProxy {
    local_addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl ConnectProxy {
    /// Listens on `listener`, tunnelling to `tunnels` and journalling every CONNECT in `journal`.
    pub fn start(
        listener: TcpListener,
        tunnels: Tunnels,
        journal: Arc<Journal>,
    ) -> std::io::Result<Self> {
        let local_addr = listener.local_addr()?;
        let (stop, mut stopped) = watch::channel(false);
        let tunnels = Arc::new(tunnels);
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    _ = stopped.wait_for(|s| *s) => break,
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => {
                            let tunnels = tunnels.clone();
                            let journal = journal.clone();
                            connections.spawn(async move {
                                if let Err(error) = serve(stream, &tunnels, &journal).await {
                                    tracing::debug!(%error, "proxy connection ended with an error");
                                }
                            });
                        }
                        Err(error) => tracing::warn!(%error, "proxy accept failed"),
                    },
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
            connections.abort_all();
            while connections.join_next().await.is_some() {}
        });
        Ok(Self {
            local_addr,
            stop,
            task,
        })
    }

    /// `http://host:port` to give clients as `HTTPS_PROXY`.
    pub fn url(&self) -> String {
        format!("http://{}", self.local_addr)
    }

    /// Stops accepting and cuts open tunnels.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

/// A parsed request line: method and target.
#[derive(Debug, PartialEq, Eq)]
struct RequestLine {
    method: String,
    target: String,
}

/// The request line of `head` (bytes up to the blank line).
fn request_line(head: &[u8]) -> Option<RequestLine> {
    let text = std::str::from_utf8(head).ok()?;
    let line = text.lines().next()?;
    let mut parts = line.split_whitespace();
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    version.starts_with("HTTP/1.").then(|| RequestLine {
        method: method.to_owned(),
        target: target.to_owned(),
    })
}

/// What the proxy does with a request line.
#[derive(Debug, PartialEq, Eq)]
enum Decision {
    /// Tunnel to the Entra endpoint.
    Tunnel,
    /// Refuse with this status and reason.
    Refuse(u16, &'static str),
}

fn decide(line: &RequestLine, tunnels: &Tunnels) -> Decision {
    if !line.method.eq_ignore_ascii_case("CONNECT") {
        return Decision::Refuse(405, "Method Not Allowed");
    }
    let Some((host, port)) = line.target.rsplit_once(':') else {
        return Decision::Refuse(400, "Bad Request");
    };
    let host = host.to_ascii_lowercase();
    if port == "443" && tunnels.hosts.contains(&host) {
        Decision::Tunnel
    } else {
        Decision::Refuse(403, "Forbidden")
    }
}

async fn serve(mut client: TcpStream, tunnels: &Tunnels, journal: &Journal) -> std::io::Result<()> {
    let started = Instant::now();
    let mut head = Vec::with_capacity(1024);
    let end = loop {
        let mut buf = [0u8; 1024];
        let n = client.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(pos) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
        if head.len() > MAX_HEAD {
            return answer(&mut client, 431, "Request Header Fields Too Large").await;
        }
    };
    let Some(line) = request_line(&head[..end]) else {
        return answer(&mut client, 400, "Bad Request").await;
    };
    let decision = decide(&line, tunnels);
    let status = match decision {
        Decision::Tunnel => 200,
        Decision::Refuse(status, _) => status,
    };
    record(journal, &line, status, started);
    match decision {
        Decision::Refuse(status, reason) => {
            tracing::warn!(method = %line.method, target = %line.target, status, "proxy refused a request: the rehearsal is offline");
            answer(&mut client, status, reason).await
        }
        Decision::Tunnel => {
            let mut upstream = TcpStream::connect(tunnels.endpoint).await?;
            let _ = upstream.set_nodelay(true);
            client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await?;
            // Bytes the client sent after the head already belong to the tunnel.
            upstream.write_all(&head[end..]).await?;
            tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
            Ok(())
        }
    }
}

async fn answer(client: &mut TcpStream, status: u16, reason: &str) -> std::io::Result<()> {
    let body = format!(
        "azure-fakes proxy: {reason}: only CONNECT to the Entra ID hosts is served (offline rehearsal)\n"
    );
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(response.as_bytes()).await?;
    client.shutdown().await
}

fn record(journal: &Journal, line: &RequestLine, status: u16, started: Instant) {
    journal.record(JournalEntry {
        seq: 0,
        time: time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        surface: Surface::Proxy,
        operation: format!("{} {}", line.method.to_ascii_uppercase(), line.target),
        method: line.method.clone(),
        path: line.target.clone(),
        api_version: None,
        status,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        user_agent: None,
        client_id: None,
        throttled: false,
        faults: Vec::new(),
        request_id: None,
        correlation_id: None,
        client_request_id: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tunnels() -> Tunnels {
        Tunnels {
            hosts: vec!["login.microsoftonline.com".into()],
            endpoint: SocketAddr::from(([127, 0, 0, 1], 1)),
        }
    }

    fn line(text: &str) -> RequestLine {
        request_line(text.as_bytes()).unwrap()
    }

    #[test]
    fn only_connect_to_an_entra_host_on_443_is_tunnelled() {
        let t = tunnels();
        assert_eq!(
            decide(
                &line("CONNECT login.microsoftonline.com:443 HTTP/1.1\r\n\r\n"),
                &t
            ),
            Decision::Tunnel
        );
        assert_eq!(
            decide(
                &line("CONNECT Login.MicrosoftOnline.com:443 HTTP/1.1\r\n\r\n"),
                &t
            ),
            Decision::Tunnel
        );
        assert_eq!(
            decide(
                &line("CONNECT login.microsoftonline.com:80 HTTP/1.1\r\n\r\n"),
                &t
            ),
            Decision::Refuse(403, "Forbidden")
        );
        assert_eq!(
            decide(&line("CONNECT example.com:443 HTTP/1.1\r\n\r\n"), &t),
            Decision::Refuse(403, "Forbidden")
        );
        assert_eq!(
            decide(&line("GET http://example.com/ HTTP/1.1\r\n\r\n"), &t),
            Decision::Refuse(405, "Method Not Allowed")
        );
        assert_eq!(request_line(b"CONNECT x\r\n\r\n"), None);
    }
}
