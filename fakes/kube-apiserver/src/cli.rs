//! `azure-fakes kube-apiserver`: runs the embedded API server until Ctrl-C or SIGTERM.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use crate::kinds::service_alloc::ServiceCidr;
use crate::{ApiServerConfig, Error, start};

/// Flags of `azure-fakes kube-apiserver`.
#[derive(Debug, Clone, clap::Args)]
pub struct KubeApiserverArgs {
    /// Address to serve HTTPS on.
    #[arg(long, default_value = "127.0.0.1:6443")]
    pub listen: SocketAddr,
    /// Write a kubeconfig (admin certificate user + token user) here.
    #[arg(long)]
    pub kubeconfig_out: Option<PathBuf>,
    /// Persist objects to this file so a restart keeps state.
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Keep the CA and token here so restarts stay trusted (default: next to the kubeconfig).
    #[arg(long)]
    pub tls_dir: Option<PathBuf>,
    /// Service cluster IP range.
    #[arg(long, default_value = "10.0.0.0/16", value_parser = parse_cidr)]
    pub service_cidr: ServiceCidr,
    /// Watch events kept for resumption; older resourceVersions get 410 Gone.
    #[arg(long, default_value_t = 20_000)]
    pub history: usize,
    /// Append one JSON `audit.k8s.io/v1` Event per request to this file (level Metadata).
    #[arg(long)]
    pub audit_log_path: Option<PathBuf>,
    /// Static bearer tokens, CSV `token,user,uid,"group1,group2"` (as the real flag).
    #[arg(long)]
    pub token_auth_file: Option<PathBuf>,
}

fn parse_cidr(text: &str) -> Result<ServiceCidr, String> {
    ServiceCidr::parse(text).map_err(|e| format!("{e} (got {text:?})"))
}

/// Runs the server until Ctrl-C or SIGTERM, printing its URL and kubeconfig path when ready.
pub async fn run(args: KubeApiserverArgs) -> Result<(), Error> {
    let tls_dir = args.tls_dir.clone().or_else(|| {
        args.kubeconfig_out
            .as_ref()
            .and_then(|k| k.parent())
            .map(|d| d.join("kube-apiserver-tls"))
    });
    let config = ApiServerConfig {
        listen: args.listen,
        data_file: args.data,
        tls_dir,
        kubeconfig_out: args.kubeconfig_out,
        service_cidr: args.service_cidr,
        history_capacity: args.history,
        audit_log: args.audit_log_path,
        token_auth_file: args.token_auth_file,
        ..ApiServerConfig::default()
    };
    let server = start(config).await?;
    // A supervisor may read the ready lines and close the pipe: printing must never panic.
    let mut out = std::io::stdout();
    let _ = writeln!(out, "kube-apiserver: serving on {}", server.url());
    if let Some(path) = server.kubeconfig_path() {
        let _ = writeln!(
            out,
            "kube-apiserver: kubeconfig written to {}",
            path.display()
        );
    }
    let _ = out.flush();
    wait_for_signal().await;
    let _ = writeln!(out, "kube-apiserver: shutting down");
    server.shutdown().await
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: KubeApiserverArgs,
    }

    #[test]
    fn parses_flags_and_rejects_bad_cidrs() {
        let cli = Cli::try_parse_from([
            "x",
            "--listen",
            "127.0.0.1:7000",
            "--data",
            "/tmp/d.json",
            "--service-cidr",
            "10.96.0.0/12",
            "--audit-log-path",
            "/tmp/audit.log",
        ])
        .unwrap();
        assert_eq!(
            cli.args.audit_log_path.as_deref(),
            Some(std::path::Path::new("/tmp/audit.log"))
        );
        assert_eq!(cli.args.listen.port(), 7000);
        assert_eq!(cli.args.service_cidr.to_string(), "10.96.0.0/12");
        let err = Cli::try_parse_from(["x", "--service-cidr", "nope"])
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("service-cidr") && err.contains("CIDR"),
            "{err}"
        );
    }
}
