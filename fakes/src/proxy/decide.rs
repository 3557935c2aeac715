//! The pure half of the proxy: what one request (method + request-target) gets, decided before
//! anything is opened. Only two things are ever served: a CONNECT to a public Entra host on 443
//! (tunnelled to the fake's Entra endpoint) and, on a per-host proxy, an absolute-form request to
//! the IMDS address (answered by that host's IMDS); everything else is refused, so a client behind
//! the proxy can never reach anything but the fake.

use http::{Method, StatusCode, Uri};

/// The address every Azure VM reaches its IMDS at.
pub const IMDS_ADDRESS: &str = "169.254.169.254";

/// What the proxy does with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Decision {
    /// Answer `200 Connection Established` and tunnel to the Entra endpoint.
    Tunnel,
    /// Answer from the host's IMDS as the fake's `/imds/{host}` + this path and query would.
    Imds {
        /// `/metadata/...?query` as the client sent it (origin form).
        path_and_query: String,
    },
    /// Refuse with this status.
    Refuse(StatusCode),
}

/// What a proxy may serve.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scope<'a> {
    /// Host names (lower case) a CONNECT to port 443 is tunnelled for.
    pub tunnel_hosts: &'a [String],
    /// Whether absolute-form requests to [`IMDS_ADDRESS`] are answered (per-host proxies).
    pub imds: bool,
}

/// Decides what `method uri` gets within `scope`.
pub(super) fn decide(method: &Method, uri: &Uri, scope: Scope<'_>) -> Decision {
    if method == Method::CONNECT {
        return connect(uri, scope.tunnel_hosts);
    }
    if !scope.imds {
        // The Entra-only proxy has never served anything but CONNECT.
        return Decision::Refuse(StatusCode::METHOD_NOT_ALLOWED);
    }
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        // Origin form (`GET /path`): a request for the proxy itself, not through it.
        return Decision::Refuse(StatusCode::BAD_REQUEST);
    };
    let plain_http = scheme.eq_ignore_ascii_case("http");
    let port_ok = matches!(authority.port_u16(), None | Some(80));
    if plain_http && port_ok && authority.host() == IMDS_ADDRESS {
        let path = uri.path();
        let path_and_query = match uri.query() {
            Some(query) => format!("{path}?{query}"),
            None => path.to_owned(),
        };
        Decision::Imds { path_and_query }
    } else {
        Decision::Refuse(StatusCode::FORBIDDEN)
    }
}

fn connect(uri: &Uri, tunnel_hosts: &[String]) -> Decision {
    // Authority form only (`host:port`); hyper parses it into an authority with no scheme.
    let authority = match (uri.scheme(), uri.authority()) {
        (None, Some(authority)) => authority,
        _ => return Decision::Refuse(StatusCode::BAD_REQUEST),
    };
    let Some(port) = authority.port_u16() else {
        return Decision::Refuse(StatusCode::BAD_REQUEST);
    };
    let host = authority.host().to_ascii_lowercase();
    if port == 443 && tunnel_hosts.contains(&host) {
        Decision::Tunnel
    } else {
        Decision::Refuse(StatusCode::FORBIDDEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts() -> Vec<String> {
        vec!["login.microsoftonline.com".into()]
    }

    fn on(method: Method, target: &str, imds: bool) -> Decision {
        let hosts = hosts();
        let uri: Uri = target.parse().unwrap();
        decide(
            &method,
            &uri,
            Scope {
                tunnel_hosts: &hosts,
                imds,
            },
        )
    }

    #[test]
    fn only_connect_to_an_entra_host_on_443_is_tunnelled() {
        for imds in [false, true] {
            let connect = |target| on(Method::CONNECT, target, imds);
            assert_eq!(connect("login.microsoftonline.com:443"), Decision::Tunnel);
            assert_eq!(connect("Login.MicrosoftOnline.com:443"), Decision::Tunnel);
            let forbidden = Decision::Refuse(StatusCode::FORBIDDEN);
            assert_eq!(connect("login.microsoftonline.com:80"), forbidden);
            assert_eq!(connect("example.com:443"), forbidden);
            assert_eq!(connect("169.254.169.254:80"), forbidden);
            assert_eq!(
                connect("login.microsoftonline.com"),
                Decision::Refuse(StatusCode::BAD_REQUEST)
            );
        }
    }

    #[test]
    fn the_entra_only_proxy_refuses_every_other_method() {
        assert_eq!(
            on(Method::GET, "http://example.com/", false),
            Decision::Refuse(StatusCode::METHOD_NOT_ALLOWED)
        );
        assert_eq!(
            on(
                Method::GET,
                "http://169.254.169.254/metadata/instance",
                false
            ),
            Decision::Refuse(StatusCode::METHOD_NOT_ALLOWED)
        );
    }

    #[test]
    fn a_per_host_proxy_answers_the_imds_address_only() {
        assert_eq!(
            on(
                Method::GET,
                "http://169.254.169.254/metadata/instance?api-version=2021-10-01",
                true
            ),
            Decision::Imds {
                path_and_query: "/metadata/instance?api-version=2021-10-01".into()
            }
        );
        assert_eq!(
            on(
                Method::GET,
                "http://169.254.169.254:80/metadata/versions",
                true
            ),
            Decision::Imds {
                path_and_query: "/metadata/versions".into()
            }
        );
        // Methods are IMDS's to refuse (405 in its own shape), as on the direct route.
        assert_eq!(
            on(
                Method::POST,
                "http://169.254.169.254/metadata/instance",
                true
            ),
            Decision::Imds {
                path_and_query: "/metadata/instance".into()
            }
        );
        let forbidden = Decision::Refuse(StatusCode::FORBIDDEN);
        assert_eq!(
            on(Method::GET, "http://169.254.169.254:8080/", true),
            forbidden
        );
        assert_eq!(on(Method::GET, "https://169.254.169.254/", true), forbidden);
        assert_eq!(on(Method::GET, "http://168.63.129.16/", true), forbidden);
        assert_eq!(
            on(Method::GET, "http://example.com/metadata", true),
            forbidden
        );
        assert_eq!(
            on(Method::GET, "/metadata/instance", true),
            Decision::Refuse(StatusCode::BAD_REQUEST)
        );
    }
}
