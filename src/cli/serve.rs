//! `serve`: a server for people and black-box clients, with a control plane on stdin.
//!
//! It prints one JSON line describing itself (URL, metadata URL, allowed origins, protocol
//! version and a fresh token for every fixture role), then serves until killed. Each line on stdin
//! is a control command, answered by one JSON line on stdout:
//!
//! - `revoke <role>`: that role's token stops working on the next request;
//! - `bump-revision <role>`: the role's subject moves to a new authorization revision, so every
//!   token issued before stops working on the next request;
//! - `change-tools` and `stats`: the tool list changes; the open streams' counters (`control`'s
//!   module docs).
//!
//! `--stream-keepalive-secs N` sets how long an open stream may stay quiet before it sends a
//! comment line (`stream_keepalive`).
//!
//! End of stdin does not stop the server (so it can run with stdin closed). `--chunked` makes it
//! decode chunked request bodies too; the line then also says `"transfer_codings":["chunked"]`.
//! `--protocol-versions LIST` sets the revisions spoken (`2025-11-25` by default, `2026-07-28`
//! alone, or both); the line then names them under `protocol_versions`.
//! `--conformance-fixtures` serves the conformance suite's step-up fixtures and accepts its two
//! public tokens (`mcp::conformance`, `auth::fixtures`); the line then names those tokens under
//! `conformance_tokens`.
//!
//! `--announce FILE` writes the announcement line to FILE instead of stdout. The line holds a
//! bearer token for every role, so FILE is created new with mode 0600, before the server binds:
//! an existing FILE is refused (exit 2), never truncated or followed. The line is written to a
//! sibling file of the same mode and renamed over FILE once whole, so a reader that waits for FILE
//! to be non-empty reads the whole line. Redirecting stdout (`> FILE`) would create FILE under the
//! shell's umask, readable by every local user under the usual one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, IsTerminal, Write};
use std::net::IpAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::args::Flags;
use super::control;
use loopback_mcp_http::auth::fixtures::{CONFORMANCE_FULL, CONFORMANCE_LOW, Fixture};
use loopback_mcp_http::http::TransferCodings;
use loopback_mcp_http::json::{self, Object, Value};
use loopback_mcp_http::limits::{Amount, BUDGETS, Limits, WORKERS_CEILING};
use loopback_mcp_http::mcp::MCP_PATH;
use loopback_mcp_http::mcp::PROTOCOL_VERSION;
use loopback_mcp_http::mcp::revision::{Era, Revision, Versions};
use loopback_mcp_http::server::fixture::{StartError, start_with_fixture};
use loopback_mcp_http::server::watch::Watch;
use loopback_mcp_http::server::{RunningServer, ServerConfig};

const FLAGS: [&str; 12] = [
    "announce",
    "limit",
    "protocol-versions",
    "stream-keepalive-secs",
    "port",
    "allow-origin",
    "allow-host",
    "max-sessions",
    "max-sessions-per-principal",
    "session-ttl-secs",
    "workers",
    "bind",
];

/// Reads the flags into a server configuration, and the file `--announce` names.
fn config(args: &[String]) -> Result<(ServerConfig, Option<PathBuf>), String> {
    let flags = Flags::parse_with_switches(
        args,
        &FLAGS,
        &["chunked", "conformance-fixtures", "watch", "watch=bytes"],
    )?;
    let mut config = ServerConfig::default();
    let mut limits = Limits::DEFAULT;
    if let Some(address) = flags.one::<IpAddr>("bind")? {
        config.address = address;
    }
    if let Some(port) = flags.one("port")? {
        config.port = port;
    }
    config.extra_origins = flags.all("allow-origin");
    config.extra_hosts = flags.all("allow-host");
    if let Some(max) = flags.one("max-sessions")? {
        limits.sessions_active_max = max;
    }
    if let Some(max) = flags.one("max-sessions-per-principal")? {
        limits.sessions_per_principal_max = max;
    }
    if let Some(secs) = flags.one("session-ttl-secs")? {
        limits.session_ttl = Duration::from_secs(secs);
    }
    if let Some(secs) = flags.one("stream-keepalive-secs")? {
        limits.stream_keepalive = Duration::from_secs(secs);
    }
    if let Some(workers) = flags.one("workers")? {
        if !(1..=WORKERS_CEILING).contains(&workers) {
            return Err(format!(
                "--workers must be 1 to {WORKERS_CEILING}: each worker is a thread of its own"
            ));
        }
        limits.requests_in_processing_max = workers;
    }
    for setting in flags.all("limit") {
        set_limit(&mut limits, &setting)?;
    }
    // Checked here too, so that a flag that breaks a budget is a usage error with the form.
    limits.validate().map_err(|e| format!("invalid limits: {e}"))?;
    config.limits = limits;
    if flags.has("chunked") {
        config.request_codings = TransferCodings::Chunked;
    }
    config.conformance_fixtures = flags.has("conformance-fixtures");
    if let Some(list) = flags.one::<String>("protocol-versions")? {
        config.versions =
            Versions::parse(&list).map_err(|e| format!("--protocol-versions: {e}"))?;
    }
    config.watch = match (flags.has("watch"), flags.has("watch=bytes")) {
        (false, false) => None,
        (true, true) => return Err("--watch and --watch=bytes exclude each other".into()),
        (lines, _) => {
            let sink: Arc<dyn Fn(&str) + Send + Sync> = Arc::new(|text| errln!("{text}"));
            Some(Arc::new(Watch::new(!lines, sink)))
        }
    };
    Ok((config, flags.one("announce")?))
}

/// Sets one budget from `--limit NAME=VALUE`: any row of the budget table, its value in its own
/// kind (bytes and counts as a number, durations as a number and `ms` or `s`). The limits are
/// validated as a whole afterwards.
fn set_limit(limits: &mut Limits, setting: &str) -> Result<(), String> {
    let (name, value) = setting
        .split_once('=')
        .ok_or_else(|| format!("--limit {setting:?}: the form is NAME=VALUE"))?;
    let names: Vec<&str> = BUDGETS.iter().map(|b| b.name).collect();
    let budget = BUDGETS.iter().find(|b| b.name == name).ok_or_else(|| {
        let near = super::help::did_you_mean(name, &names);
        format!("--limit: no budget {name:?}{near}")
    })?;
    let number = |digits: &str| digits.parse::<u64>().ok();
    let amount = match (budget.get)(limits) {
        Amount::Bytes(_) => number(value).and_then(|n| usize::try_from(n).ok()).map(Amount::Bytes),
        Amount::Count(_) => number(value).and_then(|n| usize::try_from(n).ok()).map(Amount::Count),
        Amount::Time(_) => match value.strip_suffix("ms") {
            Some(ms) => number(ms).map(|n| Amount::Time(Duration::from_millis(n))),
            None => value
                .strip_suffix('s')
                .and_then(number)
                .map(|n| Amount::Time(Duration::from_secs(n))),
        },
    };
    let amount =
        amount.ok_or_else(|| format!("--limit {name}: {value:?} is not a value of its kind"))?;
    (budget.set)(limits, amount);
    Ok(())
}

/// Runs the server until the process is killed. A flag problem is returned as a usage error.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let (config, announce) = config(args)?;
    let announce = announce.map(Announce::reserve).transpose()?;
    let (server, fixture, channel) = match start(config) {
        Ok(started) => started,
        Err(code) => {
            announce.iter().for_each(Announce::abandon);
            return Ok(code);
        }
    };
    let line = announcement(&server, &fixture, &channel);
    match &announce {
        None => super::print_line(&line),
        Some(announce) => {
            if let Err(e) = announce.write(&line) {
                errln!("error: cannot write the announcement to {}: {e}", announce.path.display());
                announce.abandon();
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    // A terminal is never read: a background job reading one would be stopped by the shell.
    if !io::stdin().is_terminal() {
        control_loop(server.endpoint());
    }
    // stdin ended: keep serving until the process is killed.
    loop {
        std::thread::park();
    }
}

/// The server, its fixture and its control channel; the exit status when one did not start.
fn start(config: ServerConfig) -> Result<(RunningServer, Fixture, control::Channel), ExitCode> {
    let (server, fixture) = start_with_fixture(config).map_err(|e| {
        // A refused configuration is a usage error, with the usage line; anything later is a
        // failure.
        if matches!(e, StartError::Bind(_)) {
            let serve = super::help::find(&["serve".to_owned()]);
            errln!("{}", super::help::error_line(&e.to_string(), serve));
            ExitCode::from(2)
        } else {
            errln!("error: {e}");
            ExitCode::FAILURE
        }
    })?;
    let channel = control::open(server.shared_endpoint()).map_err(|e| {
        errln!("error: cannot open the control channel: {e}");
        ExitCode::FAILURE
    })?;
    Ok((server, fixture, channel))
}

/// The line printed at start.
fn announcement(server: &RunningServer, fixture: &Fixture, channel: &control::Channel) -> Value {
    let port = server.port();
    let origins = server.endpoint().allowed_origins();
    let mut tokens = Object::new();
    for (role, token) in fixture.tokens() {
        tokens.insert(role.name().into(), token.into());
    }
    let mut line = Object::new();
    line.insert("url".into(), format!("http://127.0.0.1:{port}{MCP_PATH}").into());
    line.insert("resource_metadata".into(), fixture.policy.metadata_url().into());
    line.insert(
        "allowed_origins".into(),
        Value::Array(origins.iter().map(|o| Value::from(o.as_str())).collect()),
    );
    line.insert("protocol_version".into(), PROTOCOL_VERSION.into());
    line.insert("tokens".into(), Value::Object(tokens));
    line.insert("control".into(), channel.file.to_string_lossy().into_owned().into());
    if server.endpoint().request_codings() == TransferCodings::Chunked {
        // Only under the flag: without it, the line is what it always was.
        line.insert("transfer_codings".into(), Value::Array(vec!["chunked".into()]));
    }
    if server.endpoint().offer(Revision::newest(Era::Modern)).fixtures {
        let mut tokens = Object::new();
        tokens.insert("low".into(), CONFORMANCE_LOW.into());
        tokens.insert("full".into(), CONFORMANCE_FULL.into());
        line.insert("conformance_tokens".into(), Value::Object(tokens));
    }
    let versions = server.endpoint().versions();
    if versions != Versions::default() {
        // Likewise: only a server that speaks more than the default names its versions.
        let names = versions.names().into_iter().map(Value::from).collect();
        line.insert("protocol_versions".into(), Value::Array(names));
    }
    Value::Object(line)
}

/// The owner-only file `--announce` names, created empty before the server starts.
struct Announce {
    path: PathBuf,
}

impl Announce {
    /// Creates `path` new, mode 0600; an existing file (or anything else at that path) is refused.
    fn reserve(path: PathBuf) -> Result<Announce, String> {
        owner_only_new(&path)
            .map_err(|e| format!("--announce {}: {e} (it must name a new file)", path.display()))?;
        Ok(Announce { path })
    }

    /// Removes the reserved file of a server that did not start.
    fn abandon(&self) {
        let _ = fs::remove_file(&self.path);
    }

    /// Writes `line` and its LF into a new sibling file, then renames it over the reserved one,
    /// so that the file is either empty or whole.
    fn write(&self, line: &Value) -> io::Result<()> {
        let name = self.path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let partial = self.path.with_file_name(format!(".{name}.{}.partial", std::process::id()));
        let mut text = json::encode(line);
        text.push('\n');
        let written = owner_only_new(&partial).and_then(|mut f| f.write_all(text.as_bytes()));
        let renamed = written.and_then(|()| fs::rename(&partial, &self.path));
        if renamed.is_err() {
            let _ = fs::remove_file(&partial);
        }
        renamed
    }
}

/// A new file only its owner can read and write; never an existing one, nor a symbolic link.
fn owner_only_new(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}

/// Answers control commands until stdin ends.
fn control_loop(endpoint: &loopback_mcp_http::endpoint::Endpoint) {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    let max = endpoint.limits().control_line_bytes_max;
    loop {
        line.clear();
        // Room for the command and a CR: the budget counts the command alone.
        let reply = match read_bounded_line(&mut input, &mut line, max + 1) {
            Ok(None) | Err(_) => return,
            Ok(Some(false)) => control::Failure::LineTooLong.reply(),
            Ok(Some(true)) => match control::command_within(&line, max) {
                Ok(command) if command.trim_ascii().is_empty() => continue,
                Ok(command) => control::execute(endpoint, command),
                Err(failure) => failure.reply(),
            },
        };
        super::print_line(&reply);
    }
}

/// Reads one line of at most `max` bytes into `line`. `Ok(None)` at the end of input;
/// `Ok(Some(false))` when the line was too long (the rest of it is skipped).
fn read_bounded_line(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<bool>> {
    let mut too_long = false;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(if line.is_empty() && !too_long { None } else { Some(!too_long) });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if !too_long && line.len() + chunk.len() <= max {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
        let consumed = newline.map_or(available.len(), |i| i + 1);
        input.consume(consumed);
        if newline.is_some() {
            return Ok(Some(!too_long));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `input` as the stdin loop reads it: the command, or why it is refused.
    fn commands(input: &str, max: usize) -> Vec<Result<String, control::Failure>> {
        let mut reader = io::BufReader::with_capacity(16, input.as_bytes());
        let (mut seen, mut line) = (Vec::new(), Vec::new());
        while let Some(fits) = read_bounded_line(&mut reader, &mut line, max + 1).unwrap() {
            let command = if fits {
                control::command_within(&line, max).map(|c| String::from_utf8_lossy(c).into_owned())
            } else {
                Err(control::Failure::LineTooLong)
            };
            seen.push(command);
            line.clear();
        }
        seen
    }

    #[test]
    fn stdin_commands_hold_at_max_and_are_refused_at_max_plus_one_with_lf_or_crlf() {
        let max = Limits::DEFAULT.control_line_bytes_max;
        let (at_max, over) = ("x".repeat(max), "x".repeat(max + 1));
        let input = format!(
            "revoke full\n{at_max}\n{at_max}\r\n{over}\n{over}\r\n{over}x\r\nbump-revision full\r\nlast"
        );
        let too_long = || Err(control::Failure::LineTooLong);
        let expected = vec![
            Ok("revoke full".to_owned()),
            Ok(at_max.clone()),
            Ok(at_max),
            too_long(),
            too_long(),
            too_long(),
            Ok("bump-revision full".to_owned()),
            Ok("last".to_owned()),
        ];
        assert_eq!(commands(&input, max), expected);
    }
}
