//! `serve`'s control plane, and the `control` command that uses it from any shell.
//!
//! A control command (`revoke ROLE`, `bump-revision ROLE`) changes what the token policy decides
//! on the very next request. `serve` takes them from two places:
//!
//! - its stdin, when stdin is not a terminal (a pipe, a file, a test harness). A terminal is never
//!   read: a background job that read one would be stopped by the shell's job control;
//! - a control channel: a TCP listener on 127.0.0.1 and a secret. At start `serve` creates a
//!   directory only its user can enter (mode 0700) under the temporary directory, writes there a
//!   file only its user can read (mode 0600) with the channel's port and a fresh 256-bit secret,
//!   and names that file in its announcement line as `control`. `loopback-mcp-http control
//!   ANNOUNCEMENT VERB ROLE` reads the file, sends `SECRET VERB ROLE` on one line, and prints the
//!   one-line reply where the person typed the command.
//!
//! Who can reach it: any local process can connect to the port, but only one that can read the
//! file (the user who started `serve`, or root) knows the secret. A line without the right
//! secret is answered `not_authorized` and does nothing; the secrets are compared by their SHA-256
//! digests, so the comparison's time says nothing about the secret. Every connection gets one
//! line within the read timeout and one reply, then is closed; lines are bounded by
//! `control_line_bytes_max`. Replies name roles, never tokens: no token crosses the channel.
//!
//! Not here: removing the directory when `serve` is killed (it holds a secret for a port nobody
//! listens on any more, readable by its owner only), and any command beyond the two.

use std::fs::{self, DirBuilder, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::digest::Digest;
use loopback_mcp_http::endpoint::Endpoint;
use loopback_mcp_http::json::{self, Object, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::server::fill_os_random;

/// Bytes of the secret, drawn from the operating system (shown as twice as many hex digits).
const SECRET_BYTES: usize = 32;
/// The largest file the `control` command reads (an announcement line, the control file).
const FILE_BYTES_MAX: u64 = 64 * 1024;

/// The channel `serve` opened: the file that names it. The listener runs on its own thread.
pub struct Channel {
    pub file: PathBuf,
}

/// Opens the channel for `endpoint`: the owner-only directory and file, the listener and its
/// thread.
pub fn open(endpoint: Arc<Endpoint>) -> io::Result<Channel> {
    let mut random = [0u8; SECRET_BYTES + 8];
    fill_os_random(&mut random).map_err(|e| io::Error::other(e.to_string()))?;
    let (secret, tag) = (hex(&random[..SECRET_BYTES]), hex(&random[SECRET_BYTES..]));
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    let port = listener.local_addr()?.port();
    let dir = std::env::temp_dir().join(format!("loopback-mcp-http-{tag}"));
    DirBuilder::new().mode(0o700).create(&dir)?;
    let file = dir.join("control");
    let mut contents = Object::new();
    contents.insert("port".into(), Value::from(u64::from(port)));
    contents.insert("secret".into(), secret.as_str().into());
    let mut out = OpenOptions::new().write(true).create_new(true).mode(0o600).open(&file)?;
    out.write_all(json::encode(&Value::Object(contents)).as_bytes())?;
    let expected = Digest::of(secret.as_bytes());
    std::thread::Builder::new()
        .name("loopback-mcp-control".into())
        .spawn(move || serve_channel(&listener, &endpoint, &expected))?;
    Ok(Channel { file })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Answers control connections one after the other, for as long as the process lives.
fn serve_channel(listener: &TcpListener, endpoint: &Endpoint, secret: &Digest) {
    for stream in listener.incoming().flatten() {
        let _ = answer(stream, endpoint, secret);
    }
}

/// One connection: one line within the read timeout, one reply.
fn answer(stream: TcpStream, endpoint: &Endpoint, secret: &Digest) -> io::Result<()> {
    let limits = endpoint.limits();
    stream.set_read_timeout(Some(limits.socket_read_timeout))?;
    stream.set_write_timeout(Some(limits.socket_write_timeout))?;
    let max = limits.control_line_bytes_max + 2 * SECRET_BYTES + 1;
    let mut line = Vec::new();
    let reply = match BufReader::new(&stream).take(max as u64 + 1).read_until(b'\n', &mut line) {
        Ok(_) if line.len() > max => failure("line_too_long"),
        Ok(_) => authorized(&line, secret)
            .map_or(failure("not_authorized"), |command| execute(endpoint, command)),
        Err(_) => failure("no_command"),
    };
    let mut reply = json::encode(&reply);
    reply.push('\n');
    (&stream).write_all(reply.as_bytes())
}

/// The command of a line that starts with the secret and a space, or `None`.
fn authorized<'l>(line: &'l [u8], secret: &Digest) -> Option<&'l str> {
    let text = std::str::from_utf8(line).ok()?.trim_end_matches(['\r', '\n']);
    let (given, command) = text.split_once(' ')?;
    (Digest::of(given.as_bytes()) == *secret).then_some(command)
}

/// A refusal line.
pub fn failure(error: &str) -> Value {
    let mut reply = Object::new();
    reply.insert("ok".into(), false.into());
    reply.insert("error".into(), error.into());
    Value::Object(reply)
}

/// Runs one control command (`VERB ROLE`) and says what happened; a role that is not one gets
/// the list of those there are.
pub fn execute(endpoint: &Endpoint, text: &str) -> Value {
    let mut words = text.split_ascii_whitespace();
    let (Some(verb), Some(role_name), None) = (words.next(), words.next(), words.next()) else {
        return failure("usage: revoke <role> | bump-revision <role>");
    };
    let Some(role) = Role::from_name(role_name) else {
        let Value::Object(mut reply) = failure("unknown_role") else { unreachable!() };
        let roles = Role::ALL.iter().map(|r| Value::from(r.name())).collect();
        reply.insert("roles".into(), Value::Array(roles));
        return Value::Object(reply);
    };
    let mut reply = Object::new();
    match verb {
        "revoke" => {
            if !role.revoke_in(&mut endpoint.policy_mut()) {
                return failure("unknown_token");
            }
        }
        "bump-revision" => match role.bump_revision_in(&mut endpoint.policy_mut()) {
            Some(revision) => {
                reply.insert("revision".into(), Value::from(revision));
            }
            None => return failure("unknown_subject"),
        },
        _ => return failure("unknown_command"),
    }
    reply.insert("ok".into(), true.into());
    reply.insert("command".into(), verb.into());
    reply.insert("role".into(), role.name().into());
    Value::Object(reply)
}

/// `control ANNOUNCEMENT VERB ROLE`.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let [announcement, verb, role] = args else {
        return Err("control takes serve's JSON line file, a verb and a role".into());
    };
    let (port, secret) = match channel_of(Path::new(announcement)) {
        Ok(channel) => channel,
        Err(problem) => {
            eprintln!("error: {problem}");
            return Ok(ExitCode::FAILURE);
        }
    };
    match send(port, &format!("{secret} {verb} {role}\n")) {
        Ok(reply) => {
            println!("{}", reply.trim_end());
            let ok = json::decode(reply.as_bytes(), Limits::DEFAULT.json_depth_max)
                .is_ok_and(|v| v.get("ok") == Some(&Value::from(true)));
            Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Err(e) => {
            eprintln!("error: the control channel at 127.0.0.1:{port} did not answer: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The port and secret of the channel an announcement names, after checking that the file
/// holding them is its owner's alone.
fn channel_of(announcement: &Path) -> Result<(u16, String), String> {
    let line = read_small(announcement)?;
    let line = json::decode(line.trim_end().as_bytes(), Limits::DEFAULT.json_depth_max)
        .map_err(|e| format!("{}: not serve's JSON line ({e})", announcement.display()))?;
    let file = line.get("control").and_then(Value::as_str).ok_or_else(|| {
        format!("{}: no \"control\" file named (is it serve's first line?)", announcement.display())
    })?;
    let file = Path::new(file);
    check_owner_only(file)?;
    let contents = read_small(file)?;
    let contents = json::decode(contents.as_bytes(), Limits::DEFAULT.json_depth_max)
        .map_err(|e| format!("{}: not a control file ({e})", file.display()))?;
    let port = contents.get("port").and_then(Value::as_number).and_then(|n| n.as_u64());
    let secret = contents.get("secret").and_then(Value::as_str);
    match (port.and_then(|p| u16::try_from(p).ok()), secret) {
        (Some(port), Some(secret)) => Ok((port, secret.to_owned())),
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

/// Sends one line and reads the one-line reply.
fn send(port: u16, line: &str) -> io::Result<String> {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let timeout = Limits::DEFAULT.client_io_timeout;
    let mut stream = TcpStream::connect_timeout(&address, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(line.as_bytes())?;
    let mut reply = String::new();
    BufReader::new(stream.take(FILE_BYTES_MAX)).read_line(&mut reply)?;
    if reply.is_empty() {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed without a reply"));
    }
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_line_that_starts_with_the_secret_is_a_command() {
        let secret = Digest::of(b"s3cret");
        let cases: [(&[u8], Option<&str>); 6] = [
            (b"s3cret revoke full\n", Some("revoke full")),
            (b"s3cret revoke full\r\n", Some("revoke full")),
            (b"s3creT revoke full\n", None),
            (b"revoke full\n", None),
            (b"s3cret\n", None),
            (b"\xffs3cret revoke full\n", None),
        ];
        for (line, expected) in cases {
            assert_eq!(authorized(line, &secret), expected, "{:?}", String::from_utf8_lossy(line));
        }
    }
}
