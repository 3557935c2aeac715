//! The `harness report` and `harness testgrid` commands, hosted by the harness binary.

/// `harness report DIR... --out FILE`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {}

/// `harness testgrid ...`.
#[derive(Debug, clap::Args)]
pub struct TestgridArgs {}

/// Runs `harness report`.
pub fn run_report(_args: &ReportArgs) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Ok(())
}

/// Runs `harness testgrid`.
pub fn run_testgrid(_args: &TestgridArgs) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Ok(())
}
