//! The `serve` command as a child process: the built binary, its announcement line and its
//! stdin control plane.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;

pub const BIN: &str = env!("CARGO_BIN_EXE_loopback-mcp-http");

/// A running `serve`, killed when dropped.
pub struct Serve {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Serve {
    pub fn start(args: &[&str]) -> Serve {
        let mut child = Command::new(BIN)
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn serve");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Serve { child, stdin, stdout }
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
