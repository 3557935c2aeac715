//! `harness report A B --compare`: two builds of the suite side by side, e.g. our CCM and the
//! upstream one, or a CCM before and after a change. One row per scenario and check with both
//! verdicts and the figures of both runs (wall time, the out-of-tree managers' ARM calls and
//! writes, the CCM's peak RSS and CPU); the rows where the builds differ come first. Built here as
//! a pure value ([`compare_builds`]), drawn as text for the terminal and as one HTML page.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::duration::human;
use crate::outcome::{ScenarioOutcome, Verdict};
use crate::roster::ManagerKind;
use crate::scenario::CheckName;

/// A build's side of one scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// Whether the scenario ended as this build was expected to.
    pub met: bool,
    /// Why not, or why it broke off (empty when met).
    pub why: String,
    /// Scenario wall time, ms.
    pub duration_ms: u64,
    /// ARM calls and writes of the CCM and CNMs (none recorded: an older artifact).
    pub arm: Option<(u64, u64)>,
    /// The CCM replicas' highest peak RSS (KiB) and total CPU (ms).
    pub ccm: Option<(u64, u64)>,
}

/// One check of one scenario in both builds (`None`: it did not run there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRow {
    /// The check.
    pub check: CheckName,
    /// Build A's verdict and reason.
    pub a: Option<(Verdict, String)>,
    /// Build B's verdict and reason.
    pub b: Option<(Verdict, String)>,
}

impl CheckRow {
    /// True when the builds' verdicts differ (a check run by one build only differs too).
    pub fn differs(&self) -> bool {
        self.a.as_ref().map(|(v, _)| *v) != self.b.as_ref().map(|(v, _)| *v)
    }
}

/// One scenario in both builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioRow {
    /// Scenario name.
    pub name: String,
    /// Build A's run (`None`: A did not run it).
    pub a: Option<Side>,
    /// Build B's run.
    pub b: Option<Side>,
    /// Its checks, in A's order, then B's extra ones.
    pub checks: Vec<CheckRow>,
}

impl ScenarioRow {
    /// True when the builds ended differently: met in one only, run by one only, or a check's
    /// verdict differs.
    pub fn differs(&self) -> bool {
        self.a.as_ref().map(|s| s.met) != self.b.as_ref().map(|s| s.met)
            || self.checks.iter().any(CheckRow::differs)
    }
}

/// Two builds compared, scenarios that differ first (then by name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildComparison {
    /// Label of build A (its directory and the binaries it tested).
    pub a: String,
    /// Label of build B.
    pub b: String,
    /// One row per scenario either build ran.
    pub rows: Vec<ScenarioRow>,
}

fn side(o: &ScenarioOutcome) -> Side {
    let met = o.met_expectation();
    Side {
        met,
        why: if met { String::new() } else { o.explanation() },
        duration_ms: o.duration_ms,
        arm: o.figures.as_ref().map(|f| (f.arm_calls, f.arm_writes)),
        ccm: o
            .figures
            .as_ref()
            .and_then(|f| f.of_kind(ManagerKind::CloudControllerManager)),
    }
}

/// Pairs the scenarios and checks of two builds by name (pure).
pub fn compare_builds(
    (label_a, a): (&str, &[ScenarioOutcome]),
    (label_b, b): (&str, &[ScenarioOutcome]),
) -> BuildComparison {
    fn by_name(list: &[ScenarioOutcome]) -> BTreeMap<&str, &ScenarioOutcome> {
        list.iter().map(|o| (o.name.as_str(), o)).collect()
    }
    let (a_map, b_map) = (by_name(a), by_name(b));
    let names: BTreeSet<&str> = a_map.keys().chain(b_map.keys()).copied().collect();
    let mut rows: Vec<ScenarioRow> = names
        .into_iter()
        .map(|name| {
            let (oa, ob) = (a_map.get(name).copied(), b_map.get(name).copied());
            let verdict = |o: Option<&ScenarioOutcome>, check: CheckName| {
                o.and_then(|o| o.checks.iter().find(|c| c.check == check))
                    .map(|c| (c.verdict, c.reason.clone()))
            };
            let mut order: Vec<CheckName> = Vec::new();
            for o in [oa, ob].into_iter().flatten() {
                for c in &o.checks {
                    if !order.contains(&c.check) {
                        order.push(c.check);
                    }
                }
            }
            ScenarioRow {
                name: name.to_owned(),
                a: oa.map(side),
                b: ob.map(side),
                checks: order
                    .into_iter()
                    .map(|check| CheckRow {
                        check,
                        a: verdict(oa, check),
                        b: verdict(ob, check),
                    })
                    .collect(),
            }
        })
        .collect();
    // Stable: within each group the name order stays.
    rows.sort_by_key(|r| !r.differs());
    BuildComparison {
        a: label_a.to_owned(),
        b: label_b.to_owned(),
        rows,
    }
}

/// `pass`, `FAIL`, `error`, `skip`, or `-` for a check that did not run.
fn verdict_text(v: Option<&(Verdict, String)>) -> &'static str {
    match v.map(|(v, _)| *v) {
        Some(Verdict::Pass) => "pass",
        Some(Verdict::Fail) => "FAIL",
        Some(Verdict::Error) => "error",
        Some(Verdict::Skipped) => "skip",
        None => "-",
    }
}

fn met_text(s: Option<&Side>) -> &'static str {
    match s.map(|s| s.met) {
        Some(true) => "met",
        Some(false) => "NOT MET",
        None => "not run",
    }
}

/// `1234 calls (56 writes)`, or `-`.
fn arm_text(s: Option<&Side>) -> String {
    s.and_then(|s| s.arm)
        .map_or_else(|| "-".into(), |(c, w)| format!("{c} calls ({w} writes)"))
}

/// `CCM 42 MiB, 3.1s CPU`, or `-`.
fn ccm_text(s: Option<&Side>) -> String {
    s.and_then(|s| s.ccm).map_or_else(
        || "-".into(),
        |(rss, cpu)| format!("CCM {} MiB, {} CPU", rss / 1024, human(cpu)),
    )
}

fn duration_text(s: Option<&Side>) -> String {
    s.map_or_else(|| "-".into(), |s| human(s.duration_ms))
}

impl BuildComparison {
    /// Scenarios met by each build and how many scenarios differ.
    pub fn totals(&self) -> (usize, usize, usize) {
        let met = |pick: fn(&ScenarioRow) -> Option<&Side>| {
            self.rows
                .iter()
                .filter(|r| pick(r).is_some_and(|s| s.met))
                .count()
        };
        (
            met(|r| r.a.as_ref()),
            met(|r| r.b.as_ref()),
            self.rows.iter().filter(|r| r.differs()).count(),
        )
    }

    /// The terminal version: one line per scenario (both results and figures), and under a
    /// differing one the checks whose verdicts differ.
    pub fn text(&self) -> String {
        let (met_a, met_b, differ) = self.totals();
        let mut out = format!("A: {}\nB: {}\n", self.a, self.b);
        let width = self.rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
        for r in &self.rows {
            let _ = writeln!(
                out,
                "{mark} {name:<width$}  A {ma:<7} {da:>7}  {arma:<24} {ccma:<18}  \
                 B {mb:<7} {db:>7}  {armb:<24} {ccmb}",
                mark = if r.differs() { "≠" } else { " " },
                name = r.name,
                ma = met_text(r.a.as_ref()),
                da = duration_text(r.a.as_ref()),
                arma = arm_text(r.a.as_ref()),
                ccma = ccm_text(r.a.as_ref()),
                mb = met_text(r.b.as_ref()),
                db = duration_text(r.b.as_ref()),
                armb = arm_text(r.b.as_ref()),
                ccmb = ccm_text(r.b.as_ref()),
            );
            // A scenario one build did not run differs as a whole; its checks add nothing.
            let both_ran = r.a.is_some() && r.b.is_some();
            for c in r.checks.iter().filter(|c| both_ran && c.differs()) {
                let _ = writeln!(
                    out,
                    "    {}: A {} / B {}",
                    c.check,
                    verdict_text(c.a.as_ref()),
                    verdict_text(c.b.as_ref())
                );
            }
        }
        let _ = writeln!(
            out,
            "A met {met_a}, B met {met_b} of {} scenario(s); {differ} differ",
            self.rows.len()
        );
        out
    }

    /// The HTML page: a summary line, then per scenario a header row with both results and
    /// figures and one row per check with both verdicts and reasons.
    pub fn html(&self) -> String {
        let esc = testgrid::escape::markup;
        let (met_a, met_b, differ) = self.totals();
        let mut body = String::new();
        for r in &self.rows {
            let class = if r.differs() { "differs" } else { "same" };
            let _ = write!(
                body,
                "<tbody class=\"{class}\"><tr class=\"head\"><th>{}</th>\
                 <th>{}<br>{} · {} · {}</th><th>{}<br>{} · {} · {}</th></tr>",
                esc(&r.name),
                met_cell(r.a.as_ref()),
                duration_text(r.a.as_ref()),
                arm_text(r.a.as_ref()),
                ccm_text(r.a.as_ref()),
                met_cell(r.b.as_ref()),
                duration_text(r.b.as_ref()),
                arm_text(r.b.as_ref()),
                ccm_text(r.b.as_ref()),
            );
            for c in &r.checks {
                let cell = |v: Option<&(Verdict, String)>| {
                    let text = verdict_text(v);
                    let reason = v.map_or("did not run", |(_, r)| r.as_str());
                    format!(
                        "<td class=\"v-{}\"><b>{text}</b> {}</td>",
                        text.to_ascii_lowercase(),
                        esc(reason)
                    )
                };
                let _ = write!(
                    body,
                    "<tr class=\"{}\"><td>{}</td>{}{}</tr>",
                    if c.differs() { "differs" } else { "same" },
                    esc(&c.check.to_string()),
                    cell(c.a.as_ref()),
                    cell(c.b.as_ref())
                );
            }
            body.push_str("</tbody>");
        }
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>harness: two builds \
             compared</title><style>{CSS}</style></head><body><h1>Two builds compared</h1>\
             <p>A met {met_a}, B met {met_b} of {} scenario(s); {differ} differ (listed first).</p>\
             <table><thead><tr><th>scenario / check</th><th>A: {}</th><th>B: {}</th></tr></thead>\
             {body}</table></body></html>\n",
            self.rows.len(),
            esc(&self.a),
            esc(&self.b),
        )
    }
}

fn met_cell(s: Option<&Side>) -> String {
    let text = met_text(s);
    let why = s.map_or("", |s| s.why.as_str());
    let class = if s.is_some_and(|s| s.met) {
        "met"
    } else {
        "not-met"
    };
    format!(
        "<span class=\"{class}\" title=\"{}\">{text}</span>",
        testgrid::escape::markup(why)
    )
}

const CSS: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;width:100%}th,td{border:1px solid #ddd;padding:.3em .5em;\
text-align:left;vertical-align:top;font-size:.9em}thead th{background:#f0f0f0}\
tr.head th{background:#f6f8fa;font-weight:normal}tr.head th:first-child{font-weight:bold}\
tbody.differs tr.head th:first-child{border-left:4px solid #cf222e}tr.differs td:first-child\
{border-left:4px solid #cf222e}.met{color:#1a7f37;font-weight:bold}.not-met{color:#cf222e;\
font-weight:bold}.v-fail b,.v-error b{color:#cf222e}.v-pass b{color:#1a7f37}.v-skip b{color:#777}";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::CheckResult;
    use crate::scenario::Expect;

    fn outcome(name: &str, checks: &[(CheckName, Verdict)]) -> ScenarioOutcome {
        let checks = checks
            .iter()
            .map(|(c, v)| CheckResult::new(*c, *v, format!("{c} reason")))
            .collect();
        let mut o = ScenarioOutcome::example(Expect::Pass, checks);
        o.name = name.into();
        o.figures = Some(crate::figures::ScenarioFigures {
            managers: vec![crate::figures::ManagerFigures {
                name: "cloud-controller-manager-0".into(),
                kind: ManagerKind::CloudControllerManager,
                peak_rss_kib: 48 * 1024,
                cpu_ms: 3100,
            }],
            arm_calls: 40,
            arm_writes: 6,
        });
        o
    }

    #[test]
    fn differing_scenarios_come_first_with_the_checks_that_differ() {
        let a = [
            outcome("01-a", &[(CheckName::IngressIpStable, Verdict::Pass)]),
            outcome("02-b", &[(CheckName::IngressIpStable, Verdict::Pass)]),
            outcome("03-only-a", &[(CheckName::NoOrphans, Verdict::Pass)]),
        ];
        let b = [
            outcome("01-a", &[(CheckName::IngressIpStable, Verdict::Pass)]),
            outcome(
                "02-b",
                &[
                    (CheckName::IngressIpStable, Verdict::Fail),
                    (CheckName::NoOrphans, Verdict::Pass),
                ],
            ),
        ];
        let c = compare_builds(("ours", &a), ("upstream", &b));
        let names: Vec<&str> = c.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["02-b", "03-only-a", "01-a"]);
        assert!(c.rows[0].checks.iter().all(CheckRow::differs));
        assert_eq!(c.rows[1].b, None);
        assert!(!c.rows[2].differs());
        assert_eq!(c.totals(), (3, 1, 2));
        insta::assert_snapshot!(c.text());
    }

    #[test]
    fn the_page_escapes_reasons_and_marks_differences() {
        let mut a = outcome("01-a", &[(CheckName::NoOrphans, Verdict::Pass)]);
        a.checks[0].reason = "<script>".into();
        let b = outcome("01-a", &[(CheckName::NoOrphans, Verdict::Fail)]);
        let page = compare_builds(("A", &[a]), ("B", &[b])).html();
        assert!(page.contains("&lt;script&gt;") && !page.contains("<script>"));
        assert!(page.contains("<tbody class=\"differs\">"));
        assert!(page.contains("1 differ (listed first)"));
    }
}
