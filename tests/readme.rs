//! The documentation against the code: every budget figure, every link.
//!
//! The documents are README.md, the READMEs under `tests/` and `fuzz/`, and the module docs
//! (`//!` lines) of every file under `src/`. In them:
//!
//! - a figure that restates a `Limits` value carries a marker right after it,
//!   `60 s<!-- limit: session_ttl -->` (invisible once rendered), and the figure must be that
//!   budget's default in the unit written;
//! - a duration or a byte size equal to some budget's default must carry such a marker, or
//!   `<!-- not a limit -->` when the number only happens to be equal, so no figure is restated
//!   unchecked;
//! - every relative link leads to a file that exists, and every `#anchor` of README to one of
//!   its headings.
//!
//! README itself is a course of at most [`README_LINES_MAX`] lines, with a section "Glossary" that
//! defines each of its terms before any other part of the page uses it.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loopback_mcp_http::limits::{Amount, BUDGETS, Limits};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of a Rust file's `//!` lines, without the comment marker and its one space.
fn module_docs(source: &str) -> String {
    source
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `.rs` file below `dir`, relative to the root.
fn rust_files(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(root().join(dir)).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let relative = dir.join(entry.file_name());
        if entry.path().is_dir() {
            rust_files(&relative, out);
        } else if relative.extension().is_some_and(|e| e == "rs") {
            out.push(relative.to_string_lossy().into_owned());
        }
    }
}

/// (where, text) of every document.
fn documents() -> Vec<(String, String)> {
    let mut docs: Vec<(String, String)> =
        ["README.md", "tests/bench/README.md", "tests/interop/README.md", "fuzz/README.md"]
            .iter()
            .map(|p| (p.to_string(), read(p)))
            .collect();
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    for file in files {
        docs.push((file.clone(), module_docs(&read(&file))));
    }
    docs
}

/// Every budget a document may restate, by its field name: the budget table's, and the head
/// buffer that follows from them.
fn budget(name: &str) -> Option<Amount> {
    if name == "request_head_bytes_max" {
        return Some(Amount::Bytes(Limits::DEFAULT.request_head_bytes_max()));
    }
    BUDGETS.iter().find(|b| b.name == name).map(|b| (b.get)(&Limits::DEFAULT))
}

/// The figure written right before a marker (a number, spaces as thousands separators, and
/// maybe a unit), or `None`.
fn figure_before(text: &str) -> Option<Amount> {
    let text = text.trim_end_matches(['`', '*', ')']);
    let (number, unit) = match text.rsplit_once(|c: char| !(c.is_ascii_alphabetic())) {
        Some((before, unit)) if ["ms", "s", "KiB", "MiB", "bytes", "min", "h"].contains(&unit) => {
            (before.trim_end(), unit)
        }
        _ => (text, ""),
    };
    let digits: String = number
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || *c == ' ' || *c == '\u{a0}')
        .collect::<String>()
        .chars()
        .rev()
        .filter(char::is_ascii_digit)
        .collect();
    let n: usize = digits.parse().ok()?;
    Some(match unit {
        "ms" => Amount::Time(Duration::from_millis(n as u64)),
        "s" => Amount::Time(Duration::from_secs(n as u64)),
        "min" => Amount::Time(Duration::from_secs(60 * n as u64)),
        "h" => Amount::Time(Duration::from_secs(3600 * n as u64)),
        "KiB" => Amount::Bytes(n * 1024),
        "MiB" => Amount::Bytes(n * 1024 * 1024),
        "bytes" => Amount::Bytes(n),
        _ => Amount::Count(n),
    })
}

/// Whether a figure `a` restates budget `b`: a count may stand for a byte budget too ("16 384").
fn same(a: Amount, b: Amount) -> bool {
    match (a, b) {
        (Amount::Count(n), Amount::Bytes(m)) => n == m,
        _ => a == b,
    }
}

const MARKER: &str = "<!-- limit: ";
const NOT_A_LIMIT: &str = "<!-- not a limit -->";

#[test]
fn every_marked_figure_is_its_budgets_default() {
    let mut marked = 0;
    let mut wrong = Vec::new();
    for (place, text) in documents() {
        for (at, _) in text.match_indices(MARKER) {
            let name = text[at + MARKER.len()..].split(' ').next().unwrap_or_default();
            let Some(expected) = budget(name) else {
                wrong.push(format!("{place}: no budget named {name:?}"));
                continue;
            };
            marked += 1;
            match figure_before(&text[..at]) {
                Some(written) if same(written, expected) => {}
                written => wrong.push(format!(
                    "{place}: {name} is {expected:?}, written {written:?}: ...{}",
                    &text[at.saturating_sub(40)..at]
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(marked >= 40, "only {marked} marked figures: were the markers lost?");
}

/// Every duration and byte size written in a document: (where, the text around, its amount, the
/// text right after).
fn sized_figures(text: &str) -> Vec<(usize, Amount)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // A number's first digit: not inside a word, and not the fraction of a decimal.
        let starts = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len()
            && (bytes[j].is_ascii_digit()
                || (bytes[j] == b' '
                    && j + 1 < bytes.len()
                    && bytes[j + 1].is_ascii_digit()
                    && j + 4 <= bytes.len()
                    && bytes[j + 1..j + 4].iter().all(u8::is_ascii_digit)))
        {
            j += 1;
        }
        let rest = &text[j..];
        if rest.starts_with('.') && rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
            i = j + 1; // a decimal (1.5 s) restates no budget: they are whole numbers
            continue;
        }
        let unit = ["ms", "s", "KiB", "MiB", "bytes"].into_iter().find(|u| {
            let after = rest.strip_prefix(' ').and_then(|r| r.strip_prefix(u));
            after.is_some_and(|a| !a.starts_with(|c: char| c.is_ascii_alphanumeric()))
        });
        if let Some(unit) = unit {
            let end = j + 1 + unit.len();
            if let Some(amount) = figure_before(&text[i..end]) {
                found.push((end, amount));
            }
            i = end;
        } else {
            i = j;
        }
    }
    found
}

#[test]
fn no_duration_or_size_equal_to_a_budget_goes_unmarked() {
    // Durations and byte sizes: a count alone is too common a number to demand a marker.
    let budgets: Vec<Amount> = BUDGETS
        .iter()
        .map(|b| (b.get)(&Limits::DEFAULT))
        .filter(|amount| !matches!(amount, Amount::Count(_)))
        .collect();
    let mut unmarked = Vec::new();
    for (place, text) in documents() {
        for (end, amount) in sized_figures(&text) {
            if !budgets.contains(&amount) {
                continue;
            }
            let after = &text[end..];
            if !(after.starts_with(MARKER) || after.starts_with(NOT_A_LIMIT)) {
                let line_start = text[..end].rfind('\n').map_or(0, |i| i + 1);
                let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
                unmarked.push(format!("{place}: {}", &text[line_start..line_end]));
            }
        }
    }
    assert!(unmarked.is_empty(), "figures without a marker:\n{}", unmarked.join("\n"));
}

#[test]
fn the_figure_reader_reads_what_the_documents_write() {
    use Amount::*;
    let cases: [(&str, Option<Amount>); 7] = [
        ("lives 60 s", Some(Time(Duration::from_secs(60)))),
        ("at most 64 KiB", Some(Bytes(65536))),
        ("and 250 ms", Some(Time(Duration::from_millis(250)))),
        ("(`14 384`", Some(Count(14384))),
        ("256 bytes", Some(Bytes(256))),
        ("**8**", Some(Count(8))),
        ("no figure", None),
    ];
    for (text, expected) in cases {
        assert_eq!(figure_before(text), expected, "{text:?}");
    }
    assert_eq!(
        sized_figures("a 5 s wait, 16 KiB, 12 bytes and 2s"),
        [(5, Time(Duration::from_secs(5))), (18, Bytes(16384)), (28, Bytes(12))]
    );
}

/// The relative links of a markdown text: `](target)`, without `http:`/`https:` ones.
fn relative_links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')')?];
            (!target.starts_with("http://") && !target.starts_with("https://"))
                .then(|| target.to_owned())
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case, spaces to dashes, punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn every_link_leads_somewhere() {
    let mut broken = Vec::new();
    for place in ["README.md", "tests/bench/README.md", "tests/interop/README.md", "fuzz/README.md"]
    {
        let text = read(place);
        let dir = Path::new(place).parent().unwrap_or(Path::new(""));
        let anchors: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("## ").or_else(|| l.strip_prefix("### ")))
            .map(anchor)
            .collect();
        for link in relative_links(&text) {
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            if file.is_empty() {
                if !anchors.iter().any(|a| a == fragment) {
                    broken.push(format!("{place}: #{fragment} names no heading"));
                }
            } else if !root().join(dir).join(file).exists() {
                broken.push(format!("{place}: {file} does not exist"));
            }
        }
        // Reference-style links need their definition.
        for (at, _) in text.match_indices("][") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(']') else { continue };
            let name = &rest[..end];
            if !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
            {
                continue; // an index in code, such as `d["tokens"]["full"]`
            }
            if !text.contains(&format!("\n[{name}]: ")) {
                broken.push(format!("{place}: [{name}] is never defined"));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The longest README may be: a course, not a reference.
const README_LINES_MAX: usize = 850;

/// The terms README's glossary must define.
const GLOSSARY_TERMS: [&str; 13] = [
    "era",
    "revision",
    "profile",
    "principal",
    "listen",
    "fixture role",
    "authorization revision",
    "priming event",
    "smuggling",
    "SEP",
    "sentinel",
    "public code",
    "receive order",
];

/// `text` in lower case with every run of whitespace one space, so that a term matches whatever
/// its case and wherever a line breaks it.
fn folded(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Where `term` (folded) first occurs in `text` (folded) as a whole word, alone or plural:
/// letters and digits on neither side, an `s` allowed after it.
fn first_word(text: &str, term: &str) -> Option<usize> {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    text.match_indices(term).map(|(at, _)| at).find(|&at| {
        let after = &text[at + term.len()..];
        let after = after.strip_prefix('s').unwrap_or(after);
        !word(text[..at].chars().next_back()) && !word(after.chars().next())
    })
}

#[test]
fn readme_is_a_short_course_whose_terms_are_defined_before_use() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines <= README_LINES_MAX, "README has {lines} lines, over {README_LINES_MAX}");
    let start = readme.find("\n## Glossary\n").expect("a section headed Glossary");
    let end = start + 1 + readme[start + 1..].find("\n## ").expect("a section after the glossary");
    let glossary = &readme[start..end];
    let (text, before) = (folded(&readme), folded(&readme[..start]).len());
    for term in GLOSSARY_TERMS {
        let defined = glossary.find(&format!("**{term}**"));
        assert!(defined.is_some(), "the glossary does not define {term}");
        let used = first_word(&text, &folded(term));
        assert!(used >= Some(before), "README uses {term} before its glossary");
    }
}

/// The words of README's exercises from each question (`**N. …?**`, or the "More to try") to its
/// first block or folded answer: what a learner reads before predicting.
fn before_each_exercise_block(readme: &str) -> Vec<(String, String)> {
    let start = readme.find("\n## Exercises\n").expect("an Exercises section");
    let end = readme[start + 1..].find("\n## ").map_or(readme.len(), |e| start + 1 + e);
    let section = &readme[start..end];
    let mut found = Vec::new();
    for (at, _) in section.match_indices("\n**") {
        let rest = &section[at + 3..];
        let question = rest.split("**").next().unwrap_or_default().to_owned();
        // Up to its block, or its folded answer when it has no block of its own.
        let ends = ["```sh", "<details>", "\n**"].map(|mark| rest.find(mark).unwrap_or(rest.len()));
        let asked = &rest[..ends.into_iter().min().unwrap_or(rest.len())];
        // Without the budget markers, which no reader sees.
        let mut seen = String::new();
        let mut left = asked;
        while let Some(open) = left.find("<!--") {
            seen.push_str(&left[..open]);
            left = left[open..].find("-->").map_or("", |close| &left[open + close + 3..]);
        }
        seen.push_str(left);
        found.push((question, seen));
    }
    found
}

#[test]
fn no_exercise_gives_its_answer_before_its_block() {
    let readme = read("README.md");
    let exercises = before_each_exercise_block(&readme);
    assert!(exercises.len() >= 7, "{:?}", exercises.iter().map(|e| &e.0).collect::<Vec<_>>());
    // A status (a number from 100 to 599 on its own) or a public code (snake_case) is an answer.
    for (question, asked) in exercises {
        let words = asked.split(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '.');
        let answers: Vec<&str> = words
            .filter(|w| {
                let status = w.parse::<u16>().is_ok_and(|n| (100..600).contains(&n));
                let code = w.contains('_') && w.chars().all(|c| c.is_ascii_lowercase() || c == '_');
                status || code
            })
            .filter(|w| *w != "connect_only")
            .collect();
        assert!(answers.is_empty(), "{question}: {answers:?} before its block");
    }
}

/// Each (sh block, the output shown after it) of README's exercises.
fn exercise_blocks(readme: &str) -> Vec<(String, String)> {
    let start = readme.find("\n## Exercises\n").expect("an Exercises section");
    let end = readme[start + 1..].find("\n## ").map_or(readme.len(), |e| start + 1 + e);
    let mut rest = &readme[start..end];
    let mut found = Vec::new();
    while let Some(open) = rest.find("```sh\n") {
        let block_start = open + "```sh\n".len();
        let block_len = rest[block_start..].find("```").unwrap_or(0);
        let block = rest[block_start..block_start + block_len].to_owned();
        rest = &rest[block_start + block_len..];
        let next_block = rest.find("```sh\n").unwrap_or(rest.len());
        let shown = match rest[..next_block].find("```text\n") {
            Some(text) => {
                let body = &rest[text + "```text\n".len()..];
                body[..body.find("```").unwrap_or(body.len())].to_owned()
            }
            None => String::new(),
        };
        found.push((block, shown));
    }
    found
}

#[test]
fn no_exercise_block_names_a_code_its_answer_shows() {
    let blocks = exercise_blocks(&read("README.md"));
    assert!(blocks.len() >= 7, "{} blocks", blocks.len());
    for (block, shown) in blocks {
        let words = |text: &str| -> Vec<String> {
            text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .filter(|w| {
                    w.contains('_') && w.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                })
                .map(str::to_owned)
                .collect()
        };
        let in_block = words(&block);
        let given: Vec<String> =
            words(&shown).into_iter().filter(|w| in_block.contains(w)).collect();
        assert!(given.is_empty(), "the block names {given:?}, which its answer shows:\n{block}");
    }
}
