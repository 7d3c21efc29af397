//! The probe's rows as the grid shows them: one row per case, as text (four lines each,
//! grouped) or as JSON objects, with a line per group for progress and a summary line.
//!
//! Not here: the reports made from rows (`report`, `compare`), or how a row is judged.

use std::time::Duration;

use loopback_mcp_http::json::{Object, Value};

use super::judge::Verdict;
use super::secrets::Secrets;
use crate::cli::catalogue::{Across, Boundary, Group, Rule};

/// One row of the grid.
#[derive(Clone, Debug)]
pub struct Row {
    pub id: &'static str,
    pub case: &'static str,
    pub group: Group,
    pub sent: &'static str,
    pub rule: Rule,
    pub observed: String,
    pub verdict: Verdict,
}

impl Row {
    pub fn judged(boundary: &Boundary, verdict: Verdict, observed: String) -> Row {
        Row {
            id: boundary.id,
            case: boundary.case,
            group: boundary.group,
            sent: boundary.sent,
            rule: boundary.rule,
            observed,
            verdict,
        }
    }

    pub fn across(across: &Across, verdict: Verdict, observed: String) -> Row {
        Row {
            id: across.id,
            case: across.case,
            group: across.group,
            sent: across.sent,
            rule: across.rule,
            observed,
            verdict,
        }
    }

    /// The row with every secret replaced in what it observed (the rest is the catalogue's).
    pub fn redacted(self, secrets: &Secrets) -> Row {
        Row { observed: secrets.redact(&self.observed), ..self }
    }

    /// The row as one JSON object: `--json`'s fields, which other tools read.
    pub fn json(&self) -> Value {
        let mut row = Object::new();
        for (key, value) in [
            ("id", self.id.to_owned()),
            ("case", self.case.to_owned()),
            ("group", self.group.title().to_owned()),
            ("sent", self.sent.to_owned()),
            ("rule", self.rule.says.to_owned()),
            ("source", self.rule.source.to_owned()),
            ("level", self.rule.level.name().to_owned()),
            ("observed", self.observed.clone()),
            ("verdict", self.verdict.name().to_owned()),
        ] {
            row.insert(key.into(), value.into());
        }
        Value::Object(row)
    }
}

/// The grid as text: each group's title, then four lines per row.
pub fn text(rows: &[Row]) -> String {
    let mut out = String::new();
    let mut group = None;
    for row in rows {
        if group != Some(row.group) {
            out.push_str(&format!("== {}\n", row.group.title()));
            group = Some(row.group);
        }
        out.push_str(&format!(
            "{:<15} {:<8} {}\n",
            row.verdict.name(),
            row.rule.level.name(),
            row.case
        ));
        out.push_str(&format!("{:<15} sent     {}\n", "", row.sent));
        out.push_str(&format!("{:<15} rule     {} ({})\n", "", row.rule.says, row.rule.source));
        out.push_str(&format!("{:<15} answer   {}\n", "", row.observed));
    }
    out
}

/// How many rows got each verdict, in a fixed order.
fn counts(rows: &[Row]) -> String {
    let parts: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| {
            let name = match v {
                Verdict::Holds => "hold",
                Verdict::Deviates => "deviate",
                Verdict::Differs => "differ",
                Verdict::NotApplicable => "not applicable",
                Verdict::Unreachable => "unreachable",
            };
            format!("{} {name}", rows.iter().filter(|r| r.verdict == *v).count())
        })
        .collect();
    parts.join(", ")
}

/// The progress line of one group.
pub fn group_line(group: Group, rows: &[Row]) -> String {
    format!("{}: {} rows: {}", group.title(), rows.len(), counts(rows))
}

/// The summary line.
pub fn summary(rows: &[Row], requests: usize, took: Duration) -> String {
    let seconds = took.as_millis() as f64 / 1000.0;
    format!("{} rows: {}; {requests} requests in {seconds:.1} s", rows.len(), counts(rows))
}
