//! The `embedded` provider: `azure-fakes serve` (fake ARM, Entra ID, IMDS) and `azure-fakes
//! kube-apiserver` as supervised child processes on 127.0.0.1, ports picked by the kernel, the
//! topology extended with one Entra app per [`Component`], and an azure.json per component.
//!
//! Artifacts layout: `topology.yaml` (what the fake was given), `fake-tls/` (its CA),
//! `kube/kubeconfig`, `kube/apiserver-data.json` (the API server's objects, so a restart keeps
//! them), `azure-json/<component>.json`, `logs/<process>.log` (`<process>.<n>.log`: earlier runs
//! of a restarted process).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::admin::FakeAdmin;
use super::apps::with_apps;
use super::azure_json::{CloudSettings, write_json};
use super::components::Component;
use super::error::ClusterError;
use super::printed::PrintedFake;
use super::{AzureEndpoints, ClusterNode, ClusterProvider};
use crate::supervisor::{ProcessSpec, Supervisor, find_binary};

/// Name of the fake Azure process (its log is `logs/azure-fakes.log`).
pub const FAKE_PROCESS: &str = "azure-fakes";
/// Name of the API server process (its log is `logs/kube-apiserver.log`).
pub const APISERVER_PROCESS: &str = "kube-apiserver";

/// The topology the fake is seeded from.
#[derive(Debug, Clone)]
pub enum TopologySource {
    /// A topology file (e.g. `fakes/examples/small.yaml`).
    File(PathBuf),
    /// Topology YAML inline (a scenario's `topology:`).
    Text(String),
}

/// How to start an embedded cluster.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// Topology of the fake cloud.
    pub topology: TopologySource,
    /// Directory for the cluster's files and logs (created if missing).
    pub artifacts: PathBuf,
    /// Extra `azure-fakes serve` flags (`--faults FILE`, `--retry-after 0`, `--no-throttle`...).
    pub fake_flags: Vec<OsString>,
    /// Extra `azure-fakes kube-apiserver` flags (`--audit-log-path FILE`...).
    pub apiserver_flags: Vec<OsString>,
    /// How long each process may take to get ready.
    pub ready_deadline: Duration,
    /// SIGTERM-to-SIGKILL grace at teardown.
    pub stop_grace: Duration,
}

impl EmbeddedOptions {
    /// Defaults: no extra flags, 60 s to get ready, 5 s grace.
    pub fn new(topology: TopologySource, artifacts: impl Into<PathBuf>) -> Self {
        Self {
            topology,
            artifacts: artifacts.into(),
            fake_flags: Vec::new(),
            apiserver_flags: Vec::new(),
            ready_deadline: Duration::from_secs(60),
            stop_grace: crate::supervisor::DEFAULT_GRACE,
        }
    }

    /// Adds `azure-fakes serve` flags.
    pub fn fake_flags<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, flags: I) -> Self {
        self.fake_flags.extend(flags.into_iter().map(Into::into));
        self
    }

    /// Adds `azure-fakes kube-apiserver` flags.
    pub fn apiserver_flags<I: IntoIterator<Item = S>, S: Into<OsString>>(
        mut self,
        flags: I,
    ) -> Self {
        self.apiserver_flags
            .extend(flags.into_iter().map(Into::into));
        self
    }
}

/// A running embedded cluster; its processes are stopped by [`ClusterProvider::teardown`] and
/// killed if it is dropped first.
#[derive(Debug)]
pub struct EmbeddedCluster {
    supervisor: Supervisor,
    artifacts: PathBuf,
    kubeconfig: PathBuf,
    azure: AzureEndpoints,
    nodes: Vec<ClusterNode>,
    azure_json: BTreeMap<Component, PathBuf>,
    settings: CloudSettings,
    admin: FakeAdmin,
    printed: PrintedFake,
    apiserver_launch: ApiServerLaunch,
    /// `host:port` the API server serves on (a restart binds it again).
    apiserver_listen: String,
}

/// File the API server persists its objects to (`--data`), so a restart keeps the state.
pub const APISERVER_DATA: &str = "apiserver-data.json";

/// How the API server is started, kept for a restart on the same address and state.
#[derive(Debug, Clone)]
struct ApiServerLaunch {
    binary: PathBuf,
    kubeconfig: PathBuf,
    data: PathBuf,
    flags: Vec<OsString>,
    deadline: Duration,
}

impl ApiServerLaunch {
    fn spec(&self, listen: &str) -> ProcessSpec {
        ProcessSpec::new(APISERVER_PROCESS, &self.binary)
            .args(["kube-apiserver", "--listen", listen, "--kubeconfig-out"])
            .args([self.kubeconfig.clone()])
            .args(["--data".into(), self.data.clone().into_os_string()])
            .args(self.flags.iter().cloned())
            .ready_on_line("kubeconfig written to")
            .deadline(self.deadline)
    }
}

/// `host:port` from the API server's `kube-apiserver: serving on https://HOST:PORT` line.
fn serving_address(lines: &[String]) -> Option<String> {
    lines.iter().find_map(|l| {
        let url = l.split_once("serving on ")?.1.trim();
        Some(
            url.strip_prefix("https://")?
                .trim_end_matches('/')
                .to_string(),
        )
    })
}

impl EmbeddedCluster {
    /// Starts the fake and the API server (in parallel), reads what they print, and writes the
    /// azure.json files. On any failure everything already started is killed.
    pub async fn start(options: EmbeddedOptions) -> Result<Self, ClusterError> {
        let artifacts = options.artifacts.clone();
        let io = |what, path: &Path| {
            let path = path.to_path_buf();
            move |source| ClusterError::Io { what, path, source }
        };
        std::fs::create_dir_all(&artifacts).map_err(io("creating", &artifacts))?;
        let text = match &options.topology {
            TopologySource::File(path) => {
                std::fs::read_to_string(path).map_err(io("reading topology", path))?
            }
            TopologySource::Text(text) => text.clone(),
        };
        let apps: Vec<_> = Component::ALL.iter().map(|c| c.app()).collect();
        let topology = artifacts.join("topology.yaml");
        std::fs::write(&topology, with_apps(&text, &apps)).map_err(io("writing", &topology))?;

        let binary =
            find_binary("azure-fakes").map_err(crate::supervisor::SupervisorError::from)?;
        let supervisor = Supervisor::new(artifacts.join("logs")).with_grace(options.stop_grace);
        let kube_dir = artifacts.join("kube");
        std::fs::create_dir_all(&kube_dir).map_err(io("creating", &kube_dir))?;
        let kubeconfig = kube_dir.join("kubeconfig");
        let fake = ProcessSpec::new(FAKE_PROCESS, &binary)
            .args([
                "serve".into(),
                "--topology".into(),
                topology.clone().into_os_string(),
            ])
            .args(["--listen", "127.0.0.1:0", "--tls-dir"])
            .args([artifacts.join("fake-tls")])
            .args(options.fake_flags.iter().cloned())
            .ready_on_exact_line("ready")
            .deadline(options.ready_deadline);
        let apiserver_launch = ApiServerLaunch {
            binary: binary.clone(),
            kubeconfig: kubeconfig.clone(),
            data: kube_dir.join(APISERVER_DATA),
            flags: options.apiserver_flags.clone(),
            deadline: options.ready_deadline,
        };
        let apiserver = apiserver_launch.spec("127.0.0.1:0");
        let (fake, apiserver) =
            tokio::try_join!(supervisor.start(fake), supervisor.start(apiserver))?;
        let apiserver_listen =
            serving_address(&apiserver.printed()).ok_or_else(|| ClusterError::Printed {
                process: apiserver.name.clone(),
                missing: "kube-apiserver: serving on".into(),
                log: apiserver.log.clone(),
            })?;

        let printed =
            PrintedFake::parse(&fake.printed()).map_err(|missing| ClusterError::Printed {
                process: fake.name.clone(),
                missing,
                log: fake.log.clone(),
            })?;
        let admin = FakeAdmin::new(printed.base(), &printed.ca)?;
        let settings = CloudSettings::from_fake(&admin.info().await?, &admin.state().await?)
            .map_err(ClusterError::Settings)?;
        let json_dir = artifacts.join("azure-json");
        let mut azure_json = BTreeMap::new();
        for component in Component::ALL {
            let doc = settings.document(&printed, &component.app());
            let path = write_json(&json_dir, component.as_str(), &doc)
                .map_err(io("writing azure.json in", &json_dir))?;
            azure_json.insert(component, path);
        }
        let azure = AzureEndpoints {
            arm: printed.arm.clone(),
            authority: printed.authority.clone(),
            tenant: printed.tenant.clone(),
            subscription: printed.subscription.clone(),
            ca_file: Some(printed.ca.clone()),
        };
        let nodes = printed
            .imds
            .iter()
            .map(|(name, url)| ClusterNode {
                name: name.clone(),
                imds: Some(url.clone()),
            })
            .collect();
        Ok(Self {
            supervisor,
            artifacts,
            kubeconfig,
            azure,
            nodes,
            azure_json,
            settings,
            admin,
            printed,
            apiserver_launch,
            apiserver_listen,
        })
    }

    /// Restarts the API server (the `restart-kube-apiserver` process fault): SIGTERM (it writes
    /// its objects to `kube/apiserver-data.json` on the way out), then the same command on the
    /// same address, which reloads them and keeps its CA and token (`kube/kube-apiserver-tls`), so
    /// every client's kubeconfig stays valid. Clients see connection errors in between.
    pub async fn restart_apiserver(&self) -> Result<(), ClusterError> {
        self.supervisor.stop(APISERVER_PROCESS).await?;
        self.supervisor.keep_log(APISERVER_PROCESS)?;
        self.supervisor
            .start(self.apiserver_launch.spec(&self.apiserver_listen))
            .await?;
        Ok(())
    }

    /// The supervisor of the cluster's processes (also where a run can start more children so
    /// one teardown stops them all).
    pub fn supervisor(&self) -> &Supervisor {
        &self.supervisor
    }

    /// The azure.json settings shared by every component.
    pub fn settings(&self) -> &CloudSettings {
        &self.settings
    }

    /// Everything the fake printed, parsed.
    pub fn printed(&self) -> &PrintedFake {
        &self.printed
    }
}

#[async_trait::async_trait]
impl ClusterProvider for EmbeddedCluster {
    fn provider(&self) -> &'static str {
        "embedded"
    }

    fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    fn azure(&self) -> &AzureEndpoints {
        &self.azure
    }

    fn nodes(&self) -> &[ClusterNode] {
        &self.nodes
    }

    fn azure_json(&self, component: Component) -> Option<&Path> {
        self.azure_json.get(&component).map(PathBuf::as_path)
    }

    fn artifacts(&self) -> &Path {
        &self.artifacts
    }

    fn fake_admin(&self) -> Option<&FakeAdmin> {
        Some(&self.admin)
    }

    async fn teardown(&mut self) -> Result<(), ClusterError> {
        let errors = self.supervisor.stop_all().await;
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ClusterError::Teardown(errors))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_restart_address_is_the_one_first_served() {
        let lines = [
            "kube-apiserver: serving on https://127.0.0.1:41234".to_string(),
            "kube-apiserver: kubeconfig written to /tmp/k".to_string(),
        ];
        assert_eq!(serving_address(&lines).as_deref(), Some("127.0.0.1:41234"));
        assert_eq!(serving_address(&lines[1..]), None);
    }
}
