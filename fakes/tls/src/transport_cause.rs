//! Why a client request failed below HTTP: the TLS error (an untrusted certificate, an alert), the
//! HTTP/2 stream reset, or the socket error (refused, reset, closed). Clients such as reqwest wrap these several layers deep, and
//! `io::Error::source` skips the error an `io::Error` wraps, so the chain is walked here once; tests
//! assert on the cause instead of on `is_err()` or on display strings.

use std::error::Error;
use std::io;

/// The lowest-level cause found in an error's source chain.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportCause {
    /// rustls refused the handshake (e.g. `InvalidCertificate(UnknownIssuer)`) or received an alert.
    Tls(rustls::Error),
    /// The peer reset the HTTP/2 stream (`RST_STREAM`) or closed the connection (`GOAWAY`) with this reason.
    Http2Reset(h2::Reason),
    /// The socket failed with this kind (e.g. `ConnectionRefused`, `ConnectionReset`, `UnexpectedEof`).
    Io(io::ErrorKind),
}

/// The TLS error or HTTP/2 reset anywhere in `error`'s chain, else the innermost `io::Error` kind;
/// `None` when the chain holds none of them (e.g. an HTTP-level error).
pub fn transport_cause(error: &(dyn Error + 'static)) -> Option<TransportCause> {
    let mut innermost_io = None;
    let mut next = Some(error);
    while let Some(current) = next {
        if let Some(tls) = current.downcast_ref::<rustls::Error>() {
            return Some(TransportCause::Tls(tls.clone()));
        }
        if let Some(h2_error) = current.downcast_ref::<h2::Error>() {
            if let Some(reason) = h2_error.reason() {
                return Some(TransportCause::Http2Reset(reason));
            }
            // h2 errors answer no source: their socket error is reached through `get_io`.
            next = h2_error
                .get_io()
                .map(|io_error| io_error as &(dyn Error + 'static));
            continue;
        }
        next = match current.downcast_ref::<io::Error>() {
            Some(io_error) => {
                innermost_io = Some(io_error.kind());
                // `io::Error::source` answers the wrapped error's source, never the wrapped error.
                io_error
                    .get_ref()
                    .map(|inner| inner as &(dyn Error + 'static))
            }
            None => current.source(),
        };
    }
    innermost_io.map(TransportCause::Io)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error that wraps another, like hyper's and reqwest's do.
    #[derive(Debug)]
    struct Wrapper(Box<dyn Error + Send + Sync>);

    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("wrapped")
        }
    }

    impl Error for Wrapper {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(self.0.as_ref())
        }
    }

    #[test]
    fn finds_the_tls_error_inside_an_io_error() {
        let unknown = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let io_error = io::Error::new(io::ErrorKind::InvalidData, unknown.clone());
        let error = Wrapper(Box::new(Wrapper(Box::new(io_error))));
        assert_eq!(transport_cause(&error), Some(TransportCause::Tls(unknown)));
    }

    #[test]
    fn innermost_io_kind_wins() {
        let inner = io::Error::from(io::ErrorKind::ConnectionRefused);
        let outer = io::Error::other(Wrapper(Box::new(inner)));
        let error = Wrapper(Box::new(outer));
        assert_eq!(
            transport_cause(&error),
            Some(TransportCause::Io(io::ErrorKind::ConnectionRefused))
        );
    }

    #[test]
    fn finds_the_http2_reset_reason() {
        let reset = h2::Error::from(h2::Reason::INTERNAL_ERROR);
        let error = Wrapper(Box::new(Wrapper(Box::new(reset))));
        assert_eq!(
            transport_cause(&error),
            Some(TransportCause::Http2Reset(h2::Reason::INTERNAL_ERROR))
        );
    }

    #[test]
    fn errors_without_transport_cause_answer_none() {
        let error = Wrapper(Box::new(std::fmt::Error));
        assert_eq!(transport_cause(&error), None);
    }
}
