//! Runs the real `harness` binary the way users do.

use std::process::{Command, Output};

/// Runs `harness <args>` to completion, capturing its output.
pub fn harness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(args)
        .output()
        .expect("harness binary runs")
}

/// Stdout and stderr as text, for assertions and failure messages.
pub fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Held by a test that runs the whole suite (several scenarios at once): two such runs side by
/// side would put eight clusters on two cores and stretch every timing they measure.
pub fn whole_suite() -> std::sync::MutexGuard<'static, ()> {
    static SUITE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SUITE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
