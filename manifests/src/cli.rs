//! The `harness manifests` command, hosted by the harness binary.

/// `harness manifests ...`.
#[derive(Debug, clap::Args)]
pub struct ManifestsArgs {}

/// Runs `harness manifests`.
pub fn run(_args: &ManifestsArgs) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Ok(())
}
