//! Fuzzes the connection state machine, through its one driver, with whole conversations: bytes
//! split into arrivals anywhere, peer closes, admissions and refusals, partial writes and clock
//! steps, all taken from the input (the input is both the driver's transport and its handler).
//! Whatever happens:
//!
//! - a request is dispatched only when it is complete: its head parses on its own to the same
//!   method, target and length, and exactly its body is handed over;
//! - once the machine says close, it asks for nothing more;
//! - a refused head's reply is followed by a close, with nothing dispatched in between, and the
//!   refusal is the one a parser (and decoder) alone gives from where the previous request ended;
//! - no deadline the machine names lies further ahead than its budget allows;
//! - a read never asks for more than the head and body budgets, and the buffer never holds more
//!   (checked at the end: it is one fixed allocation of exactly those budgets);
//! - under `--chunked` (chosen by the input), a chunked body is dispatched only when the decoder
//!   alone, over the same conversation, completes it with exactly those bytes, and the next
//!   request starts where the coding ended.
#![no_main]

use std::cell::RefCell;
use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::chunked::{ChunkedDecoder, Decoded};
use loopback_mcp_http::http::connection::{
    Answered, Close, Connection, Handler, Happened, Io, Refused, Request, Stage, Transport, drive,
};
use loopback_mcp_http::http::{BodyFraming, Parsed, RequestHead, RequestParser, TransferCodings};
use loopback_mcp_http::limits::Limits;

const TINY: Limits = Limits {
    header_value_bytes_max: 16,
    header_fields_max: 4,
    header_section_bytes_max: 64,
    request_target_bytes_max: 16,
    request_body_bytes_max: 8,
    requests_per_connection_max: 3,
    chunks_per_body_max: 4,
    chunk_extension_bytes_max: 8,
    trailer_fields_max: 2,
    trailer_section_bytes_max: 16,
    ..Limits::DEFAULT
};
const _: () = assert!(TINY.validate().is_ok());

const REFUSAL: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
const OK_CLOSE: &[u8] = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";

/// One step of the conversation, read according to what the machine asked for.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Step {
    /// The peer sends the next `n` bytes of the conversation (a read takes what it may).
    Send(u8),
    /// The peer goes away.
    Leave,
    /// The wait ends after this many milliseconds without anything happening.
    Wait(u16),
    /// The endpoint admits (true) or refuses the head.
    Judge(bool),
    /// The reply asks to close (true) or not.
    Reply(bool),
    /// The peer takes this many bytes of a write.
    Take(u8),
}

fuzz_target!(|data: &[u8]| {
    let mut input = Unstructured::new(data);
    let tiny = input.arbitrary::<bool>().unwrap_or(false);
    let limits = if tiny { TINY } else { Limits::DEFAULT };
    let chunked = input.arbitrary::<bool>().unwrap_or(false);
    let codings = if chunked { TransferCodings::Chunked } else { TransferCodings::LengthOnly };
    let conversation: Vec<u8> = input.arbitrary().unwrap_or_default();
    let steps: Vec<Step> = input.arbitrary().unwrap_or_default();
    converse(&limits, codings, &conversation, &steps);
});

/// Everything the input decides, and what the checks remember.
struct Run<'i> {
    limits: Limits,
    codings: TransferCodings,
    conversation: &'i [u8],
    steps: std::slice::Iter<'i, Step>,
    now: Instant,
    sent: usize,
    /// Where the next request starts in the conversation.
    next_request: usize,
    closed: bool,
    refused: bool,
    /// The peer left or a wait ran out after a refusal: its reply may then end with a close at
    /// once.
    cut_short: bool,
}

impl Run<'_> {
    /// The next step; its time passes.
    fn step(&mut self) -> Option<Step> {
        self.now += Duration::from_millis(1);
        self.steps.next().copied()
    }

    fn read(&mut self, buf: &mut [u8]) -> Io {
        let left = self.conversation.len() - self.sent;
        let n = match self.step() {
            None | Some(Step::Leave) => {
                self.cut_short |= self.refused;
                return Io::Closed;
            }
            Some(Step::Wait(ms)) => {
                self.cut_short |= self.refused;
                self.now += Duration::from_millis(u64::from(ms) * 8);
                return Io::TimedOut;
            }
            Some(Step::Send(n)) => usize::from(n),
            // Any other step: the next byte arrives, if there is one.
            Some(_) => 1,
        };
        let n = n.min(buf.len()).min(left);
        buf[..n].copy_from_slice(&self.conversation[self.sent..self.sent + n]);
        self.sent += n;
        Io::Done(n)
    }

    fn write(&mut self, bytes: &[u8]) -> Io {
        match self.step() {
            None | Some(Step::Leave) => {
                self.cut_short |= self.refused;
                Io::Closed
            }
            Some(Step::Wait(ms)) => {
                self.cut_short |= self.refused;
                self.now += Duration::from_millis(u64::from(ms) * 8);
                Io::TimedOut
            }
            // A write that takes nothing is the peer's close to the driver, as to a socket.
            Some(Step::Take(0)) => {
                self.cut_short |= self.refused;
                Io::Done(0)
            }
            Some(Step::Take(n)) => Io::Done(usize::from(n).min(bytes.len())),
            Some(_) => Io::Done(bytes.len()),
        }
    }

    fn admit(&mut self, reply: &mut Vec<u8>) -> Option<()> {
        if let Some(Step::Judge(true)) = self.step() {
            return Some(());
        }
        self.refused = true;
        reply.extend_from_slice(REFUSAL);
        None
    }

    fn refuse(&mut self, refused: &Refused, reply: &mut Vec<u8>) {
        check_refusal(&self.limits, self.codings, refused, self.conversation, self.next_request);
        self.step();
        self.refused = true;
        reply.extend_from_slice(REFUSAL);
    }

    fn respond(&mut self, request: &Request<'_>, keep_alive: bool, reply: &mut Vec<u8>) -> bool {
        self.next_request = check_request(
            &self.limits,
            self.codings,
            request,
            self.conversation,
            self.next_request,
        );
        let close = !keep_alive || matches!(self.step(), None | Some(Step::Reply(true)));
        reply.extend_from_slice(if close { OK_CLOSE } else { OK });
        close
    }

    /// Every stage the machine asks for is within its budgets and follows the rules.
    fn observe(&mut self, next: &Stage<'_, ()>) {
        let limits = &self.limits;
        assert!(!self.closed, "the machine asked for more after saying close");
        if self.refused {
            assert!(matches!(next, Stage::Write(_) | Stage::Closed(_)), "{next:?} after a refusal");
        }
        let furthest = |budget: Duration| self.now + budget + Duration::from_millis(1);
        match next {
            Stage::Read(read) => {
                assert!(read.room() > 0);
                assert!(read.room() <= buffer_bytes(limits, self.codings));
                if self.codings == TransferCodings::LengthOnly {
                    let largest =
                        limits.request_head_bytes_max().max(limits.request_body_bytes_max);
                    assert!(read.room() <= largest);
                }
                let wait = limits.connection_idle_timeout.max(limits.socket_read_timeout);
                assert!(read.deadline() <= furthest(wait), "a read deadline beyond its budget");
            }
            Stage::Write(write) => {
                let bytes = write.bytes();
                assert!(!bytes.is_empty() && bytes.len() <= limits.response_bytes_max);
                let deadline = write.deadline();
                assert!(
                    deadline <= furthest(limits.socket_write_timeout),
                    "a write deadline too far"
                );
            }
            Stage::Closed(how) => {
                self.closed = true;
                if self.refused && !self.cut_short {
                    assert_eq!(*how, Close::Polite, "a refusal that was written closes politely");
                }
            }
            Stage::Admit(_) | Stage::Refuse(_) | Stage::Dispatch(_) => {}
            Stage::Stream(_) | Stage::Pause(_) | Stage::Gone(_) => {
                panic!("a stream stage without a stream: {next:?}")
            }
        }
    }
}

struct Peer<'r, 'i>(&'r RefCell<Run<'i>>);
struct Side<'r, 'i>(&'r RefCell<Run<'i>>);

impl Transport for Peer<'_, '_> {
    fn now(&mut self) -> Instant {
        self.0.borrow().now
    }
    fn read(&mut self, buf: &mut [u8], _deadline: Instant) -> Io {
        self.0.borrow_mut().read(buf)
    }
    fn write(&mut self, bytes: &[u8], _deadline: Instant) -> Io {
        self.0.borrow_mut().write(bytes)
    }
    fn pause(&mut self, until: Instant) {
        let mut run = self.0.borrow_mut();
        run.now = run.now.max(until);
    }
}

impl Handler for Side<'_, '_> {
    type Route = ();
    fn admit(&mut self, _head: &RequestHead<'_>, reply: &mut Vec<u8>) -> Option<()> {
        self.0.borrow_mut().admit(reply)
    }
    fn refuse(&mut self, refused: Refused, reply: &mut Vec<u8>) {
        self.0.borrow_mut().refuse(&refused, reply);
    }
    fn respond(
        &mut self,
        _: (),
        request: &Request<'_>,
        keep_alive: bool,
        _now: Instant,
        reply: &mut Vec<u8>,
    ) -> Answered {
        let close = self.0.borrow_mut().respond(request, keep_alive, reply);
        Answered::Whole { close }
    }
    fn observe(&mut self, _: Option<Happened>, _: &'static str, next: &Stage<'_, ()>) {
        self.0.borrow_mut().observe(next);
    }
}

/// The machine's buffer: a head and a body, or a head and what the chunked decoder may keep.
fn buffer_bytes(limits: &Limits, codings: TransferCodings) -> usize {
    let body = match codings {
        TransferCodings::LengthOnly => limits.request_body_bytes_max,
        TransferCodings::Chunked => ChunkedDecoder::kept_bytes_max(limits) + 1,
    };
    limits.request_head_bytes_max() + body
}

fn converse(limits: &Limits, codings: TransferCodings, conversation: &[u8], steps: &[Step]) {
    let t0 = Instant::now();
    let run = RefCell::new(Run {
        limits: *limits,
        codings,
        conversation,
        steps: steps.iter(),
        now: t0,
        sent: 0,
        next_request: 0,
        closed: false,
        refused: false,
        cut_short: false,
    });
    let mut connection: Connection = Connection::with_codings(limits, codings, t0);
    drive(&mut connection, &mut Peer(&run), &mut Side(&run));
    assert!(connection.buffered() <= buffer_bytes(limits, codings));
}

/// A refusal is what a parser (and, for a chunked body, a decoder) alone makes of the
/// conversation from where the previous request ended: the same kind at the same offset.
fn check_refusal(
    limits: &Limits,
    codings: TransferCodings,
    refused: &Refused,
    conversation: &[u8],
    start: usize,
) {
    let rest = &conversation[start..];
    let mut parser = RequestParser::with_codings(limits, codings);
    let alone = match parser.judge(rest) {
        Err(error) => error,
        Ok(Parsed::Complete { value: accepted, .. }) => {
            assert_eq!(accepted.body(), BodyFraming::Chunked, "refused a head a parser accepts");
            let mut region = rest[accepted.head_len()..].to_vec();
            match ChunkedDecoder::new(limits).decode(&mut region) {
                Err(error) => error.in_request(accepted.head_len()),
                Ok(decoded) => panic!("refused a chunked body a decoder alone takes: {decoded:?}"),
            }
        }
        Ok(Parsed::Partial) => panic!("refused a request a parser alone still waits for"),
    };
    assert_eq!(alone, refused.error, "a refusal that a parser alone does not give");
}

/// The dispatched request is complete, and it is what a parser alone makes of the conversation
/// from where the previous request ended: the same method, target and framing, and exactly the
/// body that follows its head (for a chunked one, what a decoder alone makes of the bytes after
/// the head). Returns where the next request starts.
fn check_request(
    limits: &Limits,
    codings: TransferCodings,
    request: &Request<'_>,
    conversation: &[u8],
    start: usize,
) -> usize {
    let (head, body) = (&request.head, request.body);
    let mut parser = RequestParser::with_codings(limits, codings);
    let Ok(Parsed::Complete { value: alone, len }) = parser.parse(&conversation[start..]) else {
        panic!("dispatched a request a parser alone does not accept");
    };
    assert_eq!((alone.method, alone.target), (head.method, head.target));
    assert_eq!(alone.body, head.body);
    let body_start = start + len;
    match head.body {
        BodyFraming::Length(length) => {
            assert_eq!(body.len(), length);
            assert_eq!(&conversation[body_start..body_start + body.len()], body);
            body_start + body.len()
        }
        BodyFraming::Chunked => {
            let mut region = conversation[body_start..].to_vec();
            let mut decoder = ChunkedDecoder::new(limits);
            let Ok(Decoded::Complete { body_len, .. }) = decoder.decode(&mut region) else {
                panic!("dispatched a chunked body a decoder alone does not complete");
            };
            assert_eq!(&region[..body_len], body);
            body_start + decoder.raw_len()
        }
    }
}
