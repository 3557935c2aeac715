//! `harness run --shard` and `harness report OUT --merge ...` without running scenarios: the
//! flag's validation through the real binary, the shipped suite split into four shards, and
//! synthetic shard builds merged into one build equal to the unsharded one, and two builds
//! compared side by side (`harness report A B --compare`).

use std::path::{Path, PathBuf};

use harness::outcome::{CheckResult, ScenarioOutcome, Verdict};
use harness::report::{RunMeta, merge_shards, write_results};
use harness::run::shard::{Shard, ShardRecord};
use harness::scenario::{CheckName, Expect, Procedure};

use crate::run::{harness, text};
use crate::scratch::Scratch;

#[test]
fn a_bad_shard_flag_is_refused_naming_the_flag_and_the_accepted_values() {
    for bad in ["0/4", "5/4", "2", "x/4"] {
        let out = harness(&["run", "--shard", bad, "scenarios"]);
        let (_, err) = text(&out);
        assert!(!out.status.success(), "{bad} accepted");
        assert!(
            err.contains(&format!(
                "--shard {bad}: expected I/N with whole numbers 1 <= I <= N"
            )),
            "{err}"
        );
    }
}

#[test]
fn four_shards_of_the_shipped_suite_cover_every_scenario_exactly_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let plans = harness::run::suite::load(&[root]).expect("the suite loads");
    assert!(plans.len() > 20, "{} scenarios", plans.len());
    let shards: Vec<Shard> = (1..=4).map(|index| Shard { index, count: 4 }).collect();
    for plan in &plans {
        let holders: Vec<String> = shards
            .iter()
            .filter(|s| s.contains(&plan.name))
            .map(ToString::to_string)
            .collect();
        assert_eq!(holders.len(), 1, "{}: {holders:?}", plan.name);
    }
    for s in &shards {
        let n = plans.iter().filter(|p| s.contains(&p.name)).count();
        assert!(n > 0, "shard {s} is empty");
    }
}

/// 2026-01-01 00:00 UTC.
const START_MS: i64 = 1_767_225_600_000;

fn outcome(name: &str, started_ms: i64, verdict: Verdict, root: &Path) -> ScenarioOutcome {
    ScenarioOutcome {
        name: name.into(),
        description: String::new(),
        kubernetes_version: "1.29".into(),
        procedure: Procedure::Cold,
        expect: Expect::Pass,
        started_ms,
        duration_ms: 10_000,
        phases: Vec::new(),
        checks: vec![CheckResult::new(
            CheckName::NodeUidStable,
            verdict,
            "reason",
        )],
        failure: None,
        artifacts: harness::run::scenario::scenario_dir(root, name),
        expected_for_build: None,
        may_fail: Vec::new(),
        figures: None,
    }
}

/// A shard build as `harness run --shard` leaves it: outcomes, results, shard record.
/// The `ccm-version` of the shards' builds, not this workspace's version.
const OTHER_CCM: &str = "v1.31.2";

fn shard_build(
    dir: &Path,
    shard: Shard,
    suite: &[&str],
    outcomes: &[ScenarioOutcome],
    started_ms: i64,
) {
    for o in outcomes {
        std::fs::create_dir_all(&o.artifacts).expect("scenario dir");
        std::fs::write(
            o.artifacts.join("outcome.json"),
            serde_json::to_string(o).expect("json"),
        )
        .expect("outcome.json");
        std::fs::write(o.artifacts.join("marks.json"), "[]").expect("marks.json");
    }
    let mut meta = RunMeta::new(started_ms);
    meta.commit = Some("abc123".into());
    // A build of another CCM (`--ccm-binary`): the merge must keep its version.
    meta.ccm_version = OTHER_CCM.into();
    meta.finished_ms = outcomes
        .iter()
        .map(|o| o.started_ms + o.duration_ms as i64)
        .max();
    write_results(dir, &meta, outcomes, false).expect("write shard");
    std::fs::create_dir_all(dir.join("artifacts")).expect("artifacts dir");
    std::fs::write(
        dir.join("artifacts").join(harness::report::BINARIES_FILE),
        r#"{"cloud-controller-manager": {"given": true}}"#,
    )
    .expect("binaries.json");
    ShardRecord {
        shard,
        suite: suite.iter().map(|s| (*s).to_owned()).collect(),
    }
    .write(dir)
    .expect("shard.json");
}

fn json(path: PathBuf) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json")
}

#[test]
fn merged_shards_equal_the_unsharded_build_and_incomplete_shards_are_refused() {
    let scratch = Scratch::new("merge");
    let suite = ["01-a", "02-b", "03-c"];
    let (s1, s2) = (scratch.0.join("s1"), scratch.0.join("s2"));
    // Shard 1 ran 01-a and 03-c from 10 s; shard 2 ran 02-b (failing) from 5 s.
    shard_build(
        &s1,
        Shard { index: 1, count: 2 },
        &suite,
        &[
            outcome("01-a", START_MS + 10_000, Verdict::Pass, &s1),
            outcome("03-c", START_MS + 20_000, Verdict::Pass, &s1),
        ],
        START_MS + 10_000,
    );
    shard_build(
        &s2,
        Shard { index: 2, count: 2 },
        &suite,
        &[outcome("02-b", START_MS + 5_000, Verdict::Fail, &s2)],
        START_MS + 5_000,
    );
    // The same outcomes written unsharded, in the suite's order.
    let whole = scratch.0.join("whole");
    let unsharded = [
        outcome("01-a", START_MS + 10_000, Verdict::Pass, &whole),
        outcome("02-b", START_MS + 5_000, Verdict::Fail, &whole),
        outcome("03-c", START_MS + 20_000, Verdict::Pass, &whole),
    ];
    let mut meta = RunMeta::new(START_MS + 5_000);
    meta.commit = Some("abc123".into());
    meta.ccm_version = OTHER_CCM.into();
    meta.finished_ms = Some(START_MS + 30_000);
    write_results(&whole, &meta, &unsharded, false).expect("write whole");

    let merged = scratch.0.join("merged");
    // Shards given in any order.
    let written = merge_shards(&merged, &[s2.clone(), s1.clone()]).expect("merge");
    assert!(!written.passed);
    assert_eq!(
        std::fs::read_to_string(merged.join("artifacts/junit_01.xml")).expect("junit"),
        std::fs::read_to_string(whole.join("artifacts/junit_01.xml")).expect("junit"),
    );
    assert_eq!(
        json(merged.join("started.json")),
        json(whole.join("started.json"))
    );
    assert_eq!(
        json(merged.join("finished.json")),
        json(whole.join("finished.json"))
    );
    assert!(
        merged
            .join("artifacts")
            .join(harness::report::BINARIES_FILE)
            .is_file(),
        "the tested binaries' record is kept"
    );
    for name in suite {
        let dir = merged.join("artifacts/scenarios").join(name);
        assert!(dir.join("marks.json").is_file(), "{name} copied");
    }
    let checked = harness(&["testgrid", "check", merged.to_str().expect("utf-8")]);
    let (out, err) = text(&checked);
    assert!(checked.status.success(), "{out}\n{err}");

    // Through the binary: merged, then drawn as one column.
    let merged2 = scratch.0.join("merged2");
    let grid = scratch.0.join("grid.html");
    let out = harness(&[
        "report",
        merged2.to_str().expect("utf-8"),
        "--merge",
        s1.to_str().expect("utf-8"),
        "--merge",
        s2.to_str().expect("utf-8"),
        "--out",
        grid.to_str().expect("utf-8"),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("1 build(s)"), "{stdout}");

    // A missing shard, a repeated one: refused with what is wrong.
    let err = merge_shards(&scratch.0.join("m3"), std::slice::from_ref(&s1))
        .expect_err("shard 2 missing");
    assert!(err.to_string().contains("shard 2/2 is missing"), "{err}");
    assert!(
        err.to_string().contains("scenario 02-b has no outcome"),
        "{err}"
    );
    let err = merge_shards(&scratch.0.join("m4"), &[s1.clone(), s1.clone(), s2.clone()])
        .expect_err("shard 1 twice");
    assert!(err.to_string().contains("shard 1/2 given 2 times"), "{err}");
    let err = merge_shards(&s1, &[s1.clone(), s2]).expect_err("into a shard");
    assert!(err.to_string().contains("is one of the shards"), "{err}");
}

#[test]
fn two_builds_compared_through_the_binary_list_the_differing_scenario_first() {
    let scratch = Scratch::new("compare");
    let suite = ["01-a", "02-b"];
    let (a, b) = (scratch.0.join("a"), scratch.0.join("b"));
    // Two whole-suite builds; 02-b passes in A and fails in B.
    for (dir, second) in [(&a, Verdict::Pass), (&b, Verdict::Fail)] {
        shard_build(
            dir,
            Shard { index: 1, count: 1 },
            &suite,
            &[
                outcome("01-a", START_MS, Verdict::Pass, dir),
                outcome("02-b", START_MS + 10_000, second, dir),
            ],
            START_MS,
        );
    }
    let page = scratch.0.join("compare.html");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    let out = harness(&[
        "report",
        &path(&a),
        &path(&b),
        "--compare",
        "--out",
        &path(&page),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[2].starts_with("≠ 02-b"), "{stdout}");
    assert!(
        lines[3].contains("node-uid-stable: A pass / B FAIL"),
        "{stdout}"
    );
    assert!(lines[4].starts_with("  01-a"), "{stdout}");
    assert!(
        stdout.contains("A met 2, B met 1 of 2 scenario(s); 1 differ"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&page).expect("page written");
    assert!(html.contains("<tbody class=\"differs\">"), "{html}");

    // Not two directories, or one that is not a build: refused, nothing written.
    let out = harness(&["report", &path(&a), "--compare", "--out", &path(&page)]);
    assert!(!out.status.success());
    assert!(text(&out).1.contains("give exactly two build DIRs (got 1)"));
    let empty = scratch.0.join("empty");
    std::fs::create_dir_all(&empty).expect("dir");
    let other = scratch.0.join("other.html");
    let out = harness(&[
        "report",
        &path(&a),
        &path(&empty),
        "--compare",
        "--out",
        &path(&other),
    ]);
    let (_, err) = text(&out);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!(
            "{}: no artifacts/scenarios/*/outcome.json",
            empty.display()
        )),
        "{err}"
    );
    assert!(!other.exists());
}
