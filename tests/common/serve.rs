//! The `serve` command as a child process: the built binary, its announcement line and its
//! stdin control plane.

use std::fs::{self, DirBuilder};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;

pub const BIN: &str = env!("CARGO_BIN_EXE_loopback-mcp-http");

/// A running `serve`, killed when dropped. Its temporary directory (`TMPDIR`, where it makes
/// its control directory) is the test's own, removed after it, so no run leaves anything behind.
pub struct Serve {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    pub tmp: ScratchDir,
}

impl Serve {
    pub fn start(args: &[&str]) -> Serve {
        Serve::start_in(args, ScratchDir::new("tmp"))
    }

    /// [`Serve::start`] with `tmp` as its temporary directory.
    pub fn start_in(args: &[&str], tmp: ScratchDir) -> Serve {
        let mut child = Command::new(BIN)
            .arg("serve")
            .args(args)
            .env("TMPDIR", &tmp.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn serve");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Serve { child, stdin, stdout, tmp }
    }

    /// `serve --announce FILE` with `args`, and the line it wrote to FILE.
    pub fn announced(args: &[&str], file: &Path) -> (Serve, Value) {
        let mut all = vec!["--announce", file.to_str().unwrap()];
        all.extend_from_slice(args);
        let serve = Serve::start(&all);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = fs::read_to_string(file).unwrap_or_default();
            if !text.is_empty() {
                let line = json::decode(text.trim_end().as_bytes(), Limits::DEFAULT.json_depth_max)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {text:?}"));
                return (serve, line);
            }
            assert!(Instant::now() < deadline, "serve wrote nothing to {}", file.display());
            thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn line(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        json::decode(line.trim_end().as_bytes(), Limits::DEFAULT.json_depth_max)
            .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"))
    }

    pub fn control(&mut self, command: &str) -> Value {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
        self.line()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A directory of the test's own under the temporary directory, mode 0700, removed with what it
/// holds when dropped.
pub struct ScratchDir(pub PathBuf);

impl ScratchDir {
    pub fn new(tag: &str) -> ScratchDir {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let nanos =
            SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().subsec_nanos();
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let name = format!("loopback-mcp-http-test-{tag}-{}-{n}-{nanos}", std::process::id());
        let dir = std::env::temp_dir().join(name);
        DirBuilder::new().mode(0o700).create(&dir).unwrap();
        ScratchDir(dir)
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
