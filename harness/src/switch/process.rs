//! Manager processes (stand-in KCMs, CCMs, CNMs) as supervised children, each wired as its Pod
//! would be and judged only by what can be observed from outside:
//! - its own host name (a UTS namespace: the Pod's name, or the node's for a CNM, as a
//!   `hostNetwork` DaemonSet Pod sees it), so a Lease holder `<hostname>_<uuid>` names it;
//! - `NODE_NAME` for a CNM (upstream's DaemonSet sets it from `spec.nodeName`);
//! - `HTTP_PROXY`/`HTTPS_PROXY` = the fake's proxy for its host (IMDS at the real
//!   `http://169.254.169.254` of that host's VM, the public Entra hosts tunnelled), `NO_PROXY` =
//!   the loopback, where the fake's ARM and the API server are; `SSL_CERT_FILE` = the fake's CA;
//! - `--bind-address=127.0.0.1 --secure-port=<free port>`: ready once `GET /healthz` on it
//!   answers 200 (every build serves it, anonymous, as `--authorization-always-allow-paths`
//!   defaults allow);
//!
//! registered in the [`Roster`] with their cloud loops and host name, marked in the
//! [`RunRecord`] when they start, stop or are killed, and restartable with the same command line
//! (a Deployment or DaemonSet replacing a crashed Pod). Their logs are kept for people and never
//! read to decide anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::binaries::{self, ManagerBinaries};
use super::error::SwitchError;
use super::flags::Flags;
use super::loops::cloud_loops;
use super::ports;
use crate::cluster::FakeAdmin;
use crate::record::{MarkKind, RunRecord, now_ms};
use crate::roster::{ManagedProcess, ManagerKind, Roster};
use crate::supervisor::{ProcessSpec, Supervisor, SupervisorError, find_binary};

/// How long a manager may take to serve `/healthz`.
const READY_DEADLINE: Duration = Duration::from_secs(60);
/// One `/healthz` probe's timeout.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// A manager as started, kept to restart it the same way.
#[derive(Debug, Clone)]
pub struct Launch {
    /// Supervisor and roster name.
    pub name: String,
    /// Kind of manager.
    pub kind: ManagerKind,
    /// The host name it runs with: its Pod's name, or its node's for a CNM.
    pub host: String,
    /// Arguments (after the subcommand, for the stand-in KCM).
    pub args: Vec<String>,
    /// Loops its LeaderMigrationConfiguration gives it.
    pub migrated: Vec<&'static str>,
}

/// A manager that ended on its own while the harness counted on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exited {
    /// Its name.
    pub name: String,
    /// How it ended.
    pub status: String,
    /// The last lines of its log, for the reader.
    pub tail: String,
}

impl std::fmt::Display for Exited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} exited ({}); last lines:\n{}",
            self.name, self.status, self.tail
        )
    }
}

/// Starts and stops managers under one supervisor, keeping roster and record up to date. Clones
/// share everything, so a process fault can kill a manager while a procedure runs.
#[derive(Debug, Clone)]
pub struct Launcher {
    supervisor: Supervisor,
    roster: Roster,
    record: RunRecord,
    ca_file: PathBuf,
    binaries: ManagerBinaries,
    /// The fake's admin API, which hands out each host's proxy.
    admin: Option<FakeAdmin>,
    /// Host name → its proxy URL, asked once per host.
    proxies: Arc<tokio::sync::Mutex<BTreeMap<String, String>>>,
    /// The `/healthz` prober (no proxy, any certificate: each manager serves a self-signed one).
    probe: reqwest::Client,
    running: Arc<Mutex<BTreeMap<String, Launch>>>,
    /// Start time (Unix ms) of each running manager.
    started: Arc<Mutex<BTreeMap<String, i64>>>,
}

impl Launcher {
    /// A launcher starting children under `supervisor` (the cluster's, shared, so one Ctrl-C
    /// teardown and the cluster's teardown reach the managers too); children trust `ca_file`.
    pub fn new(
        supervisor: Supervisor,
        ca_file: &Path,
        roster: Roster,
        record: RunRecord,
    ) -> Result<Self, SwitchError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let probe = reqwest::Client::builder()
            .no_proxy()
            .danger_accept_invalid_certs(true)
            .timeout(PROBE_TIMEOUT)
            .build()
            .map_err(|e| SwitchError::State(format!("building the /healthz prober: {e}")))?;
        Ok(Self {
            supervisor,
            roster,
            record,
            ca_file: ca_file.to_path_buf(),
            binaries: ManagerBinaries::default(),
            admin: None,
            proxies: Arc::default(),
            probe,
            running: Arc::default(),
            started: Arc::default(),
        })
    }

    /// Starts `binaries` instead of ours.
    pub fn with_binaries(mut self, binaries: ManagerBinaries) -> Self {
        self.binaries = binaries;
        self
    }

    /// Wires every manager to its host's proxy from `admin` (without one, managers get no
    /// proxy and IMDS is out of reach, as on a host with no metadata service).
    pub fn with_admin(mut self, admin: FakeAdmin) -> Self {
        self.admin = Some(admin);
        self
    }

    /// True when `kind` runs a binary given on the command line rather than ours.
    pub fn binary_given(&self, kind: ManagerKind) -> bool {
        self.binaries.given(kind).is_some()
    }

    /// Records in the roster that the running `name` runs its loops of Lease `from` under `to`.
    pub fn reassign_lease(&self, name: &str, from: &str, to: &str) {
        self.roster.reassign_lease(name, from, to);
    }

    /// The supervisor the managers run under.
    pub fn supervisor(&self) -> &Supervisor {
        &self.supervisor
    }

    fn table(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Launch>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Names of the running managers of `kind`, in name order.
    pub fn running(&self, kind: ManagerKind) -> Vec<String> {
        self.table()
            .values()
            .filter(|l| l.kind == kind)
            .map(|l| l.name.clone())
            .collect()
    }

    /// The launch of a running manager.
    pub fn launch(&self, name: &str) -> Option<Launch> {
        self.table().get(name).cloned()
    }

    /// The proxy URL of `host`, asking the fake once.
    async fn proxy(&self, host: &str) -> Result<Option<String>, SwitchError> {
        let Some(admin) = &self.admin else {
            return Ok(None);
        };
        let mut proxies = self.proxies.lock().await;
        if let Some(url) = proxies.get(host) {
            return Ok(Some(url.clone()));
        }
        let url = admin
            .host_proxy(host)
            .await
            .map_err(|e| SwitchError::State(format!("the fake's proxy for host {host}: {e}")))?;
        proxies.insert(host.to_owned(), url.clone());
        Ok(Some(url))
    }

    /// Starts `launch` and waits until it serves `/healthz`.
    pub async fn start(&self, launch: Launch) -> Result<(), SwitchError> {
        let (binary, prefix): (&str, &[&str]) = match launch.kind {
            ManagerKind::KubeControllerManager => ("harness", &["kube-controller-manager"]),
            ManagerKind::CloudControllerManager => ("cloud-controller-manager", &[]),
            ManagerKind::CloudNodeManager => ("cloud-node-manager", &[]),
        };
        let given = self.binaries.given(launch.kind).map(Path::to_path_buf);
        let program = match &given {
            Some(path) => path.clone(),
            None => find_binary(binary).map_err(SupervisorError::from)?,
        };
        let port = ports::free_port()
            .map_err(|e| SwitchError::State(format!("no free port for {}: {e}", launch.name)))?;
        let mut args = Flags::parse(&launch.args);
        args.set("--bind-address", "127.0.0.1");
        args.set("--secure-port", &port.to_string());
        self.supervisor.keep_log(&launch.name)?;
        tracing::debug!(name = %launch.name, program = %program.display(), port, "starting a manager");
        let mut spec = ProcessSpec::new(&launch.name, program)
            .args(prefix.iter().copied())
            .args(args.render())
            .env("SSL_CERT_FILE", &self.ca_file)
            .hostname(&launch.host)
            .deadline(READY_DEADLINE)
            .ready_on_probe(healthz_probe(self.probe.clone(), port));
        if let Some(proxy) = self.proxy(&launch.host).await? {
            spec = spec
                .env("HTTP_PROXY", &proxy)
                .env("HTTPS_PROXY", &proxy)
                .env("NO_PROXY", binaries::NO_PROXY);
        }
        if launch.kind == ManagerKind::CloudNodeManager {
            spec = spec.env("NODE_NAME", &launch.host);
        }
        let started_ms = now_ms();
        let handle = self.supervisor.start(spec).await?;
        self.roster.started(ManagedProcess {
            name: launch.name.clone(),
            kind: launch.kind,
            cloud_loops: cloud_loops(launch.kind, &launch.args, &launch.migrated),
            started_ms,
            stopped_ms: None,
            hostname: launch.host.clone(),
            pid: Some(handle.pid),
            usage: None,
        });
        self.record.mark(MarkKind::ProcessStarted {
            name: launch.name.clone(),
        });
        self.started
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(launch.name.clone(), started_ms);
        self.table().insert(launch.name.clone(), launch);
        Ok(())
    }

    /// Stops `name` (SIGTERM: it releases its Leases) and forgets it.
    pub async fn stop(&self, name: &str) -> Result<(), SwitchError> {
        self.table().remove(name);
        // A last reading while it still runs.
        self.roster.read_usage();
        let result = self.supervisor.stop(name).await;
        self.roster.stopped(name);
        self.record.mark(MarkKind::ProcessStopped {
            name: name.to_owned(),
        });
        result.map(drop).map_err(Into::into)
    }

    /// SIGKILLs `name` (its Leases stay until they expire); returns its launch for a restart.
    pub fn kill(&self, name: &str) -> Result<Launch, SwitchError> {
        let launch = self
            .table()
            .remove(name)
            .ok_or_else(|| SwitchError::State(format!("no running manager named {name}")))?;
        self.roster.read_usage();
        self.supervisor.kill(name)?;
        self.roster.stopped(name);
        self.record.mark(MarkKind::ProcessKilled {
            name: name.to_owned(),
        });
        Ok(launch)
    }

    /// True when the Lease holder identity `holder` is the running manager `name`'s.
    pub fn holds(&self, name: &str, holder: &str) -> bool {
        self.launch(name)
            .is_some_and(|l| crate::roster::identity_of(holder, &l.host))
    }

    /// The running managers `names` as Lease holders to wait for (host and start).
    pub fn hosts(&self, names: &[String]) -> Vec<super::wait::Candidate> {
        names
            .iter()
            .filter_map(|n| {
                let started_ms = *self
                    .started
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(n)?;
                Some(super::wait::Candidate {
                    host: self.launch(n)?.host,
                    started_ms,
                })
            })
            .collect()
    }

    /// `Err` naming the first of `names` that exited, with its log tail.
    pub fn check_alive(&self, names: &[String]) -> Result<(), String> {
        match names.iter().find_map(|n| self.exited(n)) {
            Some(exited) => Err(exited.to_string()),
            None => Ok(()),
        }
    }

    fn exited(&self, name: &str) -> Option<Exited> {
        self.supervisor.exited(name).map(|(status, tail)| Exited {
            name: name.to_owned(),
            status: status.to_string(),
            tail,
        })
    }

    /// The first manager the harness started and has not stopped or killed that exited on its
    /// own (a crash, a refused flag), checked against the supervisor's reaped status.
    pub fn unexpected_exit(&self) -> Option<Exited> {
        let names: Vec<String> = self.table().keys().cloned().collect();
        names.iter().find_map(|n| self.exited(n))
    }

    /// Stops every manager this launcher runs (CNMs, CCMs, then KCMs); other children of the
    /// supervisor (the fake, the API server) are left alone.
    pub async fn stop_all(&self) -> Vec<String> {
        let mut names: Vec<(ManagerKind, String)> = self
            .table()
            .values()
            .map(|l| (l.kind, l.name.clone()))
            .collect();
        names.sort_by_key(|(kind, _)| std::cmp::Reverse(*kind));
        let mut errors = Vec::new();
        for (_, name) in names {
            if let Err(e) = self.stop(&name).await {
                errors.push(e.to_string());
            }
        }
        errors
    }
}

/// Ready once `https://127.0.0.1:<port>/healthz` answers 200.
fn healthz_probe(client: reqwest::Client, port: u16) -> crate::supervisor::Probe {
    let url = format!("https://127.0.0.1:{port}/healthz");
    Arc::new(move || {
        let (client, url) = (client.clone(), url.clone());
        Box::pin(async move {
            client
                .get(&url)
                .send()
                .await
                .is_ok_and(|r| r.status().is_success())
        })
    })
}
