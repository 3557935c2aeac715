//! TLS for the fakes: real clients (azure_core, kube-rs, kubectl) refuse plain HTTP or need a CA
//! they trust, so every fake serves HTTPS with a CA generated here and written to disk.

mod error;
mod identity;
mod origin;
mod pki;
mod provider;
mod serve;
mod server_config;
mod transport_cause;

pub use error::TlsError;
/// HTTP/2 error codes named by [`TransportCause::Http2Reset`].
pub use h2::Reason as Http2Reason;
pub use identity::ClientIdentity;
pub use origin::request_origin;
pub use pki::{IssuedCert, Pki};
pub use provider::install_crypto_provider;
pub use serve::{AbortConnection, HttpsServer, serve_https};
pub use server_config::{ClientAuth, server_config};
pub use transport_cause::{TransportCause, transport_cause};
