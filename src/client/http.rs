//! The client's HTTP layer: byte-exact requests out, strictly parsed responses in.
//!
//! [`HttpConnection`] owns one `TcpStream`, writes requests exactly as given, and reads responses
//! with the strict response parser under the response budget (a bigger response is refused
//! before its body is read). [`request`] builds request bytes without ever adding anything the
//! caller did not ask for, so tests and the CLI control every byte on the wire;
//! [`chunked_request`] does the same with the body in the chunked coding.
//!
//! This layer knows nothing about MCP; it does not retry, follow redirects or pool connections.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::{fmt, str};

use crate::http::chunked;
use crate::http::{Parsed, ResponseError, ResponseParser};
use crate::limits::Limits;

/// A response, copied out of the connection's buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientResponse {
    pub status: u16,
    /// Field lines in order, names as sent.
    pub fields: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
    /// The server left the connection open.
    pub keep_alive: bool,
    /// The response exactly as it arrived, head and body.
    pub raw: Vec<u8>,
}

impl ClientResponse {
    /// The first value of the field `name` (case-insensitive).
    pub fn field(&self, name: &str) -> Option<&[u8]> {
        self.fields.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_slice())
    }

    /// The first value of the field `name`, as text.
    pub fn field_str(&self, name: &str) -> Option<&str> {
        self.field(name).and_then(|v| str::from_utf8(v).ok())
    }

    /// How many field lines carry `name`.
    pub fn field_count(&self, name: &str) -> usize {
        self.fields.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).count()
    }
}

/// Why no response was read.
#[derive(Debug)]
pub enum ClientError {
    Io(io::Error),
    /// The bytes broke the response rules or the response budget.
    Response(ResponseError),
    /// The server closed the connection before a complete response.
    Closed,
    /// More interim (1xx) responses than the budget before a final one.
    TooManyInterim {
        limit: usize,
    },
}

impl ClientError {
    /// A stable code for the failure: the response parser's public code, or one of these.
    pub fn code(&self) -> &'static str {
        match self {
            ClientError::Io(_) => "io_error",
            ClientError::Response(e) => e.code(),
            ClientError::Closed => "closed_before_response",
            ClientError::TooManyInterim { .. } => "too_many_interim_responses",
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Io(e) => write!(f, "i/o error: {e}"),
            ClientError::Response(e) => write!(f, "{e}"),
            ClientError::Closed => f.write_str("connection closed before a complete response"),
            ClientError::TooManyInterim { limit } => {
                write!(f, "more than {limit} interim responses before a final one")
            }
        }
    }
}

impl std::error::Error for ClientError {}

impl From<io::Error> for ClientError {
    fn from(e: io::Error) -> Self {
        ClientError::Io(e)
    }
}

/// One client connection.
#[derive(Debug)]
pub struct HttpConnection {
    stream: TcpStream,
    buf: Vec<u8>,
    limits: Limits,
}

impl HttpConnection {
    /// Connects, with the client I/O timeout of `limits` for the connection and every later read
    /// and write.
    pub fn connect(address: SocketAddr, limits: &Limits) -> io::Result<Self> {
        let timeout = limits.client_io_timeout;
        let stream = TcpStream::connect_timeout(&address, timeout)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        stream.set_nodelay(true)?;
        Ok(HttpConnection { stream, buf: Vec::new(), limits: *limits })
    }

    /// Writes `bytes` as they are.
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// Reads the next response, interim (1xx) responses included.
    pub fn receive(&mut self) -> Result<ClientResponse, ClientError> {
        self.receive_as(ResponseParser::new(&self.limits))
    }

    /// Reads the next final response to a HEAD request (which carries no content).
    pub fn receive_head(&mut self) -> Result<ClientResponse, ClientError> {
        let limit = self.limits.interim_responses_max;
        for _ in 0..=limit {
            let response = self.receive_as(ResponseParser::for_head(&self.limits))?;
            if response.status >= 200 {
                return Ok(response);
            }
        }
        Err(ClientError::TooManyInterim { limit })
    }

    fn receive_as(&mut self, mut parser: ResponseParser) -> Result<ClientResponse, ClientError> {
        loop {
            match parser.parse(&self.buf).map_err(ClientError::Response)? {
                Parsed::Complete { value, len } => {
                    let response = ClientResponse {
                        status: value.status,
                        fields: value
                            .fields
                            .iter()
                            .map(|f| (f.name.to_owned(), f.value.to_vec()))
                            .collect(),
                        body: value.body.to_vec(),
                        keep_alive: value.keep_alive,
                        raw: self.buf[..len].to_vec(),
                    };
                    self.buf.drain(..len);
                    return Ok(response);
                }
                Parsed::Partial => self.fill()?,
            }
        }
    }

    /// Reads the next final (non-1xx) response, after at most the budget's interim ones.
    pub fn receive_final(&mut self) -> Result<ClientResponse, ClientError> {
        let limit = self.limits.interim_responses_max;
        for _ in 0..=limit {
            let response = self.receive()?;
            if response.status >= 200 {
                return Ok(response);
            }
        }
        Err(ClientError::TooManyInterim { limit })
    }

    /// Sends `request` and reads its final response.
    pub fn exchange(&mut self, request: &[u8]) -> Result<ClientResponse, ClientError> {
        self.send(request)?;
        self.receive_final()
    }

    /// True when the server has closed the connection: no bytes are pending and a read sees the
    /// end of the stream (a reset counts as closed too).
    pub fn is_closed_by_peer(&mut self) -> bool {
        if !self.buf.is_empty() {
            return false;
        }
        let mut byte = [0u8; 1];
        match self.stream.read(&mut byte) {
            Ok(0) => true,
            Ok(_) => {
                self.buf.push(byte[0]);
                false
            }
            Err(e) => !matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut),
        }
    }

    fn fill(&mut self) -> Result<(), ClientError> {
        let mut chunk = [0u8; 4096];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(ClientError::Closed),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ClientError::Io(e)),
            }
        }
    }
}

/// The bytes of one request: the request line, the fields in the given order, `Content-Length`
/// when there is a body, and the body. Nothing else is added.
pub fn request(method: &str, target: &str, fields: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 + body.len());
    start_request(&mut out, method, target, fields);
    if !body.is_empty() {
        out.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// The bytes of one request whose body is sent in the chunked coding (for a server started with
/// `--chunked`): the request line, the fields in the given order, `Transfer-Encoding: chunked`,
/// and the body as `chunks` (an empty one is skipped), the last chunk and no trailers.
pub fn chunked_request(
    method: &str,
    target: &str,
    fields: &[(&str, &str)],
    chunks: &[&[u8]],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(160 + chunks.iter().map(|c| c.len() + 12).sum::<usize>());
    start_request(&mut out, method, target, fields);
    out.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
    chunked::encode(chunks, &mut out);
    out
}

/// The request line and the fields.
fn start_request(out: &mut Vec<u8>, method: &str, target: &str, fields: &[(&str, &str)]) {
    out.extend_from_slice(format!("{method} {target} HTTP/1.1\r\n").as_bytes());
    for (name, value) in fields {
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
}
