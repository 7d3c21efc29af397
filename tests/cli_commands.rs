//! `demo`, `attack`, `lab`, `inspect` and `bench` as black boxes: the built binary, its stdout
//! line, its exit status, and a `--trace` that never shows a token or a session id.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Output, Stdio};

use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;

const BIN: &str = env!("CARGO_BIN_EXE_loopback-mcp-http");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run the binary")
}

/// [`run`] with `input` on its standard input.
fn run_with_input(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the binary");
    child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    child.wait_with_output().expect("wait")
}

/// Runs every command at once, each its own process read by its own thread, and returns their
/// outputs in order: for runs that spend their time waiting (a stream's `retry`), not computing.
fn run_together(commands: &[&[&str]]) -> Vec<Output> {
    std::thread::scope(|scope| {
        let runs: Vec<_> = commands.iter().map(|args| scope.spawn(|| run(args))).collect();
        runs.into_iter().map(|r| r.join().expect("a run's thread")).collect()
    })
}

/// The last stdout line as JSON.
fn summary(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or("");
    json::decode(last.as_bytes(), Limits::DEFAULT.json_depth_max)
        .unwrap_or_else(|e| panic!("not a JSON line ({e}): {stdout}"))
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The longest run of lowercase hexadecimal digits: tokens are 64 and session ids 48 of them.
fn longest_hex_run(text: &str) -> usize {
    text.split(|c: char| !matches!(c, '0'..='9' | 'a'..='f')).map(str::len).max().unwrap_or(0)
}

/// A run of a command with `--trace` shows the wire on stderr, but never a token or a session
/// id, on stderr or stdout.
fn assert_traced_without_secrets(args: &[&str], output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("> POST /mcp HTTP/1.1") && stderr.contains("< HTTP/1.1 200 OK"),
        "{args:?}: no wire trace"
    );
    assert!(stderr.contains("Authorization: [redacted]"), "{args:?}");
    assert!(longest_hex_run(&stderr) < 32, "{args:?}: a token or session id in the trace");
    assert!(longest_hex_run(&String::from_utf8_lossy(&output.stdout)) < 32, "{args:?}: stdout");
}

#[test]
fn demo_passes_in_each_era_and_counts_its_round_trips() {
    let line = |trips: u64, versions: &str| {
        format!(
            r#"{{"http_round_trips":{trips},"profile":"loopback-streamable-http-teaching-profile-v1","protocol_version":"{versions}","verdict":"PASS"}}"#
        )
    };
    // Each run traced: a session's id is redacted too wherever a session is opened.
    let cases: [(&[&str], String); 4] = [
        (&["demo", "--trace"], line(12, "2025-11-25")),
        (&["demo", "--protocol-versions", "2026-07-28", "--trace"], line(6, "2026-07-28")),
        (
            &["demo", "--protocol-versions", "2025-11-25,2026-07-28", "--trace"],
            line(18, "2025-11-25,2026-07-28"),
        ),
        (
            &["demo", "--protocol-versions", "2026-07-28,2025-11-25", "--trace"],
            line(18, "2025-11-25,2026-07-28"),
        ),
    ];
    let commands: Vec<&[&str]> = cases.iter().map(|(args, _)| *args).collect();
    for ((args, expected), output) in cases.iter().zip(run_together(&commands)) {
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(&json::encode(&summary(&output)), expected, "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 1, "exactly one line");
        assert_traced_without_secrets(args, &output);
        let sessions = args.get(2) != Some(&"2026-07-28");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.contains("MCP-Session-Id: [redacted]"), sessions, "{args:?}");
    }
    let refused = run(&["demo", "--protocol-versions", "2027-01-01"]);
    assert_eq!((refused.status.code(), refused.stdout.len()), (Some(2), 0));
}

#[test]
fn attack_blocks_every_attack_and_lists_each() {
    let output = run(&["attack", "--trace"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_traced_without_secrets(&["attack", "--trace"], &output);
    assert!(String::from_utf8_lossy(&output.stderr).contains("MCP-Session-Id: [redacted]"));
    let line = summary(&output);
    assert_eq!(text(&line, "verdict"), "BLOCK");
    let blocked =
        line.get("blocked_attacks").and_then(Value::as_number).and_then(|n| n.as_u64()).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().filter(|l| l.starts_with("blocked")).count() as u64, blocked);
    assert_eq!(blocked, 84, "README names 84 attacks");
    assert!(!stderr.contains("GOT THROUGH"));
    for named in [
        "foreign Origin",
        "another resource",
        "another principal's session",
        "revoked token on a live session",
        "Transfer-Encoding with Content-Length",
        "a header field value over the budget",
        "query string",
        "revision change",
        "--chunked, CL.TE",
        "--chunked, a request hidden in a quoted chunk extension",
        "Mcp-Method that disagrees with the body",
        "a sentinel that decodes to CR LF",
        "Mcp-Name twice",
        "alice's fifth listen (4 per principal)",
        "stream flood by one principal",
        "another principal's listen during the flood",
        "HTTP/1.0 stream",
        "a client that never reads its open stream",
    ] {
        assert!(stderr.contains(named), "no attack mentions {named:?}");
    }
}

#[test]
fn lab_runs_every_experiment_as_predicted() {
    let output = run(&["lab", "run", "all", "--trace"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
    assert_traced_without_secrets(&["lab", "run", "all", "--trace"], &output);
    assert!(String::from_utf8_lossy(&output.stderr).contains("MCP-Session-Id: [redacted]"));
    let line = summary(&output);
    assert_eq!(text(&line, "verdict"), "PASS");
    assert_eq!(line.get("mismatches"), Some(&Value::from(0u64)));
    let list = run(&["lab", "list"]);
    let listed = String::from_utf8_lossy(&list.stdout).into_owned();
    assert!(listed.lines().all(|l| l.chars().count() <= 100), "{listed}");
    let names: Vec<String> =
        listed.lines().filter(|l| !l.starts_with(' ')).map(str::to_owned).collect();
    assert_eq!(names.len(), 25);
    // The list says what each tries, never what comes back: no status and no error code.
    let statuses = listed
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| w.parse::<u16>().is_ok_and(|n| (100..600).contains(&n)) || w.contains("_not_"));
    assert_eq!(statuses.collect::<Vec<_>>(), Vec::<&str>::new(), "{listed}");
    let one = run(&["lab", "run", &names[0]]);
    assert_eq!((one.status.code(), text(&summary(&one), "verdict")), (Some(0), "PASS"));
    assert_eq!(run(&["lab", "run", "no-such-experiment"]).status.code(), Some(2));
}

#[test]
fn lab_ask_shows_each_request_then_judges_the_guess_with_the_deciding_stage() {
    // (the guesses typed, one a line, and what each is told)
    let rows: [(&str, [&str; 2], (u64, u64)); 3] = [
        ("200\n406\n", ["you said  200: right", "you said  406: right"], (2, 2)),
        ("200\n415\n", ["you said  200: right", "you said  415: wrong"], (2, 1)),
        ("", ["you said  nothing: wrong", "you said  nothing: wrong"], (2, 0)),
    ];
    for (typed, told, (guesses, right)) in rows {
        let output =
            run_with_input(&["lab", "run", "accept-without-sse", "--ask"], typed.as_bytes());
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{stdout}");
        for expected in told {
            assert!(stdout.contains(expected), "{typed:?}: {expected:?} in {stdout}");
        }
        assert!(stdout.contains("> Accept: application/json\\r\\n"), "{stdout}");
        assert!(stdout.contains("decided   stage 3: route and media types"), "{stdout}");
        assert!(longest_hex_run(&stdout) < 32, "no token or session id is shown: {stdout}");
        let line = summary(&output);
        assert_eq!((count(&line, "guesses"), count(&line, "right")), (guesses, right), "{typed:?}");
        // How the learner did is a line of its own, right before the summary; the exit status
        // is the lab's own predictions'.
        let tail: Vec<&str> = stdout.lines().rev().take(2).collect();
        assert_eq!(tail[1], format!("   your guesses: {right} right of {guesses}"), "{stdout}");
        // Nothing before the first prompt gives the answer away; the why comes after the last.
        let before = stdout.split("your guess, the status:").next().unwrap_or_default();
        assert!(!before.contains("406") && !before.contains("not_acceptable"), "{before}");
        assert!(
            before.contains("   A ping whose Accept lists application/json but not"),
            "{before}"
        );
        let why = stdout.find("   why      A POST must list").expect("the why");
        assert!(why > stdout.rfind("you said").unwrap_or(0), "{stdout}");
    }
    // A client's opening shows no request first: its guess is asked before its answer is printed.
    let output = run_with_input(&["lab", "run", "era-probe", "--ask"], b"400\n200\n200\n404\n");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let told: Vec<&str> = stdout.lines().filter(|l| l.contains("you said")).collect();
    assert_eq!(told.len(), 4, "{stdout}");
    assert!(told[1].ends_with("you said  200: right"), "{stdout}");
    assert!(told[3].ends_with("you said  404: wrong"), "{stdout}");
    let line = summary(&output);
    assert_eq!((count(&line, "guesses"), count(&line, "right")), (4, 3));
    // An experiment that starts a server of its own keeps it watched: every observation names
    // the stage that decided it.
    let output = run_with_input(&["lab", "run", "step-up-one-challenge", "--ask"], b"");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let decided = stdout.lines().filter(|l| l.trim_start().starts_with("decided ")).count();
    assert_eq!(decided as u64, count(&summary(&output), "observations"), "{stdout}");
}

#[test]
fn the_browser_experiment_is_skipped_cleanly_without_chromium() {
    for ask in [None, Some("--ask")] {
        let output = Command::new(BIN)
            .args(["lab", "run", "dns-rebinding"].into_iter().chain(ask))
            .env("LOOPBACK_MCP_CHROMIUM", "/nonexistent/chromium")
            .stdin(Stdio::null())
            .output()
            .expect("run the binary");
        assert_eq!(output.status.code(), Some(0), "{ask:?}");
        let line = summary(&output);
        let counts =
            ["experiments", "observations", "mismatches", "skipped"].map(|k| count(&line, k));
        assert_eq!(counts, [0, 0, 0, 1], "{ask:?}");
        assert_eq!(text(&line, "verdict"), "PASS");
        assert!(String::from_utf8_lossy(&output.stdout).contains("apt-get install chromium"));
    }
}

#[test]
fn trace_bytes_shows_line_endings_and_makes_a_bare_lf_visible() {
    let output = run(&["attack", "--trace-bytes"]);
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The bare-LF attack's request line ends in a lone \n; a valid one in \r\n.
    assert!(stderr.contains("> POST /mcp HTTP/1.1\\n\n"), "no bare LF shown");
    assert!(stderr.contains("> POST /mcp HTTP/1.1\\r\\n\n"));
    assert!(stderr.contains("-- end of head ("), "no head/body boundary");
    assert!(stderr.contains("Authorization: [redacted]\\r\\n"));
    assert!(longest_hex_run(&stderr) < 32, "a token or session id in the trace");
    assert_eq!(run(&["demo", "--trace", "--trace-bytes"]).status.code(), Some(2));
}

#[test]
fn help_wraps_at_word_boundaries_within_a_hundred_columns() {
    let output = run(&["--help"]);
    let text = String::from_utf8_lossy(&output.stdout);
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "too long: {line:?}");
    }
    // In the descriptions (after the first empty line), a sentence that goes on in the next line
    // fills this one first: no line stops short in the middle of a sentence.
    let descriptions: Vec<&str> = text.lines().skip_while(|l| !l.is_empty()).collect();
    for pair in descriptions.windows(2) {
        let (this, next) = (pair[0], pair[1]);
        let sentence_goes_on = next.starts_with("          ") && !this.ends_with('.');
        assert!(
            !sentence_goes_on || this.chars().count() >= 70,
            "a line broken mid-sentence: {this:?}"
        );
    }
}

#[test]
fn a_flag_cut_short_or_with_its_value_joined_is_named_and_the_value_never_repeated() {
    // (the arguments, what the one line says)
    let cases: [(&[&str], &str); 6] = [
        (
            &["serve", "--session-ttl", "5"],
            "unknown argument \"--session-ttl\" (did you mean `--session-ttl-secs`?)",
        ),
        (
            &["serve", "--session-ttl=5"],
            "unknown argument \"--session-ttl=…\" (did you mean `--session-ttl-secs`?)",
        ),
        (&["serve", "--stream", "5"], "(did you mean `--stream-keepalive-secs`?)"),
        // A stem several flags share names them all; a near miss among them picks one.
        (
            &["serve", "--max-sess", "5"],
            "(did you mean one of `--max-sessions`, `--max-sessions-per-principal`?)",
        ),
        (&["lab", "run", "all", "--trace-b"], "(did you mean `--trace-bytes`?)"),
        (
            &["probe", "http://127.0.0.1:9/mcp", "--token=SECRET"],
            "unknown argument \"--token=…\" (write --token and its value apart)",
        ),
    ];
    for (args, says) in cases {
        let output = run(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!stderr.contains("SECRET") && !stderr.contains("=5"), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

#[test]
fn usage_errors_exit_2_with_one_line_naming_the_mistake_and_the_form() {
    let cases: [(&[&str], &str, &str); 26] = [
        (&[], "expected a command", "usage: loopback-mcp-http <demo|"),
        (&["frobnicate"], "unknown command \"frobnicate\";", "usage: loopback-mcp-http <demo|"),
        (&["sevre"], "(did you mean `serve`?)", "usage: loopback-mcp-http <demo|"),
        (
            &["help", "nosuch"],
            "no command \"nosuch\" to explain",
            "usage: loopback-mcp-http <demo|",
        ),
        (
            &["demo", "extra"],
            "unknown argument \"extra\" (the flags are --protocol-versions, --trace, --trace-bytes)",
            "usage: loopback-mcp-http demo [",
        ),
        (
            &["demo", "--protocol-version", "x"],
            "(did you mean `--protocol-versions`?)",
            "usage: loopback-mcp-http demo [",
        ),
        (
            &["attack", "x"],
            "unknown argument \"x\" (the flags are --trace, --trace-bytes)",
            "usage: loopback-mcp-http attack [",
        ),
        // A near miss of a flag is named among the command's own flags, trace flags included.
        (&["demo", "--trac"], "(did you mean `--trace`?)", "usage: loopback-mcp-http demo ["),
        (&["attack", "--trac"], "(did you mean `--trace`?)", "usage: loopback-mcp-http attack ["),
        (
            &["lab", "run", "all", "--trac"],
            "(did you mean `--trace`?)",
            "usage: loopback-mcp-http lab run",
        ),
        (
            &["probe", "http://127.0.0.1:9/mcp", "--trace-byte"],
            "(did you mean `--trace-bytes`?)",
            "usage: loopback-mcp-http probe URL",
        ),
        (&["lab"], "lab needs list or run", "usage: loopback-mcp-http lab list |"),
        (&["lab", "rn"], "(did you mean `run`?)", "usage: loopback-mcp-http lab list |"),
        (
            &["lab", "run", "all", "--ask", "--trace"],
            "--ask shows each request itself",
            "usage: loopback-mcp-http lab run",
        ),
        (
            &["lab", "run", "nope"],
            "no experiment \"nope\" (`lab list`",
            "usage: loopback-mcp-http lab run",
        ),
        (
            &["lab", "run", "era-prob"],
            "(did you mean `era-probe`?)",
            "usage: loopback-mcp-http lab run",
        ),
        (&["inspect", "yaml"], "unknown subject \"yaml\"", "usage: loopback-mcp-http inspect <"),
        (&["inspect", "chunkd"], "(did you mean `chunked`?)", "usage: loopback-mcp-http inspect <"),
        (
            &["serve", "--port=8080"],
            "unknown argument \"--port=…\" (write --port and its value apart)",
            "usage: loopback-mcp-http serve [",
        ),
        (
            &["serve", "--wokers", "2"],
            "(did you mean `--workers`?)",
            "usage: loopback-mcp-http serve [",
        ),
        (
            &["serve", "--max-sessions", "0"],
            "sessions_active_max",
            "usage: loopback-mcp-http serve [",
        ),
        (
            &["bench", "codec", "x"],
            "bench codec takes no arguments",
            "usage: loopback-mcp-http bench codec",
        ),
        (
            &["serve", "--watch", "--watch=bytes"],
            "--watch and --watch=bytes exclude each other",
            "usage: loopback-mcp-http serve [",
        ),
        (&["bench", "codex"], "(did you mean `codec`?)", "usage: loopback-mcp-http bench ["),
        (
            &["control", "a.json"],
            "the verbs are revoke ROLE,",
            "usage: loopback-mcp-http control <",
        ),
        (
            &["control", "a.json", "delete", "full"],
            "unknown verb \"delete\"; the verbs are revoke ROLE, bump-revision ROLE, change-tools, stats",
            "usage: loopback-mcp-http control <",
        ),
    ];
    for (args, problem, form) in cases {
        let output = run(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(problem), "{args:?}: {stderr}");
        assert!(stderr.contains(form), "{args:?}: {stderr}");
    }
}

#[test]
fn version_prints_the_crate_version() {
    let output = run(&["--version"]);
    assert_eq!(output.status.code(), Some(0));
    let expected = format!("loopback-mcp-http {}\n", env!("CARGO_PKG_VERSION"));
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
}

#[test]
fn every_command_answers_help_with_its_own_usage() {
    let cases: [&[&str]; 20] = [
        &["--help"],
        &["help"],
        &["demo", "--help"],
        &["attack", "--help"],
        &["lab", "--help"],
        &["lab", "list", "--help"],
        &["lab", "run", "--help"],
        &["serve", "--help"],
        &["control", "--help"],
        &["inspect", "--help"],
        &["inspect", "request", "--help"],
        &["inspect", "chunked", "-h"],
        &["inspect", "connection", "--help"],
        &["bench", "--help"],
        &["bench", "codec", "--help"],
        &["bench", "overload", "--help"],
        &["help", "serve"],
        &["inspect", "sse", "--help"],
        &["inspect", "json", "--help"],
        &["inspect", "mirroring", "--help"],
    ];
    for args in cases {
        let output = run(args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let words: Vec<&str> =
            args.iter().copied().filter(|a| !a.starts_with('-') && *a != "help").collect();
        let expected = format!("usage: loopback-mcp-http {}", words.join(" "));
        assert!(stdout.starts_with(expected.trim_end()), "{args:?}: {stdout}");
    }
    let lab = String::from_utf8_lossy(&run(&["lab", "run", "--help"]).stdout).into_owned();
    assert!(lab.contains("chunked-body") && lab.contains("stream-resumption"), "{lab}");
    let serve = String::from_utf8_lossy(&run(&["serve", "--help"]).stdout).into_owned();
    assert!(serve.contains("Fixture roles: full, connect_only,"), "{serve}");
}

#[test]
fn inspect_gives_the_readme_verdicts_and_exit_statuses() {
    let cases: [(&str, &[u8], &str, i32); 4] = [
        (
            "request",
            b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
            r#"{"bytes_after_head":0,"content_length":0,"expect_continue":false,"fields":[{"name":"Host","value":"127.0.0.1:8080"}],"head_bytes":43,"keep_alive":true,"method":"GET","target":"/mcp","verdict":"complete","version":"HTTP/1.1"}"#,
            0,
        ),
        (
            "request",
            b"GET /mcp?access_token=x HTTP/1.1\r\nHost: a\r\n\r\n",
            r#"{"code":"query_forbidden","offset":8,"status":400,"verdict":"refused"}"#,
            1,
        ),
        (
            "json",
            br#"{"id":1,"id":2}"#,
            r#"{"code":"json_duplicate_key","offset":8,"verdict":"refused"}"#,
            1,
        ),
        (
            "sse",
            b"id: 7\ndata: {}\n\n",
            r#"{"events":[{"data":"{}","id":"7"}],"verdict":"complete"}"#,
            0,
        ),
    ];
    for (subject, input, expected, status) in cases {
        let output = run_with_input(&["inspect", subject], input);
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim_end(), expected, "{subject}");
        assert_eq!(output.status.code(), Some(status), "{subject}");
    }
}

/// A number of a JSON line.
fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_number).and_then(|n| n.as_u64()).unwrap_or(u64::MAX)
}

#[test]
fn bench_serves_its_own_connections_without_hitting_a_quota() {
    let output = run(&["bench", "--connections", "16", "--seconds", "0.3"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let line = summary(&output);
    assert_eq!(count(&line, "errors"), 0, "{}", json::encode(&line));
    let answers = line.get("answers").and_then(Value::as_object).expect("answers by status");
    let statuses: Vec<&str> = answers.keys().map(|k| k.as_ref()).collect();
    assert_eq!(statuses, ["200", "202"], "pings and the sessions' initialized notes only");
}

#[test]
fn bench_exits_1_on_an_unexpected_answer_and_503s_only_count_as_shed_when_allowed() {
    use loopback_mcp_http::auth::fixtures::Role;
    use loopback_mcp_http::server::ServerConfig;
    use loopback_mcp_http::server::fixture::start_with_fixture;
    // One worker for four connections: the others get the 503 of a full pool.
    let limits = Limits { requests_in_processing_max: 1, ..Limits::DEFAULT };
    let (server, fixture) =
        start_with_fixture(ServerConfig { limits, ..ServerConfig::default() }).expect("start");
    let url = format!("http://{}/mcp", server.address());
    let token = fixture.token(Role::Full);
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", "--route", "initialize", "--url", &url, "--token", token];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--seconds", "0.3"]);
        run(&args)
    };
    let output = bench(&["--connections", "4"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not answered as expected"), "{stderr}");
    assert!(count(&summary(&output), "status_503") > 0);
    let shed = bench(&["--connections", "4", "--allow-503"]);
    let stderr = String::from_utf8_lossy(&shed.stderr);
    assert_eq!(shed.status.code(), Some(0), "only 503s went wrong: {stderr}");
    let wrong = bench(&["--token", "0000", "--connections", "1"]);
    assert_eq!(wrong.status.code(), Some(2), "--token given twice is a usage error");
    let refused = run(&["bench", "--url", &url, "--token", "not-a-token", "--seconds", "0.3"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("nothing was answered"), "{stderr}");
}

#[test]
fn bench_at_a_rate_sends_on_schedule_and_reads_the_servers_cpu_time() {
    let args = ["bench", "--rate", "200", "--connections", "2", "--seconds", "0.3"];
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let line = summary(&output);
    let shown = json::encode(&line);
    assert_eq!(count(&line, "sent") + count(&line, "unsent"), 60, "{shown}");
    assert!(shown.contains(r#""warmup_seconds":0.300"#), "{shown}");
    assert_eq!(count(&line, "errors"), 0, "{shown}");
    assert_eq!(count(&line, "operations"), count(&line, "sent"), "{shown}");
    for key in ["server_user_us_per_op", "server_system_us_per_op", "clock_ticks_per_second"] {
        assert!(line.get(key).is_some(), "{key}: {shown}");
    }
    assert_eq!(text(&line, "server_cpu"), "threads loopback-mcp-* of this process");
    for (args, problem) in [
        (&["bench", "--pid", "1"][..], "--pid goes with --rate and --url"),
        (&["bench", "--route", "raw-ping"][..], "--route raw-ping needs --url"),
        (&["bench", "--rate", "0"][..], "--rate must be"),
        (&["bench", "--seconds", "0.05"][..], "--seconds must be 0.1 to 600"),
        (&["bench", "--seconds", "1.2345"][..], "--seconds must be 0.1 to 600"),
        (&["bench", "--seconds", "601"][..], "--seconds must be 0.1 to 600"),
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains(problem), "{args:?}");
    }
}

/// Which of a command's streams the reader closes after its first line.
#[derive(Clone, Copy, Debug)]
enum Closed {
    Stdout,
    Stderr,
}

/// A command, the stream whose reader closes, what it is sent then, and the statuses it may end with.
type ClosedRow<'a> = (&'a [&'a str], Closed, &'a [u8], &'a [i32]);

#[test]
fn every_command_stops_quietly_when_its_reader_closes_after_one_line() {
    // (the command, the stream whose reader goes, what it is sent once that reader has gone, the
    // statuses it may end with: 141 when it wrote again and found its reader gone, its own
    // status when everything it had to write fit in the pipe before the reader went)
    let request = std::env::temp_dir().join(format!("closed-reader-{}.http", std::process::id()));
    std::fs::write(&request, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n").expect("write the request");
    let request = request.to_str().expect("a UTF-8 temporary path").to_owned();
    // A live server for the probe, whose progress lines and grid are many.
    let mut live = Command::new(BIN)
        .args(["serve", "--protocol-versions", "2025-11-25,2026-07-28"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start serve");
    let mut hello = String::new();
    BufReader::new(live.stdout.take().expect("stdout")).read_line(&mut hello).expect("its line");
    let hello = json::decode(hello.as_bytes(), 8).expect("serve's JSON line");
    let url = hello.get("url").and_then(Value::as_str).expect("a url").to_owned();
    let full = hello.get("tokens").and_then(|t| t.get("full")).and_then(Value::as_str);
    let full = full.expect("the full principal's token").to_owned();
    let rows: [ClosedRow; 14] = [
        (&["lab", "list"], Closed::Stdout, b"", &[0, 141]),
        (&["lab", "run", "all"], Closed::Stdout, b"", &[141]),
        (&["attack"], Closed::Stderr, b"", &[0, 141]),
        (&["attack", "--trace"], Closed::Stderr, b"", &[0, 141]),
        (&["demo", "--trace-bytes"], Closed::Stderr, b"", &[0]),
        (&["inspect", "connection", &request], Closed::Stdout, b"", &[0, 1, 141]),
        (&["help"], Closed::Stdout, b"", &[0, 141]),
        (&["bench", "--seconds", "0.2", "--connections", "1"], Closed::Stdout, b"", &[0]),
        (&["probe", "http://127.0.0.1:1/mcp"], Closed::Stderr, b"", &[2]),
        // Its trace is over 100 KiB, more than a pipe holds: it writes after the reader goes.
        (&["probe", &url, "--token", &full, "--trace-bytes"], Closed::Stderr, b"", &[141]),
        // The grid is one write: it may fit in the pipe before the reader goes.
        (&["probe", &url], Closed::Stdout, b"", &[0, 1, 141]),
        (&["lab", "run", "accept-without-sse", "--ask"], Closed::Stdout, b"", &[141]),
        (&["control", "/nonexistent/serve.json", "stats"], Closed::Stderr, b"", &[1]),
        // `serve` prints its announcement, then the control reply to a command on stdin.
        (&["serve"], Closed::Stdout, b"stats\n", &[141]),
    ];
    for (args, closed, later, statuses) in rows {
        let mut child = Command::new(BIN)
            .args(args)
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run the binary");
        let (out, err) =
            (child.stdout.take().expect("stdout"), child.stderr.take().expect("stderr"));
        let (read, mut kept): (Box<dyn Read>, Box<dyn Read>) = match closed {
            Closed::Stdout => (Box::new(out), Box::new(err)),
            Closed::Stderr => (Box::new(err), Box::new(out)),
        };
        let mut first = String::new();
        BufReader::new(read).read_line(&mut first).expect("a first line");
        // The reader and its buffer are dropped: the pipe is closed.
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(later).and_then(|()| stdin.flush());
        drop(stdin);
        let mut rest = Vec::new();
        let _ = kept.read_to_end(&mut rest);
        let code = child.wait().expect("wait").code();
        let rest = String::from_utf8_lossy(&rest);
        assert!(!first.is_empty(), "{args:?}: a first line");
        assert!(!rest.contains("panicked") && !rest.contains("backtrace"), "{args:?}: {rest}");
        assert!(code.is_some_and(|c| statuses.contains(&c)), "{args:?}: {code:?}, {rest}");
    }
    let _ = live.kill();
    let _ = live.wait();
}
