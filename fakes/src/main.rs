//! `azure-fakes`: serves the fake Azure cloud and the embedded Kubernetes API server.

fn main() -> anyhow::Result<()> {
    Ok(())
}
