//! Tidy: invariants of the source tree that a reader would otherwise have to take on trust,
//! checked by reading the source (as rust-analyzer's tidy tests do).
//!
//! - The core (every module but the shell: `server`, `client`, `cli`, `main`) never names a
//!   socket type, a thread, the file system, processes, the environment, standard input or
//!   output, a clock read or the operating system's random generator, in non-test code,
//!   `use std::{…}` groups included. Pure value types (`Instant`, `Ipv6Addr`) stay allowed.
//! - No module imports itself through a cycle of any length, in the library or the binary; the
//!   top-level modules keep the layering rules of `NEVER`, and the crate docs list exactly what
//!   each imports; no test includes the binary's files; no function in `src` is longer than
//!   `FUNCTION_LINES_MAX` lines; only `http::connection::drive` steps the connection machine.
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
// Imports between modules: one node per source file, named by its module path.

/// A crate's source files as the checkers see them: module path (`http::request`; `` for the
/// crate root) to code view.
type Modules = BTreeMap<String, String>;

/// The module path of a file under a crate's source directory: `lib.rs` and `main.rs` are the
/// root, `a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`.
fn module_path(relative_to_src: &str) -> String {
    let path = relative_to_src.trim_end_matches(".rs");
    let path = path.strip_suffix("/mod").unwrap_or(path);
    if path == "lib" || path == "main" {
        return String::new();
    }
    path.replace('/', "::")
}

/// The module a path written in `module`'s code points into, resolved against the crate's
/// `modules`: the longest module that prefixes the path (an item of a module counts as the
/// module). `crate::`, `super::` and `self::` are resolved, `library` names the library crate
/// from the binary (`loopback_mcp_http`, whose paths lead outside the binary's graph), and a
/// bare first segment is a child module when one exists. Other crates and `std` lead nowhere.
fn resolve(path: &str, module: &str, modules: &Modules, library: Option<&str>) -> Option<String> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    match segments.first().copied() {
        Some("crate") => {
            base.clear();
            segments.remove(0);
        }
        Some(first) if Some(first) == library => return None,
        Some("super") => {
            while segments.first() == Some(&"super") {
                segments.remove(0);
                base.pop()?;
            }
        }
        Some("self") => {
            segments.remove(0);
        }
        Some(first) => {
            if !modules.contains_key(&join(module, first)) {
                return None;
            }
        }
        None => return None,
    }
    let mut target = base.join("::");
    let mut found = target.clone();
    for segment in segments {
        target = join(&target, segment);
        if modules.contains_key(&target) {
            found = target.clone();
        } else {
            break;
        }
    }
    (found != module).then_some(found)
}

/// Paths written inline in code (outside `use` declarations) that start with `crate::`,
/// `super::` or `self::`.
fn inline_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for at in find_all_words(code, start) {
            let path: String =
                code[at..].chars().take_while(|&c| is_ident(c) || c == ':').collect();
            paths.push(path.trim_end_matches(':').to_owned());
        }
    }
    paths
}

/// The edges `module -> module it imports` among a crate's `modules`.
fn module_edges(modules: &Modules, library: Option<&str>) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in modules {
        let targets = edges.entry(module.clone()).or_default();
        for path in use_paths(code).into_iter().chain(inline_paths(code)) {
            if let Some(target) = resolve(&path, module, modules, library) {
                targets.insert(target);
            }
        }
    }
    edges
}

/// The top-level modules each top-level module imports (edges inside one are left out; the
/// crate root, which only declares, has none).
fn top_level_edges(
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, BTreeSet<String>> {
    let top = |module: &str| module.split("::").next().unwrap_or("").to_owned();
    let mut layers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, targets) in edges {
        if module.is_empty() {
            continue;
        }
        let from = top(module);
        let imports = layers.entry(from.clone()).or_default();
        for target in targets {
            let to = top(target);
            if !to.is_empty() && to != from {
                imports.insert(to);
            }
        }
    }
    layers
}

/// A crate's modules read from `dir` (its `src`), limited to the files `keep` accepts (paths
/// relative to `dir`).
fn read_modules(dir: &Path, keep: impl Fn(&str) -> bool) -> Modules {
    rust_files(dir)
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(dir).ok()?.to_string_lossy().replace('\\', "/");
            if !keep(&relative) {
                return None;
            }
            let source = fs::read_to_string(&path).expect("read a source file");
            Some((module_path(&relative), code_view(&source)))
        })
        .collect()
}

/// The library's modules: everything under `src` but the binary's `main.rs` and `cli/`.
fn library_modules() -> Modules {
    read_modules(&root().join("src"), |f| f != "main.rs" && !f.starts_with("cli/"))
}

/// The binary's modules: `main.rs` and `cli/`.
fn binary_modules() -> Modules {
    read_modules(&root().join("src"), |f| f == "main.rs" || f.starts_with("cli/"))
}

/// One cycle in `edges`, as the list of its nodes (the first repeated at the end), if there is
/// any.
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
// The layers: which top-level modules may never import which.

/// The codecs: bytes in, typed values out.
const CODECS: &[&str] = &["http", "json", "sse"];
/// Numbers, budgets and digests that everything may use.
const FOUNDATIONS: &[&str] = &["limits", "decimal", "digest"];
/// The shell: sockets, threads, clocks and the OS.
const SHELL_MODULES: &[&str] = &["server", "client"];
/// Every top-level module of the core.
const CORE: &[&str] = &[
    "limits", "decimal", "digest", "random", "http", "json", "sse", "auth", "mcp", "endpoint",
    "inspect",
];

/// One rule: none of `modules` imports any of `never`, and why.
struct Never {
    modules: &'static [&'static str],
    never: &'static [&'static str],
    why: &'static str,
}

/// The rules the crate's layering keeps. The crate docs list what each module imports; a test
/// checks that list against the code, and the code against these rules.
const NEVER: [Never; 6] = [
    Never {
        modules: FOUNDATIONS,
        never: &[
            "limits", "decimal", "digest", "random", "http", "json", "sse", "auth", "mcp",
            "endpoint", "inspect", "server", "client",
        ],
        why: "the foundations import nothing of the project",
    },
    Never {
        modules: CODECS,
        never: &["auth", "mcp", "endpoint", "inspect", "server", "client", "random", "digest"],
        why: "a codec knows bytes, budgets and numbers only",
    },
    Never {
        modules: &["auth"],
        never: &["mcp", "endpoint", "inspect", "sse"],
        why: "the token policy knows nothing of MCP sessions, endpoints or streams",
    },
    Never {
        modules: &["mcp"],
        never: &["auth", "endpoint", "inspect", "http", "sse", "random"],
        why: "sessions hold the three values of a principal, not the policy; ids come drawn",
    },
    Never {
        modules: CORE,
        never: SHELL_MODULES,
        why: "the core is sans-IO: it never names the shell",
    },
    Never {
        modules: &["client"],
        never: &["server", "endpoint"],
        why: "the client shares wire vocabulary with the server, never its insides",
    },
];

/// Every broken rule in `layers`, as `importer imports target: why`.
fn broken_rules(layers: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut broken = Vec::new();
    for rule in &NEVER {
        for module in rule.modules {
            for target in layers.get(*module).into_iter().flatten() {
                if rule.never.contains(&target.as_str()) {
                    broken.push(format!("{module} imports {target}: {}", rule.why));
                }
            }
        }
    }
    broken
}

/// The import list the crate docs carry between `<!-- imports: start -->` and
/// `<!-- imports: end -->`: one line per module, `` - `m` imports `a`, `b`. `` or
/// `` - `m` imports nothing of the project. ``
fn documented_imports(lib_rs: &str) -> BTreeMap<String, BTreeSet<String>> {
    let start = lib_rs.find("<!-- imports: start -->").expect("the crate docs' import list");
    let end = lib_rs.find("<!-- imports: end -->").expect("the end of the import list");
    let mut documented = BTreeMap::new();
    for line in lib_rs[start..end].lines().skip(1) {
        let line = line.trim_start_matches("//!").trim();
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let (module, rest) = rest.split_once('`').expect("a module name in backquotes");
        let imports: BTreeSet<String> =
            match rest.trim().trim_end_matches('.').strip_prefix("imports ") {
                Some("nothing of the project") => BTreeSet::new(),
                Some(list) => list.split(", ").map(|m| m.trim_matches('`').to_owned()).collect(),
                None => panic!("not an import line: {line}"),
            };
        documented.insert(module.to_owned(), imports);
    }
    documented
}

// ---------------------------------------------------------------------------------------------
// Function length.

/// The longest a function may be, counted from the line of its `fn` to the line of its closing
/// brace, comments included.
const FUNCTION_LINES_MAX: usize = 70;

/// Every function of `source` longer than `max` lines: (name, first line, lines).
fn long_functions(source: &str, max: usize) -> Vec<(String, usize, usize)> {
    let code: Vec<char> = blank_comments_and_literals(source).chars().collect();
    let text: String = code.iter().collect();
    let line = |index: usize| code[..index].iter().filter(|&&c| c == '\n').count() + 1;
    let mut found = Vec::new();
    for at in find_all_words(&text, "fn") {
        let start = text[..at].chars().count();
        let after: String = code[start + 2..].iter().take(200).collect();
        let name: String = after.trim_start().chars().take_while(|&c| is_ident(c)).collect();
        if name.is_empty() || !after.starts_with(char::is_whitespace) {
            continue; // `fn(usize) -> T`, a type
        }
        let Some(close) = body_end(&code, start) else {
            continue; // a declaration without a body
        };
        let lines = line(close) - line(start) + 1;
        if lines > max {
            found.push((name, line(start), lines));
        }
    }
    found
}

/// The index of the `}` that ends the body of the function whose `fn` is at `start`; `None`
/// when a `;` ends it first (a declaration).
fn body_end(code: &[char], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut open = false;
    for (i, &c) in code.iter().enumerate().skip(start) {
        match c {
            ';' if !open && depth == 0 => return None,
            '(' | '[' | '<' if !open => depth += 1,
            ')' | ']' | '>' if !open => depth = depth.saturating_sub(1),
            '{' if !open && depth == 0 => {
                open = true;
                depth = 1;
            }
            '{' if open => depth += 1,
            '}' if open => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
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
fn no_import_cycle_anywhere_in_src() {
    let library = library_modules();
    assert!(library.len() >= 50, "only {} library modules found", library.len());
    let edges = module_edges(&library, None);
    assert_eq!(find_cycle(&edges), None, "an import cycle among the library's modules");
    // The shared vocabulary of `http` imports nothing from the rest of it.
    assert_eq!(edges.get("http::vocab"), Some(&BTreeSet::new()));
    let binary = binary_modules();
    assert!(binary.len() >= 10, "only {} binary modules found", binary.len());
    let edges = module_edges(&binary, Some("loopback_mcp_http"));
    assert_eq!(find_cycle(&edges), None, "an import cycle among the binary's modules (cli)");
}

#[test]
fn the_layers_keep_their_never_rules() {
    let layers = top_level_edges(&module_edges(&library_modules(), None));
    let broken = broken_rules(&layers);
    assert!(broken.is_empty(), "layering rules broken:\n{}", broken.join("\n"));
}

#[test]
fn the_crate_docs_list_exactly_what_each_module_imports() {
    let lib_rs = fs::read_to_string(root().join("src/lib.rs")).expect("read src/lib.rs");
    let documented = documented_imports(&lib_rs);
    let actual = top_level_edges(&module_edges(&library_modules(), None));
    let mut wrong = Vec::new();
    for (module, imports) in &actual {
        match documented.get(module) {
            Some(listed) if listed == imports => {}
            Some(listed) => wrong.push(format!("{module}: listed {listed:?}, imports {imports:?}")),
            None => wrong.push(format!("{module}: not listed (imports {imports:?})")),
        }
    }
    for module in documented.keys().filter(|m| !actual.contains_key(*m)) {
        wrong.push(format!("{module}: listed, but no such module"));
    }
    assert!(wrong.is_empty(), "the crate docs' import list is wrong:\n{}", wrong.join("\n"));
}

#[test]
fn no_test_reaches_into_the_binary() {
    let mut found = Vec::new();
    for path in rust_files(&root().join("tests")) {
        let source = fs::read_to_string(&path).expect("read a test file");
        for (number, line) in source.lines().enumerate() {
            let includes = line.contains("#[path") || line.contains("include!");
            let binary = line.contains("main.rs") || line.contains("cli/");
            if includes && binary {
                found.push(format!("{}:{}: {}", relative(&path), number + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "tests including the binary's modules:\n{}", found.join("\n"));
}

#[test]
fn no_function_in_src_is_longer_than_seventy_lines() {
    let mut offenders = Vec::new();
    for path in rust_files(&root().join("src")) {
        let source = fs::read_to_string(&path).expect("read a source file");
        for (name, line, lines) in long_functions(&source, FUNCTION_LINES_MAX) {
            offenders.push(format!("{}:{line} {name}: {lines} lines", relative(&path)));
        }
    }
    assert!(
        offenders.is_empty(),
        "functions over {FUNCTION_LINES_MAX} lines:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_import_checks_resolve_paths_and_find_cycles_and_broken_rules() {
    let crate_of = |files: &[(&str, &str)]| -> Modules {
        files.iter().map(|(n, s)| ((*n).to_owned(), code_view(s))).collect()
    };
    let layered = crate_of(&[
        ("", "mod a; mod b; pub use a::A;"),
        ("a", "mod c; use super::b::B; use crate::a::c::{self, C}; pub use c::D;"),
        ("a::c", "#[cfg(test)]\nmod tests { use super::super::A; }"),
        ("b", "fn f() { crate::a::c::g(); std::thread::sleep(d); }"),
    ]);
    let edges = module_edges(&layered, None);
    assert_eq!(find_cycle(&edges), None);
    let expect = |module: &str, targets: &[&str]| {
        let want: BTreeSet<String> = targets.iter().map(|t| (*t).to_owned()).collect();
        assert_eq!(edges.get(module), Some(&want), "{module}");
    };
    expect("", &["a"]);
    expect("a", &["a::c", "b"]);
    expect("a::c", &[]);
    expect("b", &["a::c"]);
    // Cycles of any length, through `super`, `crate`, re-exports and inline paths.
    let cycles: [(&[(&str, &str)], usize); 4] = [
        (&[("", "mod a; mod b;"), ("a", "use super::b::B;"), ("b", "use crate::a::A;")], 3),
        (
            &[
                ("", ""),
                ("a", "use crate::b;"),
                ("b", "use crate::{c::C, x};"),
                ("c", "fn f() { crate::a::g(); }"),
            ],
            4,
        ),
        // A file importing an item of its parent, which re-exports that file's items.
        (&[("m", "mod a; pub use a::A; pub struct P;"), ("m::a", "use super::P;")], 3),
        (&[("m", "mod a; pub use a::{A, B};"), ("m::a", "use super::{self, Parsed};")], 3),
    ];
    for (files, length) in cycles {
        let cycle = find_cycle(&module_edges(&crate_of(files), None));
        assert_eq!(cycle.as_ref().map(Vec::len), Some(length), "{files:?}: {cycle:?}");
    }
    // The binary's paths into the library lead outside its own graph.
    let binary = crate_of(&[("", "mod cli;"), ("cli", "use loopback_mcp_http::http::X;")]);
    let edges = module_edges(&binary, Some("loopback_mcp_http"));
    assert_eq!(edges.get("cli"), Some(&BTreeSet::new()));
    // Rules: a codec importing `auth`, the core importing the shell; `auth` may import `http`.
    let layers = |pairs: &[(&str, &str)]| {
        let mut layers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in pairs {
            layers.entry((*from).to_owned()).or_default().insert((*to).to_owned());
        }
        layers
    };
    let broken =
        broken_rules(&layers(&[("http", "auth"), ("endpoint", "server"), ("auth", "http")]));
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].starts_with("http imports auth"), "{broken:?}");
    assert!(broken[1].starts_with("endpoint imports server"), "{broken:?}");
    // The docs' list is read line by line.
    let docs = "//! <!-- imports: start -->\n//! - `a` imports nothing of the project.\n//! - `b` imports `a`, `c`.\n//! <!-- imports: end -->";
    let listed = documented_imports(docs);
    assert_eq!(listed.get("a"), Some(&BTreeSet::new()));
    assert_eq!(listed.get("b").map(BTreeSet::len), Some(2));
}

#[test]
fn the_length_check_counts_from_fn_to_its_closing_brace() {
    let body = |lines: usize| -> String {
        let inner: String =
            (0..lines - 2).map(|i| format!("    let _x{i} = {{ 1 }}; // }}\n")).collect();
        format!("fn long() {{\n{inner}}}\n")
    };
    assert_eq!(long_functions(&body(70), 70), vec![]);
    assert_eq!(long_functions(&body(71), 70), vec![("long".to_owned(), 1, 71)]);
    let not_functions = "type F = fn(usize) -> bool;\ntrait T { fn declared(&self); }\n";
    assert_eq!(long_functions(not_functions, 0), vec![]);
    let generic = "fn g<T: Fn() -> u8>(t: T) -> [u8; 2] where T: Copy {\n    [t(), t()]\n}\n";
    assert_eq!(long_functions(generic, 2), vec![("g".to_owned(), 1, 3)]);
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

/// The revision table's rows: the variant and the wire name of each.
fn revision_rows() -> Vec<(String, String)> {
    let table = fs::read_to_string(root().join("src/mcp/revision.rs")).expect("the table");
    table
        .lines()
        .filter_map(|line| {
            let (variant, rest) = line.trim().split_once(" = \"")?;
            let (name, era) = rest.split_once("\", ")?;
            let row = variant.starts_with('V') && matches!(era, "Legacy," | "Modern,");
            row.then(|| (variant.to_owned(), name.to_owned()))
        })
        .collect()
}

#[test]
fn a_revision_is_one_row_and_nothing_else_decides_by_its_variant() {
    let rows = revision_rows();
    assert!(rows.len() >= 2, "the table's rows were not found: {rows:?}");
    let mut problems = Vec::new();
    for path in rust_files(&root().join("src")) {
        let name = relative(&path);
        let source = fs::read_to_string(&path).expect("read a source file");
        let view = code_view(&source);
        let raw_and_code = source.lines().zip(
            without_test_items(&blank_comments_and_literals(&source))
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        );
        for (number, (raw, code)) in raw_and_code.enumerate() {
            for (variant, wire) in &rows {
                let both = raw.contains(variant.as_str()) && raw.contains(&format!("\"{wire}\""));
                let row = name == "src/mcp/revision.rs" && raw.trim().starts_with(variant.as_str());
                if both && code.contains(variant.as_str()) && !row {
                    problems.push(format!("{name}:{}: {variant} beside its name", number + 1));
                }
            }
        }
        if name != "src/mcp/revision.rs" {
            for (variant, _) in &rows {
                for at in find_all_words(&view, variant) {
                    let after = view[at + variant.len()..].trim_start();
                    if after.starts_with("=>") || after.starts_with('|') {
                        problems.push(format!("{name}: a match arm on {variant}"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn names_that_meant_two_things_are_declared_once() {
    let mut declared: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let names = ["Era", "Called", "Answer", "Stage", "Watch", "Method"];
    for path in rust_files(&root().join("src")) {
        let view = code_view(&fs::read_to_string(&path).expect("read a source file"));
        for name in names {
            for keyword in ["enum", "struct", "trait", "type"] {
                let declaration = format!("{keyword} {name}");
                for at in find_all_words(&view, &declaration) {
                    let after = view[at + declaration.len()..].chars().next();
                    if !after.is_some_and(is_ident) {
                        declared.entry(name).or_default().push(relative(&path));
                    }
                }
            }
        }
    }
    let twice: Vec<String> = declared
        .iter()
        .filter(|(_, places)| places.len() > 1)
        .map(|(name, places)| format!("{name}: {}", places.join(", ")))
        .collect();
    assert!(twice.is_empty(), "declared more than once:\n{}", twice.join("\n"));
}

#[test]
fn the_connection_machine_decides_every_state_without_a_catch_all() {
    for file in ["src/http/connection/machine.rs", "src/http/connection/stage.rs"] {
        let view = code_view(&fs::read_to_string(root().join(file)).expect("read the machine"));
        let flat: String = view.split_whitespace().collect::<Vec<_>>().join(" ");
        for pattern in ["_ =>", "_ if ", "state => state"] {
            assert!(!flat.contains(pattern), "{file}: a catch-all arm `{pattern}`");
        }
    }
}

#[test]
fn the_crate_map_names_every_module() {
    let lib = fs::read_to_string(root().join("src/lib.rs")).expect("read lib.rs");
    let start = lib.find("<!-- crate-map: start -->").expect("the map's start marker");
    let end = lib.find("<!-- crate-map: end -->").expect("the map's end marker");
    let map = &lib[start..end];
    let mut missing = Vec::new();
    for path in rust_files(&root().join("src")) {
        let name = relative(&path);
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let module = match stem {
            "mod" => path.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()),
            "lib" | "main" => continue,
            other => Some(other),
        };
        let Some(module) = module else { continue };
        let named = map.contains(&format!("`{module}`"))
            || map.contains(&format!("[`{module}`]"))
            || (name.starts_with("src/cli/") && map.contains(module));
        if !named {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "modules the crate map in lib.rs does not name: {missing:?}");
}

#[test]
fn no_source_file_is_longer_than_eight_hundred_lines() {
    let long: Vec<String> = rust_files(&root().join("src"))
        .into_iter()
        .filter_map(|path| {
            let lines = fs::read_to_string(&path).expect("read a source file").lines().count();
            (lines > 800).then(|| format!("{}: {lines} lines", relative(&path)))
        })
        .collect();
    assert!(long.is_empty(), "files over 800 lines:\n{}", long.join("\n"));
}
