//! Manager processes (stand-in KCMs, CCMs, CNMs) as supervised children: started with their
//! command line and `SSL_CERT_FILE` = the fake's CA (a CCM or CNM given by `--ccm-binary` or
//! `--cnm-binary` also gets `HTTPS_PROXY` = the fake's CONNECT proxy, see [`super::binaries`]),
//! ready once their log shows they campaign for their Lease (or run without one), registered in
//! the [`Roster`] with their cloud loops and identity, marked in the [`RunRecord`] when they
//! start, stop or are killed, and restartable with the same command line (a Deployment or
//! DaemonSet replacing a crashed Pod).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::binaries::{self, ManagerBinaries};
use super::error::SwitchError;
use super::loops::cloud_loops;
use crate::record::{MarkKind, RunRecord, now_ms};
use crate::roster::{ManagedProcess, ManagerKind, Roster};
use crate::supervisor::{ProcessSpec, Supervisor, SupervisorError, find_binary};

/// How long a manager may take to start campaigning.
const READY_DEADLINE: Duration = Duration::from_secs(60);
/// Log lines that show a controller manager is up: campaigning, or running without election.
const READY_LINES: [&str; 3] = [
    "campaigning for the leader Lease",
    "attempting to acquire leader lease",
    "running controllers without a Lease",
];

/// A manager as started, kept to restart it the same way.
#[derive(Debug, Clone)]
pub struct Launch {
    /// Supervisor and roster name.
    pub name: String,
    /// Kind of manager.
    pub kind: ManagerKind,
    /// Arguments (after the subcommand, for the stand-in KCM).
    pub args: Vec<String>,
    /// Loops its LeaderMigrationConfiguration gives it.
    pub migrated: Vec<&'static str>,
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
    /// The fake's CONNECT proxy (`HTTPS_PROXY` of a given binary), when it runs one.
    proxy: Option<String>,
    running: Arc<Mutex<BTreeMap<String, Launch>>>,
}

impl Launcher {
    /// A launcher starting children under `supervisor` (the cluster's, shared, so one Ctrl-C
    /// teardown and the cluster's teardown reach the managers too); children trust `ca_file`.
    pub fn new(supervisor: Supervisor, ca_file: &Path, roster: Roster, record: RunRecord) -> Self {
        Self {
            supervisor,
            roster,
            record,
            ca_file: ca_file.to_path_buf(),
            binaries: ManagerBinaries::default(),
            proxy: None,
            running: Arc::default(),
        }
    }

    /// Starts `binaries` instead of ours; a given one runs behind `proxy` (the fake's CONNECT
    /// proxy URL) when there is one.
    pub fn with_binaries(mut self, binaries: ManagerBinaries, proxy: Option<String>) -> Self {
        self.binaries = binaries;
        self.proxy = proxy;
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

    /// Starts `launch` and waits until it is up.
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
        self.supervisor.keep_log(&launch.name)?;
        let log = self
            .supervisor
            .log_dir()
            .join(format!("{}.log", launch.name));
        tracing::debug!(name = %launch.name, program = %program.display(), "starting a manager");
        let mut spec = ProcessSpec::new(&launch.name, program)
            .args(prefix.iter().copied())
            .args(launch.args.iter())
            .env("SSL_CERT_FILE", &self.ca_file)
            .deadline(READY_DEADLINE);
        if given.is_some()
            && let Some(proxy) = &self.proxy
        {
            spec = spec
                .env("HTTPS_PROXY", proxy)
                .env("NO_PROXY", binaries::NO_PROXY);
        }
        if launch.kind != ManagerKind::CloudNodeManager {
            let log = log.clone();
            spec = spec.ready_on_probe(Arc::new(move || {
                let log = log.clone();
                Box::pin(async move {
                    let text = std::fs::read_to_string(&log).unwrap_or_default();
                    READY_LINES.iter().any(|l| text.contains(l))
                })
            }));
        }
        let started_ms = now_ms();
        self.supervisor.start(spec).await?;
        self.roster.started(ManagedProcess {
            name: launch.name.clone(),
            kind: launch.kind,
            cloud_loops: cloud_loops(launch.kind, &launch.args, &launch.migrated),
            started_ms,
            stopped_ms: None,
            identity: None,
        });
        if let Some(identity) = identity(&std::fs::read_to_string(&log).unwrap_or_default()) {
            self.roster.set_identity(&launch.name, &identity);
        }
        self.record.mark(MarkKind::ProcessStarted {
            name: launch.name.clone(),
        });
        self.table().insert(launch.name.clone(), launch);
        Ok(())
    }

    /// Stops `name` (SIGTERM: it releases its Leases) and forgets it.
    pub async fn stop(&self, name: &str) -> Result<(), SwitchError> {
        self.table().remove(name);
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
        self.supervisor.kill(name)?;
        self.roster.stopped(name);
        self.record.mark(MarkKind::ProcessKilled {
            name: name.to_owned(),
        });
        Ok(launch)
    }

    /// The identity `name` campaigns with, as its log says.
    pub fn identity(&self, name: &str) -> Option<String> {
        let log = self.supervisor.log_dir().join(format!("{name}.log"));
        identity(&std::fs::read_to_string(log).unwrap_or_default())
    }

    /// `Err` naming the first of `names` that exited, with its log tail.
    pub fn check_alive(&self, names: &[String]) -> Result<(), String> {
        for name in names {
            if let Some((status, tail)) = self.supervisor.exited(name) {
                return Err(format!("{name} exited ({status}); last lines:\n{tail}"));
            }
        }
        Ok(())
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

/// The `identity=` of the first leader-election line of a log.
fn identity(log: &str) -> Option<String> {
    log.lines()
        .filter(|l| l.to_ascii_lowercase().contains("leader lease"))
        .find_map(|l| {
            l.split_whitespace()
                .find_map(|w| w.strip_prefix("identity="))
                .map(|v| v.trim_matches('"').to_owned())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_comes_from_the_campaign_line() {
        let log = "2026-01-01T00:00:00Z  INFO x: starting\n\
            2026-01-01T00:00:01Z  INFO ccm_controllers::leader::elector: attempting to acquire leader lease lease=kube-system/cloud-controller-manager identity=host_1234\n";
        assert_eq!(identity(log).as_deref(), Some("host_1234"));
        assert_eq!(identity("nothing"), None);
    }
}
