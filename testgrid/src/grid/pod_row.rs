//! The synthetic `<job>.Pod` row TestGrid draws from `podinfo.json` unless the test group sets
//! `disable_prowjob_analysis: true` (Prow's crier writes the file; our uploads do not).

use serde_json::{Map, Value};

use super::cell::{Cell, cut_message};
use super::status::Status;

/// TestGrid's message when a build has no podinfo.json (why the Pod row shows "!").
pub const MISSING_POD_INFO: &str = "podinfo.json not found, please install prow's GCS reporter";
/// TestGrid's message when the pod had no Prow `sidecar` container (why the Pod row shows "E").
pub const NO_POD_UTILS: &str = "not using decoration, please set decorate: true on prowjob";

/// The Pod cell, or `None` when TestGrid would not draw the row (podinfo.json missing while
/// the build still runs). `deadline` is when TestGrid stops waiting for the file.
pub fn pod_cell(
    podinfo: Option<&Map<String, Value>>,
    overall: Status,
    now: i64,
    deadline: i64,
) -> Option<Cell> {
    let pod = podinfo.and_then(|p| p.get("pod")).filter(|p| p.is_object());
    let Some(pod) = pod else {
        if overall == Status::Running {
            return None;
        }
        // testgrid.md §2.7: RUNNING until the deadline, then PASS_WITH_SKIPS, icon "!".
        let status = if now < deadline {
            Status::Running
        } else {
            Status::PassWithSkips
        };
        return Some(
            Cell::new(status)
                .with_icon("!")
                .with_message(MISSING_POD_INFO),
        );
    };
    Some(match summarize(pod) {
        PodSummary::Completed => Cell::new(Status::Pass),
        PodSummary::NoPodUtils => Cell::new(Status::Pass)
            .with_icon("E")
            .with_message(NO_POD_UTILS),
        PodSummary::Failed(problem) => Cell::new(Status::Fail)
            .with_icon("F")
            .with_message(&problem),
    })
}

/// How the pod ended, as TestGrid's `PodInfo.Summarize` tells it.
#[derive(Debug, Clone, PartialEq)]
enum PodSummary {
    /// Completed with Prow's sidecar.
    Completed,
    /// Completed, but without Prow's `sidecar` container (no decoration).
    NoPodUtils,
    /// Did not complete, and why.
    Failed(String),
}

/// How the pod ended (TestGrid's `PodInfo.Summarize`).
fn summarize(pod: &Value) -> PodSummary {
    let status = &pod["status"];
    if status["phase"] == "Succeeded" {
        return PodSummary::Completed;
    }
    let condition = |kind: &str| {
        status["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .rfind(|c| c["type"] == kind)
            .filter(|c| c["status"] != "True")
            .map(|c| text(&c["message"]))
    };
    if let Some(message) = condition("PodScheduled") {
        return PodSummary::Failed(format!("pod did not schedule: {message}"));
    }
    if let Some(message) = condition("Initialized") {
        return PodSummary::Failed(format!("pod could not initialize: {message}"));
    }
    for container in statuses(status, "initContainerStatuses") {
        if let Some(problem) = container_problem(container) {
            return PodSummary::Failed(format!("init container {problem}"));
        }
    }
    let mut found_sidecar = false;
    for container in statuses(status, "containerStatuses") {
        let is_sidecar = container["name"] == "sidecar";
        found_sidecar |= is_sidecar;
        if let Some(problem) = container_problem(container)
            && (is_sidecar || container["state"]["terminated"].is_null())
        {
            return PodSummary::Failed(problem);
        }
    }
    if found_sidecar {
        PodSummary::Completed
    } else {
        PodSummary::NoPodUtils
    }
}

fn statuses<'v>(status: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    status[key].as_array().into_iter().flatten()
}

/// Why a container did not complete cleanly (waiting, running, or a non-zero exit).
fn container_problem(container: &Value) -> Option<String> {
    let name = text(&container["name"]);
    let state = &container["state"];
    if state["waiting"].is_object() {
        return Some(format!(
            "{name} still waiting: {}",
            text(&state["waiting"]["message"])
        ));
    }
    if state["running"].is_object() {
        return Some(format!("{name} still running"));
    }
    let terminated = &state["terminated"];
    let code = terminated["exitCode"].as_i64().unwrap_or(0);
    if terminated.is_object() && code != 0 {
        return Some(format!(
            "{name} exited {code}: {}",
            cut_message(&text(&terminated["message"]))
        ));
    }
    None
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cell(podinfo: Value) -> Cell {
        let map = podinfo.as_object().cloned().unwrap_or_default();
        pod_cell(Some(&map), Status::Pass, 10, 5).unwrap()
    }

    #[test]
    fn summarizes_like_testgrid() {
        let sidecar_ok = json!({"name": "sidecar", "state": {"terminated": {"exitCode": 0}}});
        let c = cell(json!({"pod": {"status": {"phase": "Succeeded"}}}));
        assert_eq!((c.status, c.icon), (Status::Pass, None));
        let c = cell(json!({"pod": {"status": {"phase": "Failed", "conditions": [
            {"type": "PodScheduled", "status": "False", "message": "0/3 nodes"}]}}}));
        assert_eq!(
            (c.status, c.icon.as_deref(), c.message.as_str()),
            (Status::Fail, Some("F"), "pod did not schedule: 0/3 nodes")
        );
        let c = cell(
            json!({"pod": {"status": {"phase": "Failed", "containerStatuses": [
            {"name": "test", "state": {"terminated": {"exitCode": 1}}}]}}}),
        );
        assert_eq!(
            (c.status, c.icon.as_deref(), c.message.as_str()),
            (Status::Pass, Some("E"), NO_POD_UTILS)
        );
        let c = cell(
            json!({"pod": {"status": {"phase": "Failed", "containerStatuses": [
            {"name": "test", "state": {"terminated": {"exitCode": 1}}}, sidecar_ok]}}}),
        );
        assert_eq!((c.status, c.icon), (Status::Pass, None));
        let c = cell(
            json!({"pod": {"status": {"phase": "Failed", "initContainerStatuses": [
            {"name": "clonerefs", "state": {"terminated": {"exitCode": 128, "message": "no repo"}}}]}}}),
        );
        assert_eq!(c.message, "init container clonerefs exited 128: no repo");
    }

    #[test]
    fn missing_podinfo_waits_then_flags() {
        assert_eq!(pod_cell(None, Status::Running, 10, 20), None);
        let waiting = pod_cell(None, Status::Pass, 10, 20).unwrap();
        assert_eq!(
            (waiting.status, waiting.icon.as_deref()),
            (Status::Running, Some("!"))
        );
        let late = pod_cell(None, Status::Fail, 30, 20).unwrap();
        assert_eq!(
            (late.status, late.icon.as_deref(), late.message.as_str()),
            (Status::PassWithSkips, Some("!"), MISSING_POD_INFO)
        );
    }
}
