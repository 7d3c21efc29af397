//! README's copies of what lives in the code: the receive order (module docs of
//! `src/endpoint/mod.rs`) and the token policy's decision table (module docs of
//! `src/auth/policy.rs`). Each is marked in both places by `<!-- name: start -->` and
//! `<!-- name: end -->`; README's copy must be byte for byte the code's, so the two cannot drift.

use std::fs;
use std::path::PathBuf;

fn read(relative: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative);
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

/// The marked block `name`, markers included; `None` unless it appears exactly once.
fn marked(text: &str, name: &str) -> Option<String> {
    let (start, end) = (format!("<!-- {name}: start -->"), format!("<!-- {name}: end -->"));
    if text.matches(&start).count() != 1 || text.matches(&end).count() != 1 {
        return None;
    }
    let from = text.find(&start)?;
    let to = text[from..].find(&end)? + from + end.len();
    Some(text[from..to].to_owned())
}

#[test]
fn readme_copies_the_receive_order_and_the_policy_table_exactly() {
    let readme = read("README.md");
    let cases = [("receive-order", "src/endpoint/mod.rs"), ("policy-table", "src/auth/policy.rs")];
    for (name, home) in cases {
        let original = marked(&module_docs(&read(home)), name)
            .unwrap_or_else(|| panic!("{home} does not mark {name} exactly once"));
        let copy = marked(&readme, name)
            .unwrap_or_else(|| panic!("README.md does not mark {name} exactly once"));
        assert!(original.lines().count() > 5, "{name} in {home} is suspiciously short");
        assert_eq!(copy, original, "README's {name} differs from {home}");
    }
}

#[test]
fn the_block_reader_finds_one_block_or_none() {
    let cases: [(&str, Option<&str>); 4] = [
        (
            "a <!-- x: start -->\nb\n<!-- x: end --> c",
            Some("<!-- x: start -->\nb\n<!-- x: end -->"),
        ),
        ("<!-- x: start -->", None),
        ("<!-- x: start --><!-- x: end --><!-- x: start --><!-- x: end -->", None),
        ("<!-- y: start -->b<!-- y: end -->", None),
    ];
    for (text, expected) in cases {
        assert_eq!(marked(text, "x").as_deref(), expected, "{text:?}");
    }
    assert_eq!(module_docs("//! a\n//!\n//!  b\nfn f() {}\n/// c"), "a\n\n b");
}
