//! `harness report`: one self-contained HTML page (inline CSS and JS, no network) drawing the
//! grid like TestGrid: rows are tests plus Overall, columns are builds newest first, metrics
//! and messages on hover.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::grid::alerts::RowAlert;
use crate::grid::tab_status::TabSummary;
use crate::grid::{Cell, Grid, Status};
use crate::timefmt::utc_minute;

/// Width and height of one cell in CSS pixels (fixed so screenshots are predictable).
pub const CELL_PX: (u32, u32) = (30, 22);

/// Renders the page: tab status and alerts above the grid, alerted rows marked.
pub fn render(grid: &Grid, tab: &TabSummary, title: &str) -> String {
    let mut h = String::with_capacity(16 * 1024);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{}</title>\n<style>{}</style></head><body>\n",
        esc(title),
        css()
    );
    let _ = writeln!(h, "<h1>{}</h1>", esc(title));
    let _ = writeln!(
        h,
        "<p class=\"meta\">{} build(s), {} row(s). Columns are builds, newest first (by started.json). Hover a cell for its message and metrics.</p>",
        grid.columns.len(),
        grid.rows.len()
    );
    let _ = write!(
        h,
        "<p class=\"tab\">Tab status <b class=\"tab-{}\">{}</b>",
        tab.status.name().to_ascii_lowercase(),
        tab.status
    );
    if !tab.reason.is_empty() {
        let _ = write!(h, " &mdash; {}", esc(&tab.reason));
    }
    let _ = writeln!(h, ". {}</p>", esc(&tab.stats_line()));
    if !tab.alerts.is_empty() {
        h.push_str("<ul class=\"alerts\">");
        for a in &tab.alerts {
            let _ = write!(
                h,
                "<li><b>{}</b>: {} failure(s) since build {} (newest {})",
                esc(&a.row),
                a.fail_count,
                esc(&a.first_fail_build),
                esc(&a.latest_fail_build)
            );
            if !a.message.is_empty() {
                let _ = write!(h, " &mdash; {}", esc(&a.message));
            }
            h.push_str("</li>");
        }
        h.push_str("</ul>\n");
    }
    h.push_str(
        "<div class=\"controls\"><input id=\"filter\" type=\"search\" placeholder=\"filter rows (regular expression)\" size=\"40\">\
         <label><input id=\"failing\" type=\"checkbox\"> rows with failures only</label></div>\n",
    );
    h.push_str("<table id=\"grid\"><thead><tr><th class=\"name\">Test</th>");
    for col in &grid.columns {
        let _ = write!(
            h,
            "<th class=\"col\" title=\"{}\">{}<br><span>{}</span></th>",
            esc(&column_title(col)),
            esc(&short_build(&col.build)),
            esc(&utc_minute(col.started))
        );
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    let alerted: HashMap<&str, &RowAlert> =
        tab.alerts.iter().map(|a| (a.row.as_str(), a)).collect();
    for row in &grid.rows {
        let cells: Vec<Option<&Cell>> =
            (0..grid.columns.len()).map(|i| grid.cell(row, i)).collect();
        let failing = cells
            .iter()
            .flatten()
            .any(|c| c.status.is_failing() || c.status == Status::Flaky);
        let (class, title) = match alerted.get(row.as_str()) {
            Some(a) => (
                " alerted",
                format!(
                    " title=\"{}\"",
                    esc(&format!(
                        "alert: {} failure(s) since build {}",
                        a.fail_count, a.first_fail_build
                    ))
                ),
            ),
            None => ("", String::new()),
        };
        let _ = write!(
            h,
            "<tr data-failing=\"{}\"><td class=\"name{class}\"{title}>{}</td>",
            u8::from(failing),
            esc(row)
        );
        for (i, cell) in cells.iter().enumerate() {
            match cell {
                None => h.push_str("<td class=\"c none\"></td>"),
                Some(c) => {
                    let tip = tooltip(row, &grid.columns[i].build, c);
                    let _ = write!(
                        h,
                        "<td class=\"c {}\" title=\"{}\">{}</td>",
                        c.status.name(),
                        esc(&tip),
                        esc(c.icon.as_deref().unwrap_or(""))
                    );
                }
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table>\n<div class=\"legend\">");
    for s in Status::ALL {
        let _ = write!(h, "<span><i class=\"{}\"></i>{}</span>", s.name(), s.name());
    }
    h.push_str("<span><i class=\"none\"></i>no result</span></div>\n");
    // Our page lists the Overall (and Pod) rows first; TestGrid sorts every row by name
    // (`harness testgrid check` prints that order).
    h.push_str("<p class=\"legend\">Overall rows are listed first on this page; TestGrid itself sorts every row by name, Overall included.</p>\n");
    // TestGrid has no aborted state for GCS builds: `overallCell` (pkg/updater/gcs.go) reads
    // only `passed` or `result == "SUCCESS"`, so an aborted build is drawn as a failure.
    h.push_str("<p class=\"legend\">An aborted build (finished.json <code>result: ABORTED</code>) is shown as a failure, here and on TestGrid, which has no aborted state.</p>\n");
    let _ = write!(h, "<script>{}</script>\n</body></html>\n", SCRIPT);
    h
}

/// A column header's hover text: the build, its start and every configured header's value
/// (the Commit header when none are configured).
fn column_title(col: &crate::grid::Column) -> String {
    let mut t = format!(
        "job {}\nbuild {}\nstarted {} UTC",
        col.job,
        col.build,
        utc_minute(col.started)
    );
    if col.headers.is_empty() {
        let _ = write!(t, "\ncommit {}", col.commit);
    }
    for (header, value) in &col.headers {
        let _ = write!(t, "\n{header} {value}");
    }
    t
}

fn tooltip(row: &str, build: &str, c: &Cell) -> String {
    let mut t = format!("{row}\nbuild {build}: {}", c.status.name());
    if let Some(icon) = &c.icon {
        let _ = write!(t, " [{icon}]");
    }
    if !c.message.is_empty() {
        let _ = write!(t, "\n{}", c.message);
    }
    for (k, v) in &c.metrics {
        let _ = write!(t, "\n{k} = {}", trim_float(*v));
    }
    t
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Long (19-digit) ids keep their last 8 digits in the header; the full id is in the hover.
fn short_build(build: &str) -> String {
    if build.chars().count() > 10 {
        let tail: String = build
            .chars()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("…{tail}")
    } else {
        build.to_owned()
    }
}

fn css() -> String {
    let (w, hgt) = CELL_PX;
    let mut css = format!(
        "body{{font:13px/1.35 system-ui,sans-serif;margin:16px;color:#202124;background:#fff}}\
         h1{{font-size:18px;margin:0 0 4px}}.meta{{color:#5f6368;margin:0 0 8px}}\
         .controls{{margin:0 0 8px;display:flex;gap:16px;align-items:center}}\
         table{{border-collapse:separate;border-spacing:2px}}\
         th.col{{font-weight:normal;font-size:10px;color:#5f6368;writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;padding:2px;max-height:140px}}\
         th.col span{{color:#9aa0a6}}\
         td.name{{white-space:nowrap;max-width:560px;overflow:hidden;text-overflow:ellipsis;padding:0 8px 0 0;font-family:ui-monospace,monospace;font-size:12px}}\
         td.c{{width:{w}px;min-width:{w}px;height:{hgt}px;padding:0;text-align:center;font-size:10px;font-weight:bold;color:#fff;cursor:default}}\
         td.none{{background:#fff;outline:1px solid #eee}}\
         .legend{{margin-top:12px;color:#5f6368}}.legend span{{margin-right:12px}}\
         .legend i{{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}}\
         .legend i.none{{outline:1px solid #ccc}}\
         .tab{{margin:0 0 8px}}.tab b{{letter-spacing:.5px}}.tab-pass{{color:#1e7e34}}.tab-flaky{{color:#6a1b9a}}\
         .tab-fail,.tab-broken{{color:#b3261e}}.tab-stale,.tab-unknown{{color:#5f6368}}\
         ul.alerts{{margin:0 0 8px;padding-left:20px;color:#b3261e}}\
         td.name.alerted{{font-weight:bold;color:#b3261e}}\n"
    );
    for s in Status::ALL {
        let [r, g, b] = s.colour();
        let _ = write!(
            css,
            "td.{0},.legend i.{0}{{background:#{r:02x}{g:02x}{b:02x}}}",
            s.name()
        );
    }
    css.push_str("td.skip{color:#1e4620}");
    css
}

const SCRIPT: &str = r#"(function(){
var f=document.getElementById('filter'),o=document.getElementById('failing');
function apply(){var re=null;try{re=f.value?new RegExp(f.value,'i'):null;}catch(e){re=null;}
document.querySelectorAll('#grid tbody tr').forEach(function(tr){
var name=tr.firstChild.textContent;var show=(!re||re.test(name))&&(!o.checked||tr.dataset.failing==='1');
tr.style.display=show?'':'none';});}
f.addEventListener('input',apply);o.addEventListener('change',apply);})();"#;

/// Escapes text for HTML content and attribute values (newlines kept as `&#10;` in titles).
fn esc(s: &str) -> String {
    crate::escape::markup(s).replace('\n', "&#10;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Column;

    #[test]
    fn page_is_self_contained_and_escaped() {
        let mut fail = Cell::new(Status::Fail)
            .with_icon("F")
            .with_message("a <b> & \"c\"");
        fail.metrics.insert("arm-calls".into(), 7.0);
        let col = Column {
            job: "ci-job".into(),
            build: "1767225600123000000".into(),
            started: 1_767_225_600,
            finished: Some(1_767_229_200),
            commit: "v1.34.2".into(),
            headers: Vec::new(),
            readable: true,
            overall: Cell::new(Status::Fail),
            pod: None,
            rows: vec![
                ("s.<x>".into(), fail),
                ("s.ok".into(), Cell::new(Status::Pass)),
            ],
        };
        let grid = Grid::new(vec![col]);
        let tab = crate::grid::tab_status::summarize(
            &grid,
            &crate::grid::tab_status::TabSettings::default(),
            1_767_229_200,
        );
        let html = render(&grid, &tab, "Parity <report>");
        assert!(html.contains("<title>Parity &lt;report&gt;</title>"));
        assert!(html.contains("s.&lt;x&gt;"));
        assert!(
            html.contains("a &lt;b&gt; &amp; &quot;c&quot;&#10;arm-calls = 7"),
            "{html}"
        );
        assert!(html.contains("td.fail,.legend i.fail{background:#d93025}"));
        assert!(html.contains("…23000000"));
        assert!(
            html.contains("Tab status <b class=\"tab-fail\">FAIL</b>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<tr data-failing=\"1\"><td class=\"name alerted\" title=\"alert: 1 failure(s) since build 1767225600123000000\">s.&lt;x&gt;</td>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<tr data-failing=\"0\"><td class=\"name\">s.ok</td>"),
            "{html}"
        );
        for external in ["http://", "https://", "<link", "src="] {
            assert!(!html.contains(external), "{external}");
        }
    }
}
