//! `harness run` end to end: every shipped scenario through the real binary (which starts the
//! fakes, the in-tree stand-ins and the production CCM/CNM binaries as processes), each meeting its
//! expectation: positives pass every check, each negative fails for the check it names. The suite
//! runs as four shards at once (`--shard I/4`, `--jobs 1` each, as a CI matrix would), which must
//! cover every scenario exactly once; `harness report OUT --merge ...` merges them, and the merged
//! build is held to what an unsharded run must give: a TestGrid build directory `harness testgrid
//! check` accepts, one HTML row per check, JUnit in the suite's order.

use std::path::PathBuf;

use crate::outcomes::{outcomes, repo_root, unmet};
use crate::run::{harness, text};
use crate::scratch::Scratch;

const SHARDS: usize = 4;

#[test]
fn every_scenario_meets_its_expectation_and_each_negative_fails_for_its_check() {
    let _suite = crate::run::whole_suite();
    let root = repo_root();
    let scratch = Scratch::new("parity");
    let shard_dirs: Vec<PathBuf> = (1..=SHARDS)
        .map(|i| scratch.0.join(format!("shard-{i}")))
        .collect();
    let runs: Vec<std::process::Output> = std::thread::scope(|scope| {
        let handles: Vec<_> = shard_dirs
            .iter()
            .enumerate()
            .map(|(i, dir)| {
                let root = &root;
                scope.spawn(move || {
                    std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
                        .current_dir(root)
                        .args(["run", "--plain", "--verbose", "--jobs", "1", "--shard"])
                        .arg(format!("{}/{SHARDS}", i + 1))
                        .arg("--artifacts")
                        .arg(dir)
                        .output()
                        .expect("harness runs")
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("shard thread"))
            .collect()
    });
    let texts: Vec<(String, String)> = runs.iter().map(text).collect();
    let all_text = texts
        .iter()
        .enumerate()
        .map(|(i, (o, e))| format!("--- shard {}\n{o}\n{e}", i + 1))
        .collect::<Vec<_>>()
        .join("\n");
    // The shards partition the suite: every scenario in exactly one.
    let mut ran: Vec<String> = shard_dirs
        .iter()
        .flat_map(|d| outcomes(d))
        .map(|o| o["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    ran.sort();
    // The suite's order: `harness run scenarios/` loads the files sorted by path.
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("scenarios"))
        .expect("scenarios dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let files: Vec<String> = paths
        .iter()
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(
        ran, sorted,
        "the shards run every scenario once\n{all_text}"
    );
    // --verbose: each shard printed its scenarios' timelines, one line per lane.
    for (dir, (out, _)) in shard_dirs.iter().zip(&texts) {
        for o in outcomes(dir) {
            let name = o["name"].as_str().unwrap_or_default();
            let head = format!("{name} — switch timeline");
            assert!(
                out.contains(&head),
                "no terminal timeline for {name}\n{out}"
            );
        }
        assert!(
            out.lines()
                .any(|l| l.starts_with("lease ") && l.contains('│')),
            "no lease lane in\n{out}"
        );
    }

    let artifacts = scratch.0.join("merged");
    let mut merge = vec![
        "report".to_owned(),
        artifacts.display().to_string(),
        "--out".to_owned(),
        scratch.0.join("grid.html").display().to_string(),
    ];
    for dir in &shard_dirs {
        merge.push("--merge".to_owned());
        merge.push(dir.display().to_string());
    }
    let merged = harness(&merge.iter().map(String::as_str).collect::<Vec<_>>());
    let (merge_out, merge_err) = text(&merged);
    assert!(merged.status.success(), "{merge_out}\n{merge_err}");
    let (stdout, stderr) = (all_text, merge_out);
    let all = outcomes(&artifacts);
    let scenarios = std::fs::read_dir(root.join("scenarios"))
        .expect("scenarios dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "yaml"))
        })
        .count();
    assert_eq!(
        all.len(),
        scenarios,
        "one outcome per scenario\n{stdout}\n{stderr}"
    );
    let problems: Vec<String> = all.iter().flat_map(unmet).collect();
    assert!(
        problems.is_empty(),
        "{}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        problems.join("\n")
    );
    for (i, run) in runs.iter().enumerate() {
        assert!(
            run.status.success(),
            "shard {} exit {:?}\n{stdout}",
            i + 1,
            run.status
        );
    }
    let finished: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(artifacts.join("finished.json")).expect("finished.json"),
    )
    .expect("finished.json is JSON");
    assert_eq!(finished["passed"], true, "{finished}");
    // JUnit in the unsharded order: scenarios as `harness run` loads them (file name order).
    let junit = std::fs::read_to_string(artifacts.join("artifacts").join("junit_01.xml"))
        .expect("junit_01.xml");
    let mut order: Vec<&str> = Vec::new();
    for piece in junit.split("[scenario ").skip(1) {
        let name = piece.split(']').next().unwrap_or_default();
        if order.last() != Some(&name) {
            order.push(name);
        }
    }
    assert_eq!(order, files, "JUnit test cases in the suite's order");
    let checked = harness(&["testgrid", "check", artifacts.to_str().expect("utf-8 path")]);
    let (check_out, check_err) = text(&checked);
    assert!(checked.status.success(), "{check_out}\n{check_err}");
    let html = std::fs::read_to_string(artifacts.join("artifacts").join("report.html"))
        .expect("report.html");
    let rows = html
        .lines()
        .filter(|l| {
            ["good", "bad", "neutral"]
                .iter()
                .any(|class| l.starts_with(&format!("<tr class=\"{class}\"")))
        })
        .count();
    let checks: usize = all
        .iter()
        .map(|o| o["checks"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(rows, checks, "report.html has one row per check");
    // Each scenario's timeline: written beside its artifacts, drawn in the page.
    for name in &files {
        let svg = artifacts
            .join("artifacts/scenarios")
            .join(name)
            .join("timeline.svg");
        assert!(svg.is_file(), "{} missing", svg.display());
    }
    assert_eq!(
        html.matches("<svg xmlns").count(),
        files.len(),
        "one inline timeline per scenario"
    );
}
