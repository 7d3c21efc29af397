//! The control channel as a black box: `serve` names an owner-only file, `loopback-mcp-http
//! control` proves its secret and gets the reply, and anyone without the secret is refused with
//! nothing done. No local peer can hold the channel: idle, trickling and late connections ahead
//! of the owner delay nothing, and a line that misses its deadline never runs. No token ever
//! crosses the channel, and none is written to a file others could read.

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use common::serve::{BIN, ScratchDir, Serve};
use loopback_mcp_http::client::HttpConnection;
use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests::{self, ClientInfo};

/// The line deadline these servers are started with (`--limit`): short, so that waiting for it
/// takes little time; the rules do not depend on its length.
const DEADLINE: Duration = Duration::from_millis(300);
const DEADLINE_LIMIT: &str = "control_line_deadline=300ms";
const SLOTS: usize = Limits::DEFAULT.control_connections_max;

struct Running {
    serve: Serve,
    hello: Value,
    /// The announcement file, written by `serve --announce`.
    saved: PathBuf,
    dir: ScratchDir,
}

fn start() -> Running {
    let dir = ScratchDir::new("control");
    let saved = dir.join("serve.json");
    let (serve, hello) = Serve::announced(&["--limit", DEADLINE_LIMIT], &saved);
    Running { serve, hello, saved, dir }
}

impl Running {
    fn text(&self, key: &str) -> &str {
        self.hello.get(key).and_then(Value::as_str).unwrap_or_else(|| panic!("no {key}"))
    }

    fn token(&self, role: &str) -> &str {
        self.hello.get("tokens").and_then(|t| t.get(role)).and_then(Value::as_str).unwrap()
    }

    fn address(&self) -> SocketAddr {
        self.text("url").trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap()
    }

    /// The status an `initialize` with `role`'s token gets.
    fn initialize_status(&self, role: &str) -> u16 {
        let address = self.address();
        let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
        let client = ClientInfo { name: "control-test", version: "1" };
        let body = json::encode(&requests::initialize_current(&Id::from(1), client));
        let spec =
            RequestSpec::mcp_post(&address.to_string(), self.token(role), None, body.as_bytes());
        conn.exchange(&spec.bytes()).unwrap().status
    }

    /// The control file's port and secret.
    fn channel(&self) -> (u16, String) {
        let file = json::decode(&fs::read(self.text("control")).unwrap(), 8).unwrap();
        let port = file.get("port").and_then(Value::as_number).and_then(|n| n.as_u64()).unwrap();
        let secret = file.get("secret").and_then(Value::as_str).unwrap().to_owned();
        (u16::try_from(port).unwrap(), secret)
    }

    /// Every token `serve` printed.
    fn tokens(&self) -> Vec<String> {
        let Some(Value::Object(tokens)) = self.hello.get("tokens") else { panic!("no tokens") };
        tokens.values().filter_map(Value::as_str).map(str::to_owned).collect()
    }

    /// The revision `bump-revision full` reports, through the stdin control plane.
    fn bump_on_stdin(&mut self) -> u64 {
        let reply = self.serve.control("bump-revision full");
        reply.get("revision").and_then(Value::as_number).and_then(|n| n.as_u64()).unwrap()
    }
}

/// Runs `control` with these words after the saved announcement: its exit status, stdout and
/// stderr, and how long it took.
fn control(saved: &Path, words: &[&str]) -> (i32, String, String, Duration) {
    let started = Instant::now();
    let output = Command::new(BIN).arg("control").arg(saved).args(words).output().unwrap();
    let took = started.elapsed();
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim_end().to_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr), took)
}

/// One raw line on the control port, and the reply.
fn raw_line(port: u16, line: &[u8]) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(line).unwrap();
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).unwrap();
    reply.trim_end().to_owned()
}

/// Connections to the control port that send nothing.
fn idle(port: u16, n: usize) -> Vec<TcpStream> {
    (0..n).map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap()).collect()
}

/// The reply waiting on `stream`, or what ended it.
fn read_reply(mut stream: &TcpStream) -> String {
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut reply = Vec::new();
    match stream.read_to_end(&mut reply) {
        Ok(_) => String::from_utf8_lossy(&reply).trim_end().to_owned(),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn the_control_file_is_its_owners_alone_and_holds_no_token() {
    let running = start();
    let file = PathBuf::from(running.text("control"));
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(file.parent().unwrap()), 0o700);
    let contents = fs::read_to_string(&file).unwrap();
    for token in running.tokens() {
        assert!(!contents.contains(&token), "a token in the control file");
    }
}

#[test]
fn serve_announce_writes_its_line_owner_only_and_refuses_a_file_that_exists() {
    let running = start();
    let mode = fs::metadata(&running.saved).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let written = fs::read_to_string(&running.saved).unwrap();
    assert!(written.ends_with("}\n") && written.matches('\n').count() == 1, "{written:?}");
    assert!(written.contains(running.token("full")));
    // An existing file, a symbolic link and a directory are each refused, untouched.
    let link = running.dir.join("link.json");
    std::os::unix::fs::symlink(running.dir.join("elsewhere.json"), &link).unwrap();
    for path in [running.saved.clone(), link, running.dir.0.clone()] {
        let before = fs::symlink_metadata(&path).unwrap().len();
        let output = Command::new(BIN).args(["serve", "--announce"]).arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{}: {stderr}", path.display());
        assert!(stderr.contains("--announce") && stderr.contains("usage:"), "{stderr}");
        assert!(output.stdout.is_empty(), "nothing printed, no token above all");
        assert_eq!(fs::symlink_metadata(&path).unwrap().len(), before);
    }
    assert!(!running.dir.join("elsewhere.json").exists(), "the link was not followed");
}

#[test]
fn control_revokes_and_bumps_on_the_next_request_and_prints_the_reply() {
    let running = start();
    assert_eq!(running.initialize_status("full"), 200);
    let (code, out, _, _) = control(&running.saved, &["revoke", "full"]);
    assert_eq!((code, out.as_str()), (0, r#"{"command":"revoke","ok":true,"role":"full"}"#));
    assert_eq!(running.initialize_status("full"), 401, "the very next request");
    assert_eq!(running.initialize_status("other_subject"), 200);
    let (code, out, _, _) = control(&running.saved, &["bump-revision", "other_subject"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(r#""revision":2"#), "{out}");
    assert_eq!(running.initialize_status("other_subject"), 401);
    // A mistake names what there is.
    let (code, out, _, _) = control(&running.saved, &["revoke", "ful"]);
    assert_eq!(code, 1);
    assert!(
        out.contains(r#""error":"unknown_role""#) && out.contains(r#""connect_only""#),
        "{out}"
    );
    for token in running.tokens() {
        assert!(!out.contains(&token), "a token crossed the channel");
    }
}

#[test]
fn control_also_reads_a_line_saved_from_stdout() {
    let dir = ScratchDir::new("control-stdout");
    let mut serve = Serve::start(&[]);
    let hello = serve.line();
    let saved = dir.join("saved.json");
    fs::write(&saved, json::encode(&hello)).unwrap();
    let (code, out, _, _) = control(&saved, &["revoke", "connect_only"]);
    assert_eq!(
        (code, out.as_str()),
        (0, r#"{"command":"revoke","ok":true,"role":"connect_only"}"#)
    );
}

#[test]
fn a_line_without_the_secret_is_refused_and_does_nothing() {
    let running = start();
    let (port, secret) = running.channel();
    let refused = r#"{"error":"not_authorized","ok":false}"#;
    let wrong = "0".repeat(secret.len());
    let cases: [Vec<u8>; 4] = [
        b"revoke connect_only\n".to_vec(),
        format!("{wrong} revoke connect_only\n").into_bytes(),
        format!("{} revoke connect_only\n", &secret[..secret.len() - 1]).into_bytes(),
        format!("{secret}x revoke connect_only\n").into_bytes(),
    ];
    for line in cases {
        assert_eq!(raw_line(port, &line), refused, "{:?}", String::from_utf8_lossy(&line));
    }
    assert_eq!(running.initialize_status("connect_only"), 200, "nothing was revoked");
    let with_secret = raw_line(port, format!("{secret} revoke connect_only\n").as_bytes());
    assert!(with_secret.contains(r#""ok":true"#), "{with_secret}");
    assert_eq!(running.initialize_status("connect_only"), 401);
}

#[test]
fn control_refuses_a_control_file_others_could_read() {
    let running = start();
    let copy_dir = running.dir.join("open");
    fs::create_dir(&copy_dir).unwrap();
    fs::set_permissions(&copy_dir, fs::Permissions::from_mode(0o700)).unwrap();
    let copy = copy_dir.join("control");
    fs::copy(running.text("control"), &copy).unwrap();
    fs::set_permissions(&copy, fs::Permissions::from_mode(0o644)).unwrap();
    let mut hello = running.hello.clone();
    if let Value::Object(members) = &mut hello {
        members.insert("control".into(), copy.to_string_lossy().into_owned().into());
    }
    let saved = copy_dir.join("serve.json");
    fs::write(&saved, json::encode(&hello)).unwrap();
    let (code, out, err, _) = control(&saved, &["revoke", "full"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("mode 644"), "{err}");
    assert_eq!(running.initialize_status("full"), 200, "nothing was sent");
    let (code, _, err, _) = control(Path::new("/nonexistent/serve.json"), &["revoke", "full"]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/serve.json"), "{err}");
}

/// The owner's `revoke full` behind whatever `ahead` holds open: answered within the line
/// deadline and a second, and in force on the next request.
fn owner_revokes_in_time(running: &Running, ahead: &str) {
    let (code, out, err, took) = control(&running.saved, &["revoke", "full"]);
    assert_eq!(code, 0, "behind {ahead}: {out} {err}");
    assert!(took < DEADLINE + Duration::from_secs(1), "behind {ahead}: took {took:?}");
    assert_eq!(running.initialize_status("full"), 401, "behind {ahead}: the next request");
}

#[test]
fn twenty_idle_connections_ahead_do_not_delay_the_owner() {
    let running = start();
    let (port, _) = running.channel();
    let held = idle(port, 20);
    thread::sleep(Duration::from_millis(100));
    owner_revokes_in_time(&running, "20 idle connections");
    // Each idle one is answered at its own deadline, and nothing of it ran.
    for stream in &held {
        assert_eq!(read_reply(stream), r#"{"error":"deadline_passed","ok":false}"#);
    }
}

#[test]
fn a_trickling_connection_ahead_does_not_delay_the_owner_and_ends_at_its_deadline() {
    let running = start();
    let (port, _) = running.channel();
    let mut trickler = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let opened = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let trickling = {
        let (mut stream, stop) = (trickler.try_clone().unwrap(), Arc::clone(&stop));
        thread::spawn(move || {
            // A byte every 50 ms, never a newline: each read is prompt, the line never ends.
            while !stop.load(Ordering::Relaxed) && stream.write_all(b"x").is_ok() {
                thread::sleep(Duration::from_millis(50));
            }
        })
    };
    thread::sleep(Duration::from_millis(100));
    owner_revokes_in_time(&running, "a trickling connection");
    let reply = read_reply(&trickler);
    let ended = opened.elapsed();
    stop.store(true, Ordering::Relaxed);
    trickling.join().unwrap();
    assert_eq!(reply, r#"{"error":"deadline_passed","ok":false}"#);
    assert!(ended < DEADLINE + Duration::from_secs(1), "the trickler was held {ended:?}");
    let _ = trickler.write_all(b"\n");
}

#[test]
fn a_line_that_arrives_after_its_deadline_never_runs() {
    let mut running = start();
    let (port, secret) = running.channel();
    let late = TcpStream::connect(("127.0.0.1", port)).unwrap();
    thread::sleep(DEADLINE + Duration::from_millis(100));
    // A valid line, past the deadline: the connection was answered and closed already.
    let _ = (&late).write_all(format!("{secret} bump-revision full\n").as_bytes());
    assert_eq!(read_reply(&late), r#"{"error":"deadline_passed","ok":false}"#);
    thread::sleep(Duration::from_millis(50));
    assert_eq!(running.bump_on_stdin(), 2, "the late line raised the revision");
}

#[test]
fn a_connection_past_every_slot_is_answered_busy_at_once_and_the_owner_tries_again() {
    let mut running = start();
    let (port, _) = running.channel();
    let held = idle(port, SLOTS);
    thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let extra = TcpStream::connect(("127.0.0.1", port)).unwrap();
    assert_eq!(read_reply(&extra), r#"{"error":"busy","ok":false}"#);
    assert!(started.elapsed() < Duration::from_secs(1), "busy after {:?}", started.elapsed());
    // The owner's command meets the same; it runs nothing, waits one deadline (every idle one
    // ahead is closed by then) and tries once more.
    let (code, out, err, took) = control(&running.saved, &["bump-revision", "full"]);
    assert_eq!(code, 0, "{out} {err}");
    assert!(err.contains("busy") && err.contains("nothing ran"), "{err}");
    assert!(out.contains(r#""revision":2"#), "{out}");
    assert!(took < 2 * DEADLINE + Duration::from_secs(1), "took {took:?}");
    drop(held);
    assert_eq!(running.bump_on_stdin(), 3, "the command ran once");
}

#[test]
fn a_peer_that_keeps_every_slot_held_gets_nothing_run_and_the_owner_is_told() {
    let mut running = start();
    let (port, _) = running.channel();
    let stop = Arc::new(AtomicBool::new(false));
    // More holders than slots: whichever connection the channel closes is reopened at once.
    let holders: Vec<_> = (0..SLOTS + 8)
        .map(|_| {
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) {
                        read_reply(&stream);
                    }
                    thread::sleep(Duration::from_millis(1));
                }
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(200));
    let (code, out, err, _) = control(&running.saved, &["bump-revision", "full"]);
    stop.store(true, Ordering::Relaxed);
    holders.into_iter().for_each(|h| h.join().unwrap());
    thread::sleep(Duration::from_millis(100));
    let now = running.bump_on_stdin();
    // Whatever the race for a freed slot gave the owner, what it was told is what happened.
    if code == 0 {
        assert!(out.contains(r#""revision":2"#), "{out}");
        assert_eq!(now, 3, "it ran once");
    } else {
        assert_eq!((code, out.as_str()), (1, ""));
        assert!(err.contains("keeps every one of its connections open"), "{err}");
        assert!(err.contains("Nothing ran"), "{err}");
        assert_eq!(now, 2, "a command reported as not run never ran");
    }
}

#[test]
fn a_command_at_the_budget_runs_and_one_byte_more_is_refused_on_both_paths() {
    let mut running = start();
    let (port, secret) = running.channel();
    let max = Limits::DEFAULT.control_line_bytes_max;
    // "revoke", spaces, a role: a command that runs, of exactly `len` bytes.
    let command =
        |role: &str, len: usize| format!("revoke{}{role}", " ".repeat(len - 6 - role.len()));
    let too_long = r#"{"error":"line_too_long","ok":false}"#;
    let roles = ["full", "connect_only", "other_subject", "unicode"];
    for (i, ending) in ["\n", "\r\n"].into_iter().enumerate() {
        let (on_channel, on_stdin) = (roles[2 * i], roles[2 * i + 1]);
        let over =
            raw_line(port, format!("{secret} {}{ending}", command(on_channel, max + 1)).as_bytes());
        assert_eq!(over, too_long, "channel, {ending:?}");
        let at =
            raw_line(port, format!("{secret} {}{ending}", command(on_channel, max)).as_bytes());
        assert!(at.contains(r#""ok":true"#), "channel, {ending:?}: {at}");
        let stdin = running.serve.stdin.as_mut().unwrap();
        write!(stdin, "{}{ending}{}{ending}", command(on_stdin, max + 1), command(on_stdin, max))
            .unwrap();
        stdin.flush().unwrap();
        assert_eq!(json::encode(&running.serve.line()), too_long, "stdin, {ending:?}");
        let at = json::encode(&running.serve.line());
        assert!(at.contains(r#""ok":true"#), "stdin, {ending:?}: {at}");
    }
}

/// Makes `name` under `tmp` as a control directory would be: `mode`, and a `control` file naming
/// `port`, plus `extra` files.
fn control_dir(tmp: &Path, name: &str, port: u16, mode: u32, extra: &[&str]) {
    let dir = tmp.join(name);
    fs::create_dir(&dir).unwrap();
    let contents = format!(r#"{{"line_deadline_ms":300,"port":{port},"secret":"00"}}"#);
    fs::write(dir.join("control"), contents).unwrap();
    for file in extra {
        fs::write(dir.join(file), "").unwrap();
    }
    fs::set_permissions(&dir, fs::Permissions::from_mode(mode)).unwrap();
}

/// The names under `tmp` that start like a control directory's, sorted.
fn control_dirs(tmp: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("loopback-mcp-http-"))
        .collect();
    names.sort();
    names
}

#[test]
fn a_starting_serve_removes_only_the_control_directories_of_servers_that_are_gone() {
    let tmp = ScratchDir::new("sweep");
    let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let live = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let live_port = live.local_addr().unwrap().port();
    let kept = [
        ("loopback-mcp-http-00000000000000bb", live_port, 0o700, &[][..]), // its server listens
        ("loopback-mcp-http-00000000000000cc", gone, 0o700, &["other"][..]), // holds more
        ("loopback-mcp-http-00000000000000dd", gone, 0o755, &[][..]),      // not owner-only
        ("loopback-mcp-http-not-a-control-tag", gone, 0o700, &[][..]),     // not a control name
    ];
    control_dir(&tmp.0, "loopback-mcp-http-00000000000000aa", gone, 0o700, &[]);
    for (name, port, mode, extra) in kept {
        control_dir(&tmp.0, name, port, mode, extra);
    }
    let elsewhere = ScratchDir::new("sweep-target");
    control_dir(&elsewhere.0, "loopback-mcp-http-00000000000000ff", gone, 0o700, &[]);
    let link = tmp.join("loopback-mcp-http-00000000000000ee");
    std::os::unix::fs::symlink(elsewhere.join("loopback-mcp-http-00000000000000ff"), &link)
        .unwrap();
    let announced = tmp.join("serve.json");
    let serve = Serve::start_in(&["--announce", announced.to_str().unwrap()], tmp);
    let deadline = Instant::now() + Duration::from_secs(10);
    while fs::read_to_string(&announced).unwrap_or_default().is_empty() {
        assert!(Instant::now() < deadline, "serve announced nothing");
        thread::sleep(Duration::from_millis(20));
    }
    let own: Vec<String> = control_dirs(&serve.tmp.0)
        .into_iter()
        .filter(|n| {
            n.len() == "loopback-mcp-http-".len() + 16 && !n.starts_with("loopback-mcp-http-0000")
        })
        .collect();
    assert_eq!(own.len(), 1, "{own:?}");
    let mut expected: Vec<String> = kept.iter().map(|(n, ..)| (*n).to_owned()).collect();
    expected.push("loopback-mcp-http-00000000000000ee".to_owned());
    expected.push(own[0].clone());
    expected.sort();
    assert_eq!(control_dirs(&serve.tmp.0), expected);
    assert!(elsewhere.join("loopback-mcp-http-00000000000000ff/control").exists());
    drop(live);
}

/// Waits until `tmp` holds no control directory; false if one is still there after 5 s.
fn control_dirs_gone(tmp: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !control_dirs(tmp).is_empty() {
        if Instant::now() > deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
    true
}

#[test]
fn a_killed_server_leaves_no_control_directory_even_the_last_of_ten() {
    let tmp = ScratchDir::new("cycles");
    let path = tmp.0.clone();
    let mut serve = Serve::start_in(&[], tmp);
    for cycle in 1..=10 {
        serve.line();
        assert_eq!(control_dirs(&path).len(), 1, "{:?}", control_dirs(&path));
        // SIGKILL: nothing in the server can run, so only its watcher can remove the directory.
        let _ = serve.child.kill();
        let _ = serve.child.wait();
        assert!(control_dirs_gone(&path), "cycle {cycle} left {:?}", control_dirs(&path));
        let tmp = std::mem::replace(&mut serve.tmp, ScratchDir::new("unused"));
        serve = Serve::start_in(&[], tmp);
    }
}

#[test]
fn control_of_a_server_that_has_stopped_says_no_server_runs_under_its_directory() {
    let mut running = start();
    let control_file = PathBuf::from(running.text("control"));
    let directory = control_file.parent().unwrap().to_owned();
    // A channel file whose port nothing listens on: the server died before its watcher ran.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_port = closed.local_addr().unwrap().port();
    drop(closed);
    let dead_dir = running.dir.join("dead");
    fs::create_dir(&dead_dir).unwrap();
    fs::set_permissions(&dead_dir, fs::Permissions::from_mode(0o700)).unwrap();
    let dead_file = dead_dir.join("control");
    let contents = format!(r#"{{"line_deadline_ms":300,"port":{closed_port},"secret":"00"}}"#);
    fs::write(&dead_file, contents).unwrap();
    fs::set_permissions(&dead_file, fs::Permissions::from_mode(0o600)).unwrap();
    let dead_saved = running.dir.join("dead.json");
    fs::write(&dead_saved, format!(r#"{{"control":"{}"}}"#, dead_file.display())).unwrap();
    let expected = |saved: &Path| {
        format!(
            "error: no server is running under this directory: {} (its {} names a serve that \
             has stopped)",
            saved.parent().unwrap().display(),
            saved.file_name().unwrap().to_string_lossy()
        )
    };
    let (code, out, err, _) = control(&dead_saved, &["revoke", "full"]);
    assert_eq!((code, out.as_str(), err), (1, "", expected(&dead_saved)));
    let _ = running.serve.child.kill();
    let _ = running.serve.child.wait();
    let gone = Instant::now() + Duration::from_secs(5);
    while directory.exists() && Instant::now() < gone {
        thread::sleep(Duration::from_millis(20));
    }
    let (code, out, err, _) = control(&running.saved, &["revoke", "full"]);
    assert_eq!((code, out.as_str(), err), (1, "", expected(&running.saved)));
}
