//! Tidy: invariants of the source tree that a reader would otherwise have to take on trust,
//! checked by reading the source (as rust-analyzer's tidy tests do).
//!
//! - The core (every module but the shell: `server`, `client`, `cli`, `main`) never names a
//!   socket type, a thread, the file system, processes, the environment, standard input or
//!   output, a clock read or the operating system's random generator, in non-test code,
//!   `use std::{…}` groups included. Pure value types (`Instant`, `Ipv6Addr`) stay allowed.
//! - The files of `src/http` import each other without a cycle of any length.
//!
//! The checkers work on a token-level view of the source: comments, string and character
//! literals are blanked first, and `#[cfg(test)]` items are cut out, so prose and test code never
//! count. Each checker has its own table of snippets it must flag and snippets it must pass.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The shell: the only modules that may touch sockets, threads, clocks and the OS.
const SHELL: [&str; 4] = ["src/server", "src/client", "src/cli", "src/main.rs"];

/// Paths a core module must not name, matched as whole path prefixes in `use` trees and in code.
const FORBIDDEN_PATHS: [&str; 14] = [
    "std::net::TcpStream",
    "std::net::TcpListener",
    "std::net::UdpSocket",
    "std::net::ToSocketAddrs",
    "std::thread",
    "std::fs",
    "std::process",
    "std::env",
    "std::io::stdin",
    "std::io::stdout",
    "std::io::stderr",
    "Instant::now",
    "SystemTime::now",
    "getrandom",
];

/// Identifiers a core module must not name anywhere in its code, however they were imported.
const FORBIDDEN_WORDS: [&str; 7] =
    ["TcpStream", "TcpListener", "UdpSocket", "ToSocketAddrs", "stdin", "stdout", "stderr"];

/// Macros that write to standard output or error.
const FORBIDDEN_MACROS: [&str; 5] = ["println!", "print!", "eprintln!", "eprint!", "dbg!"];

// ---------------------------------------------------------------------------------------------
// A token-level view of Rust source.

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `source` with comments and string, byte-string, raw-string and character literals replaced
/// by spaces (line breaks kept), so that only code remains. Lifetimes are kept.
fn blank_comments_and_literals(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let blank = |out: &mut String, text: &[char]| {
        out.extend(text.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prev_ident = i > 0 && is_ident(chars[i - 1]);
        let end = if c == '/' && next == Some('/') {
            chars[i..].iter().position(|&c| c == '\n').map_or(chars.len(), |n| i + n)
        } else if c == '/' && next == Some('*') {
            block_comment_end(&chars, i)
        } else if c == '"' {
            string_end(&chars, i)
        } else if c == 'r'
            && (!prev_ident || (i >= 1 && chars[i - 1] == 'b' && !starts_ident(&chars, i - 1)))
        {
            match raw_string_end(&chars, i) {
                Some(end) => end,
                None => {
                    out.push(c);
                    i += 1;
                    continue;
                }
            }
        } else if c == '\'' {
            match char_literal_end(&chars, i) {
                Some(end) => end,
                None => {
                    out.push(c);
                    i += 1;
                    continue;
                }
            }
        } else {
            out.push(c);
            i += 1;
            continue;
        };
        blank(&mut out, &chars[i..end]);
        i = end;
    }
    out
}

/// True when `chars[at]` continues an identifier that started before it.
fn starts_ident(chars: &[char], at: usize) -> bool {
    at > 0 && is_ident(chars[at - 1])
}

fn block_comment_end(chars: &[char], start: usize) -> usize {
    let (mut depth, mut i) = (0usize, start);
    while i + 1 < chars.len() {
        match (chars[i], chars[i + 1]) {
            ('/', '*') => {
                depth += 1;
                i += 2;
            }
            ('*', '/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    chars.len()
}

fn string_end(chars: &[char], start: usize) -> usize {
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// The end of `r#…#"…"#…#` starting at the `r`, or `None` when this `r` starts no raw string.
fn raw_string_end(chars: &[char], start: usize) -> Option<usize> {
    let hashes = chars[start + 1..].iter().take_while(|&&c| c == '#').count();
    if chars.get(start + 1 + hashes) != Some(&'"') {
        return None;
    }
    let mut i = start + 2 + hashes;
    while i < chars.len() {
        if chars[i] == '"'
            && chars[i + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(chars.len())
}

/// The end of a character literal starting at `'`, or `None` for a lifetime.
fn char_literal_end(chars: &[char], start: usize) -> Option<usize> {
    match (chars.get(start + 1), chars.get(start + 2)) {
        (Some('\\'), _) => {
            let close = chars[start + 2..].iter().position(|&c| c == '\'')?;
            Some(start + 2 + close + 1)
        }
        (Some(_), Some('\'')) => Some(start + 3),
        _ => None,
    }
}

/// `code` (already blanked) without its `#[cfg(test)]` items: the attribute and the item after
/// it, up to its closing brace or semicolon.
fn without_test_items(code: &str) -> String {
    let compact: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    while i < compact.len() {
        if compact[i..].starts_with(&marker) {
            let end = item_end(&compact, i + marker.len());
            out.extend(compact[i..end].iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
            i = end;
        } else {
            out.push(compact[i]);
            i += 1;
        }
    }
    out
}

/// The end of the item starting at `start`: after its first top-level `;`, or after the brace
/// block that its first `{` opens.
fn item_end(chars: &[char], start: usize) -> usize {
    let mut depth = 0usize;
    for (offset, &c) in chars[start..].iter().enumerate() {
        match c {
            ';' if depth == 0 => return start + offset + 1,
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return start + offset + 1;
                }
            }
            _ => {}
        }
    }
    chars.len()
}

/// The code of a source file as the checkers see it: no comments, no literals, no test items,
/// and no whitespace around `::`.
fn code_view(source: &str) -> String {
    let code = without_test_items(&blank_comments_and_literals(source));
    let mut joined = String::with_capacity(code.len());
    let mut rest = code.as_str();
    while let Some(at) = rest.find("::") {
        joined.push_str(rest[..at].trim_end_matches([' ', '\t', '\n']));
        joined.push_str("::");
        rest = rest[at + 2..].trim_start_matches([' ', '\t', '\n']);
    }
    joined.push_str(rest);
    joined
}

/// Every path a `use` declaration names, with its groups expanded (`use std::{io::{self, Read},
/// thread};` names `std::io`, `std::io::Read` and `std::thread`).
fn use_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let after = &rest[at + 3..];
        let end = after.find(';').unwrap_or(after.len());
        expand_use_tree("", &after[..end], &mut paths);
        rest = &after[end..];
    }
    paths
}

fn expand_use_tree(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let tree = tree.split(" as ").next().unwrap_or(tree).trim();
    let Some(open) = tree.find('{') else {
        let path = tree.trim_start_matches("::");
        let path = path.strip_suffix("::self").unwrap_or(path);
        out.push(join(prefix, if path == "self" { "" } else { path }));
        return;
    };
    let head = tree[..open].trim().trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let base = join(prefix, head);
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand_use_tree(&base, &inner[start..i], out);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner[start..].trim().is_empty() {
        expand_use_tree(&base, &inner[start..], out);
    }
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) => format!("{prefix}::{path}"),
    }
}

/// The byte offset of `word` in `text` as a whole word.
fn find_word(text: &str, word: &str) -> Option<usize> {
    find_all_words(text, word).next()
}

fn find_all_words<'t>(text: &'t str, word: &'t str) -> impl Iterator<Item = usize> + 't {
    let check_before = word.starts_with(is_ident);
    let check_after = word.ends_with(is_ident);
    text.match_indices(word).map(|(at, _)| at).filter(move |&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !(check_before && before.is_some_and(is_ident)
            || check_after && after.is_some_and(is_ident))
    })
}

/// What a core source file uses that only the shell may: one description per finding.
fn shell_only_uses(source: &str) -> Vec<String> {
    let code = code_view(source);
    let mut found = BTreeSet::new();
    for path in use_paths(&code) {
        for forbidden in FORBIDDEN_PATHS {
            if path == forbidden || path.starts_with(&format!("{forbidden}::")) {
                found.insert(format!("use {path}"));
            }
        }
    }
    for forbidden in FORBIDDEN_PATHS.iter().chain(&FORBIDDEN_WORDS) {
        if find_word(&code, forbidden).is_some() {
            found.insert((*forbidden).to_owned());
        }
    }
    for forbidden in FORBIDDEN_MACROS {
        if find_word(&code, forbidden).is_some() {
            found.insert(forbidden.to_owned());
        }
    }
    if code.contains(".elapsed(") {
        found.insert(".elapsed(".to_owned());
    }
    found.into_iter().collect()
}

// ---------------------------------------------------------------------------------------------
// Imports between the files of one directory.

/// The edges `file -> file it imports` among the modules of one directory, given each file's
/// module name (`mod` for the directory's `mod.rs`) and source.
fn import_edges(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<&str> =
        files.keys().map(String::as_str).filter(|&name| name != "mod").collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, source) in files {
        let code = code_view(source);
        let targets = edges.entry(name.clone()).or_default();
        if name == "mod" {
            for path in use_paths(&code) {
                let first = path.split("::").next().unwrap_or("");
                if modules.contains(first) {
                    targets.insert(first.to_owned());
                }
            }
            continue;
        }
        for path in use_paths(&code).into_iter().chain(inline_super_paths(&code)) {
            let Some(rest) = path.strip_prefix("super::") else {
                continue;
            };
            let first = rest.split("::").next().unwrap_or("");
            let target = if modules.contains(first) { first } else { "mod" };
            if target != name {
                targets.insert(target.to_owned());
            }
        }
    }
    edges
}

/// `super::a::b` paths written inline in code (outside `use` declarations).
fn inline_super_paths(code: &str) -> Vec<String> {
    find_all_words(code, "super::")
        .map(|at| {
            let path: String =
                code[at..].chars().take_while(|&c| is_ident(c) || c == ':').collect();
            path.trim_end_matches(':').to_owned()
        })
        .collect()
}

/// One cycle in `edges`, as the list of its nodes, if there is any.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut marks: BTreeMap<&str, Mark> = edges.keys().map(|k| (k.as_str(), Mark::New)).collect();
    for start in edges.keys() {
        if marks.get(start.as_str()) != Some(&Mark::New) {
            continue;
        }
        // An explicit stack of (node, its remaining successors), so depth costs no recursion.
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(start.as_str(), successors(edges, start))];
        marks.insert(start.as_str(), Mark::Open);
        while let Some((node, pending)) = stack.last_mut() {
            let node = *node;
            match pending.pop() {
                None => {
                    marks.insert(node, Mark::Done);
                    stack.pop();
                }
                Some(next) => match marks.get(next).copied().unwrap_or(Mark::Done) {
                    Mark::Open => {
                        let from = stack.iter().position(|(n, _)| *n == next).unwrap_or(0);
                        let mut cycle: Vec<String> =
                            stack[from..].iter().map(|(n, _)| (*n).to_owned()).collect();
                        cycle.push(next.to_owned());
                        return Some(cycle);
                    }
                    Mark::New => {
                        marks.insert(next, Mark::Open);
                        stack.push((next, successors(edges, next)));
                    }
                    Mark::Done => {}
                },
            }
        }
    }
    None
}

fn successors<'e>(edges: &'e BTreeMap<String, BTreeSet<String>>, node: &str) -> Vec<&'e str> {
    edges.get(node).map(|s| s.iter().map(String::as_str).collect()).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// The source tree.

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).to_string_lossy().replace('\\', "/")
}

// ---------------------------------------------------------------------------------------------
// The checks.

#[test]
fn core_modules_never_touch_sockets_threads_clocks_or_the_os() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for path in rust_files(&root().join("src")) {
        let name = relative(&path);
        if SHELL.iter().any(|shell| name == *shell || name.starts_with(&format!("{shell}/"))) {
            continue;
        }
        checked += 1;
        let source = fs::read_to_string(&path).expect("read a source file");
        for finding in shell_only_uses(&source) {
            problems.push(format!("{name}: {finding}"));
        }
    }
    assert!(checked >= 30, "only {checked} core files found: is the tree where it should be?");
    assert!(problems.is_empty(), "the core uses what only the shell may:\n{}", problems.join("\n"));
}

#[test]
fn the_files_of_src_http_import_each_other_without_a_cycle() {
    let files: BTreeMap<String, String> = rust_files(&root().join("src/http"))
        .into_iter()
        .map(|path| {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            (stem, fs::read_to_string(&path).expect("read a source file"))
        })
        .collect();
    assert!(files.len() >= 10, "src/http has only {} files", files.len());
    let edges = import_edges(&files);
    assert_eq!(find_cycle(&edges), None, "an import cycle among the files of src/http");
    // The shared vocabulary imports nothing from the rest of the directory.
    assert_eq!(edges.get("vocab"), Some(&BTreeSet::new()));
}

#[test]
fn the_shell_check_flags_what_it_must_and_passes_the_rest() {
    let flagged: [(&str, &str); 12] = [
        (
            "pub fn dial() { let _ = std::net::TcpStream::connect(\"127.0.0.1:1\"); }",
            "std::net::TcpStream",
        ),
        ("use std::net::{Ipv4Addr, TcpListener};", "use std::net::TcpListener"),
        ("use std::{thread, time::Duration};", "use std::thread"),
        ("use std::{\n    fs::File,\n    io,\n};", "use std::fs::File"),
        ("use std::io::{self, Read, stdin};", "use std::io::stdin"),
        ("pub fn t() { let _ = std::time::Instant::now(); }", "Instant::now"),
        ("use std::time::Instant;\nfn f() { let _ = Instant :: now(); }", "Instant::now"),
        ("fn f() { let _ = SystemTime::now(); }", "SystemTime::now"),
        ("fn f(i: Instant) -> Duration { i.elapsed() }", ".elapsed("),
        ("fn f() { println!(\"x\"); }", "println!"),
        ("fn f(b: &mut [u8]) { getrandom::fill(b).ok(); }", "getrandom"),
        (
            "fn f(c: char) -> bool { c == '\"' }\nfn g() { std::thread::spawn(|| {}); }",
            "std::thread",
        ),
    ];
    for (snippet, finding) in flagged {
        let found = shell_only_uses(snippet);
        assert!(
            found.iter().any(|f| f == finding),
            "{snippet:?}: expected {finding:?}, got {found:?}"
        );
    }
    let passed = [
        "// this module never opens a TcpStream\nfn f() {}",
        "/// `Instant::now()` is the caller's business.\nfn f(now: Instant) {}",
        "/* std::thread::spawn /* nested */ here */ fn f() {}",
        "fn f() -> &'static str { \"std::fs::read\" }",
        "fn f() -> &'static str { r#\"TcpStream \"quoted\" \"# }",
        "fn f<'a>(x: &'a str) -> &'a str { x }",
        "fn f(a: std::net::Ipv6Addr) -> bool { a.is_loopback() }",
        "const VERSION: &str = env!(\"CARGO_PKG_VERSION\");",
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    use std::thread;\n    #[test]\n    fn t() { std::thread::spawn(|| {}); let _ = std::time::Instant::now(); }\n}",
        "fn stdin_like_name_with_suffix() {}",
    ];
    for snippet in passed {
        assert_eq!(shell_only_uses(snippet), Vec::<String>::new(), "{snippet:?}");
    }
}

#[test]
fn the_cycle_check_finds_cycles_of_any_length_and_passes_layers() {
    let tree = |files: &[(&str, &str)]| -> BTreeMap<String, String> {
        files.iter().map(|(n, s)| ((*n).to_owned(), (*s).to_owned())).collect()
    };
    let layered = tree(&[
        ("mod", "mod a; mod b; mod c; pub use a::A; pub use c::C;"),
        ("a", "use super::b::B;\nuse super::c::{self, C};"),
        ("b", "use super::c::C;"),
        ("c", "#[cfg(test)]\nmod tests { use super::*; use super::super::a::A; }"),
    ]);
    assert_eq!(find_cycle(&import_edges(&layered)), None);
    let cycles: [(&[(&str, &str)], usize); 4] = [
        (&[("mod", "mod a; mod b;"), ("a", "use super::b::B;"), ("b", "use super::a::A;")], 3),
        (
            &[
                ("mod", ""),
                ("a", "use super::b;"),
                ("b", "use super::{c::C, x};"),
                ("c", "fn f() { super::a::g(); }"),
            ],
            4,
        ),
        // A file importing an item of `mod.rs`, which re-exports that file's items.
        (&[("mod", "pub use a::A; pub struct P;"), ("a", "use super::P;")], 3),
        (&[("mod", "pub use a::{A, B};"), ("a", "use super::{self, Parsed};")], 3),
    ];
    for (files, length) in cycles {
        let cycle = find_cycle(&import_edges(&tree(files)));
        assert_eq!(cycle.as_ref().map(Vec::len), Some(length), "{files:?}: {cycle:?}");
    }
}
