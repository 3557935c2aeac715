//! Polling a condition while the processes under test must keep running.

use std::time::{Duration, Instant};

use crate::LoggedProcess;

/// Polls `check` every 200 ms for up to 60 s; panics with every log if a process exits first
/// or time runs out.
pub async fn wait_for<T, F, Fut>(what: &str, processes: &[&LoggedProcess], mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(value) = check().await {
            return value;
        }
        for process in processes {
            process.assert_running();
        }
        let logs: Vec<String> = processes.iter().map(|p| p.logs()).collect();
        assert!(Instant::now() < deadline, "timed out: {what}\n{logs:#?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
