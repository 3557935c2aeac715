//! What `harness run` shows while scenarios run: indicatif bars on a terminal, plain timestamped
//! lines otherwise (CI logs), from the same four calls.
//!
//! Plain line format (stable; tests and log readers rely on it):
//! `HH:MM:SSZ [done/total] SCENARIO: EVENT` with EVENT one of `started`, `phase PHASE`,
//! `met expectation (DURATION)`, `DID NOT MEET expectation (DURATION): WHY`; the last line is
//! `HH:MM:SSZ [done/total] finished: M of N scenario(s) met their expectation`.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::duration::human;
use crate::outcome::ScenarioOutcome;
use crate::record::now_ms;

/// Progress of a run, shared by the tasks running its scenarios.
#[derive(Clone)]
pub struct Progress {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("total", &self.inner.total)
            .finish_non_exhaustive()
    }
}

struct Inner {
    total: usize,
    state: Mutex<State>,
    display: Display,
}

#[derive(Default)]
struct State {
    done: usize,
    met: usize,
}

enum Display {
    Plain(Mutex<Box<dyn Write + Send>>),
    Bars {
        multi: MultiProgress,
        overall: ProgressBar,
        running: Mutex<HashMap<String, ProgressBar>>,
    },
}

impl Progress {
    /// Bars when stderr is a terminal, plain lines on stderr otherwise.
    pub fn new(total_scenarios: usize) -> Self {
        if std::io::stderr().is_terminal() {
            Self::bars(total_scenarios, ProgressDrawTarget::stderr())
        } else {
            Self::plain(total_scenarios)
        }
    }

    /// Plain lines on stderr, whatever stderr is.
    pub fn plain(total_scenarios: usize) -> Self {
        Self::plain_into(total_scenarios, std::io::stderr())
    }

    /// Plain lines into `out` (a log file, a test buffer).
    pub fn plain_into(total_scenarios: usize, out: impl Write + Send + 'static) -> Self {
        Self::with(total_scenarios, Display::Plain(Mutex::new(Box::new(out))))
    }

    fn bars(total: usize, target: ProgressDrawTarget) -> Self {
        let multi = MultiProgress::with_draw_target(target);
        let overall = multi.add(ProgressBar::new(total as u64).with_style(style(
            "{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} scenarios {msg}",
        )));
        Self::with(
            total,
            Display::Bars {
                multi,
                overall,
                running: Mutex::new(HashMap::new()),
            },
        )
    }

    fn with(total: usize, display: Display) -> Self {
        Self {
            inner: Arc::new(Inner {
                total,
                state: Mutex::new(State::default()),
                display,
            }),
        }
    }

    /// `scenario` started.
    pub fn started(&self, scenario: &str) {
        match &self.inner.display {
            Display::Plain(_) => self.line(&format!("{scenario}: started")),
            Display::Bars {
                multi,
                overall,
                running,
            } => {
                let bar = multi.insert_before(
                    overall,
                    ProgressBar::new_spinner()
                        .with_style(style("{spinner} {prefix:.bold} {wide_msg}")),
                );
                bar.set_prefix(scenario.to_owned());
                bar.set_message("starting");
                bar.enable_steady_tick(Duration::from_millis(120));
                lock(running).insert(scenario.to_owned(), bar);
            }
        }
    }

    /// `scenario` entered `phase`.
    pub fn phase(&self, scenario: &str, phase: &str) {
        match &self.inner.display {
            Display::Plain(_) => self.line(&format!("{scenario}: phase {phase}")),
            Display::Bars { running, .. } => {
                if let Some(bar) = lock(running).get(scenario) {
                    bar.set_message(phase.to_owned());
                }
            }
        }
    }

    /// A scenario ended with `outcome`.
    pub fn finished(&self, outcome: &ScenarioOutcome) {
        let met = outcome.met_expectation();
        {
            let mut state = lock(&self.inner.state);
            state.done += 1;
            state.met += usize::from(met);
        }
        let event = if met {
            format!("met expectation ({})", human(outcome.duration_ms))
        } else {
            format!(
                "DID NOT MEET expectation ({}): {}",
                human(outcome.duration_ms),
                outcome.explanation()
            )
        };
        match &self.inner.display {
            Display::Plain(_) => self.line(&format!("{}: {event}", outcome.name)),
            Display::Bars {
                multi,
                overall,
                running,
            } => {
                if let Some(bar) = lock(running).remove(&outcome.name) {
                    bar.finish_and_clear();
                    multi.remove(&bar);
                }
                let mark = if met { "✓" } else { "✗" };
                let _ = multi.println(format!("{mark} {}: {event}", outcome.name));
                overall.inc(1);
            }
        }
    }

    /// The run is over: closes the bars or writes the closing line.
    pub fn finish(&self) {
        let (met, done) = {
            let state = lock(&self.inner.state);
            (state.met, state.done)
        };
        let text = format!("{met} of {done} scenario(s) met their expectation");
        match &self.inner.display {
            Display::Plain(_) => self.line(&format!("finished: {text}")),
            Display::Bars {
                overall, running, ..
            } => {
                for (_, bar) in lock(running).drain() {
                    bar.finish_and_clear();
                }
                overall.finish_with_message(text);
            }
        }
    }

    fn line(&self, text: &str) {
        let Display::Plain(out) = &self.inner.display else {
            return;
        };
        let done = lock(&self.inner.state).done;
        let width = self.inner.total.to_string().len();
        let mut out = lock(out);
        let _ = writeln!(
            out,
            "{} [{done:>width$}/{}] {text}",
            clock(now_ms()),
            self.inner.total
        );
        let _ = out.flush();
    }
}

/// A template known to be valid; the default style if indicatif ever refuses it.
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// A poisoned lock only means another thread panicked while printing; keep reporting.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `HH:MM:SSZ` of an epoch-milliseconds instant.
fn clock(ms: i64) -> String {
    let secs = ms.div_euclid(1_000).rem_euclid(86_400);
    format!(
        "{:02}:{:02}:{:02}Z",
        secs / 3_600,
        secs % 3_600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::ScenarioOutcome;
    use crate::scenario::{Expect, Procedure};

    fn outcome(name: &str) -> ScenarioOutcome {
        ScenarioOutcome {
            name: name.into(),
            description: String::new(),
            kubernetes_version: "1.29".into(),
            procedure: Procedure::Cold,
            expect: Expect::Pass,
            started_ms: 0,
            duration_ms: 2_000,
            phases: vec![],
            checks: vec![],
            failure: None,
            artifacts: Default::default(),
            expected_for_build: None,
            may_fail: Vec::new(),
            figures: None,
        }
    }

    #[test]
    fn clock_is_utc_time_of_day() {
        assert_eq!(clock(1_767_225_600_000 + 3_723_000), "01:02:03Z");
    }

    /// Bars drawn nowhere still go through every call, from several threads.
    #[test]
    fn bars_survive_a_whole_run_across_threads() {
        let p = Progress::bars(2, ProgressDrawTarget::hidden());
        std::thread::scope(|s| {
            for name in ["a", "b"] {
                let p = p.clone();
                s.spawn(move || {
                    p.started(name);
                    p.phase(name, "switch");
                    p.finished(&outcome(name));
                });
            }
        });
        p.finish();
        let Display::Bars {
            overall, running, ..
        } = &p.inner.display
        else {
            panic!("bars expected");
        };
        assert_eq!(overall.position(), 2);
        assert!(lock(running).is_empty());
    }

    #[test]
    fn progress_is_shareable() {
        fn assert_shared<T: Clone + Send + Sync>() {}
        assert_shared::<Progress>();
    }
}
