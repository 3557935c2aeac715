//! TestGrid results layout, JUnit dialect, configuration and the offline HTML grid.
//!
//! Writers produce exactly what TestGrid's updater reads (`layout`, `junit`, `started`,
//! `finished`); readers apply the same rules to show what TestGrid would draw (`grid`, `check`,
//! `html`).
//!
//! What TestGrid finally displays, as read in its own code (GoogleCloudPlatform/testgrid):
//! - every stored cell message over 140 bytes is cut to 70 + `...` + 70 bytes, split
//!   characters dropped, after any earlier cut (`pkg/updater/updater.go` `appendCell` /
//!   `truncate`);
//! - the Commit header keeps what follows the first `+` of the version, cut to 9 bytes
//!   (`metadata/job.go` `Version`); other configured headers come from finished.json metadata
//!   strings or read `missing`, blank while running (`pkg/updater/gcs.go` `convertResult`);
//! - a build it cannot read (too old, start time 0, a JSON file it cannot decode) is one cell in
//!   the plain `Overall` row, placed after the previous readable build with its headers
//!   (`pkg/updater/read.go` `readColumns`, `ancientColumn`, `erroredColumn`; wording from
//!   `read_test.go`);
//! - JSON cut short fails the download ("decode: unexpected EOF"), only an empty file is
//!   "Malformed artifacts" (`util/gcs/read.go` `readJSON`, `pkg/updater/read.go` `readResult`);
//!   the malformed list is sorted and names a bad JUnit file as `<path>: <error>` (`readResult`;
//!   the error text is our parser's, not Go's [infer]);
//! - rows are sorted by natural order of their names, Overall included (`ConstructGrid`); our
//!   HTML page lists Overall first by choice;
//! - `EmailAddresses` is read only as a list of strings (`convertResult`, `MultiString`);
//! - aborted builds look exactly like failures (`overallCell` reads only `passed`/`result`).
//!
//! Inferred, not read: the status of the start-time-0 cell (RUNNING, as the reference notes
//! say) and its missing icon [infer]; how the failed-download message names the build offline
//! (`<job>/<build>/` for TestGrid's `gs://` path) [infer]; unreadable builds get the previous
//! build's start time exactly (TestGrid adds 0.01 ms per failure, finer than our seconds; the
//! greater build id wins the tie instead) [infer].

#![warn(missing_docs)]

pub mod build_id;
pub mod check;
pub mod cli;
pub mod config;
pub mod escape;
pub mod finding;
pub mod finished;
pub mod grid;
pub mod html;
pub mod junit;
pub mod layout;
pub mod natural;
pub mod publish;
pub mod started;
pub mod summary;
pub mod timefmt;
pub mod version;
