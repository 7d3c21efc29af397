//! The control channel as a black box: `serve` names an owner-only file, `loopback-mcp-http
//! control` proves its secret and gets the reply, and anyone without the secret is refused with
//! nothing done. No token ever crosses the channel, and none is written to a file others could
//! read.

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::serve::{BIN, ScratchDir, Serve};
use loopback_mcp_http::client::HttpConnection;
use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests::{self, ClientInfo};

struct Running {
    _serve: Serve,
    hello: Value,
    /// The announcement file, written by `serve --announce`.
    saved: PathBuf,
    dir: ScratchDir,
}

fn start() -> Running {
    let dir = ScratchDir::new("control");
    let saved = dir.join("serve.json");
    let (serve, hello) = Serve::announced(&[], &saved);
    Running { _serve: serve, hello, saved, dir }
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
