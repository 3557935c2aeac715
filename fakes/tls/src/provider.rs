//! Process-wide rustls crypto provider selection.

/// Installs ring as rustls' process default, so crates built with `rustls-no-provider` (reqwest,
/// kube) work; safe to call many times.
pub fn install_crypto_provider() {
    // Err means a provider is already installed, which is exactly what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
