//! What every command says about itself: its `--help` text and the one line a usage error ends
//! with.
//!
//! One table, one row per command and per nested command (`lab run`, `bench codec`, each
//! `inspect` subject), each with a synopsis (the accepted form, on one line) and the text
//! `--help` prints. `main` asks [`find`] for the most specific row a command line names, prints
//! its text on `--help` (exit 0), and ends a usage error with its synopsis (exit 2). The lists a
//! text shows (experiments, fixture roles, inspect subjects) are appended from the code that owns
//! them, so they cannot drift.
//!
//! Not here: parsing the flags themselves (`args` and each command do that).

use loopback_mcp_http::auth::fixtures::Role;

/// One command's help.
#[derive(Debug)]
pub struct Usage {
    /// The words that name it after the program's name (`["lab", "run"]`).
    pub path: &'static [&'static str],
    /// The accepted form, on one line.
    pub synopsis: &'static str,
    /// What it does, its flags and its exit statuses.
    pub text: &'static str,
    /// A list the text ends with, from the code that owns it.
    pub list: Listed,
}

/// A list appended to a help text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listed {
    Nothing,
    /// The fixture roles `serve` prints a token for.
    Roles,
    /// The lab's experiments.
    Experiments,
}

pub const USAGES: [Usage; 22] = [
    Usage {
        path: &[],
        synopsis: "loopback-mcp-http <demo|attack|lab|probe|serve|control|inspect|bench> ... (--help on each)",
        text: "Commands: demo, attack, lab, probe, serve, control, inspect, bench.\n`loopback-mcp-http <command> --help` explains one; `loopback-mcp-http --version` prints the\nversion.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["demo"],
        synopsis: "loopback-mcp-http demo [--protocol-versions LIST] [--trace | --trace-bytes]",
        text: "Runs the normal path against a fresh in-process server and prints one JSON line with the\nverdict PASS (exit 0) or FAIL (exit 1).\n  --protocol-versions LIST  the revisions the server and the client speak, as for serve:\n                            2025-11-25 (default; a session), 2026-07-28 (discover, a\n                            mirrored tool call, its refused mismatch, GET 405, ping 404),\n                            or both (a dual-era client stays modern, then a session)\n  --trace        every request and response on stderr, line by line (tokens redacted)\n  --trace-bytes  the same byte for byte, CR, LF and control bytes escaped",
        list: Listed::Nothing,
    },
    Usage {
        path: &["attack"],
        synopsis: "loopback-mcp-http attack [--trace | --trace-bytes]",
        text: "Sends hostile requests to a fresh in-process server (the last ones under --chunked) and\nprints BLOCK (exit 0) only when each got its expected status and public error code; every\nattack is listed on stderr, and one that got through makes the exit status 1.\n  --trace, --trace-bytes  as for demo",
        list: Listed::Nothing,
    },
    Usage {
        path: &["lab"],
        synopsis: "loopback-mcp-http lab list | lab run <name|all> [--trace | --trace-bytes | --ask]",
        text: "Experiments that change one thing in a correct request and compare the predicted status\nwith the observed one. `lab list` names them; `lab run NAME` runs one, `lab run all` all.",
        list: Listed::Experiments,
    },
    Usage {
        path: &["lab", "list"],
        synopsis: "loopback-mcp-http lab list",
        text: "Prints every experiment's name, then what it tries (never what comes back).",
        list: Listed::Nothing,
    },
    Usage {
        path: &["lab", "run"],
        synopsis: "loopback-mcp-http lab run <name|all> [--trace | --trace-bytes | --ask]",
        text: "Runs one experiment (or all) against a fresh in-process server; prints each prediction and\nobservation, then one JSON summary line. Exit 0 when every observation was as predicted.\n  --ask  before each request, shows it and reads your guess of its status (one line on\n         stdin); then the answer, the stage that decided it, and right or wrong; at the end\n         `your guesses: N right of M`. Guesses never change the exit status. It waits up to an\n         hour an experiment: each request goes out after your guess, on a fresh connection",
        list: Listed::Experiments,
    },
    Usage {
        path: &["probe"],
        synopsis: "loopback-mcp-http probe URL [--token T] [--other-token T] [--header 'Name: value']... [--protocol-versions LIST] [--json | --junit] [--failing] [--fail-on deviates|differs] [--trace | --trace-bytes]",
        text: "Sends the boundary catalogue (the cases attack and lab take from it) to any MCP server on\nthis machine and judges each answer by its rule:\n  holds           the rule is kept\n  deviates        a MUST is broken: where the rule is a status, another status breaks it,\n                  and a second answer to one request breaks it whatever the row's level\n  differs         a SHOULD or this project's stricter profile is broken, or a framing MUST\n                  is kept loosely (refused with another 4xx or 5xx, then closed)\n  not_applicable  the server offers nothing the row needs; unreachable: no answer came\nURL is http://127.0.0.1:PORT/path or http://localhost:PORT/path and nothing else: the requests\nare hostile. Most rows change one thing in the baseline: a ping in a 2025-11-25 session, or\nserver/discover where 2026-07-28 is all the server speaks. At most 300 requests and 60 s, one\nconnection each; every session a row causes is ended before the next. Progress on stderr, the\nreport on stdout. No token or session id is printed, and of a server's words only known names,\ncodes and lengths.\n  --token T              the bearer token of a principal (the resource-server rows need it)\n  --other-token T        a second principal's, for the rows about whose session it is\n  --header 'Name: value' a field every request carries (repeatable; its value is never printed)\n  --protocol-versions L  the revisions to try, as for serve (default: every one it knows)\n  --json                 one JSON object per row: id, case, group, sent, rule, source, level,\n                         observed, verdict (the id stays when the words change)\n  --junit                a JUnit XML report: a test case per row, a failure per row --fail-on\n                         names, not_applicable and unreachable skipped\n  --failing              only the rows that deviate or differ, then the summary\n  --fail-on V            deviates (the default) or differs: the verdicts that make the exit 1\n  --trace, --trace-bytes every request and answer on stderr (tokens and session ids redacted)\nExit 0 when no row has a verdict --fail-on names, 1 when one does, 2 for a usage error, a\nport nothing listens on, or a server that never answered.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["probe", "compare"],
        synopsis: "loopback-mcp-http probe compare RUN.jsonl...",
        text: "Writes one self-contained HTML page to stdout, runs side by side: a column per RUN (a file of\nprobe --json lines, named by its file name) and a row per case, matched across runs by its id.\nEach cell is coloured by its verdict and shows what was observed; each row names its rule, its\nsource linked to the section. The page loads nothing: no script, no style from elsewhere.\nExit 0, or 2 when a file is not a probe run.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["serve"],
        synopsis: "loopback-mcp-http serve [--port N] [--allow-origin URL]... [--allow-host HOST:PORT]... [--max-sessions N] [--max-sessions-per-principal N] [--session-ttl-secs N] [--workers N] [--bind 127.0.0.1] [--chunked] [--conformance-fixtures] [--announce FILE] [--protocol-versions LIST] [--stream-keepalive-secs N] [--limit NAME=VALUE]... [--watch | --watch=bytes]",
        text: "Serves /mcp on 127.0.0.1 until killed, and prints one JSON line: the URL, the metadata URL,\nthe allowed origins, the protocol version, a token for every fixture role, and `control`, the\nowner-only file through which `loopback-mcp-http control` reaches this server.\n  --port N                      listen on port N (default: a free one)\n  --allow-origin URL            also allow this Origin (repeatable)\n  --allow-host HOST:PORT        also answer /mcp under this Host, for a loopback proxy\n  --max-sessions N              session slots in all (default 8)\n  --max-sessions-per-principal N  live sessions of one principal (default 4)\n  --session-ttl-secs N          a session's lifetime, fixed at creation (default 60)\n  --workers N                   worker threads, 1 to 1024 (default 64)\n  --bind 127.0.0.1              the only address it listens on\n  --chunked                     also decode chunked request bodies\n  --conformance-fixtures        serve the conformance suite's step-up fixtures and accept its\n                                two public tokens (mcp-conformance-scope-low and -full)\n  --announce FILE               write the line to FILE, created new with mode 0600, not stdout\n  --protocol-versions LIST      revisions, comma-separated: 2025-11-25 (default), 2026-07-28...\n  --stream-keepalive-secs N     an open stream quiet this long sends a comment line (default 15)\n  --limit NAME=VALUE            any budget of the table (src/limits.rs), in its kind: bytes and\n                                counts a number, durations with ms or s (repeatable)\n  --watch                       one line on stderr per exchange as it is decided: status, code,\n                                stage, bytes in and out (never a token, id or value sent)\n  --watch=bytes                 the same, with each received head, CR and LF made visible\nLines on stdin, when it is not a terminal, are control commands too (`revoke ROLE`,\n`bump-revision ROLE`, `change-tools`, `stats`). Exit 2 when the flags or the port are refused.",
        list: Listed::Roles,
    },
    Usage {
        path: &["control"],
        synopsis: "loopback-mcp-http control <serve's JSON line file> <revoke|bump-revision> <role> | change-tools | stats",
        text: "Sends one control command to a running `serve` and prints its one-line JSON reply.\nThe file holds serve's first line (`serve --announce FILE` writes it); it names serve's\nowner-only control file, whose secret the command proves. `revoke ROLE` ends that role's token;\n`bump-revision ROLE` moves its subject to a new authorization revision, so every earlier token\nof it stops working. Both take effect on the server's very next request. `change-tools` changes\nthe tool list (listens that asked are told); `stats` prints the open streams' counters.\nWhen the channel is busy, nothing runs, and the command tries once more after the channel's\nline deadline. Exit 0 when the command was done, 1 when it was refused or did not run.",
        list: Listed::Roles,
    },
    Usage {
        path: &["inspect"],
        synopsis: "loopback-mcp-http inspect <request|response|response-to-head|json|sse|chunked|connection> [FILE] | inspect mirroring [FILE]",
        text: "Runs one of the strict codecs (or, for mirroring, the 2026-07-28 endpoint's checks) over FILE\n(or standard input) and prints its verdict as one JSON line: the parsed parts, or the public\nerror code, the byte offset and (for requests) the status a server would answer with. Exit 0\naccepted, 1 refused or incomplete, 2 usage or input error. `inspect SUBJECT --help` says what\neach subject reads.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["inspect", "request"],
        synopsis: "loopback-mcp-http inspect request [FILE]",
        text: "A request head, as the server's parser reads it (without --chunked): its method, target,\nversion, fields (credentials shown as their length), framing and the bytes after the head.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["inspect", "response"],
        synopsis: "loopback-mcp-http inspect response [FILE]",
        text: "A response, head and Content-Length body, as the client's strict parser reads it.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["inspect", "response-to-head"],
        synopsis: "loopback-mcp-http inspect response-to-head [FILE]",
        text: "A response to a HEAD request, which ends after its head whatever its Content-Length.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["inspect", "json"],
        synopsis: "loopback-mcp-http inspect json [FILE]",
        text: "A JSON text, through the strict decoder (no duplicate keys, no trailing bytes, depth bound).",
        list: Listed::Nothing,
    },
    Usage {
        path: &["inspect", "sse"],
        synopsis: "loopback-mcp-http inspect sse [FILE]",
        text: "An event stream, through the client's SSE parser: every event's id, data and retry.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["inspect", "chunked"],
        synopsis: "loopback-mcp-http inspect chunked [FILE]",
        text: "A chunked body (the bytes after the head), through the decoder `serve --chunked` uses: the\nbody, its chunks and trailer lines, and how many bytes followed the coding.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["inspect", "connection"],
        synopsis: "loopback-mcp-http inspect connection [FILE]",
        text: "A whole conversation as one arrival, through the connection state machine: every step it\ntakes, one JSON line each (every head admitted, every request answered with a fixed 200).",
        list: Listed::Nothing,
    },
    Usage {
        path: &["inspect", "mirroring"],
        synopsis: "loopback-mcp-http inspect mirroring [FILE]",
        text: "One whole request (head, then a Content-Length body) through the checks of a server started\nwith --protocol-versions 2026-07-28: its _meta, then each header that mirrors the body\n(MCP-Protocol-Version, Mcp-Method, Mcp-Name, the called tool's Mcp-Param-{Name}), in the\nserver's order, with the lines sent, a sentinel's decoded text, the body value, when the\nserver compares it (Mcp-Param after the token) and its verdict; for a refusal, the status and\nbody the server answers. Exit 0 when every mirrored header agrees.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["bench"],
        synopsis: "loopback-mcp-http bench [--connections N] [--seconds S] [--route R] [--rate N [--pid PID]] [--url URL --token T] [--allow-503]",
        text: "A load generator over keep-alive connections, against an in-process server unless --url (a\nloopback server's http://127.0.0.1:PORT/mcp) and --token are given. Closed loop by default:\neach connection sends its next request once the last is answered. One JSON line of figures;\nexit 1 when an answer was unexpected or none came, with the reason. `bench codec` and\n`bench overload` are its other two modes.\n  --connections N  1 to 1024 (default 16)\n  --seconds S      0.1 to 600, up to three decimals (default 5)\n  --route R        ping (default), resources, initialize, or raw-ping: the ping without a\n                   session, for a server that checks nothing (tests/bench/raw-limit); needs --url\n  --rate N         open loop: N operations per second in all (1 to 100000), each connection on\n                   a fixed schedule, after a warm-up as long as S (at most 1 s); latency from the\n                   due time, late and unsent operations, and the server's CPU time per operation\n                   from /proc\n  --pid PID        with --rate and --url: the server's process, whose CPU time is read\n  --allow-503      503 answers (load a full worker pool sheds) are not unexpected",
        list: Listed::Nothing,
    },
    Usage {
        path: &["bench", "codec"],
        synopsis: "loopback-mcp-http bench codec",
        text: "Times the codecs alone (head parsing, JSON, SSE) in this process; one JSON line.",
        list: Listed::Nothing,
    },
    Usage {
        path: &["bench", "overload"],
        synopsis: "loopback-mcp-http bench overload [--idle N] [--probes P] [--interval-ms MS] [--reopen-ms MS] [--url URL]",
        text: "Holds N idle connections (default twice the workers) against a server and sends P probes,\none every MS milliseconds: how a full pool answers (503 at once, a reset, a silent close, a\nrefused connection or a timeout). One JSON line.",
        list: Listed::Nothing,
    },
];

/// Whether the arguments ask for help.
pub fn wants_help(args: &[String]) -> bool {
    args.iter().any(|a| a == "--help" || a == "-h")
}

/// The most specific row the leading words of `args` name (flags and the rest ignored).
pub fn find(args: &[String]) -> &'static Usage {
    let words: Vec<&str> =
        args.iter().map(String::as_str).take_while(|a| !a.starts_with('-')).collect();
    let named = |usage: &&Usage| usage.path.len() <= words.len() && words.starts_with(usage.path);
    USAGES.iter().filter(named).max_by_key(|usage| usage.path.len()).unwrap_or(&USAGES[0])
}

/// The `--help` text of `usage`, its list appended; `experiments` names the lab's, from its
/// table.
pub fn text(usage: &Usage, experiments: &[&str]) -> String {
    let mut out = format!("usage: {}\n\n{}\n", usage.synopsis, usage.text);
    match usage.list {
        Listed::Nothing => {}
        Listed::Roles => {
            let roles: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
            out.push_str(&wrapped("Fixture roles:", &roles));
        }
        Listed::Experiments => out.push_str(&wrapped("Experiments:", experiments)),
    }
    out
}

/// The program's own `--help`: its usage, every command's accepted form, and what each top-level
/// command does (the first sentence of its text), all from the table.
pub fn overview() -> String {
    let mut out = format!("usage: {}\n", USAGES[0].synopsis);
    // A nested command its parent's form already names (`lab list`) is not listed again.
    let named_by_parent = |usage: &Usage| {
        let parent = USAGES
            .iter()
            .filter(|p| !p.path.is_empty())
            .find(|p| p.path.len() + 1 == usage.path.len() && usage.path.starts_with(p.path));
        usage.path.last().is_some_and(|w| parent.is_some_and(|p| p.synopsis.contains(w)))
    };
    for usage in USAGES[1..].iter().filter(|u| !named_by_parent(u)) {
        let form = usage.synopsis.trim_start_matches("loopback-mcp-http ");
        let words: Vec<&str> = form.split(' ').collect();
        let indent = "       loopback-mcp-http ".len() + usage.path.join(" ").len() + 1;
        out.push_str(&filled("       loopback-mcp-http ", &words, indent));
    }
    out.push('\n');
    for usage in USAGES.iter().filter(|u| u.path.len() == 1) {
        let joined = usage.text.replace('\n', " ");
        let sentence = joined.split_inclusive(". ").next().unwrap_or(&joined).trim_end();
        let words: Vec<&str> = sentence.split(' ').collect();
        out.push_str(&filled(&format!("{:<10}", usage.path[0]), &words, 10));
    }
    out.push('\n');
    out.push_str(USAGES[0].text);
    out.push('\n');
    out
}

/// `first` and then the words, in lines of at most 100 columns, each filled before the next one
/// starts; lines after the first are indented by `indent` spaces.
fn filled(first: &str, words: &[&str], indent: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_owned();
    for (i, word) in words.iter().enumerate() {
        if i > 0 && line.chars().count() + 1 + word.chars().count() > 100 {
            out.push_str(&line);
            out.push('\n');
            line = format!("{}{word}", " ".repeat(indent));
        } else if i > 0 {
            line = format!("{line} {word}");
        } else {
            line.push_str(word);
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// `label` and the names, comma-separated, in lines of at most 100 columns.
fn wrapped(label: &str, names: &[&str]) -> String {
    let mut out = String::new();
    let mut line = label.to_owned();
    for (i, name) in names.iter().enumerate() {
        let word = if i + 1 == names.len() { format!("{name}.") } else { format!("{name},") };
        if line.chars().count() + 1 + word.chars().count() > 100 {
            out.push_str(&line);
            out.push('\n');
            line = format!("  {word}");
        } else {
            line = format!("{line} {word}");
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The longest word a near miss is looked for: anything longer is no typo.
const NEAR_WORD_MAX: usize = 64;

/// The candidate `word` most likely mistypes: at most two letters inserted, deleted, replaced
/// or swapped with a neighbour, and fewer than half of its letters; the first of equals.
pub fn near<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let word: Vec<char> = word.chars().collect();
    if word.is_empty() || word.len() > NEAR_WORD_MAX {
        return None;
    }
    let allowed = 2.min((word.len() - 1) / 2 + 1);
    candidates
        .iter()
        .map(|c| (edits(&word, &c.chars().collect::<Vec<_>>()), *c))
        .filter(|(d, _)| *d > 0 && *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// ` (did you mean `X`?)` when `word` is a near miss of a candidate, or nothing.
pub fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    near(word, candidates).map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default()
}

/// The optimal-string-alignment distance: insertions, deletions, replacements and swaps of two
/// neighbours, each one edit. Both words are at most [`NEAR_WORD_MAX`] letters or candidates.
fn edits(a: &[char], b: &[char]) -> usize {
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, row) in d.chunks_mut(width).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[..width].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The top-level commands, in table order.
pub fn commands() -> Vec<&'static str> {
    USAGES.iter().filter(|u| u.path.len() == 1).map(|u| u.path[0]).collect()
}

/// The one line of a usage error: what was wrong, and the accepted form.
pub fn error_line(problem: &str, usage: &Usage) -> String {
    format!("error: {problem}; usage: {}", usage.synopsis)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "loopback-mcp-http";

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_most_specific_command_named_is_found() {
        let cases: [(&[&str], &[&str]); 7] = [
            (&[], &[]),
            (&["lab"], &["lab"]),
            (&["lab", "run", "all", "--help"], &["lab", "run"]),
            (&["inspect", "chunked", "--help"], &["inspect", "chunked"]),
            (&["inspect", "yaml"], &["inspect"]),
            (&["bench", "--url", "x"], &["bench"]),
            (&["frobnicate"], &[]),
        ];
        for (given, path) in cases {
            assert_eq!(find(&args(given)).path, path, "{given:?}");
        }
    }

    #[test]
    fn every_row_starts_with_its_own_words_and_names_a_distinct_path() {
        for usage in &USAGES {
            let words = usage.path.join(" ");
            let start = format!("{PROGRAM} {words}").trim_end().to_owned();
            assert!(usage.synopsis.starts_with(&start), "{words}: {}", usage.synopsis);
        }
        let mut paths: Vec<_> = USAGES.iter().map(|u| u.path).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), USAGES.len());
    }

    #[test]
    fn near_misses_are_named_and_far_words_are_not() {
        let commands = commands();
        let cases: [(&str, Option<&str>); 9] = [
            ("sevre", Some("serve")),
            ("serv", Some("serve")),
            ("demoo", Some("demo")),
            ("lba", Some("lab")),
            ("serve", None),
            ("frobnicate", None),
            ("x", None),
            ("", None),
            ("bench-codex", None),
        ];
        for (word, expected) in cases {
            assert_eq!(near(word, &commands), expected, "{word:?}");
        }
        assert_eq!(near("codex", &["codec", "overload"]), Some("codec"));
        assert_eq!(near(&"s".repeat(NEAR_WORD_MAX + 1), &["s"]), None);
    }

    #[test]
    fn help_texts_fit_a_hundred_columns() {
        for usage in &USAGES {
            let many = ["an-experiment-name"; 12];
            for line in text(usage, &many).lines().skip(1) {
                assert!(line.chars().count() <= 100, "{:?}: {line:?}", usage.path);
            }
        }
    }
}
