//! `serve`'s control plane, and the `control` command that uses it from any shell.
//!
//! A control command (`revoke ROLE`, `bump-revision ROLE`) changes what the token policy decides
//! on the very next request; `change-tools` changes the fixture's tool list (every listen that
//! asked is told), and `stats` reads the counters of the streams that stay open (slow calls
//! finished and cancelled, streams and listens open). `serve` takes them from two places:
//!
//! - its stdin, when stdin is not a terminal (a pipe, a file, a test harness). A terminal is never
//!   read: a background job that read one would be stopped by the shell's job control;
//! - a control channel: a TCP listener on 127.0.0.1 and a secret. At start `serve` creates a
//!   directory only its user can enter (mode 0700) under the temporary directory, writes there a
//!   file only its user can read (mode 0600) with the channel's port, a fresh 256-bit secret and
//!   its line deadline (how long a client that found the channel busy waits before its one
//!   retry), and names that file in its announcement line as `control`. `loopback-mcp-http control
//!   ANNOUNCEMENT VERB ROLE` reads the file, sends `SECRET VERB ROLE` on one line, and prints the
//!   one-line reply where the person typed the command.
//!
//! # Who can reach the channel, and who can hold it
//!
//! Any local process can connect to the port (`ss -ltn` shows it), but only one that can read the
//! file (the user who started `serve`, or root) knows the secret. A line without the right secret
//! is answered `not_authorized` and runs nothing. The secrets are compared by their SHA-256
//! digests, so the comparison's time says nothing about the secret.
//!
//! Since connecting needs no secret, no connection may make the owner wait:
//!
//! - connections are answered concurrently, each on a thread of its own, at most
//!   `control_connections_max` (32<!-- limit: control_connections_max -->) at once. One more is
//!   answered `busy` at once and closed; it is never queued behind the others;
//! - a connection has one deadline for its whole line, from its accept to its LF:
//!   `control_line_deadline` (2 s<!-- limit: control_line_deadline -->), however the bytes
//!   trickle in. At the deadline it is answered `deadline_passed` and closed;
//! - a command runs only when its whole line arrived within that deadline, right before its reply
//!   is written. So a connection turned away `busy`, or closed at its deadline, ran nothing, and
//!   nothing it sends later is ever read: a command its client reported as failed never takes
//!   effect later, and trying it again runs it once.
//!
//! So an idle or trickling peer delays no one else, and the owner's command is answered within
//! the deadline while a slot is free. The limiting case is a local process that keeps every slot
//! taken by opening a new connection as soon as one is closed. The owner then gets `busy`; nothing
//! runs. The `control` command tries once more after one line deadline, when every connection
//! that was ahead of it has been closed, and if the channel is still full it says that some
//! process keeps it full and that the command did not run. `serve`'s stdin is not affected.
//!
//! # The line budget
//!
//! `control_line_bytes_max` (256 bytes<!-- limit: control_line_bytes_max -->) counts the same
//! bytes on both paths: the command, that is the verb, the space and the role. Neither the secret
//! and the space after it (on the channel) nor the line's CR and LF count. A longer command is
//! answered `line_too_long` and never run.
//!
//! Replies name roles, never tokens: no token crosses the channel.
//!
//! A `serve` that is killed leaves its directory behind (a secret for a port nobody listens on any
//! more, readable by its owner only); the next `serve` of the same user removes it (see `stale`).

use std::fs::{self, DirBuilder, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ExitCode};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::digest::Digest;
use loopback_mcp_http::endpoint::Endpoint;
use loopback_mcp_http::json::{self, Object, Value};
use loopback_mcp_http::limits::{DURATION_CEILING, Limits};
use loopback_mcp_http::server::fill_os_random;

/// Bytes of the secret, drawn from the operating system (shown as twice as many hex digits).
const SECRET_BYTES: usize = 32;
/// The secret as the line carries it: two hex digits a byte.
const SECRET_HEX_BYTES: usize = 2 * SECRET_BYTES;
/// The largest file the `control` command reads (an announcement line, the control file).
const FILE_BYTES_MAX: u64 = 64 * 1024;

/// A control command's verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verb {
    /// The role's token stops working.
    Revoke,
    /// The role's subject moves to a new authorization revision.
    BumpRevision,
    /// The fixture's tool list changes.
    ChangeTools,
    /// The counters of the open streams.
    Stats,
}

impl Verb {
    const ALL: [Verb; 4] = [Verb::Revoke, Verb::BumpRevision, Verb::ChangeTools, Verb::Stats];

    const fn name(self) -> &'static str {
        match self {
            Verb::Revoke => "revoke",
            Verb::BumpRevision => "bump-revision",
            Verb::ChangeTools => "change-tools",
            Verb::Stats => "stats",
        }
    }

    /// Whether the verb names a role after it.
    const fn takes_role(self) -> bool {
        match self {
            Verb::Revoke | Verb::BumpRevision => true,
            Verb::ChangeTools | Verb::Stats => false,
        }
    }

    fn from_name(name: &str) -> Option<Verb> {
        Verb::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// Why a control command did not run or failed. Each is one stable code in the reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The command is longer than `control_line_bytes_max`.
    LineTooLong,
    /// The line does not start with the channel's secret and a space.
    NotAuthorized,
    /// Every control connection was taken: closed at once, nothing read.
    Busy,
    /// The line's LF did not arrive within `control_line_deadline`.
    DeadlinePassed,
    /// Not two words, a verb and a role.
    Usage,
    /// The first word is not a verb.
    UnknownCommand,
    /// The second word is not a fixture role (the reply lists those there are).
    UnknownRole,
    /// The policy knows no token of that role.
    UnknownToken,
    /// The policy knows no subject of that role.
    UnknownSubject,
}

impl Failure {
    const ALL: [Failure; 9] = [
        Failure::LineTooLong,
        Failure::NotAuthorized,
        Failure::Busy,
        Failure::DeadlinePassed,
        Failure::Usage,
        Failure::UnknownCommand,
        Failure::UnknownRole,
        Failure::UnknownToken,
        Failure::UnknownSubject,
    ];

    /// The code the reply carries.
    pub const fn code(self) -> &'static str {
        match self {
            Failure::LineTooLong => "line_too_long",
            Failure::NotAuthorized => "not_authorized",
            Failure::Busy => "busy",
            Failure::DeadlinePassed => "deadline_passed",
            Failure::Usage => "usage: revoke <role> | bump-revision <role> | change-tools | stats",
            Failure::UnknownCommand => "unknown_command",
            Failure::UnknownRole => "unknown_role",
            Failure::UnknownToken => "unknown_token",
            Failure::UnknownSubject => "unknown_subject",
        }
    }

    fn from_code(code: &str) -> Option<Failure> {
        Failure::ALL.into_iter().find(|r| r.code() == code)
    }

    /// The reply line.
    pub fn reply(self) -> Value {
        let mut reply = Object::new();
        reply.insert("ok".into(), false.into());
        reply.insert("error".into(), self.code().into());
        if self == Failure::UnknownRole {
            let roles = Role::ALL.iter().map(|r| Value::from(r.name())).collect();
            reply.insert("roles".into(), Value::Array(roles));
        }
        Value::Object(reply)
    }
}

/// The command a line carries once its LF is cut off: the line without its CR, when that is
/// within `max` bytes. The one rule for the budget, on stdin and on the channel alike.
pub fn command_within(line: &[u8], max: usize) -> Result<&[u8], Failure> {
    let command = line.strip_suffix(b"\r").unwrap_or(line);
    if command.len() > max { Err(Failure::LineTooLong) } else { Ok(command) }
}

/// The command of a channel line (its LF cut off): it must start with the secret and a space,
/// and the rest must be within `max` bytes.
fn authorized<'l>(line: &'l [u8], secret: &Digest, max: usize) -> Result<&'l [u8], Failure> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let space = line.iter().position(|&b| b == b' ').ok_or(Failure::NotAuthorized)?;
    let (given, command) = (&line[..space], &line[space + 1..]);
    if Digest::of(given) != *secret {
        return Err(Failure::NotAuthorized);
    }
    command_within(command, max)
}

/// Runs one control command (`VERB ROLE`) and says what happened.
pub fn execute(endpoint: &Endpoint, command: &[u8]) -> Value {
    match run_command(endpoint, command) {
        Ok(reply) => reply,
        Err(failure) => failure.reply(),
    }
}

fn run_command(endpoint: &Endpoint, command: &[u8]) -> Result<Value, Failure> {
    let text = std::str::from_utf8(command).map_err(|_| Failure::Usage)?;
    let mut words = text.split_ascii_whitespace();
    let (verb, role) = match (words.next(), words.next(), words.next()) {
        (Some(verb), role, None) => (verb, role),
        _ => return Err(Failure::Usage),
    };
    let verb = Verb::from_name(verb).ok_or(Failure::UnknownCommand)?;
    let role = match (verb.takes_role(), role) {
        (true, Some(role)) => Role::from_name(role).ok_or(Failure::UnknownRole)?,
        (false, None) => return Ok(run_roleless(endpoint, verb)),
        (true, None) | (false, Some(_)) => return Err(Failure::Usage),
    };
    let mut reply = Object::new();
    match verb {
        Verb::Revoke => {
            if !role.revoke_in(&mut endpoint.policy_mut()) {
                return Err(Failure::UnknownToken);
            }
        }
        Verb::BumpRevision => {
            let revision =
                role.bump_revision_in(&mut endpoint.policy_mut()).ok_or(Failure::UnknownSubject)?;
            reply.insert("revision".into(), Value::from(revision));
        }
        // Verbs without a role were run above.
        Verb::ChangeTools | Verb::Stats => return Err(Failure::Usage),
    }
    reply.insert("ok".into(), true.into());
    reply.insert("command".into(), verb.name().into());
    reply.insert("role".into(), role.name().into());
    Ok(Value::Object(reply))
}

/// A verb without a role: its reply.
fn run_roleless(endpoint: &Endpoint, verb: Verb) -> Value {
    let live = endpoint.live();
    let mut reply = Object::new();
    reply.insert("ok".into(), true.into());
    reply.insert("command".into(), verb.name().into());
    match verb {
        Verb::ChangeTools => {
            reply.insert("tools_changed".into(), Value::from(live.change_tools()));
        }
        Verb::Stats => {
            let stats = live.stats();
            reply.insert("calls_cancelled".into(), Value::from(stats.calls_cancelled));
            reply.insert("calls_finished".into(), Value::from(stats.calls_finished));
            reply.insert("listens_open".into(), Value::from(stats.listens_open as u64));
            reply.insert("streams_open".into(), Value::from(stats.streams_open as u64));
            reply.insert("tools_changed".into(), Value::from(stats.tools_changed));
        }
        // Verbs with a role are run by the caller.
        Verb::Revoke | Verb::BumpRevision => {}
    }
    Value::Object(reply)
}

/// The channel `serve` opened: the file that names it. The listener runs on its own thread.
pub struct Channel {
    pub file: PathBuf,
    /// The pipe to the process that removes the directory once this one is gone.
    _watcher: Option<ChildStdin>,
}

/// Opens the channel for `endpoint`: the owner-only directory and file, the listener and its
/// thread.
pub fn open(endpoint: Arc<Endpoint>) -> io::Result<Channel> {
    let mut random = [0u8; SECRET_BYTES + 8];
    fill_os_random(&mut random).map_err(|e| io::Error::other(e.to_string()))?;
    let (secret, tag) = (hex(&random[..SECRET_BYTES]), hex(&random[SECRET_BYTES..]));
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    let port = listener.local_addr()?.port();
    let temp = std::env::temp_dir();
    let dir = temp.join(format!("{}{tag}", super::stale::DIR_PREFIX));
    DirBuilder::new().mode(0o700).create(&dir)?;
    let file = dir.join("control");
    let mut contents = Object::new();
    let deadline = endpoint.limits().control_line_deadline;
    let deadline_ms = u64::try_from(deadline.as_millis()).unwrap_or(u64::MAX);
    contents.insert("line_deadline_ms".into(), Value::from(deadline_ms));
    contents.insert("port".into(), Value::from(u64::from(port)));
    contents.insert("secret".into(), secret.as_str().into());
    let mut out = OpenOptions::new().write(true).create_new(true).mode(0o600).open(&file)?;
    out.write_all(json::encode(&Value::Object(contents)).as_bytes())?;
    let watcher = super::stale::remove_when_gone(&dir);
    super::stale::sweep(&temp, &dir);
    let expected = Arc::new(Digest::of(secret.as_bytes()));
    std::thread::Builder::new()
        .name("loopback-mcp-control".into())
        .spawn(move || serve_channel(&listener, &endpoint, &expected))?;
    Ok(Channel { file, _watcher: watcher })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One of the `control_connections_max` places; given back when dropped, by the thread that
/// answered its connection (whether it returned or panicked).
struct Slot(Arc<AtomicUsize>);

impl Slot {
    /// A place, unless all are taken. Only the channel's one accepting thread takes places, and
    /// the others only give them back, so the count cannot pass `max` between the load and the add.
    fn take(open: &Arc<AtomicUsize>, max: usize) -> Option<Slot> {
        if open.load(Ordering::Acquire) >= max {
            return None;
        }
        open.fetch_add(1, Ordering::AcqRel);
        Some(Slot(Arc::clone(open)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Accepts control connections for as long as the process lives: each one is answered on a
/// thread of its own while a place is free, and turned away `busy` at once otherwise.
fn serve_channel(listener: &TcpListener, endpoint: &Arc<Endpoint>, secret: &Arc<Digest>) {
    let limits = *endpoint.limits();
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            // Out of file descriptors, say: pause rather than spin.
            std::thread::sleep(limits.accept_error_pause);
            continue;
        };
        let deadline = Instant::now() + limits.control_line_deadline;
        let Some(slot) = Slot::take(&open, limits.control_connections_max) else {
            turn_away_busy(&stream);
            continue;
        };
        let (endpoint, secret) = (Arc::clone(endpoint), Arc::clone(secret));
        let answer_one = move || {
            let _slot = slot;
            answer(&stream, &endpoint, &secret, deadline);
        };
        // A thread the system refuses to start drops the closure: the connection is closed
        // unanswered and its place given back.
        let _ =
            std::thread::Builder::new().name("loopback-mcp-control-line".into()).spawn(answer_one);
    }
}

/// The `busy` reply, in one non-blocking write (a fresh socket's send buffer always takes it).
/// What the peer already sent is read once without waiting, so the close is an orderly one that
/// lets the peer read the reply, rather than a reset that may discard it.
fn turn_away_busy(stream: &TcpStream) {
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    let _ = write_reply(stream, &Failure::Busy.reply());
    let _ = (&*stream).read(&mut [0u8; 512]);
}

/// One connection: one line within the deadline, then one reply. The command runs only here,
/// after its whole line arrived in time.
fn answer(stream: &TcpStream, endpoint: &Endpoint, secret: &Digest, deadline: Instant) {
    let limits = endpoint.limits();
    // The secret, its space, the command, and the CR; the LF ends the line.
    let mut line = vec![0u8; SECRET_HEX_BYTES + 1 + limits.control_line_bytes_max + 1 + 1];
    let reply = match read_line_by(stream, &mut line, deadline) {
        LineRead::Line(end) => {
            match authorized(&line[..end], secret, limits.control_line_bytes_max) {
                Ok(command) => execute(endpoint, command),
                Err(failure) => failure.reply(),
            }
        }
        LineRead::TooLong => Failure::LineTooLong.reply(),
        LineRead::DeadlinePassed => Failure::DeadlinePassed.reply(),
        LineRead::Ended => return,
    };
    if stream.set_write_timeout(Some(limits.socket_write_timeout)).is_ok() {
        let _ = write_reply(stream, &reply);
    }
}

fn write_reply(mut stream: &TcpStream, reply: &Value) -> io::Result<()> {
    let mut line = json::encode(reply);
    line.push('\n');
    stream.write_all(line.as_bytes())
}

/// How reading a control line ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineRead {
    /// A whole line: this many bytes before its LF.
    Line(usize),
    /// The buffer filled with no LF: the line is longer than any the channel runs.
    TooLong,
    /// The deadline passed before the LF.
    DeadlinePassed,
    /// The peer closed, or the socket failed, before the LF.
    Ended,
}

/// Reads into `buf` until an LF, `buf` is full, or `deadline`: one deadline for the whole line,
/// whatever the number of reads.
fn read_line_by(mut stream: &TcpStream, buf: &mut [u8], deadline: Instant) -> LineRead {
    let mut filled = 0;
    loop {
        if let Some(lf) = buf[..filled].iter().position(|&b| b == b'\n') {
            return LineRead::Line(lf);
        }
        if filled == buf.len() {
            return LineRead::TooLong;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return LineRead::DeadlinePassed;
        }
        if stream.set_read_timeout(Some(left)).is_err() {
            return LineRead::Ended;
        }
        match stream.read(&mut buf[filled..]) {
            Ok(0) => return LineRead::Ended,
            Ok(n) => filled += n,
            Err(e) => match e.kind() {
                // A wait that ended early or on time: the deadline check above decides.
                io::ErrorKind::Interrupted
                | io::ErrorKind::WouldBlock
                | io::ErrorKind::TimedOut => {}
                _ => return LineRead::Ended,
            },
        }
    }
}

/// What one attempt of the `control` command got.
enum Attempt {
    /// A reply line.
    Replied(String),
    /// Nothing ran, and nothing will: turned away `busy` or closed at its deadline, or closed without a
    /// reply. The same line may be sent again.
    NotRun(&'static str),
}

/// `control ANNOUNCEMENT VERB [ROLE]`.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let (announcement, command) = match args {
        [announcement, verb, role] => (announcement, format!("{} {role}", known_verb(verb, true)?)),
        [announcement, verb] => (announcement, known_verb(verb, false)?.to_owned()),
        _ => {
            return Err(format!(
                "control takes serve's JSON line file, a verb and (for some) a role; {}",
                verbs_listed()
            ));
        }
    };
    let announcement = Path::new(announcement);
    let (channel, secret, wait) = match channel_of(announcement) {
        Ok(channel) => channel,
        Err(problem) => {
            errln!("error: {problem}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let line = format!("{secret} {command}\n");
    let reply = match send_until_taken(&channel, &line, wait) {
        Ok(reply) => reply,
        Err(problem) => {
            errln!("error: {problem}");
            return Ok(ExitCode::FAILURE);
        }
    };
    outln!("{}", reply.trim_end());
    let ok = json::decode(reply.as_bytes(), Limits::DEFAULT.json_depth_max)
        .is_ok_and(|v| v.get("ok") == Some(&Value::from(true)));
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The verb `word` names, checked before anything is sent: known, and with a role exactly when
/// `with_role`.
fn known_verb(word: &str, with_role: bool) -> Result<&'static str, String> {
    let names: Vec<&str> = Verb::ALL.iter().map(|v| v.name()).collect();
    let Some(verb) = Verb::ALL.into_iter().find(|v| v.name() == word) else {
        let near = super::help::did_you_mean(word, &names);
        return Err(format!("unknown verb {word:?}{near}; {}", verbs_listed()));
    };
    match (verb.takes_role(), with_role) {
        (true, true) | (false, false) => Ok(verb.name()),
        (true, false) => Err(format!("{word} needs a role")),
        (false, true) => Err(format!("{word} takes no role")),
    }
}

/// The verbs, each with what follows it.
fn verbs_listed() -> String {
    let each: Vec<String> = Verb::ALL
        .iter()
        .map(|v| if v.takes_role() { format!("{} ROLE", v.name()) } else { v.name().to_owned() })
        .collect();
    format!("the verbs are {}", each.join(", "))
}

/// Sends `line`, and once more after one line deadline (`wait`, the server's) if the first
/// attempt ran nothing: by then every connection that was ahead of it has been answered or
/// closed.
fn send_until_taken(channel: &Reach, line: &str, wait: Duration) -> Result<String, String> {
    let port = channel.port;
    // io::ErrorKind is open-ended: one kind is told apart, every other reported as it is.
    let not_answered = |e: io::Error| {
        if e.kind() == io::ErrorKind::ConnectionRefused {
            channel.stopped()
        } else {
            format!("the control channel at 127.0.0.1:{port} did not answer: {e}")
        }
    };
    match attempt(port, line).map_err(not_answered)? {
        Attempt::Replied(reply) => return Ok(reply),
        Attempt::NotRun(why) => errln!(
            "control: the channel {why}; nothing ran. Trying once more in {} ms.",
            wait.as_millis()
        ),
    }
    std::thread::sleep(wait);
    match attempt(port, line).map_err(not_answered)? {
        Attempt::Replied(reply) => Ok(reply),
        Attempt::NotRun(why) => Err(format!(
            "the control channel at 127.0.0.1:{port} {why} again: some local process keeps every \
             one of its connections open. Nothing ran, so the same command may be sent again; \
             serve's stdin takes it too. `ss -tn 'dport = :{port}'` lists the connections."
        )),
    }
}

/// One connection: the line, and the reply or the sign that nothing ran. An error only when no
/// connection could be made at all.
fn attempt(port: u16, line: &str) -> io::Result<Attempt> {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let timeout = Limits::DEFAULT.client_io_timeout;
    let mut stream = TcpStream::connect_timeout(&address, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    // A channel that turned the connection away may close it before the line is written.
    let _ = stream.write_all(line.as_bytes());
    let mut reply = String::new();
    match BufReader::new(stream.take(FILE_BYTES_MAX)).read_line(&mut reply) {
        Ok(_) if reply.is_empty() => {
            return Ok(Attempt::NotRun("closed the connection unanswered"));
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {
            return Ok(Attempt::NotRun("closed the connection unanswered"));
        }
        Err(e) => return Err(e),
    }
    let failure = json::decode(reply.trim_end().as_bytes(), Limits::DEFAULT.json_depth_max)
        .ok()
        .and_then(|v| v.get("error").and_then(Value::as_str).and_then(Failure::from_code));
    Ok(match failure {
        Some(Failure::Busy) => {
            Attempt::NotRun("is busy: every connection it serves at once is taken")
        }
        Some(Failure::DeadlinePassed) => {
            Attempt::NotRun("closed the connection before the line arrived")
        }
        Some(
            Failure::LineTooLong
            | Failure::NotAuthorized
            | Failure::Usage
            | Failure::UnknownCommand
            | Failure::UnknownRole
            | Failure::UnknownToken
            | Failure::UnknownSubject,
        )
        | None => Attempt::Replied(reply),
    })
}

/// Where a server's control channel listens, and the announcement that named it.
struct Reach {
    port: u16,
    announcement: PathBuf,
}

impl Reach {
    /// The one line for a server that has stopped: its control directory is gone, or nothing
    /// listens on its port any more.
    fn stopped(&self) -> String {
        stopped(&self.announcement)
    }
}

/// Names the directory the person knows, the one that holds the announcement (a course's
/// `WORK`), not the control directory the server made and its watcher removed.
fn stopped(announcement: &Path) -> String {
    let directory = match announcement.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        Some(_) | None => Path::new("."),
    };
    let name = announcement.file_name().map_or(announcement.as_os_str(), |n| n);
    format!(
        "no server is running under this directory: {} (its {} names a serve that has stopped)",
        directory.display(),
        Path::new(name).display()
    )
}

/// The channel, the secret and the line deadline an announcement names, after checking that
/// the file holding them is its owner's alone.
fn channel_of(announcement: &Path) -> Result<(Reach, String, Duration), String> {
    let line = read_small(announcement)?;
    let line = json::decode(line.trim_end().as_bytes(), Limits::DEFAULT.json_depth_max)
        .map_err(|e| format!("{}: not serve's JSON line ({e})", announcement.display()))?;
    let file = line.get("control").and_then(Value::as_str).ok_or_else(|| {
        format!("{}: no \"control\" file named (is it serve's first line?)", announcement.display())
    })?;
    let file = Path::new(file);
    if fs::symlink_metadata(file).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
        return Err(stopped(announcement));
    }
    check_owner_only(file)?;
    let contents = read_small(file)?;
    let contents = json::decode(contents.as_bytes(), Limits::DEFAULT.json_depth_max)
        .map_err(|e| format!("{}: not a control file ({e})", file.display()))?;
    let number = |key: &str| contents.get(key).and_then(Value::as_number).and_then(|n| n.as_u64());
    let secret = contents.get("secret").and_then(Value::as_str);
    // The server wrote it from a validated budget: anything past the ceiling is not its file.
    let deadline = number("line_deadline_ms").map(Duration::from_millis);
    let deadline = deadline.filter(|d| *d <= DURATION_CEILING);
    match (number("port").and_then(|p| u16::try_from(p).ok()), secret, deadline) {
        (Some(port), Some(secret), Some(deadline)) => {
            let announcement = announcement.to_owned();
            Ok((Reach { port, announcement }, secret.to_owned(), deadline))
        }
        _ => Err(format!("{}: not a control file", file.display())),
    }
}

fn read_small(path: &Path) -> Result<String, String> {
    let mut text = String::new();
    fs::File::open(path)
        .and_then(|f| f.take(FILE_BYTES_MAX).read_to_string(&mut text))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text)
}

/// The control file and its directory must be readable by their owner alone, and that owner
/// must be whoever runs this command: a secret others could read proves nothing.
fn check_owner_only(file: &Path) -> Result<(), String> {
    let me = fs::metadata("/proc/self").map(|m| m.uid()).ok();
    for (path, mode) in [(file, 0o600), (file.parent().unwrap_or(file), 0o700)] {
        let meta =
            fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let actual = meta.permissions().mode() & 0o777;
        if actual & 0o077 != 0 {
            return Err(format!(
                "{} has mode {actual:o}: others could read the secret (serve makes it {mode:o})",
                path.display()
            ));
        }
        if me.is_some_and(|uid| uid != meta.uid()) {
            return Err(format!("{} belongs to another user", path.display()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_line_that_starts_with_the_secret_and_a_space_is_a_command() {
        let secret = Digest::of(b"s3cret");
        type Case<'a> = (&'a [u8], Result<&'a [u8], Failure>);
        let cases: [Case; 7] = [
            (b"s3cret revoke full", Ok(b"revoke full")),
            (b"s3cret revoke full\r", Ok(b"revoke full")),
            (b"s3creT revoke full", Err(Failure::NotAuthorized)),
            (b"revoke full", Err(Failure::NotAuthorized)),
            (b"s3cret", Err(Failure::NotAuthorized)),
            (b"\xffs3cret revoke full", Err(Failure::NotAuthorized)),
            (b"s3cret  revoke full", Ok(b" revoke full")),
        ];
        for (line, expected) in cases {
            let got = authorized(line, &secret, 256);
            assert_eq!(got, expected, "{:?}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn the_budget_counts_the_command_alone_on_both_paths() {
        let max = Limits::DEFAULT.control_line_bytes_max;
        let secret = Digest::of(b"s3cret");
        // "revoke", spaces, "full": a command that runs, of exactly `len` bytes.
        let command = |len: usize| format!("revoke{}full", " ".repeat(len - 10));
        for (len, ending, fits) in
            [(max, "", true), (max, "\r", true), (max + 1, "", false), (max + 1, "\r", false)]
        {
            let expected =
                if fits { Ok(command(len).into_bytes()) } else { Err(Failure::LineTooLong) };
            let stdin = format!("{}{ending}", command(len));
            let got = command_within(stdin.as_bytes(), max).map(<[u8]>::to_vec);
            assert_eq!(got, expected, "stdin, {len} bytes {ending:?}");
            let channel = format!("s3cret {}{ending}", command(len));
            let got = authorized(channel.as_bytes(), &secret, max).map(<[u8]>::to_vec);
            assert_eq!(got, expected, "channel, {len} bytes {ending:?}");
        }
    }

    #[test]
    fn every_failure_has_its_own_code() {
        for failure in Failure::ALL {
            assert_eq!(Failure::from_code(failure.code()), Some(failure));
        }
    }
}
