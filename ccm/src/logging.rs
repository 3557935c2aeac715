//! Logging set-up shared by both binaries: `--log-format` and klog's `-v` mapped onto `tracing`.

/// Log output format (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// The `tracing` level for a klog verbosity. **[infer]** 0-1 info, 2-4 debug, 5+ trace.
pub fn level(verbosity: u8) -> &'static str {
    match verbosity {
        0 | 1 => "info",
        2..=4 => "debug",
        _ => "trace",
    }
}

/// Installs the global subscriber writing to stderr; colours only on a terminal.
pub fn init(format: LogFormat, verbosity: u8) {
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Plain text when stderr is a file or a pipe (container logs), colours only on a terminal.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(tracing_subscriber::EnvFilter::new(level(verbosity)));
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}
