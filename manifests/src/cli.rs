//! The `harness manifests` command, hosted by the harness binary.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::cidr::Cidr;
use crate::options::{AuthMode, Images, Mode, NodeIpam, Options};
use crate::version::{self, KubeVersion};

/// `harness manifests ...`.
#[derive(Debug, clap::Args)]
pub struct ManifestsArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ManifestsCommand,
}

/// Subcommands of `harness manifests`.
#[derive(Debug, Subcommand)]
pub enum ManifestsCommand {
    /// Write in-tree or out-of-tree manifests for one Kubernetes version.
    Generate(GenerateArgs),
    /// Check manifests (static pods, Deployments, DaemonSets, kubelet flag files) against a
    /// Kubernetes version; exits 1 when anything is reported.
    Lint(LintArgs),
    /// Write the node and service label/annotation reference pages.
    Docs(DocsArgs),
}

/// `harness manifests generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// in-tree (Kubernetes 1.27-1.29) or out-of-tree.
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// Target Kubernetes version, 1.27 to 1.36 (patch ignored).
    #[arg(long, default_value_t = version::DEFAULT)]
    pub kubernetes_version: KubeVersion,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Cluster name; must be identical on kube-controller-manager and cloud-controller-manager.
    #[arg(long, default_value = crate::options::DEFAULT_CLUSTER_NAME)]
    pub cluster_name: String,
    /// Pod CIDR(s), comma separated (one per family).
    #[arg(long, value_delimiter = ',', value_parser = parse_cidr)]
    pub cluster_cidr: Vec<Cidr>,
    /// Service CIDR(s), comma separated (one per family).
    #[arg(long, value_delimiter = ',', value_parser = parse_cidr)]
    pub service_cidr: Vec<Cidr>,
    /// Use the default IPv4+IPv6 CIDRs for whichever of --cluster-cidr/--service-cidr is not given.
    #[arg(long)]
    pub dual_stack: bool,
    /// Manage the Azure route table (kubenet). Off for Azure CNI.
    #[arg(long, default_value_t = false, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub configure_cloud_routes: bool,
    /// With --configure-cloud-routes: who allocates node pod CIDRs (default out-of-tree:
    /// cloud-controller-manager, as upstream deploys it; in-tree or with --leader-migration:
    /// kube-controller-manager, and cloud-controller-manager is refused with --leader-migration).
    #[arg(long, value_enum)]
    pub node_ipam: Option<NodeIpam>,
    /// ARM authentication.
    #[arg(long, value_enum, default_value_t = AuthMode::ManagedIdentity)]
    pub auth: AuthMode,
    /// cloud-controller-manager replicas (1-5).
    #[arg(long, default_value_t = 1)]
    pub replicas: u16,
    /// Emit a LeaderMigrationConfiguration and wire it into KCM (in-tree 1.27-1.29) or CCM
    /// (out-of-tree 1.27-1.30). The upstream Azure CCM ignores it: see the file headers.
    #[arg(long)]
    pub leader_migration: bool,
    /// Registry of the Kubernetes control-plane images.
    #[arg(long, default_value = crate::options::DEFAULT_KUBERNETES_REGISTRY)]
    pub kubernetes_registry: String,
    /// Tag of the control-plane images (default v<version>.0).
    #[arg(long)]
    pub kubernetes_tag: Option<String>,
    /// Registry of the cloud-controller-manager and cloud-node-manager images (default:
    /// mcr.microsoft.com/oss/kubernetes up to 1.31, mcr.microsoft.com/oss/v2/kubernetes from 1.32).
    #[arg(long)]
    pub cloud_provider_registry: Option<String>,
    /// Tag of the cloud-provider images (default v<version>.0).
    #[arg(long)]
    pub cloud_provider_tag: Option<String>,
}

/// `harness manifests lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Version the manifests will run on, 1.27 to 1.36.
    #[arg(long)]
    pub kubernetes_version: KubeVersion,
}

/// `harness manifests docs`.
#[derive(Debug, Args)]
pub struct DocsArgs {
    /// Output directory (gets node/ and service/).
    #[arg(long)]
    pub out: PathBuf,
}

fn parse_cidr(s: &str) -> Result<Cidr, String> {
    Cidr::parse(s).map_err(|e| e.to_string())
}

impl GenerateArgs {
    /// Options described by the arguments.
    pub fn options(&self) -> Options {
        let mut o = Options::new(self.mode, self.kubernetes_version);
        if self.dual_stack {
            o = o.with_default_dual_stack();
        }
        if !self.cluster_cidr.is_empty() {
            o.cluster_cidrs = self.cluster_cidr.clone();
        }
        if !self.service_cidr.is_empty() {
            o.service_cidrs = self.service_cidr.clone();
        }
        o.cluster_name = self.cluster_name.clone();
        o.configure_cloud_routes = self.configure_cloud_routes;
        o.node_ipam = self.node_ipam;
        o.auth = self.auth;
        o.replicas = self.replicas;
        o.leader_migration = self.leader_migration;
        o.images = Images {
            kubernetes_registry: self.kubernetes_registry.clone(),
            kubernetes_tag: self.kubernetes_tag.clone(),
            cloud_provider_registry: self.cloud_provider_registry.clone(),
            cloud_provider_tag: self.cloud_provider_tag.clone(),
        };
        o
    }
}

/// Lint found problems; the message is the report.
#[derive(Debug, thiserror::Error)]
#[error("{count} finding(s) for Kubernetes {version}")]
pub struct LintFailed {
    /// Number of findings.
    pub count: usize,
    /// Target version.
    pub version: KubeVersion,
}

/// Runs `harness manifests`.
pub fn run(args: &ManifestsArgs) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    match &args.command {
        ManifestsCommand::Generate(g) => {
            let written = crate::generate::write_all(&g.options(), &g.out)?;
            for path in written {
                println!("wrote {}", path.display());
            }
            Ok(())
        }
        ManifestsCommand::Lint(l) => {
            let findings = crate::lint::lint_paths(&l.files, l.kubernetes_version)?;
            for f in &findings {
                println!("{f}");
            }
            if findings.is_empty() {
                println!(
                    "no findings for Kubernetes {} in {} file(s)",
                    l.kubernetes_version,
                    l.files.len()
                );
                Ok(())
            } else {
                Err(Box::new(LintFailed {
                    count: findings.len(),
                    version: l.kubernetes_version,
                }))
            }
        }
        ManifestsCommand::Docs(d) => {
            for path in crate::generate::write_bundle(&crate::docs::render(), &d.out)? {
                println!("wrote {}", path.display());
            }
            Ok(())
        }
    }
}
