//! `artifacts/report.html`: one self-contained page (inline style, no script, no external asset)
//! with a header per scenario, its switch timeline (the scenario's `timeline.svg`, inline, when
//! the run wrote one) and one row per check, every text escaped.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use super::duration::human;
use super::judgement::{
    Row, Standing, check_rows, expect_text, procedure_name, run_row, verdict_name,
};
use super::meta::RunMeta;
use crate::outcome::{ScenarioOutcome, Verdict};

/// The page for `outcomes`, to be written at `page` (links to the scenarios' artifact
/// directories are relative to it).
pub fn render_html(meta: &RunMeta, outcomes: &[ScenarioOutcome], page: &Path) -> String {
    let met = outcomes.iter().filter(|o| o.met_expectation()).count();
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        out,
        "<title>Migration parity: {}</title>\n<style>{CSS}</style>\n</head>\n<body>",
        esc(&meta.job)
    );
    let _ = writeln!(
        out,
        "<h1 class=\"{}\">Migration parity: {met} of {} scenario(s) met their expectation</h1>",
        if met == outcomes.len() { "good" } else { "bad" },
        outcomes.len()
    );
    let mut run = vec![
        format!("job <b>{}</b>", esc(&meta.job)),
        format!("provider {}", esc(&meta.provider)),
        format!("harness {}", esc(&meta.harness_version)),
        format!(
            "started {} UTC",
            testgrid::timefmt::utc_minute(meta.started_ms.div_euclid(1_000))
        ),
    ];
    if let Some(commit) = &meta.commit {
        run.insert(1, format!("commit {}", esc(commit)));
    }
    let _ = writeln!(out, "<p class=\"run\">{}</p>", run.join(" · "));
    out.push_str(
        "<table>\n<thead><tr><th>Scenario</th><th>Check</th><th>Verdict</th>\
         <th>Measured / budget</th><th>Reason</th><th>Details</th></tr></thead>\n",
    );
    let page_dir = page.parent().unwrap_or(Path::new("."));
    for o in outcomes {
        scenario(&mut out, o, page_dir);
    }
    out.push_str("</table>\n</body>\n</html>\n");
    out
}

fn scenario(out: &mut String, o: &ScenarioOutcome, page_dir: &Path) {
    let met = o.met_expectation();
    let (class, badge) = if met {
        ("good", "met")
    } else {
        ("bad", "not met")
    };
    let _ = writeln!(out, "<tbody class=\"scenario\">");
    let _ = write!(
        out,
        "<tr class=\"head {class}\"><th colspan=\"6\"><span class=\"badge {class}\">{badge}</span> \
         <b>{}</b>",
        esc(&o.name)
    );
    if !o.description.is_empty() {
        let _ = write!(out, " — {}", esc(&o.description));
    }
    let _ = write!(
        out,
        "<br>procedure {} · Kubernetes {} · {} · expect {} · <a href=\"{}\">artifacts</a>",
        procedure_name(o.procedure),
        esc(&o.kubernetes_version),
        human(o.duration_ms),
        esc(&expect_text(o.expect)),
        esc(&link(page_dir, &o.artifacts)),
    );
    if !met {
        let _ = write!(
            out,
            "<br><span class=\"why\">{}</span>",
            esc(&o.explanation())
        );
    }
    out.push_str("</th></tr>\n");
    if !o.phases.is_empty() {
        let phases: Vec<String> = o
            .phases
            .iter()
            .map(|p| format!("{} {}", esc(&p.phase), human(p.duration_ms)))
            .collect();
        let _ = writeln!(
            out,
            "<tr class=\"phases\"><td colspan=\"6\">phases: {}</td></tr>",
            phases.join(" · ")
        );
    }
    if let Some(svg) = timeline_svg(&o.artifacts) {
        let _ = writeln!(
            out,
            "<tr class=\"timeline\"><td colspan=\"6\">\n{}</td></tr>",
            svg.trim_end()
        );
    }
    if o.failure.is_some() {
        // The check rows follow, so the run row need not list them again.
        let mut run = run_row(o);
        run.details.clear();
        row(out, &o.name, &run);
    }
    for r in check_rows(o) {
        row(out, &o.name, &r);
    }
    out.push_str("</tbody>\n");
}

fn row(out: &mut String, scenario: &str, r: &Row) {
    let class = match r.standing {
        Standing::Good => "good",
        Standing::Bad => "bad",
        Standing::Neutral => "neutral",
    };
    let verdict = match (r.verdict, r.standing) {
        (Some(Verdict::Fail), Standing::Good) => "fail (expected)".to_owned(),
        (Some(v @ (Verdict::Fail | Verdict::Error)), Standing::Neutral) => {
            format!("{} (not judged)", verdict_name(v))
        }
        (Some(v), _) => verdict_name(v).to_owned(),
        (None, Standing::Bad) => "not met".to_owned(),
        (None, _) => "ok".to_owned(),
    };
    let figures = match (&r.measured, &r.budget) {
        (Some(m), Some(b)) => format!("{} / {}", esc(m), esc(b)),
        (Some(m), None) => esc(m),
        (None, Some(b)) => format!("— / {}", esc(b)),
        (None, None) => String::new(),
    };
    let details = if r.details.is_empty() {
        String::new()
    } else {
        format!(
            "<details><summary>{} line(s)</summary><pre>{}</pre></details>",
            r.details.len(),
            esc(&r.details.join("\n"))
        )
    };
    let _ = writeln!(
        out,
        "<tr class=\"{class}\"><td>{}</td><td>{}</td><td class=\"verdict\">{verdict}</td>\
         <td>{figures}</td><td>{}</td><td>{details}</td></tr>",
        esc(scenario),
        esc(&r.label),
        esc(&r.message),
    );
}

/// The scenario's `timeline.svg`, when present and an SVG document written by the harness.
fn timeline_svg(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(crate::timeline::SVG_FILE)).ok()?;
    text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\"")
        .then_some(text)
}

/// `target` relative to `from` when both resolve against the same working directory
/// (`../01-cold/`), else as given.
fn link(from: &Path, target: &Path) -> String {
    let (Ok(from), Ok(to)) = (std::path::absolute(from), std::path::absolute(target)) else {
        return target.display().to_string();
    };
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return target.display().to_string();
    }
    let mut rel = PathBuf::new();
    for _ in common..from.len() {
        rel.push("..");
    }
    for c in &to[common..] {
        rel.push(c.as_os_str());
    }
    let mut s = rel.to_string_lossy().replace('\\', "/");
    if s.is_empty() {
        s.push('.');
    }
    s.push('/');
    s
}

/// Escapes text for HTML content and double-quoted attribute values.
fn esc(s: &str) -> String {
    testgrid::escape::markup(s)
}

const CSS: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.3em}h1.good{color:#1a7f37}h1.bad{color:#cf222e}\
.run{color:#555}table{border-collapse:collapse;width:100%}\
th,td{border:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top;font-size:.9em}\
thead th{background:#f0f0f0}tr.head th{background:#f6f8fa;font-weight:normal}\
tr.head.bad th{background:#ffebe9}.badge{display:inline-block;padding:0 .4em;border-radius:3px;color:#fff}\
.badge.good{background:#1a7f37}.badge.bad{background:#cf222e}.why{color:#cf222e}\
tr.phases td{color:#555;font-size:.8em}tr.timeline td{overflow-x:auto}svg.timeline{display:block}\
tr.good td.verdict{background:#dafbe1;color:#1a7f37}tr.bad td.verdict{background:#ffebe9;color:#cf222e}\
tr.neutral td.verdict{background:#eee;color:#555}pre{white-space:pre-wrap;margin:0}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_to_the_page() {
        assert_eq!(
            link(
                Path::new("/tmp/run/artifacts"),
                Path::new("/tmp/run/01-cold")
            ),
            "../01-cold/"
        );
        assert_eq!(
            link(Path::new("out/artifacts"), Path::new("out/a b")),
            "../a b/"
        );
        assert_eq!(
            link(Path::new("/x/artifacts"), Path::new("/x/artifacts")),
            "./"
        );
    }

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
    }
}
