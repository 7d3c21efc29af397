//! The client's HTTP layer: byte-exact requests out, strictly parsed responses in.
//!
//! [`HttpConnection`] owns one `TcpStream`, writes requests exactly as given, and reads responses
//! with the strict response parser under the response budget: a Content-Length response bigger
//! than the budget is refused before its body is read, and a chunked body (read with
//! [`ChunkReader`]) at the chunk size that would take it past the budget. Two ways to read:
//!
//! - [`HttpConnection::receive`] (and [`HttpConnection::exchange`]) return a response whole, a
//!   chunked body decoded to its last chunk, with the bytes exactly as they arrived beside it;
//! - [`HttpConnection::receive_stream_head`] returns a head alone, then
//!   [`HttpConnection::next_chunk`] hands out its body one chunk at a time as the server writes
//!   it (an event stream, one event per chunk), each chunk within the response budget and each
//!   wait within the caller's deadline; a Content-Length body comes out as one chunk. A caller
//!   cancels a stream by closing the connection ([`HttpConnection::close`], or a drop).
//!
//! Either way, the bytes after a response stay buffered for the next one on the connection.
//! [`request`] builds request bytes without ever adding anything the caller did not ask for, so
//! tests and the CLI control every byte on the wire; [`chunked_request`] does the same with the
//! body in the chunked coding.
//!
//! This layer knows nothing about MCP; it does not retry, follow redirects or pool connections.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Instant;
use std::{fmt, mem, str};

use crate::http::authenticate::{self, Challenge, Malformed};
use crate::http::chunked::{
    self,
    response::{ChunkBudget, ChunkReader, NextChunk},
};
use crate::http::{ChunkedError, Parsed, ResponseError, ResponseFraming, ResponseParser};
use crate::limits::Limits;

/// A response, copied out of the connection's buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientResponse {
    pub status: u16,
    /// Field lines in order, names as sent.
    pub fields: Vec<(String, Vec<u8>)>,
    /// The body, decoded from the chunked coding when it came chunked; empty from
    /// [`HttpConnection::receive_stream_head`].
    pub body: Vec<u8>,
    /// The server left the connection open.
    pub keep_alive: bool,
    /// The response exactly as it arrived, head and body (the head alone from
    /// [`HttpConnection::receive_stream_head`]).
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

    /// Every challenge of its `WWW-Authenticate` field lines, read as RFC 9110 writes them.
    pub fn challenges(&self) -> Result<Vec<Challenge>, Malformed> {
        let lines = self.fields.iter().filter(|(n, _)| n.eq_ignore_ascii_case("www-authenticate"));
        authenticate::parse(lines.map(|(_, v)| v.as_slice()))
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
    /// A stream's body is still being read (from [`HttpConnection::receive_stream_head`] to the
    /// `None` of [`HttpConnection::next_chunk`]): no other response can be read before its end.
    StreamOpen,
    /// The deadline of [`HttpConnection::next_chunk`] passed before the next chunk was complete.
    /// Nothing is lost: a later call goes on from the bytes already received.
    DeadlinePassed,
}

impl ClientError {
    /// A stable code for the failure: the response parser's public code, or one of these.
    pub fn code(&self) -> &'static str {
        match self {
            ClientError::Io(_) => "io_error",
            ClientError::Response(e) => e.code(),
            ClientError::Closed => "closed_before_response",
            ClientError::TooManyInterim { .. } => "too_many_interim_responses",
            ClientError::StreamOpen => "stream_open",
            ClientError::DeadlinePassed => "deadline_passed",
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
            ClientError::StreamOpen => f.write_str("a stream's body is still being read"),
            ClientError::DeadlinePassed => f.write_str("the deadline passed before the next chunk"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<io::Error> for ClientError {
    fn from(e: io::Error) -> Self {
        ClientError::Io(e)
    }
}

/// One client connection. Dropping it closes the socket.
#[derive(Debug)]
pub struct HttpConnection {
    stream: TcpStream,
    buf: Vec<u8>,
    limits: Limits,
    /// The body of the stream whose head was read, as far as it was handed out.
    pending: StreamBody,
}

/// What is left of the body of the response whose head
/// [`HttpConnection::receive_stream_head`] returned.
#[derive(Debug)]
enum StreamBody {
    /// Nothing: the connection is free for the next response.
    Idle,
    /// A Content-Length body not handed out yet (never empty).
    Whole(Vec<u8>),
    /// A chunked body being read; its errors count their offsets from the response's first
    /// byte, `head_len` bytes before the body's.
    Chunked { reader: ChunkReader, head_len: usize },
}

/// A chunked-body error as a client error, its offset counted from the response's first byte.
fn chunk_error(head_len: usize) -> impl Fn(ChunkedError) -> ClientError {
    move |e| ClientError::Response(e.in_response(head_len))
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
        Ok(HttpConnection { stream, buf: Vec::new(), limits: *limits, pending: StreamBody::Idle })
    }

    /// Writes `bytes` as they are.
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// Reads the next response whole, interim (1xx) responses included; a chunked body to its
    /// last chunk, its decoded bytes within the response budget.
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

    fn receive_as(&mut self, parser: ResponseParser) -> Result<ClientResponse, ClientError> {
        let (mut response, framing) = self.receive_parsed(parser)?;
        match framing {
            ResponseFraming::Length => {}
            ResponseFraming::Chunked => self.receive_chunked_body(&mut response)?,
        }
        Ok(response)
    }

    /// The next response as the parser completes it: with its body when it has a length, the
    /// head alone when it is chunked.
    fn receive_parsed(
        &mut self,
        mut parser: ResponseParser,
    ) -> Result<(ClientResponse, ResponseFraming), ClientError> {
        if !matches!(self.pending, StreamBody::Idle) {
            return Err(ClientError::StreamOpen);
        }
        loop {
            match parser.parse(&self.buf).map_err(ClientError::Response)? {
                Parsed::Complete { value, len } => {
                    let framing = value.framing;
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
                    return Ok((response, framing));
                }
                Parsed::Partial => self.fill()?,
            }
        }
    }

    /// Reads a chunked body to its last chunk into `response`, whose head was just read: the
    /// decoded bytes into its body, and every byte as received into its raw bytes.
    fn receive_chunked_body(&mut self, response: &mut ClientResponse) -> Result<(), ClientError> {
        let to_error = chunk_error(response.raw.len());
        let mut reader = ChunkReader::new(&self.limits, ChunkBudget::WholeBody);
        let mut taken = 0;
        loop {
            match reader.next(&self.buf[taken..]).map_err(&to_error)? {
                NextChunk::Partial => self.fill()?,
                NextChunk::Chunk { data, consumed } => {
                    response.body.extend_from_slice(&self.buf[taken..][data]);
                    taken += consumed;
                }
                NextChunk::End { consumed } => {
                    taken += consumed;
                    response.raw.extend_from_slice(&self.buf[..taken]);
                    self.buf.drain(..taken);
                    return Ok(());
                }
            }
        }
    }

    /// Reads the head of the next final response, after at most the budget's interim ones, and
    /// keeps its body for [`HttpConnection::next_chunk`]: the returned response has an empty
    /// body and the head alone as its raw bytes. A Content-Length body has arrived whole by
    /// then; a chunked one is read chunk by chunk.
    pub fn receive_stream_head(&mut self) -> Result<ClientResponse, ClientError> {
        let limit = self.limits.interim_responses_max;
        for _ in 0..=limit {
            let (mut response, framing) = self.receive_parsed(ResponseParser::new(&self.limits))?;
            if response.status < 200 {
                continue;
            }
            self.pending = match framing {
                ResponseFraming::Length => {
                    let body = mem::take(&mut response.body);
                    response.raw.truncate(response.raw.len() - body.len());
                    if body.is_empty() { StreamBody::Idle } else { StreamBody::Whole(body) }
                }
                ResponseFraming::Chunked => StreamBody::Chunked {
                    reader: ChunkReader::new(&self.limits, ChunkBudget::PerChunk),
                    head_len: response.raw.len(),
                },
            };
            return Ok(response);
        }
        Err(ClientError::TooManyInterim { limit })
    }

    /// The next chunk of the body whose head [`HttpConnection::receive_stream_head`] returned,
    /// as soon as it is complete, waiting for it until `deadline`; `None` after the last one
    /// (and when no body is pending). A Content-Length body is one chunk; an empty body none.
    ///
    /// When the deadline passes first, [`ClientError::DeadlinePassed`]: the bytes received so
    /// far are kept, and a later call goes on. After any other error the stream is unusable;
    /// close the connection.
    pub fn next_chunk(&mut self, deadline: Instant) -> Result<Option<Vec<u8>>, ClientError> {
        match mem::replace(&mut self.pending, StreamBody::Idle) {
            StreamBody::Idle => Ok(None),
            StreamBody::Whole(body) => Ok(Some(body)),
            StreamBody::Chunked { mut reader, head_len } => {
                let chunk = self.read_chunk(&mut reader, head_len, deadline);
                if !matches!(chunk, Ok(None)) {
                    self.pending = StreamBody::Chunked { reader, head_len };
                }
                chunk
            }
        }
    }

    /// Reads until `reader` has the next chunk or the end, and takes it from the buffer.
    fn read_chunk(
        &mut self,
        reader: &mut ChunkReader,
        head_len: usize,
        deadline: Instant,
    ) -> Result<Option<Vec<u8>>, ClientError> {
        loop {
            match reader.next(&self.buf).map_err(chunk_error(head_len))? {
                NextChunk::Partial => self.fill_until(deadline)?,
                NextChunk::Chunk { data, consumed } => {
                    let chunk = self.buf[data].to_vec();
                    self.buf.drain(..consumed);
                    return Ok(Some(chunk));
                }
                NextChunk::End { consumed } => {
                    self.buf.drain(..consumed);
                    return Ok(None);
                }
            }
        }
    }

    /// Closes the connection, cancelling a stream being read: the server sees the close at its
    /// next write or read. Dropping the connection does the same.
    pub fn close(self) {
        drop(self);
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

    /// Like `fill`, but waits no longer than `deadline` (the I/O timeout applies again after).
    fn fill_until(&mut self, deadline: Instant) -> Result<(), ClientError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ClientError::DeadlinePassed);
        }
        self.stream.set_read_timeout(Some(left))?;
        let filled = self.fill();
        self.stream.set_read_timeout(Some(self.limits.client_io_timeout))?;
        if let Err(ClientError::Io(e)) = &filled
            && matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
        {
            return Err(ClientError::DeadlinePassed);
        }
        filled
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
