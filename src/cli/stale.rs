//! The control directory of a `serve` that is gone: removed by a watcher process, or by the next
//! `serve`.
//!
//! A `serve` stopped by a signal cannot remove its control directory itself: the project installs
//! no signal handler. Two things remove it instead:
//!
//! - **a watcher** ([`remove_when_gone`]): a `/bin/sh` started beside the server reads a pipe
//!   whose other end only the server holds. However the server ends, a `kill -9` included, the
//!   kernel closes that end, the read ends, and the watcher removes the control file and the
//!   directory, but only after a read that ended cleanly, and only if the directory is still not
//!   a link and still its user's. It runs in a process group of its own, so neither a terminal's
//!   Ctrl-C nor a shell's `kill %1`, sent to the server's group, reaches it; a thread of the
//!   server waits for it, so a watcher that ends early is never left a zombie;
//! - **the sweep** ([`sweep`]), for a watcher that could not start or was killed itself: each
//!   `serve`, once its own directory exists, looks through the temporary directory and removes
//!   every one that is provably stale, and nothing else. A directory is stale when all of these
//!   hold:
//!
//! - its name is a control directory's (`loopback-mcp-http-` and 16 hex digits), and it is a
//!   directory, not a link;
//! - it belongs to the same user as the new server's own directory, with mode 0700;
//! - it holds exactly one entry, a regular file `control`, that names a port;
//! - nothing listens on that port of 127.0.0.1 any more (a connection is refused). A live
//!   `serve` always listens there; a port some other program took since keeps the directory for a
//!   later sweep.
//!
//! Both remove only that file and that directory, each by its own path: nothing is removed
//! recursively. Every failure leaves the entry where it is.
//!
//! Not here: creating the directory (`control::open`).

use std::fs;
use std::io::{self, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::time::Duration;

use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;

/// What every control directory's name starts with.
pub const DIR_PREFIX: &str = "loopback-mcp-http-";
/// How many hex digits follow it.
const TAG_DIGITS: usize = 16;
/// The most entries of the temporary directory one sweep looks at.
const ENTRIES_MAX: usize = 65_536;
/// The largest control file read.
const FILE_BYTES_MAX: u64 = 4096;
/// How long a connection to a stale port may take to be refused.
const PROBE_TIMEOUT: Duration = Duration::from_millis(200);

/// What the watcher runs, with the directory as `$1`: wait for the end of its standard input,
/// then, each step only if the one before succeeded, check that the directory is not a link and
/// is the user's, and remove the control file and the directory. A `cat` that fails or is killed
/// removes nothing: the directory stays for the sweep.
const WATCHER_SCRIPT: &str =
    r#"cat > /dev/null && [ ! -L "$1" ] && [ -O "$1" ] && rm -f -- "$1/control" && rmdir -- "$1""#;
/// Where the watcher finds `cat`, `rm` and `rmdir`: the system's directories, not the caller's.
const WATCHER_PATH: &str = "/usr/bin:/bin";

/// Starts the watcher that removes `dir` once this process is gone (see the module docs). The
/// pipe it returns must live as long as the server: dropping it removes the directory too.
/// `None` when the watcher cannot start; the next `serve`'s sweep then removes the directory.
pub fn remove_when_gone(dir: &Path) -> Option<ChildStdin> {
    let mut watcher = Command::new("/bin/sh")
        .args(["-c", WATCHER_SCRIPT, "loopback-mcp-http-watcher"])
        .arg(dir)
        .env("PATH", WATCHER_PATH)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    let pipe = watcher.stdin.take();
    // Reaps the watcher whenever it ends; without a thread the directory still goes, and a
    // watcher that ended early stays a zombie until the server exits.
    let _ = std::thread::Builder::new().name("control-watcher".into()).spawn(move || {
        let _ = watcher.wait();
    });
    pipe
}

/// Removes the stale control directories under `temp` (see the module docs); `own` is the new
/// server's directory, whose owner they must share. How many were removed.
pub fn sweep(temp: &Path, own: &Path) -> usize {
    let Ok(own) = fs::symlink_metadata(own) else { return 0 };
    let Ok(entries) = fs::read_dir(temp) else { return 0 };
    let mut removed = 0;
    for entry in entries.take(ENTRIES_MAX).flatten() {
        let name = entry.file_name();
        let Some(tag) = name.to_str().and_then(|n| n.strip_prefix(DIR_PREFIX)) else {
            continue;
        };
        if tag.len() != TAG_DIGITS || !tag.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        if is_stale(&entry.path(), own.uid()) && remove(&entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Whether `dir` is a control directory of user `uid` whose server is gone.
fn is_stale(dir: &Path, uid: u32) -> bool {
    let Ok(meta) = fs::symlink_metadata(dir) else { return false };
    if !meta.is_dir() || meta.uid() != uid || meta.permissions().mode() & 0o777 != 0o700 {
        return false;
    }
    let Ok(mut entries) = fs::read_dir(dir) else { return false };
    let only = match (entries.next(), entries.next()) {
        (Some(Ok(only)), None) => only,
        _ => return false,
    };
    let file = only.path();
    let is_file = fs::symlink_metadata(&file).is_ok_and(|m| m.is_file() && m.uid() == uid);
    if only.file_name() != "control" || !is_file {
        return false;
    }
    port_of(&file).is_some_and(nobody_listens)
}

/// The port a control file names.
fn port_of(file: &Path) -> Option<u16> {
    let mut text = String::new();
    fs::File::open(file).ok()?.take(FILE_BYTES_MAX).read_to_string(&mut text).ok()?;
    let contents = json::decode(text.as_bytes(), Limits::DEFAULT.json_depth_max).ok()?;
    let port = contents.get("port").and_then(Value::as_number)?.as_u64()?;
    u16::try_from(port).ok().filter(|p| *p != 0)
}

/// True only when a connection to the port is refused: a timeout or a success keeps the
/// directory.
fn nobody_listens(port: u16) -> bool {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    matches!(
        TcpStream::connect_timeout(&address, PROBE_TIMEOUT),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused
    )
}

fn remove(dir: &Path) -> io::Result<()> {
    fs::remove_file(dir.join("control"))?;
    fs::remove_dir(dir)
}
