//! What a `harness run` leaves behind for people and for TestGrid: one TestGrid build directory
//! (`started.json`, `finished.json`, `artifacts/junit_01.xml`, written through the `testgrid`
//! crate), a self-contained HTML page (`artifacts/report.html`), the terminal summary table and the
//! progress display; and the merge of a sharded run's build directories into one (`merge`).
//! Every report is drawn from the same `&[ScenarioOutcome]`, in the order given
//! (TestGrid sorts its rows itself; the page and the table keep the caller's order).
//!
//! How a scenario becomes TestGrid rows (row name = `<testsuite>.<testcase>`, GoogleCloudPlatform/
//! testgrid `metadata/junit/junit.go`, shared/reference/testgrid.md §2.2):
//! - one `<testsuite name="ccm-migration-parity">` per scenario, so every row reads
//!   `ccm-migration-parity.[scenario 01-cold-switch-azure-cni] ingress-ip-stable`, sorts by scenario
//!   (TestGrid orders rows naturally) and groups a scenario's checks together;
//! - `[scenario X] run` for every scenario, its `time` = the scenario's wall time (TestGrid graphs it
//!   as `test-duration-minutes`, testgrid.md §2.5); it fails, alone, when the run broke off before its
//!   checks, with the reason (the checks that could not run would only repeat it);
//! - `[scenario X] <check>` per check: Pass → pass, Fail → `<failure>` with the check's reason as the
//!   message (the start is what TestGrid shows in the cell) and its details and figures as the body,
//!   Error → `<failure>` "error: reason", Skipped → `<skipped message="skipped - reason">` (an S cell;
//!   a bare skip would drop the row, testgrid.md §2.3).
//!
//! Negative scenarios (`expect: {fail: CHECK}`): a red cell must mean "this did not end as
//! expected", or every build of a healthy suite would show red rows and raise alerts. So the named
//! check becomes the row `[scenario X] CHECK fails as expected`: green when the check failed, red
//! (with "expected CHECK to fail, it passed: reason") when it passed, errored or was skipped, and red
//! too when it did not run at all. The scenario's other checks are not what it tests (a wrong
//! `--cluster-name` also breaks `pip-id-stable`): passing ones stay green, failing or erroring ones
//! become S cells "not judged: ...". The grid is then green exactly when `finished.json` says
//! SUCCESS. The HTML report uses the same judgement for its colours and still shows each raw verdict.
//!
//! Inferred, not verified:
//! - [infer] metadata in `started.json` is shown by Prow's Spyglass/Deck for a build still running;
//!   TestGrid only reads `finished.json`'s (testgrid.md §1.3 calls the started one deprecated), so the
//!   keys are written to both.

mod build_compare;
mod command;
mod duration;
mod html;
mod judgement;
mod junit;
mod merge;
mod meta;
mod progress;
mod summary;
mod write;

pub use command::{ReportCommand, run_report};

/// File under a build's `artifacts/` naming the CCM and CNM binaries the run tested (`harness run`
/// writes it; a merge of shards keeps it).
pub const BINARIES_FILE: &str = "binaries.json";
pub use html::render_html;
pub use junit::{SUITE, junit_report};
pub use merge::{MergeError, merge_shards};
pub use meta::{DEFAULT_JOB, RunMeta};
pub use progress::Progress;
pub use summary::summary_table;
pub use write::{ReportError, Written, write_results};
