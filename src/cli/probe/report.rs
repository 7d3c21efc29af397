//! The reports a CI reads: which verdicts fail a run (`--fail-on`), and the rows as a JUnit XML
//! report (`--junit`), one test case per row in a test suite per group: a failing verdict is a
//! `<failure>`, `not_applicable` and `unreachable` are `<skipped>`, and every case says what was
//! seen. Text is escaped for XML, and control characters other than tab and line ends dropped:
//! XML 1.0 cannot carry them.
//!
//! Not here: the grid itself (`grid`), or the HTML comparison (`compare`).

use super::grid::Row;
use super::judge::Verdict;
use crate::cli::catalogue::Group;

/// Which verdicts make the exit 1 (and a JUnit failure).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// A MUST broken.
    Deviates,
    /// That, or a SHOULD or the profile broken.
    Differs,
}

impl FailOn {
    pub fn parse(name: &str) -> Result<FailOn, String> {
        match name {
            "deviates" => Ok(FailOn::Deviates),
            "differs" => Ok(FailOn::Differs),
            _ => Err("--fail-on takes deviates or differs".into()),
        }
    }

    /// Whether `verdict` fails the run.
    pub fn fails(self, verdict: Verdict) -> bool {
        match verdict {
            Verdict::Deviates => true,
            Verdict::Differs => self == FailOn::Differs,
            Verdict::Holds | Verdict::NotApplicable | Verdict::Unreachable => false,
        }
    }
}

/// How a row reads as a JUnit test case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Passed,
    Failed,
    Skipped,
}

fn case(verdict: Verdict, fail_on: FailOn) -> Case {
    match verdict {
        Verdict::NotApplicable | Verdict::Unreachable => Case::Skipped,
        verdict if fail_on.fails(verdict) => Case::Failed,
        Verdict::Holds | Verdict::Deviates | Verdict::Differs => Case::Passed,
    }
}

/// The rows as a JUnit XML report.
pub fn junit(rows: &[Row], fail_on: FailOn) -> String {
    let count = |rows: &[&Row], kind: Case| {
        rows.iter().filter(|r| case(r.verdict, fail_on) == kind).count()
    };
    let all: Vec<&Row> = rows.iter().collect();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"probe\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
        all.len(),
        count(&all, Case::Failed),
        count(&all, Case::Skipped)
    );
    for group in Group::ALL {
        let rows: Vec<&Row> = rows.iter().filter(|r| r.group == group).collect();
        if rows.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
            xml(group.title()),
            rows.len(),
            count(&rows, Case::Failed),
            count(&rows, Case::Skipped)
        ));
        for row in rows {
            out.push_str(&test_case(row, fail_on));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// One row as a `<testcase>`.
fn test_case(row: &Row, fail_on: FailOn) -> String {
    let name = format!("{} ({}): {}", row.id, row.rule.level.name(), row.case);
    let rule = format!("{} ({})", row.rule.says, row.rule.source);
    let inner = match case(row.verdict, fail_on) {
        Case::Failed => format!(
            "      <failure message=\"{}: {}\" type=\"{}\">{}</failure>\n",
            row.verdict.name(),
            xml(&row.observed),
            row.rule.level.name(),
            xml(&rule)
        ),
        Case::Skipped => {
            format!("      <skipped message=\"{}: {}\"/>\n", row.verdict.name(), xml(&row.observed))
        }
        Case::Passed => String::new(),
    };
    format!(
        "    <testcase classname=\"probe.{}\" name=\"{}\">\n{inner}      <system-out>{}: {}</system-out>\n    </testcase>\n",
        row.group.slug(),
        xml(&name),
        row.verdict.name(),
        xml(&row.observed)
    )
}

/// Text as XML character data or an attribute value.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::catalogue::{self, Across};

    fn row(across: &Across, verdict: Verdict, observed: &str) -> Row {
        Row::across(across, verdict, observed.into())
    }

    #[test]
    fn a_junit_report_fails_what_fail_on_names_and_skips_what_did_not_apply() {
        let find = |id| catalogue::ACROSS.iter().find(|a| a.id == id).unwrap();
        let [echo, token, trace] = ["no-echo", "no-token-echo", "no-trace"].map(find);
        let rows = [
            row(echo, Verdict::Differs, "a <b> & \"c\""),
            row(token, Verdict::NotApplicable, "no --token given"),
            row(trace, Verdict::Holds, "none\u{1}"),
        ];
        let expected = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="probe" tests="3" failures="FAILED" skipped="1">
  <testsuite name="hygiene" tests="3" failures="FAILED" skipped="1">
    <testcase classname="probe.hygiene" name="no-echo (profile): no refusal repeats what was sent">
DIFFERS      <system-out>differs: a &lt;b&gt; &amp; &quot;c&quot;</system-out>
    </testcase>
    <testcase classname="probe.hygiene" name="no-token-echo (profile): no answer carries the token">
      <skipped message="not_applicable: no --token given"/>
      <system-out>not_applicable: no --token given</system-out>
    </testcase>
    <testcase classname="probe.hygiene" name="no-trace (profile): no stack trace or file path in an answer">
      <system-out>holds: none</system-out>
    </testcase>
  </testsuite>
</testsuites>
"#;
        let failure = "      <failure message=\"differs: a &lt;b&gt; &amp; &quot;c&quot;\" type=\"profile\">an error names what was wrong, never the value: it may be a secret, or markup (this project&#39;s profile)</failure>\n";
        let cases = [(FailOn::Deviates, "0", ""), (FailOn::Differs, "1", failure)];
        for (fail_on, failed, inner) in cases {
            let want = expected.replace("FAILED", failed).replace("DIFFERS", inner);
            assert_eq!(junit(&rows, fail_on), want, "{fail_on:?}");
        }
    }

    #[test]
    fn fail_on_names_the_verdicts_that_fail() {
        let fails = |f: FailOn| Verdict::ALL.map(|v| f.fails(v));
        assert_eq!(fails(FailOn::Deviates), [false, true, false, false, false]);
        assert_eq!(fails(FailOn::Differs), [false, true, true, false, false]);
        assert!(FailOn::parse("holds").is_err());
    }
}
