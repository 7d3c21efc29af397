//! Fuzzes the connection state machine with whole conversations: bytes split into arrivals
//! anywhere, peer closes, admissions and refusals, partial writes and clock steps, all taken from
//! the input. Whatever happens:
//!
//! - a request is dispatched only when it is complete: its head parses on its own to the same
//!   method, target and length, and exactly its body is handed over;
//! - once the machine says close, it never asks to read, write or dispatch again;
//! - a refused head's reply is followed by a close, with nothing dispatched in between;
//! - no deadline the machine names lies further ahead than its budget allows;
//! - a read never asks for more than the head and body budgets, and the buffer never holds more.
#![no_main]

use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::connection::{Action, Close, Connection, Event};
use loopback_mcp_http::http::{Parsed, RequestParser};
use loopback_mcp_http::limits::Limits;

const TINY: Limits = Limits {
    header_value_bytes_max: 16,
    header_fields_max: 4,
    header_section_bytes_max: 64,
    request_target_bytes_max: 16,
    request_body_bytes_max: 8,
    requests_per_connection_max: 3,
    ..Limits::DEFAULT
};
const _: () = assert!(TINY.validate().is_ok());

const REFUSAL: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";
const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
const OK_CLOSE: &[u8] = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";

/// One step of the conversation, read according to what the machine asked for.
#[derive(Arbitrary, Debug)]
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
    let conversation: Vec<u8> = input.arbitrary().unwrap_or_default();
    let steps: Vec<Step> = input.arbitrary().unwrap_or_default();
    converse(&limits, &conversation, &steps);
});

fn converse(limits: &Limits, conversation: &[u8], steps: &[Step]) {
    let t0 = Instant::now();
    let mut now = t0;
    let mut connection = Connection::new(limits, now);
    let mut sent = 0; // bytes of the conversation delivered so far
    let mut closed = false;
    let mut refused = false;
    // The peer left or a wait ran out: a refusal's reply may then end with a close at once.
    let mut cut_short = false;
    let mut next_request = 0; // where the next request starts in the conversation
    let buffer_max = limits.request_head_bytes_max() + limits.request_body_bytes_max;
    for step in steps {
        let action = connection.action();
        check_action(limits, now, &action, closed, refused);
        assert!(connection.buffered() <= buffer_max);
        let event = match (action, step) {
            (Action::Close(how), _) => {
                closed = true;
                if refused && !cut_short {
                    assert_eq!(how, Close::Polite, "a refusal that was written closes politely");
                }
                Event::PeerClosed // anything at all: the machine must stay closed
            }
            (Action::Read { max, .. }, Step::Send(n)) => {
                let n = usize::from(*n).min(max).min(conversation.len() - sent);
                let bytes = &conversation[sent..sent + n];
                sent += n;
                if n == 0 { Event::PeerClosed } else { Event::Received(bytes) }
            }
            (Action::Read { .. } | Action::Write { .. }, Step::Leave) => {
                cut_short |= refused;
                Event::PeerClosed
            }
            (Action::Read { .. } | Action::Write { .. }, Step::Wait(ms)) => {
                cut_short |= refused;
                now += Duration::from_millis(u64::from(*ms) * 8);
                Event::TimePassed
            }
            (Action::Admit, step) => match connection.head() {
                Some(Ok(_)) if matches!(step, Step::Judge(true)) => Event::Admitted,
                Some(_) => {
                    refused = true;
                    Event::Refused(REFUSAL)
                }
                None => panic!("asked to admit without a head"),
            },
            (Action::Continue, _) => Event::Interim(CONTINUE),
            (Action::Dispatch { keep_alive }, step) => {
                next_request = check_request(limits, &connection, conversation, next_request);
                let close = !keep_alive || matches!(step, Step::Reply(true));
                Event::Replied { bytes: if close { OK_CLOSE } else { OK }, close }
            }
            (Action::Write { bytes, .. }, step) => {
                let n = match step {
                    Step::Take(n) => usize::from(*n),
                    _ => bytes.len(),
                };
                Event::Wrote(n.min(bytes.len()))
            }
            (Action::Read { max, .. }, _) => {
                // Any other step: the next byte arrives, if there is one.
                let n = 1.min(max).min(conversation.len() - sent);
                sent += n;
                if n == 0 {
                    Event::PeerClosed
                } else {
                    Event::Received(&conversation[sent - n..sent])
                }
            }
        };
        now += Duration::from_millis(1);
        connection.step(now, event);
    }
}

fn check_action(limits: &Limits, now: Instant, action: &Action<'_>, closed: bool, refused: bool) {
    if closed {
        assert!(matches!(action, Action::Close(_)), "{action:?} after close");
    }
    if refused {
        assert!(
            matches!(action, Action::Write { .. } | Action::Close(_)),
            "{action:?} after a refusal"
        );
    }
    let furthest = |budget: Duration| now + budget + Duration::from_millis(1);
    match *action {
        Action::Read { max, deadline } => {
            assert!(max > 0);
            assert!(max <= limits.request_head_bytes_max().max(limits.request_body_bytes_max));
            let wait = limits.connection_idle_timeout.max(limits.socket_read_timeout);
            assert!(deadline <= furthest(wait), "a read deadline beyond its budget");
        }
        Action::Write { bytes, deadline } => {
            assert!(!bytes.is_empty() && bytes.len() <= limits.response_bytes_max);
            assert!(deadline <= furthest(limits.socket_write_timeout), "a write deadline too far");
        }
        Action::Admit | Action::Continue | Action::Dispatch { .. } | Action::Close(_) => {}
    }
}

/// The dispatched request is complete, and it is what a parser alone makes of the conversation
/// from where the previous request ended: the same method, target and length, and exactly the
/// body bytes that follow its head. Returns where the next request starts.
fn check_request(
    limits: &Limits,
    connection: &Connection,
    conversation: &[u8],
    start: usize,
) -> usize {
    let (head, body) = connection.request().expect("a dispatch without a complete request");
    assert_eq!(body.len() as u64, head.content_length);
    let mut parser = RequestParser::new(limits);
    let Ok(Parsed::Complete { value: alone, len }) = parser.parse(&conversation[start..]) else {
        panic!("dispatched a request a parser alone does not accept");
    };
    assert_eq!((alone.method, alone.target), (head.method, head.target));
    assert_eq!(alone.content_length, head.content_length);
    let body_start = start + len;
    assert_eq!(&conversation[body_start..body_start + body.len()], body);
    body_start + body.len()
}
