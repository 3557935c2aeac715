//! The child-process supervisor with small shell children: readiness, early exits with their log
//! tail, deadlines, SIGTERM-then-SIGKILL, kill on drop, and binary lookup errors.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use harness::supervisor::{ProcessSpec, Supervisor, SupervisorError, find_binary, find_binary_in};

use crate::scratch::Scratch;

/// `sh -c script` as a spec named `name`.
fn shell(name: &str, script: &str) -> ProcessSpec {
    ProcessSpec::new(name, "/bin/sh").args(["-c", script])
}

/// Whether a process with this pid exists (zombies included: a reaped child has no entry).
pub fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[tokio::test]
async fn a_ready_line_starts_and_stop_ends_with_sigterm() {
    let dir = Scratch::new("sup-term");
    let supervisor = Supervisor::new(dir.0.join("logs"));
    let handle = supervisor
        .start(
            shell(
                "echoer",
                "echo starting; echo \"$GREETING\"; exec sleep 1000",
            )
            .env("GREETING", "ready now")
            .ready_on_line("ready"),
        )
        .await
        .expect("ready");
    assert!(alive(handle.pid));
    assert_eq!(handle.printed(), ["starting", "ready now"]);
    let status = supervisor.stop("echoer").await.expect("stopped");
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status}");
    assert!(!alive(handle.pid));
    let log = std::fs::read_to_string(&handle.log).expect("log file");
    assert!(log.contains("ready now"), "{log}");
    assert!(supervisor.pids().is_empty());
}

#[tokio::test]
async fn a_child_sees_its_own_host_name_and_the_machine_keeps_its_own() {
    let dir = Scratch::new("sup-host");
    let supervisor = Supervisor::new(dir.0.join("logs"));
    let machine = std::fs::read_to_string("/proc/sys/kernel/hostname").expect("host name");
    let handle = supervisor
        .start(
            shell(
                "named",
                "echo \"host=$(cat /proc/sys/kernel/hostname)\"; exec sleep 1000",
            )
            .hostname("cloud-controller-manager-0")
            .ready_on_line("host="),
        )
        .await
        .expect("ready");
    assert_eq!(handle.printed(), ["host=cloud-controller-manager-0"]);
    let after = std::fs::read_to_string("/proc/sys/kernel/hostname").expect("host name");
    assert_eq!(after, machine, "the harness's own host name changed");
    supervisor.stop("named").await.expect("stopped");
    let bad = supervisor
        .start(shell("bad", "exit 0").hostname(""))
        .await
        .expect_err("an empty host name is refused");
    assert!(bad.to_string().contains("host name"), "{bad}");
}

#[tokio::test]
async fn a_child_ignoring_sigterm_is_killed_after_the_grace() {
    let dir = Scratch::new("sup-kill");
    let supervisor = Supervisor::new(dir.0.join("logs")).with_grace(Duration::from_millis(300));
    let handle = supervisor
        .start(
            shell(
                "stubborn",
                "trap '' TERM; echo ready; while :; do sleep 1; done",
            )
            .ready_on_exact_line("ready"),
        )
        .await
        .expect("ready");
    let status = supervisor.stop("stubborn").await.expect("stopped");
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status}");
    assert!(!alive(handle.pid));
}

#[tokio::test]
async fn a_child_that_dies_early_names_its_status_and_log_tail() {
    let dir = Scratch::new("sup-early");
    let supervisor = Supervisor::new(dir.0.join("logs"));
    let error = supervisor
        .start(
            shell(
                "crasher",
                "echo loading; echo 'error: bad flag --frobnicate' >&2; exit 3",
            )
            .ready_on_line("ready"),
        )
        .await
        .expect_err("exits before ready");
    assert!(
        matches!(error, SupervisorError::ExitedEarly { .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("crasher exited before it was ready"),
        "{text}"
    );
    assert!(text.contains("exit status: 3"), "{text}");
    assert!(text.contains("error: bad flag --frobnicate"), "{text}");
    assert!(text.contains("crasher.log"), "{text}");
    assert!(supervisor.pids().is_empty());
}

#[tokio::test]
async fn a_missed_deadline_kills_the_child_and_says_what_it_waited_for() {
    let dir = Scratch::new("sup-deadline");
    let supervisor = Supervisor::new(dir.0.join("logs"));
    let script = format!(
        "cd {} && echo $$ > pid; echo warming up; exec sleep 1000",
        dir.0.display()
    );
    let spec = shell("slow", &script)
        .ready_on_line("ready")
        .deadline(Duration::from_millis(500));
    let error = supervisor.start(spec).await.expect_err("never ready");
    let text = error.to_string();
    assert!(text.contains("slow was not ready"), "{text}");
    assert!(
        text.contains("a stdout line containing \"ready\""),
        "{text}"
    );
    assert!(text.contains("warming up"), "{text}");
    let pid: u32 = std::fs::read_to_string(dir.0.join("pid"))
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    assert!(!alive(pid), "pid {pid} still running");
}

#[tokio::test]
async fn dropping_the_supervisor_kills_every_child() {
    let dir = Scratch::new("sup-drop");
    let supervisor = Supervisor::new(dir.0.join("logs"));
    for name in ["a", "b"] {
        supervisor
            .start(shell(name, "exec sleep 1000"))
            .await
            .expect("spawned");
    }
    let pids = supervisor.pids();
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|p| alive(*p)));
    drop(supervisor);
    for pid in pids {
        assert!(!alive(pid), "pid {pid} survived the drop");
    }
}

#[test]
fn a_missing_binary_names_every_place_looked() {
    let error = find_binary("harness-test-no-such-binary").expect_err("not found");
    let text = error.to_string();
    let exe = std::env::current_exe().expect("test exe");
    let deps = exe.parent().expect("deps dir");
    assert!(
        text.contains(
            &deps
                .join("harness-test-no-such-binary")
                .display()
                .to_string()
        ),
        "{text}"
    );
    // target/<profile>/deps/<test> also looks in target/<profile>/.
    let profile = deps.parent().expect("profile dir");
    assert!(
        error
            .tried
            .contains(&profile.join("harness-test-no-such-binary")),
        "{error:?}"
    );

    let path_var = std::env::join_paths(["/nowhere/a", "/nowhere/b"]).expect("PATH");
    let error = find_binary_in(
        "azure-fakes",
        Some(Path::new("/opt/harness/bin/harness")),
        Some(&path_var),
    )
    .expect_err("not found");
    assert_eq!(
        error.tried,
        [
            PathBuf::from("/opt/harness/bin/azure-fakes"),
            PathBuf::from("/nowhere/a/azure-fakes"),
            PathBuf::from("/nowhere/b/azure-fakes"),
        ]
    );
    let text = error.to_string();
    assert!(text.contains("\"azure-fakes\" not found"), "{text}");
    assert!(text.contains("/nowhere/b/azure-fakes"), "{text}");
}

#[test]
fn a_binary_on_path_is_found_after_the_executable_dir() {
    let dir = Scratch::new("sup-path");
    let bin = dir.write("bin/tool", "#!/bin/sh\n");
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let path_var =
        std::env::join_paths([PathBuf::from("/nowhere"), dir.0.join("bin")]).expect("PATH");
    let found = find_binary_in("tool", Some(Path::new("/opt/x/harness")), Some(&path_var));
    assert_eq!(found, Ok(bin));
}

#[tokio::test]
async fn a_probe_decides_readiness() {
    let dir = Scratch::new("sup-probe");
    let marker = dir.0.join("up");
    let probe_marker = marker.clone();
    let probe: harness::supervisor::Probe = std::sync::Arc::new(move || {
        let marker = probe_marker.clone();
        Box::pin(async move { marker.exists() })
    });
    let supervisor = Supervisor::new(dir.0.join("logs"));
    let script = format!("sleep 0.2; touch {}; exec sleep 1000", marker.display());
    supervisor
        .start(shell("probed", &script).ready_on_probe(probe))
        .await
        .expect("ready once the file exists");
    // Readiness came from the probe, so the file exists by the time start returns.
    assert!(marker.exists());
    assert!(supervisor.stop_all().await.is_empty());
}

/// Env var that turns [`signal_teardown_helper`] on (it is the child of the test below).
const HELPER_DIR: &str = "HARNESS_SIGNAL_HELPER_DIR";

/// Run as a child process by [`sigterm_stops_the_children_and_exits_non_zero`]: supervises a
/// sleeper, installs the signal teardown, prints the sleeper's pid and waits.
#[tokio::test]
#[ignore = "helper process of sigterm_stops_the_children_and_exits_non_zero"]
async fn signal_teardown_helper() {
    let Some(dir) = std::env::var_os(HELPER_DIR) else {
        return;
    };
    let supervisor = Supervisor::new(PathBuf::from(dir).join("logs"));
    let child = supervisor
        .start(shell("sleeper", "exec sleep 1000"))
        .await
        .expect("spawned");
    let _teardown = supervisor.teardown_on_signal();
    println!("sleeper pid {}", child.pid);
    std::future::pending::<()>().await;
}

#[test]
fn sigterm_stops_the_children_and_exits_non_zero() {
    use std::io::{BufRead, BufReader};
    let dir = Scratch::new("sup-signal");
    let mut helper = std::process::Command::new(std::env::current_exe().expect("test exe"))
        .args([
            "--exact",
            "supervisor::signal_teardown_helper",
            "--ignored",
            "--nocapture",
        ])
        .env(HELPER_DIR, &dir.0)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("helper starts");
    let stdout = BufReader::new(helper.stdout.take().expect("stdout"));
    let sleeper: u32 = stdout
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("sleeper pid ")?.trim().parse().ok())
        .expect("helper printed the sleeper's pid");
    assert!(alive(sleeper));
    let pid = libc::pid_t::try_from(helper.id()).expect("pid");
    // SAFETY: signals one process this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = helper.wait().expect("helper exits");
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status}");
    assert!(
        !alive(sleeper),
        "sleeper {sleeper} survived the harness's SIGTERM"
    );
}
