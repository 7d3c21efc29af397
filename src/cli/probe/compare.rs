//! `probe compare RUN.jsonl...`: runs side by side, as one self-contained HTML page on stdout.
//! Each RUN is a file of `probe --json` lines; the page has a column per run (named by its file)
//! and a row per case, matched across runs by the row's stable `id` (its `case` for lines
//! without one). Each cell is coloured by its verdict and carries what was observed; each row
//! names its rule, with the source as a link to the section it names. The page loads nothing:
//! its style is inline, and it has no script.
//!
//! Not here: probing (`probing`), or the JSON rows' fields (`grid`).

use std::path::Path;
use std::process::ExitCode;

use loopback_mcp_http::json::{self, Value};

use super::judge::Verdict;
use super::report::xml as escape;
use crate::cli::catalogue::sources;

/// The most bytes of one run file read.
const RUN_BYTES_MAX: u64 = 4 * 1024 * 1024;

/// Each verdict's colour, and the missing cell's.
const COLOURS: [(&str, &str); 6] = [
    ("holds", "#d9f2d9"),
    ("deviates", "#f7c6c6"),
    ("differs", "#fbe7b5"),
    ("not_applicable", "#ececec"),
    ("unreachable", "#d6dcf5"),
    ("missing", "#ffffff"),
];

/// One row of one run.
#[derive(Clone, Debug)]
struct Cell {
    key: String,
    case: String,
    group: String,
    level: String,
    rule: String,
    source: String,
    observed: String,
    verdict: Verdict,
}

/// One run: its name and its rows.
struct Run {
    name: String,
    cells: Vec<Cell>,
}

/// `probe compare RUN.jsonl...`.
pub fn run(files: &[String]) -> Result<ExitCode, String> {
    if files.is_empty() {
        return Err("probe compare needs one or more files of probe --json lines".into());
    }
    let runs = files.iter().map(|f| read(Path::new(f))).collect::<Result<Vec<Run>, String>>()?;
    crate::cli::print_text(&page(&runs));
    Ok(ExitCode::SUCCESS)
}

/// A run file: every line a row of `probe --json`.
fn read(path: &Path) -> Result<Run, String> {
    let shown = path.display();
    let size = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?.len();
    if size > RUN_BYTES_MAX {
        return Err(format!("{shown}: over {RUN_BYTES_MAX} bytes, not a probe run"));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let name =
        path.file_stem().map_or_else(|| shown.to_string(), |s| s.to_string_lossy().into_owned());
    let cells = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(at, line)| {
            cell(line).ok_or(format!("{shown}:{}: not a row of probe --json", at + 1))
        })
        .collect::<Result<Vec<Cell>, String>>()?;
    Ok(Run { name, cells })
}

/// One line as a cell.
fn cell(line: &str) -> Option<Cell> {
    let row = json::decode(line.as_bytes(), 8).ok()?;
    let text = |key: &str| row.get(key).and_then(Value::as_str).map(str::to_owned);
    let case = text("case")?;
    Some(Cell {
        key: text("id").unwrap_or_else(|| case.clone()),
        case,
        group: text("group").unwrap_or_default(),
        level: text("level").unwrap_or_default(),
        rule: text("rule").unwrap_or_default(),
        source: text("source").unwrap_or_default(),
        observed: text("observed").unwrap_or_default(),
        verdict: Verdict::from_name(&text("verdict")?)?,
    })
}

/// The page.
fn page(runs: &[Run]) -> String {
    let mut keys: Vec<&Cell> = Vec::new();
    for cell in runs.iter().flat_map(|r| &r.cells) {
        if !keys.iter().any(|k| k.key == cell.key) {
            keys.push(cell);
        }
    }
    let style: String = COLOURS.iter().map(|(v, c)| format!("td.{v}{{background:{c}}}")).collect();
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>probe compare</title>\n<style>body{{font-family:sans-serif;margin:1em}}table{{border-collapse:collapse}}th,td{{border:1px solid #999;padding:4px 6px;vertical-align:top;text-align:left}}small{{color:#333}}tbody th{{font-weight:normal;min-width:16em;max-width:26em}}td{{min-width:8em}}{style}</style>\n</head>\n<body>\n<h1>probe compare: {} runs, {} cases</h1>\n<table>\n<thead>\n<tr><th>case</th>",
        runs.len(),
        keys.len()
    );
    for run in runs {
        out.push_str(&format!("<th>{}<br><small>{}</small></th>", escape(&run.name), counts(run)));
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for key in keys {
        out.push_str(&row(key, runs));
    }
    out.push_str("</tbody>\n</table>\n</body>\n</html>\n");
    out
}

/// One case across the runs.
fn row(first: &Cell, runs: &[Run]) -> String {
    let source = match sources::link(&first.source) {
        Some(url) => format!("<a href=\"{}\">{}</a>", escape(&url), escape(&first.source)),
        None => escape(&first.source),
    };
    let mut out = format!(
        "<tr id=\"{}\"><th><b>{}</b> <small>{} · {}</small><br><small>{} ({source})</small></th>",
        escape(&first.key),
        escape(&first.case),
        escape(&first.group),
        escape(&first.level),
        escape(&first.rule)
    );
    for run in runs {
        match run.cells.iter().find(|c| c.key == first.key) {
            Some(cell) => out.push_str(&format!(
                "<td class=\"{0}\" title=\"{1}\">{0}<br><small>{1}</small></td>",
                cell.verdict.name(),
                escape(&cell.observed)
            )),
            None => out.push_str("<td class=\"missing\">not in this run</td>"),
        }
    }
    out.push_str("</tr>\n");
    out
}

/// A run's verdicts counted: `57 hold, 0 deviate, …`.
fn counts(run: &Run) -> String {
    let count = |v: Verdict| run.cells.iter().filter(|c| c.verdict == v).count();
    format!(
        "{} hold, {} deviate, {} differ, {} not applicable, {} unreachable",
        count(Verdict::Holds),
        count(Verdict::Deviates),
        count(Verdict::Differs),
        count(Verdict::NotApplicable),
        count(Verdict::Unreachable)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, verdict: &str, observed: &str) -> String {
        format!(
            r#"{{"case":"case {id}","group":"g","id":"{id}","level":"MUST","observed":"{observed}","rule":"r","source":"RFC 9110 §15.5.6","verdict":"{verdict}"}}"#
        )
    }

    #[test]
    fn runs_are_set_side_by_side_matched_by_id() {
        let one =
            Run { name: "a<b".into(), cells: vec![cell(&line("x", "holds", "200")).unwrap()] };
        let two = Run {
            name: "two".into(),
            cells: vec![
                cell(&line("y", "differs", "<script>")).unwrap(),
                cell(&line("x", "deviates", "400")).unwrap(),
            ],
        };
        let page = page(&[one, two]);
        let body = page.split("<tbody>\n").nth(1).unwrap();
        assert_eq!(
            body,
            "<tr id=\"x\"><th><b>case x</b> <small>g · MUST</small><br><small>r (<a href=\"https://www.rfc-editor.org/rfc/rfc9110#section-15.5.6\">RFC 9110 §15.5.6</a>)</small></th><td class=\"holds\" title=\"200\">holds<br><small>200</small></td><td class=\"deviates\" title=\"400\">deviates<br><small>400</small></td></tr>\n<tr id=\"y\"><th><b>case y</b> <small>g · MUST</small><br><small>r (<a href=\"https://www.rfc-editor.org/rfc/rfc9110#section-15.5.6\">RFC 9110 §15.5.6</a>)</small></th><td class=\"missing\">not in this run</td><td class=\"differs\" title=\"&lt;script&gt;\">differs<br><small>&lt;script&gt;</small></td></tr>\n</tbody>\n</table>\n</body>\n</html>\n"
        );
        assert!(page.contains("<th>a&lt;b<br><small>1 hold, 0 deviate"));
        assert!(!page.contains("<script") && !page.contains("src=") && !page.contains("<link"));
    }

    #[test]
    fn a_line_that_is_not_a_row_is_refused() {
        for line in ["{}", "[1]", r#"{"case":"c","verdict":"maybe"}"#, "not json"] {
            assert!(cell(line).is_none(), "{line}");
        }
    }
}
