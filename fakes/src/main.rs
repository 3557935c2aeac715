//! `azure-fakes`: serves the fake Azure cloud and the embedded Kubernetes API server.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use azure_fakes::cloud::{CloudConfig, DEFAULT_JOURNAL_CAPACITY, FakeCloud};
use azure_fakes::throttle::{BucketSpec, ComputeLimits, PolicySpec, ThrottleConfig, policy_names};
use clap::{Parser, Subcommand};

/// Fake Azure (ARM, IMDS, Entra ID) and an embedded Kubernetes API server for offline tests.
#[derive(Parser, Debug)]
#[command(name = "azure-fakes", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve the fake Azure cloud seeded from a topology file until Ctrl-C / SIGTERM.
    Serve(ServeArgs),
    /// Serve the embedded Kubernetes API server until Ctrl-C / SIGTERM.
    KubeApiserver(azure_fakes::kube::cli::KubeApiserverArgs),
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Topology seed file (YAML).
    #[arg(long)]
    topology: PathBuf,
    /// Address to serve HTTPS on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8443")]
    listen: SocketAddr,
    /// Directory for the CA (ca.crt), server certificate and token signing key; reused on restart.
    #[arg(long)]
    tls_dir: PathBuf,
    /// Snapshot file: restored at start when it exists, written at shutdown.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Fault schedule file (YAML/JSON: `seed` and `rules`).
    #[arg(long)]
    faults: Option<PathBuf>,
    /// Turn ARM and Compute RP throttling off (benchmarks).
    #[arg(long)]
    no_throttle: bool,
    /// Compute RP policy window as NAME=ALLOWED/WINDOW_SECS (repeatable), e.g.
    /// HighCostGetVMScaleSet3Min=180/180; unnamed policies keep their defaults.
    #[arg(long = "crp-policy", value_parser = parse_policy)]
    crp_policies: Vec<(String, PolicySpec)>,
    /// Per-principal read bucket as SIZE/REFILL_PER_SEC.
    #[arg(long, default_value = "250/25", value_parser = parse_bucket)]
    read_bucket: BucketSpec,
    /// Per-principal write bucket as SIZE/REFILL_PER_SEC.
    #[arg(long, default_value = "200/10", value_parser = parse_bucket)]
    write_bucket: BucketSpec,
    /// Per-principal delete bucket as SIZE/REFILL_PER_SEC.
    #[arg(long, default_value = "200/10", value_parser = parse_bucket)]
    delete_bucket: BucketSpec,
    /// Subscription-wide bucket size as a multiple of the per-principal one.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..))]
    global_factor: u32,
    /// Polls a long-running operation reports InProgress before finishing.
    #[arg(long, default_value_t = 1)]
    lro_polls: u32,
    /// `Retry-After` seconds on answers that start an operation and on running polls: a number
    /// (0 = poll at once, for load benches) or `none` (omit it, as NRP and CRP writes do).
    #[arg(long, default_value = "1", value_parser = parse_retry_after)]
    retry_after: RetryAfter,
    /// List page size before nextLink.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    page_size: u64,
    /// Request journal capacity (entries).
    #[arg(long, default_value_t = DEFAULT_JOURNAL_CAPACITY)]
    journal_capacity: usize,
    /// Lifetime of issued access tokens, seconds.
    #[arg(long, default_value_t = azure_fakes::entra::DEFAULT_LIFETIME_SECS)]
    token_lifetime: i64,
    /// Turn the per-VM IMDS rate limits (5 req/s, 20 token req/s) off.
    #[arg(long)]
    no_imds_rate_limits: bool,
    /// Extra DNS name or IP for the server certificate (repeatable).
    #[arg(long = "host")]
    hosts: Vec<String>,
    /// Also serve an HTTPS CONNECT proxy here (port 0 picks a free port) that tunnels the public
    /// Entra ID hosts (login.microsoftonline.com...) to the fake and refuses every other host:
    /// give it to MSAL clients as HTTPS_PROXY, with the fake's CA in SSL_CERT_FILE.
    #[arg(long, value_name = "ADDR")]
    proxy_listen: Option<SocketAddr>,
}

/// One `/`- or `=`-separated part of a CLI value, parsed and range-checked; any failure names the
/// whole value and the accepted form.
fn part<T: std::str::FromStr>(
    part: &str,
    in_range: impl Fn(&T) -> bool,
    text: &str,
    accepted: &str,
) -> Result<T, String> {
    part.trim()
        .parse()
        .ok()
        .filter(in_range)
        .ok_or_else(|| format!("'{text}': {accepted}"))
}

/// `--retry-after`: seconds, or `none` for no header.
#[derive(Debug, Clone, Copy)]
struct RetryAfter(Option<u64>);

fn parse_retry_after(text: &str) -> Result<RetryAfter, String> {
    if text.trim() == "none" {
        return Ok(RetryAfter(None));
    }
    part(
        text,
        |_: &u64| true,
        text,
        "expected seconds (e.g. 0 or 1) or none",
    )
    .map(|s| RetryAfter(Some(s)))
}

fn parse_bucket(text: &str) -> Result<BucketSpec, String> {
    let accepted = "expected SIZE/REFILL_PER_SEC, e.g. 250/25 (size >= 1, refill >= 0)";
    let (size, rate) = text
        .split_once('/')
        .ok_or_else(|| format!("'{text}': {accepted}"))?;
    Ok(BucketSpec {
        size: part(size, |s| *s >= 1, text, accepted)?,
        refill_per_sec: part(rate, |r: &f64| r.is_finite() && *r >= 0.0, text, accepted)?,
    })
}

fn parse_policy(text: &str) -> Result<(String, PolicySpec), String> {
    let accepted = "expected NAME=ALLOWED/WINDOW_SECS, e.g. HighCostGet3Min=140/180 (both >= 1)";
    let (name, spec) = text
        .split_once('=')
        .ok_or_else(|| format!("'{text}': {accepted}"))?;
    let name = name.trim();
    if !policy_names().any(|known| known == name) {
        return Err(format!(
            "'{name}': unknown Compute throttling policy (accepted: {})",
            policy_names().collect::<Vec<_>>().join(", ")
        ));
    }
    let (allowed, window) = spec
        .split_once('/')
        .ok_or_else(|| format!("'{text}': {accepted}"))?;
    Ok((
        name.to_string(),
        PolicySpec {
            allowed: part(allowed, |a| *a >= 1, text, accepted)?,
            window_secs: part(window, |w| *w >= 1, text, accepted)?,
        },
    ))
}

impl ServeArgs {
    fn config(self) -> anyhow::Result<CloudConfig> {
        let faults = match &self.faults {
            Some(path) => azure_fakes::faults::load(path)?,
            None => Default::default(),
        };
        let arm = fake_arm::ArmConfig {
            lro_polls_in_progress: self.lro_polls,
            page_size: usize::try_from(self.page_size).context("--page-size is too large")?,
            retry_after: self.retry_after.0,
            ..Default::default()
        };
        Ok(CloudConfig {
            listen: self.listen,
            tls_dir: self.tls_dir,
            extra_hosts: self.hosts,
            topology: Some(self.topology),
            state_file: self.state,
            faults,
            throttle: ThrottleConfig {
                enabled: !self.no_throttle,
                reads: self.read_bucket,
                writes: self.write_bucket,
                deletes: self.delete_bucket,
                global_factor: self.global_factor,
                compute: {
                    let mut compute = ComputeLimits {
                        enabled: !self.no_throttle,
                        ..ComputeLimits::default()
                    };
                    compute.policies.extend(self.crp_policies);
                    compute
                },
            },
            arm,
            journal_capacity: self.journal_capacity,
            token_lifetime_secs: self.token_lifetime,
            registry: Default::default(),
            imds_rate_limits: !self.no_imds_rate_limits,
            proxy_listen: self.proxy_listen,
        })
    }
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    // Colour codes only on a terminal: logs captured by CI or a supervisor stay plain text.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new("warn,azure_fakes=info,fake_kube_apiserver=info")
            }),
        )
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        match cli.command {
            Command::Serve(args) => serve(args).await,
            Command::KubeApiserver(args) => azure_fakes::kube::cli::run(args)
                .await
                .map_err(anyhow::Error::from),
        }
    })
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let config = args.config()?;
    let cloud = FakeCloud::start(config).await?;
    print_endpoints(&cloud);
    wait_for_signal().await;
    {
        use std::io::Write;
        // stdout may be closed by now (a supervisor that read "ready" and went away): never panic on it.
        let _ = writeln!(std::io::stdout(), "azure-fakes: shutting down");
    }
    cloud.shutdown().await?;
    Ok(())
}

fn print_endpoints(cloud: &FakeCloud) {
    use std::io::Write;
    let info = cloud.info();
    let text = |key: &str| {
        info.get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "azure-fakes: fake Azure cloud serving on {}",
        cloud.base_url()
    );
    let _ = writeln!(out, "arm: {}", cloud.arm_url());
    let _ = writeln!(out, "metadata: {}", cloud.metadata_url());
    let _ = writeln!(out, "authority: {}", cloud.authority_host());
    let _ = writeln!(out, "token: {}", text("token"));
    let _ = writeln!(out, "admin: {}", cloud.admin_url());
    let _ = writeln!(out, "ca: {}", cloud.ca_path().display());
    if let Some(proxy) = cloud.proxy_url() {
        let _ = writeln!(out, "proxy: {proxy}");
    }
    let _ = writeln!(out, "tenant: {}", text("tenantId"));
    let _ = writeln!(out, "subscription: {}", text("subscriptionId"));
    for node in cloud.current_nodes().unwrap_or_default() {
        let _ = writeln!(
            out,
            "imds {}: {}",
            node.node_name,
            cloud.imds_url(&node.node_name)
        );
    }
    let _ = writeln!(out, "ready");
    let _ = out.flush();
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_flags_parse_and_name_the_format() {
        assert_eq!(
            parse_bucket("5/0.5"),
            Ok(BucketSpec {
                size: 5,
                refill_per_sec: 0.5
            })
        );
        assert!(
            parse_bucket("0/1")
                .unwrap_err()
                .contains("SIZE/REFILL_PER_SEC")
        );
        assert!(parse_bucket("5").is_err());
        assert!(parse_bucket("5/-1").is_err());
    }

    #[test]
    fn policy_flags_parse_and_name_the_accepted_values() {
        assert_eq!(
            parse_policy("HighCostGet3Min=2/30"),
            Ok((
                "HighCostGet3Min".to_string(),
                PolicySpec {
                    allowed: 2,
                    window_secs: 30
                }
            ))
        );
        let unknown = parse_policy("CheapGet=1/1").unwrap_err();
        assert!(unknown.contains("accepted: LowCostGet3Min"), "{unknown}");
        assert!(
            parse_policy("PutVM3Min=0/10")
                .unwrap_err()
                .contains("NAME=ALLOWED/WINDOW_SECS")
        );
        assert!(parse_policy("PutVM3Min").is_err());
    }

    #[test]
    fn serve_flags_build_the_config() {
        let cli = Cli::try_parse_from([
            "azure-fakes",
            "serve",
            "--topology",
            "t.yaml",
            "--listen",
            "127.0.0.1:0",
            "--tls-dir",
            "d",
            "--read-bucket",
            "3/1",
            "--crp-policy",
            "PutVM3Min=1/60",
            "--no-imds-rate-limits",
        ])
        .unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("not serve")
        };
        let config = args.config().unwrap();
        assert_eq!(
            config.throttle.reads,
            BucketSpec {
                size: 3,
                refill_per_sec: 1.0
            }
        );
        assert!(config.throttle.enabled);
        assert!(config.throttle.compute.enabled);
        assert_eq!(
            config.throttle.compute.spec("PutVM3Min"),
            Some(PolicySpec {
                allowed: 1,
                window_secs: 60
            })
        );
        assert!(!config.imds_rate_limits);
        assert_eq!(config.topology, Some(PathBuf::from("t.yaml")));
    }
}
