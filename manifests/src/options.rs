//! What the operator asked for, validated before anything is rendered or written.

use crate::cidr::{self, Cidr};
use crate::version::KubeVersion;

/// Which cloud-provider integration the manifests describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// `--cloud-provider=azure` on apiserver, controller-manager and kubelet (Kubernetes <= 1.29).
    InTree,
    /// cloud-controller-manager + cloud-node-manager; kubelet `--cloud-provider=external`.
    OutOfTree,
}

impl Mode {
    /// Directory name used in the KEP-2393 layout.
    pub const fn dir_name(self) -> &'static str {
        match self {
            Mode::InTree => "in-tree",
            Mode::OutOfTree => "out-of-tree",
        }
    }
}

/// How the cloud provider authenticates to ARM; decides azure.json keys and pod volumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthMode {
    /// VM managed identity through IMDS (`useManagedIdentityExtension`).
    ManagedIdentity,
    /// Service principal with a client secret (`aadClientId`/`aadClientSecret`).
    ServicePrincipal,
    /// Workload identity: a projected service-account token exchanged with Entra ID (CCM only).
    WorkloadIdentity,
}

impl AuthMode {
    /// CLI spelling.
    pub const fn cli_name(self) -> &'static str {
        match self {
            AuthMode::ManagedIdentity => "managed-identity",
            AuthMode::ServicePrincipal => "service-principal",
            AuthMode::WorkloadIdentity => "workload-identity",
        }
    }
}

/// Which controller-manager allocates pod CIDRs to Nodes (`--allocate-node-cidrs=true`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NodeIpam {
    /// The CCM's own node-ipam controller (anchor example and Helm chart; migration.md scenario 2).
    CloudControllerManager,
    /// kube-controller-manager's nodeipam controller, as in the in-tree cluster.
    KubeControllerManager,
}

impl NodeIpam {
    /// CLI spelling.
    pub const fn cli_name(self) -> &'static str {
        match self {
            NodeIpam::CloudControllerManager => "cloud-controller-manager",
            NodeIpam::KubeControllerManager => "kube-controller-manager",
        }
    }
}

/// Default registry of the control-plane images.
pub const DEFAULT_KUBERNETES_REGISTRY: &str = "registry.k8s.io";
/// Registry of the cloud-provider images up to Kubernetes 1.31 (frozen: no new tags after v1.34.3).
pub const CLOUD_PROVIDER_REGISTRY_LEGACY: &str = "mcr.microsoft.com/oss/kubernetes";
/// Registry of the cloud-provider images from Kubernetes 1.32 (Dalec builds).
pub const CLOUD_PROVIDER_REGISTRY_V2: &str = "mcr.microsoft.com/oss/v2/kubernetes";
/// First minor whose cloud-provider images default to [`CLOUD_PROVIDER_REGISTRY_V2`].
pub const CLOUD_PROVIDER_REGISTRY_V2_FROM: u32 = 32;

/// Default cloud-provider registry for a version. Follows the upstream Helm chart: images moved
/// to `oss/v2` (cloud-provider-azure#9792), the chart defaults to `oss/kubernetes` below 1.32 and
/// to `oss/v2/kubernetes` from 1.32 (cloud-provider-azure#9821, #9843: v1.31 tags do not exist on
/// `oss/v2`); the old path stopped at v1.34.3, so 1.35+ exist only on `oss/v2`.
pub fn default_cloud_provider_registry(version: KubeVersion) -> &'static str {
    if version.at_least(CLOUD_PROVIDER_REGISTRY_V2_FROM) {
        CLOUD_PROVIDER_REGISTRY_V2
    } else {
        CLOUD_PROVIDER_REGISTRY_LEGACY
    }
}

/// Image locations; tags default to the Kubernetes minor (`v1.N.0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Images {
    /// Registry of kube-apiserver, kube-controller-manager and kube-scheduler.
    pub kubernetes_registry: String,
    /// Tag of the control-plane images.
    pub kubernetes_tag: Option<String>,
    /// Registry of cloud-controller-manager and cloud-node-manager (None: by version).
    pub cloud_provider_registry: Option<String>,
    /// Tag of the cloud-provider images.
    pub cloud_provider_tag: Option<String>,
}

impl Default for Images {
    fn default() -> Self {
        Self {
            kubernetes_registry: DEFAULT_KUBERNETES_REGISTRY.to_string(),
            kubernetes_tag: None,
            cloud_provider_registry: None,
            cloud_provider_tag: None,
        }
    }
}

/// Everything the generator needs; build with [`Options::new`] then adjust fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// In-tree or out-of-tree.
    pub mode: Mode,
    /// Target Kubernetes minor.
    pub version: KubeVersion,
    /// `--cluster-name`: prefix of LB, backend pool and public IP names; must match KCM and CCM.
    pub cluster_name: String,
    /// Pod CIDRs (`--cluster-cidr`), one per family.
    pub cluster_cidrs: Vec<Cidr>,
    /// Service CIDRs (`--service-cluster-ip-range`), one per family.
    pub service_cidrs: Vec<Cidr>,
    /// kubenet-style Azure route table managed by the route controller.
    pub configure_cloud_routes: bool,
    /// Who allocates pod CIDRs when routes are on (None: see [`Options::node_ipam_owner`]).
    pub node_ipam: Option<NodeIpam>,
    /// Image locations.
    pub images: Images,
    /// CCM replicas (more than one = HA).
    pub replicas: u16,
    /// Emit the LeaderMigrationConfiguration and wire it into KCM (in-tree) or CCM (out-of-tree).
    pub leader_migration: bool,
    /// ARM authentication.
    pub auth: AuthMode,
}

/// Pod CIDR used when none is given.
pub const DEFAULT_CLUSTER_CIDR_V4: &str = "10.244.0.0/16";
/// IPv6 pod CIDR added for dual-stack.
pub const DEFAULT_CLUSTER_CIDR_V6: &str = "fd00:10:244::/56";
/// Service CIDR used when none is given.
pub const DEFAULT_SERVICE_CIDR_V4: &str = "10.0.0.0/16";
/// IPv6 service CIDR added for dual-stack.
pub const DEFAULT_SERVICE_CIDR_V6: &str = "fd00:10:96::/108";
/// Cluster name used when none is given (the anchor example's `k8s`, not the Helm `kubernetes`).
pub const DEFAULT_CLUSTER_NAME: &str = "k8s";

/// Bad option: names the option and the accepted values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// In-tree was asked for a release without the in-tree provider.
    #[error(
        "--mode in-tree is not possible for Kubernetes {version}: the in-tree Azure provider and the kubelet ACR credential provider were deleted in 1.30 (kubernetes#122857). Accepted: --mode in-tree with --kubernetes-version 1.27 to 1.29 (1.29 re-enables it with DisableCloudProviders=false and DisableKubeletCloudCredentialProviders=false), or --mode out-of-tree for any version 1.27 to 1.36"
    )]
    InTreeRemoved {
        /// Requested version.
        version: KubeVersion,
    },
    /// Leader migration asked for where no in-tree kube-controller-manager can take part.
    #[error(
        "--leader-migration is not possible with --mode out-of-tree --kubernetes-version {version}: leader migration hands the cloud controllers from an in-tree kube-controller-manager (version N, at most 1.29: the in-tree Azure provider was deleted in 1.30) to the cloud-controller-manager (version N+1), so no 1.31+ cluster has a partner for it. Accepted: --leader-migration with --mode in-tree --kubernetes-version 1.27 to 1.29, or --mode out-of-tree --kubernetes-version 1.27 to 1.30; or drop --leader-migration and stop every in-tree kube-controller-manager before the first cloud-controller-manager starts"
    )]
    LeaderMigrationWithoutInTree {
        /// Requested version.
        version: KubeVersion,
    },
    /// The CCM was asked to allocate pod CIDRs while an in-tree KCM still does (P12).
    #[error(
        "--node-ipam cloud-controller-manager cannot be combined with --leader-migration: during the migration the in-tree kube-controller-manager (version N) keeps allocating pod CIDRs, and the upstream Azure cloud-controller-manager never takes part in leader migration, so both would allocate and new Nodes could get overlapping pod CIDRs. Accepted: --leader-migration with --node-ipam kube-controller-manager (the default with --leader-migration), or --node-ipam cloud-controller-manager without --leader-migration once no in-tree kube-controller-manager runs"
    )]
    NodeIpamWithLeaderMigration,
    /// Workload identity needs the out-of-tree CCM.
    #[error(
        "--auth workload-identity needs --mode out-of-tree: the in-tree provider runs in static pods that read the node's azure.json and cannot use a projected token. Accepted with --mode in-tree: managed-identity, service-principal"
    )]
    WorkloadIdentityInTree,
    /// A field value is out of its accepted set.
    #[error("{option} `{value}` is invalid; accepted: {accepted}")]
    Invalid {
        /// CLI option.
        option: &'static str,
        /// Value given.
        value: String,
        /// Accepted values.
        accepted: String,
    },
}

impl Options {
    /// Defaults for a mode and version: single-stack IPv4, routes off (Azure CNI), one CCM
    /// replica, no leader migration, managed identity.
    pub fn new(mode: Mode, version: KubeVersion) -> Self {
        Self {
            mode,
            version,
            cluster_name: DEFAULT_CLUSTER_NAME.to_string(),
            cluster_cidrs: vec![parse_default(DEFAULT_CLUSTER_CIDR_V4)],
            service_cidrs: vec![parse_default(DEFAULT_SERVICE_CIDR_V4)],
            configure_cloud_routes: false,
            node_ipam: None,
            images: Images::default(),
            replicas: 1,
            leader_migration: false,
            auth: AuthMode::ManagedIdentity,
        }
    }

    /// Switches both CIDR lists to the default dual-stack pair.
    pub fn with_default_dual_stack(mut self) -> Self {
        self.cluster_cidrs = vec![
            parse_default(DEFAULT_CLUSTER_CIDR_V4),
            parse_default(DEFAULT_CLUSTER_CIDR_V6),
        ];
        self.service_cidrs = vec![
            parse_default(DEFAULT_SERVICE_CIDR_V4),
            parse_default(DEFAULT_SERVICE_CIDR_V6),
        ];
        self
    }

    /// True when both address families are configured.
    pub fn dual_stack(&self) -> bool {
        self.cluster_cidrs.len() == 2
    }

    /// Tag of the control-plane images.
    pub fn kubernetes_tag(&self) -> String {
        self.images
            .kubernetes_tag
            .clone()
            .unwrap_or_else(|| format!("v{}.0", self.version))
    }

    /// Registry of the cloud-provider images (given, or the default for the version).
    pub fn cloud_provider_registry(&self) -> &str {
        self.images
            .cloud_provider_registry
            .as_deref()
            .unwrap_or_else(|| default_cloud_provider_registry(self.version))
    }

    /// Who allocates node pod CIDRs, or None when nobody does (routes off: Azure CNI).
    ///
    /// Default with routes: kube-controller-manager in-tree and with leader migration, else the
    /// cloud-controller-manager. Leader migration does not hand node IPAM over: migration.md
    /// 2.5 step 6 would list it in `controllerLeaders` and disable it in KCM N+1, but the
    /// upstream Azure CCM never runs the migrator (2.6) and its key `node-ipam` matches neither
    /// KCM key (`nodeipam`, `node-ipam-controller`; plain string match, 2.2). KCM N and N+1
    /// share the KCM lease, so exactly one allocates (P12).
    pub fn node_ipam_owner(&self) -> Option<NodeIpam> {
        if !self.configure_cloud_routes {
            return None;
        }
        let default = match self.mode {
            Mode::OutOfTree if !self.leader_migration => NodeIpam::CloudControllerManager,
            _ => NodeIpam::KubeControllerManager,
        };
        Some(self.node_ipam.unwrap_or(default))
    }

    /// True when `manager` runs with `--allocate-node-cidrs=true`.
    pub fn allocates(&self, manager: NodeIpam) -> bool {
        self.node_ipam_owner() == Some(manager)
    }

    /// Tag of the cloud-provider images (anchor minor == Kubernetes minor).
    pub fn cloud_provider_tag(&self) -> String {
        self.images
            .cloud_provider_tag
            .clone()
            .unwrap_or_else(|| format!("v{}.0", self.version))
    }

    /// Checks every rule; the first broken one is returned.
    pub fn validate(&self) -> Result<(), OptionsError> {
        if self.mode == Mode::InTree && self.version.at_least(30) {
            return Err(OptionsError::InTreeRemoved {
                version: self.version,
            });
        }
        if self.mode == Mode::InTree && self.auth == AuthMode::WorkloadIdentity {
            return Err(OptionsError::WorkloadIdentityInTree);
        }
        // migration.md 5: in-tree Azure ends at 1.29, so the last N -> N+1 pair is 1.29 -> 1.30.
        if self.mode == Mode::OutOfTree && self.leader_migration && self.version.at_least(31) {
            return Err(OptionsError::LeaderMigrationWithoutInTree {
                version: self.version,
            });
        }
        self.check_node_ipam()?;
        let name_ok = !self.cluster_name.is_empty()
            && self.cluster_name.len() <= 63
            && self
                .cluster_name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && self.cluster_name.as_bytes()[0].is_ascii_alphanumeric();
        if !name_ok {
            return Err(invalid(
                "--cluster-name",
                &self.cluster_name,
                "1-63 characters, letters, digits, '-' or '_', starting with a letter or digit (it prefixes Azure LB and public IP names)",
            ));
        }
        check_families("--cluster-cidr", &self.cluster_cidrs)?;
        check_families("--service-cidr", &self.service_cidrs)?;
        if self
            .service_cidrs
            .first()
            .is_some_and(|c| c.address(cidr::CLUSTER_DNS_INDEX).is_none())
        {
            return Err(invalid(
                "--service-cidr",
                &cidr::join(&self.service_cidrs),
                "a first service CIDR of at least 16 addresses (IPv4 /28, IPv6 /124): the cluster DNS Service takes its 10th address, as kubeadm does",
            ));
        }
        if self.cluster_cidrs.len() != self.service_cidrs.len() {
            return Err(invalid(
                "--service-cidr",
                &cidr::join(&self.service_cidrs),
                "the same number of families as --cluster-cidr (one for single-stack, IPv4 and IPv6 for dual-stack)",
            ));
        }
        if self.replicas == 0 || self.replicas > 5 {
            return Err(invalid("--replicas", &self.replicas.to_string(), "1 to 5"));
        }
        check_registry("--kubernetes-registry", &self.images.kubernetes_registry)?;
        check_registry("--cloud-provider-registry", self.cloud_provider_registry())?;
        check_tag("--kubernetes-tag", self.images.kubernetes_tag.as_deref())?;
        check_tag(
            "--cloud-provider-tag",
            self.images.cloud_provider_tag.as_deref(),
        )?;
        Ok(())
    }
}

impl Options {
    fn check_node_ipam(&self) -> Result<(), OptionsError> {
        let Some(asked) = self.node_ipam else {
            return Ok(());
        };
        if !self.configure_cloud_routes {
            return Err(invalid(
                "--node-ipam",
                asked.cli_name(),
                "only together with --configure-cloud-routes (kubenet); without routes no controller allocates pod CIDRs",
            ));
        }
        if self.mode == Mode::InTree && asked == NodeIpam::CloudControllerManager {
            return Err(invalid(
                "--node-ipam",
                asked.cli_name(),
                "kube-controller-manager with --mode in-tree (there is no cloud-controller-manager); cloud-controller-manager or kube-controller-manager with --mode out-of-tree",
            ));
        }
        if self.leader_migration && asked == NodeIpam::CloudControllerManager {
            return Err(OptionsError::NodeIpamWithLeaderMigration);
        }
        Ok(())
    }
}

fn parse_default(text: &str) -> Cidr {
    match Cidr::parse(text) {
        Ok(c) => c,
        Err(e) => unreachable!("built-in CIDR {text} is valid: {e}"),
    }
}

fn invalid(option: &'static str, value: &str, accepted: &str) -> OptionsError {
    OptionsError::Invalid {
        option,
        value: value.to_string(),
        accepted: accepted.to_string(),
    }
}

fn check_families(option: &'static str, cidrs: &[Cidr]) -> Result<(), OptionsError> {
    let ok = match cidrs {
        [_] => true,
        [a, b] => a.is_ipv6() != b.is_ipv6(),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(invalid(
            option,
            &cidr::join(cidrs),
            "one CIDR, or one IPv4 and one IPv6 CIDR separated by a comma",
        ))
    }
}

fn check_registry(option: &'static str, value: &str) -> Result<(), OptionsError> {
    let ok = !value.is_empty()
        && !value.ends_with('/')
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._/:".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(invalid(
            option,
            value,
            "a registry host with optional path, e.g. registry.k8s.io or myacr.azurecr.io/k8s (no trailing '/')",
        ))
    }
}

fn check_tag(option: &'static str, value: Option<&str>) -> Result<(), OptionsError> {
    let Some(value) = value else { return Ok(()) };
    let ok = !value.is_empty()
        && value.len() <= 128
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
        && !value.starts_with(['.', '-']);
    if ok {
        Ok(())
    } else {
        Err(invalid(
            option,
            value,
            "an image tag: up to 128 letters, digits, '_', '.', '-', not starting with '.' or '-'",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(minor: u32) -> KubeVersion {
        KubeVersion::from_minor(minor).unwrap()
    }

    /// The message `validate` refuses `o` with.
    fn refusal(o: &Options) -> String {
        o.validate().unwrap_err().to_string()
    }

    #[test]
    fn in_tree_refused_from_1_30_with_explanation() {
        assert!(Options::new(Mode::InTree, v(29)).validate().is_ok());
        let err = Options::new(Mode::InTree, v(30)).validate().unwrap_err();
        assert_eq!(err, OptionsError::InTreeRemoved { version: v(30) });
        let text = err.to_string();
        assert!(
            text.contains("1.27 to 1.29") && text.contains("kubernetes#122857"),
            "{text}"
        );
    }

    #[test]
    fn leader_migration_out_of_tree_only_up_to_1_30() {
        let mut o = Options::new(Mode::OutOfTree, v(30));
        o.leader_migration = true;
        assert!(o.validate().is_ok());
        o.version = v(31);
        let err = o.validate().unwrap_err();
        assert_eq!(
            err,
            OptionsError::LeaderMigrationWithoutInTree { version: v(31) }
        );
        let text = err.to_string();
        assert!(
            text.starts_with("--leader-migration")
                && text.contains("--mode in-tree --kubernetes-version 1.27 to 1.29")
                && text.contains("--mode out-of-tree --kubernetes-version 1.27 to 1.30"),
            "{text}"
        );
        let mut in_tree = Options::new(Mode::InTree, v(29));
        in_tree.leader_migration = true;
        assert!(in_tree.validate().is_ok());
    }

    #[test]
    fn node_ipam_owner_follows_mode_routes_and_choice() {
        let mut o = Options::new(Mode::OutOfTree, v(33));
        assert_eq!(o.node_ipam_owner(), None);
        o.configure_cloud_routes = true;
        assert_eq!(o.node_ipam_owner(), Some(NodeIpam::CloudControllerManager));
        o.node_ipam = Some(NodeIpam::KubeControllerManager);
        assert_eq!(o.node_ipam_owner(), Some(NodeIpam::KubeControllerManager));
        assert!(o.validate().is_ok());
        o.configure_cloud_routes = false;
        assert!(refusal(&o).starts_with("--node-ipam"));
        let mut i = Options::new(Mode::InTree, v(28));
        i.configure_cloud_routes = true;
        assert_eq!(i.node_ipam_owner(), Some(NodeIpam::KubeControllerManager));
        i.node_ipam = Some(NodeIpam::CloudControllerManager);
        assert!(refusal(&i).contains("--mode out-of-tree"));
    }

    #[test]
    fn leader_migration_keeps_node_ipam_in_kube_controller_manager() {
        let mut o = Options::new(Mode::OutOfTree, v(30));
        o.configure_cloud_routes = true;
        o.leader_migration = true;
        assert_eq!(o.node_ipam_owner(), Some(NodeIpam::KubeControllerManager));
        assert!(o.allocates(NodeIpam::KubeControllerManager));
        assert!(!o.allocates(NodeIpam::CloudControllerManager));
        assert!(o.validate().is_ok());
        o.node_ipam = Some(NodeIpam::CloudControllerManager);
        assert_eq!(o.validate(), Err(OptionsError::NodeIpamWithLeaderMigration));
        let text = refusal(&o);
        assert!(
            text.starts_with("--node-ipam cloud-controller-manager")
                && text.contains("--leader-migration")
                && text.contains("--leader-migration with --node-ipam kube-controller-manager")
                && text.contains("overlapping pod CIDRs"),
            "{text}"
        );
        o.leader_migration = false;
        assert!(o.validate().is_ok());
        assert!(o.allocates(NodeIpam::CloudControllerManager));
        o.configure_cloud_routes = false;
        o.node_ipam = None;
        assert!(!o.allocates(NodeIpam::CloudControllerManager));
        assert!(!o.allocates(NodeIpam::KubeControllerManager));
    }

    #[test]
    fn cloud_provider_registry_moves_to_oss_v2_at_1_32() {
        let reg = |minor| {
            Options::new(Mode::OutOfTree, v(minor))
                .cloud_provider_registry()
                .to_string()
        };
        assert_eq!(reg(31), "mcr.microsoft.com/oss/kubernetes");
        assert_eq!(reg(32), "mcr.microsoft.com/oss/v2/kubernetes");
        assert_eq!(reg(36), "mcr.microsoft.com/oss/v2/kubernetes");
        let mut o = Options::new(Mode::OutOfTree, v(36));
        o.images.cloud_provider_registry = Some("myacr.azurecr.io/k8s".into());
        assert_eq!(o.cloud_provider_registry(), "myacr.azurecr.io/k8s");
        o.images.cloud_provider_registry = Some("bad/".into());
        assert!(refusal(&o).starts_with("--cloud-provider-registry"));
    }

    #[test]
    fn bad_values_name_the_option() {
        let mut o = Options::new(Mode::OutOfTree, v(33));
        o.cluster_name = "bad name".into();
        assert!(refusal(&o).starts_with("--cluster-name"));
        let mut o = Options::new(Mode::OutOfTree, v(33));
        o.cluster_cidrs.push(Cidr::parse("10.1.0.0/16").unwrap());
        assert!(refusal(&o).starts_with("--cluster-cidr"));
        let o = Options::new(Mode::OutOfTree, v(33)).with_default_dual_stack();
        assert!(o.validate().is_ok());
        let mut o = o;
        o.service_cidrs.pop();
        assert!(refusal(&o).starts_with("--service-cidr"));
        for tiny in ["10.0.0.0/29", "255.255.255.255/32"] {
            let mut o = Options::new(Mode::OutOfTree, v(33));
            o.service_cidrs = vec![Cidr::parse(tiny).unwrap()];
            let text = refusal(&o);
            assert!(
                text.starts_with("--service-cidr") && text.contains("10th address"),
                "{text}"
            );
        }
        let mut o = Options::new(Mode::OutOfTree, v(33));
        o.replicas = 0;
        assert!(refusal(&o).contains("1 to 5"));
        let mut o = Options::new(Mode::OutOfTree, v(33));
        o.images.cloud_provider_tag = Some("-x".into());
        assert!(o.validate().is_err());
        let mut o = Options::new(Mode::InTree, v(28));
        o.auth = AuthMode::WorkloadIdentity;
        assert_eq!(o.validate(), Err(OptionsError::WorkloadIdentityInTree));
    }
}
