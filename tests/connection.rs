//! The connection state machine on a fake clock, through the one driver: a script of arrivals,
//! admissions, replies and clock steps plays both the transport and the handler, and every stage
//! the machine asks for is recorded as a readable line. No socket and no sleep: every deadline is
//! checked at its edge and one step past it by reporting the time.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use loopback_mcp_http::http::chunked::request::ChunkedDecoder;
use loopback_mcp_http::http::connection::{
    Answered, Close, Connection, Departure, Handler, Happened, Io, Linger, LingerAction, Next,
    Refused, Request, Stage, Transport, Why, drive,
};
use loopback_mcp_http::http::{RequestHead, TransferCodings};
use loopback_mcp_http::limits::Limits;

/// One scripted step, at a time in milliseconds after the connection was accepted.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Recv(&'static [u8]),
    PeerClosed,
    /// The read or write waited and returned nothing.
    Timeout,
    /// The handler admits the head (the time is that of the read that completed it).
    Admitted,
    /// The handler refuses the head, or answers the parser's refusal.
    Refused,
    Reply {
        close: bool,
    },
    /// The pending write went out whole.
    WroteAll,
    /// Part of the pending write went out.
    Wrote(usize),
    /// The handler answers with the head of a stream that stays open.
    Stream,
    /// The open stream's handler produces a chunk.
    Chunk,
    /// The open stream's handler has nothing before this time (ms after the start).
    Wait(u64),
    /// The open stream's handler ends it, with its last chunk.
    End {
        close: bool,
    },
    /// The open stream's handler, its peer gone, decides.
    Depart(Departure),
    /// A pause ended.
    Paused,
}

const REFUSAL: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
const OK_CLOSE: &[u8] = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";

const PING: &[u8] = b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}";
const STREAM_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
const CHUNK: &[u8] = b"5\r\nhello\r\n";
const LAST_CHUNK: &[u8] = b"0\r\n\r\n";
const GET: &[u8] = b"GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n";

/// The script, as transport and handler at once, and the stages it saw.
struct Script<'s> {
    t0: Instant,
    now: Instant,
    items: &'s [(u64, Ev)],
    next: usize,
    /// Set once the driver asked for more than the script holds: nothing more is recorded.
    exhausted: bool,
    seen: Vec<String>,
}

impl Script<'_> {
    /// The next item, its time becoming the clock's; `None` once the script is over.
    fn take(&mut self) -> Option<Ev> {
        let Some(&(at_ms, ev)) = self.items.get(self.next) else {
            self.exhausted = true;
            return None;
        };
        self.next += 1;
        self.now = self.t0 + Duration::from_millis(at_ms);
        Some(ev)
    }

    fn unexpected(&self, ev: Ev, stage: &str) -> ! {
        panic!("script item {} ({ev:?}) does not fit the {stage} stage", self.next)
    }

    fn describe(&self, stage: &Stage<'_, ()>) -> String {
        let ms = |at: Instant| at.duration_since(self.t0).as_millis();
        match stage {
            Stage::Read(read) => format!("read {} by {}", read.room(), ms(read.deadline())),
            Stage::Admit(admit) => {
                let head = admit.head();
                format!("admit {} {}", head.method.as_str(), head.target)
            }
            Stage::Refuse(refuse) => {
                format!("admit refused {}", refuse.refused_head().error.code())
            }
            Stage::Dispatch(dispatch) => {
                let request = dispatch.request();
                let keep = if dispatch.keep_alive() { "keep" } else { "close" };
                let (head, body) = (request.head, request.body.len());
                format!("dispatch {} {} body {body} {keep}", head.method.as_str(), head.target)
            }
            Stage::Write(write) => {
                let bytes = write.bytes();
                let line = bytes.split(|&b| b == b'\r').next().unwrap_or_default();
                let line = String::from_utf8_lossy(line);
                let last = if write.closes() { " last" } else { "" };
                format!("write {line:?} {} by {}{last}", bytes.len(), ms(write.deadline()))
            }
            Stage::Stream(produce) if produce.detached() => "produce detached".into(),
            Stage::Stream(_) => "produce".into(),
            Stage::Pause(pause) => format!("pause until {}", ms(pause.until())),
            Stage::Gone(departed) => match departed.why() {
                Why::PeerLeft => "depart".into(),
                Why::OverBudget => "depart over budget".into(),
            },
            Stage::Closed(Close::Polite) => "close polite".into(),
            Stage::Closed(Close::Now) => "close now".into(),
        }
    }
}

/// The script as the transport...
struct Peer<'r, 's>(&'r RefCell<Script<'s>>);
/// ... and as the handler: two views of one script.
struct Endpoint<'r, 's>(&'r RefCell<Script<'s>>);

impl Transport for Peer<'_, '_> {
    fn now(&mut self) -> Instant {
        self.0.borrow().now
    }

    fn read(&mut self, buf: &mut [u8], deadline: Instant) -> Io {
        self.0.borrow_mut().read(buf, deadline)
    }

    fn write(&mut self, bytes: &[u8], deadline: Instant) -> Io {
        self.0.borrow_mut().write(bytes, deadline)
    }

    // The stage's description says which write is the last.
    fn closing(&mut self) {}

    fn hang_up(&mut self) {
        let mut script = self.0.borrow_mut();
        if !script.exhausted {
            script.seen.push("hang up".into());
        }
    }

    fn pause(&mut self, _until: Instant) {
        let mut script = self.0.borrow_mut();
        match script.take() {
            Some(Ev::Paused) | None => {}
            Some(ev) => script.unexpected(ev, "pause"),
        }
    }
}

impl Handler for Endpoint<'_, '_> {
    type Route = ();

    fn admit(&mut self, head: &RequestHead<'_>, reply: &mut Vec<u8>) -> Option<()> {
        self.0.borrow_mut().admit(head, reply)
    }

    fn refuse(&mut self, refused: Refused, reply: &mut Vec<u8>) {
        self.0.borrow_mut().refuse(refused, reply);
    }

    fn respond(
        &mut self,
        _: (),
        request: &Request<'_>,
        keep_alive: bool,
        now: Instant,
        reply: &mut Vec<u8>,
    ) -> Answered {
        self.0.borrow_mut().respond(request, keep_alive, now, reply)
    }

    fn next(&mut self, _now: Instant, out: &mut Vec<u8>) -> Next {
        let mut script = self.0.borrow_mut();
        let t0 = script.t0;
        match script.take() {
            Some(Ev::Chunk) => {
                out.extend_from_slice(CHUNK);
                Next::Chunk
            }
            Some(Ev::Wait(ms)) => Next::Wait(t0 + Duration::from_millis(ms)),
            Some(Ev::End { close }) => {
                out.extend_from_slice(LAST_CHUNK);
                Next::End { close }
            }
            None => Next::End { close: true },
            Some(ev) => script.unexpected(ev, "produce"),
        }
    }

    fn depart(&mut self, _now: Instant, _why: Why) -> Departure {
        let mut script = self.0.borrow_mut();
        match script.take() {
            Some(Ev::Depart(departure)) => departure,
            None => Departure::Stop,
            Some(ev) => script.unexpected(ev, "depart"),
        }
    }

    fn observe(&mut self, _: Option<Happened>, _: &'static str, next: &Stage<'_, ()>) {
        self.0.borrow_mut().observe(next);
    }
}

impl Script<'_> {
    fn read(&mut self, buf: &mut [u8], _deadline: Instant) -> Io {
        match self.take() {
            None | Some(Ev::PeerClosed) => Io::Closed,
            Some(Ev::Timeout) => Io::TimedOut,
            Some(Ev::Recv(bytes)) => {
                assert!(bytes.len() <= buf.len(), "the script sends more than the read takes");
                buf[..bytes.len()].copy_from_slice(bytes);
                Io::Done(bytes.len())
            }
            Some(ev) => self.unexpected(ev, "read"),
        }
    }

    fn write(&mut self, bytes: &[u8], _deadline: Instant) -> Io {
        match self.take() {
            None | Some(Ev::PeerClosed) => Io::Closed,
            Some(Ev::Timeout) => Io::TimedOut,
            Some(Ev::WroteAll) => Io::Done(bytes.len()),
            Some(Ev::Wrote(n)) => Io::Done(n),
            Some(ev) => self.unexpected(ev, "write"),
        }
    }

    fn admit(&mut self, _head: &RequestHead<'_>, reply: &mut Vec<u8>) -> Option<()> {
        match self.take() {
            Some(Ev::Admitted) => Some(()),
            None => None,
            Some(Ev::Refused) => {
                reply.extend_from_slice(REFUSAL);
                None
            }
            Some(ev) => self.unexpected(ev, "admit"),
        }
    }

    fn refuse(&mut self, _refused: Refused, reply: &mut Vec<u8>) {
        match self.take() {
            Some(Ev::Refused) => reply.extend_from_slice(REFUSAL),
            None => {}
            Some(ev) => self.unexpected(ev, "refuse"),
        }
    }

    fn respond(
        &mut self,
        _request: &Request<'_>,
        _keep_alive: bool,
        _now: Instant,
        reply: &mut Vec<u8>,
    ) -> Answered {
        let close = match self.take() {
            Some(Ev::Reply { close }) => close,
            Some(Ev::Stream) => {
                reply.extend_from_slice(STREAM_HEAD);
                return Answered::Streaming;
            }
            None => true,
            Some(ev) => self.unexpected(ev, "dispatch"),
        };
        reply.extend_from_slice(if close { OK_CLOSE } else { OK });
        Answered::Whole { close }
    }

    fn observe(&mut self, next: &Stage<'_, ()>) {
        if !self.exhausted {
            let line = self.describe(next);
            self.seen.push(line);
        }
    }
}

/// Runs a script through the driver: the machine's first stage, then its stage after each
/// item; and how many items were left unconsumed when the connection ended.
fn run_counting(limits: &Limits, items: &[(u64, Ev)]) -> (Vec<String>, usize) {
    run_counting_with(limits, TransferCodings::LengthOnly, items)
}

/// [`run_counting`] for a connection that decodes `codings`.
fn run_counting_with(
    limits: &Limits,
    codings: TransferCodings,
    items: &[(u64, Ev)],
) -> (Vec<String>, usize) {
    let t0 = Instant::now();
    let mut connection: Connection = Connection::with_codings(limits, codings, t0);
    let script =
        RefCell::new(Script { t0, now: t0, items, next: 0, exhausted: false, seen: Vec::new() });
    drive(&mut connection, &mut Peer(&script), &mut Endpoint(&script));
    let script = script.into_inner();
    (script.seen, items.len() - script.next)
}

/// [`run_counting`]'s stages.
fn run(limits: &Limits, items: &[(u64, Ev)]) -> Vec<String> {
    run_counting(limits, items).0
}

fn check(limits: &Limits, script: &[(u64, Ev)], expected: &[&str]) {
    assert_eq!(run(limits, script), expected, "script {script:?}");
}

const D: Limits = Limits::DEFAULT;
const HEAD_MAX: usize = D.request_head_bytes_max();

fn read_by(ms: u64) -> String {
    format!("read {HEAD_MAX} by {ms}")
}

#[test]
fn a_ping_is_read_admitted_dispatched_written_and_the_next_request_awaited() {
    let head_room = HEAD_MAX - PING.len();
    check(
        &D,
        &[
            (10, Ev::Recv(PING)),
            (11, Ev::Admitted),
            (12, Ev::Reply { close: false }),
            (13, Ev::WroteAll),
        ],
        &[
            &read_by(5000),
            "admit POST /mcp",
            "dispatch POST /mcp body 2 keep",
            "write \"HTTP/1.1 200 OK\" 40 by 2012",
            &read_by(5013),
        ],
    );
    assert!(head_room > 0);
}

#[test]
fn the_idle_timeout_governs_before_a_first_byte_at_its_edge() {
    check(&D, &[(4999, Ev::Timeout)], &[&read_by(5000), &read_by(5000)]);
    check(&D, &[(5000, Ev::Timeout)], &[&read_by(5000), "close now"]);
    // A keep-alive connection's idle time starts when its last response is out.
    let after_one = [
        (0, Ev::Recv(GET)),
        (0, Ev::Admitted),
        (0, Ev::Reply { close: false }),
        (100, Ev::WroteAll),
    ];
    let mut script = after_one.to_vec();
    script.push((5099, Ev::Timeout));
    assert_eq!(run(&D, &script).last().unwrap(), &read_by(5100));
    script.push((5100, Ev::Timeout));
    assert_eq!(run(&D, &script).last().unwrap(), "close now");
}

#[test]
fn once_a_head_has_begun_one_read_waits_at_most_the_read_timeout() {
    let partial = &PING[..21];
    let room = HEAD_MAX - 21;
    let waits = format!("read {room} by 3000");
    check(
        &D,
        &[(1000, Ev::Recv(partial)), (2999, Ev::Timeout), (3000, Ev::Timeout)],
        &[&read_by(5000), &waits, &waits, "close now"],
    );
}

#[test]
fn a_trickling_head_is_closed_at_the_head_deadline_and_not_before() {
    // One byte every 1.5 s: each read is within its timeout; the head deadline (5 s from the
    // first byte at 1 s) closes it at 6 s.
    let bytes: [&'static [u8]; 4] = [b"P", b"O", b"S", b"T"];
    let script: Vec<(u64, Ev)> =
        bytes.iter().enumerate().map(|(i, b)| (1000 + 1500 * i as u64, Ev::Recv(b))).collect();
    let seen = run(&D, &script);
    assert_eq!(seen[1], format!("read {} by 3000", HEAD_MAX - 1));
    assert_eq!(seen[3], format!("read {} by 6000", HEAD_MAX - 3), "capped by the head deadline");
    assert_eq!(seen[4], format!("read {} by 6000", HEAD_MAX - 4));
    let mut script = script;
    script.push((5999, Ev::Timeout));
    assert_eq!(run(&D, &script).last().unwrap(), &format!("read {} by 6000", HEAD_MAX - 4));
    script.push((6000, Ev::Timeout));
    assert_eq!(run(&D, &script).last().unwrap(), "close now");
}

#[test]
fn a_body_is_read_to_its_length_within_the_body_deadline_and_read_timeout() {
    let head = b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123";
    let limits = Limits { request_body_deadline: Duration::from_millis(3000), ..D };
    check(
        &limits,
        &[(0, Ev::Recv(head)), (0, Ev::Admitted), (1500, Ev::Recv(b"456")), (3000, Ev::Timeout)],
        &[&read_by(5000), "admit POST /mcp", "read 6 by 2000", "read 3 by 3000", "close now"],
    );
    check(
        &D,
        &[(0, Ev::Recv(head)), (0, Ev::Admitted), (1999, Ev::Timeout), (2000, Ev::Timeout)],
        &[&read_by(5000), "admit POST /mcp", "read 6 by 2000", "read 6 by 2000", "close now"],
    );
    check(
        &D,
        &[(0, Ev::Recv(head)), (0, Ev::Admitted), (10, Ev::Recv(b"456789"))],
        &[&read_by(5000), "admit POST /mcp", "read 6 by 2000", "dispatch POST /mcp body 10 keep"],
    );
}

#[test]
fn writes_wait_one_write_timeout_without_progress_and_the_response_deadline_in_all() {
    let base = [(0, Ev::Recv(GET)), (0, Ev::Admitted), (0, Ev::Reply { close: false })];
    let with = |tail: &[(u64, Ev)]| [&base[..], tail].concat();
    // Progress moves the per-write deadline; the total stays at 5 s.
    let seen =
        run(&D, &with(&[(1900, Ev::Wrote(10)), (3800, Ev::Wrote(10)), (4500, Ev::Wrote(1))]));
    assert_eq!(
        seen[3..],
        [
            "write \"HTTP/1.1 200 OK\" 40 by 2000",
            "write \"00 OK\" 30 by 3900",
            "write \"tent-Length: 2\" 20 by 5000",
            "write \"ent-Length: 2\" 19 by 5000",
        ]
    );
    let seen = run(&D, &with(&[(1999, Ev::Timeout), (2000, Ev::Timeout)]));
    assert_eq!(seen[4..], ["write \"HTTP/1.1 200 OK\" 40 by 2000", "close now"]);
    let seen = run(&D, &with(&[(1900, Ev::Wrote(10)), (3800, Ev::Wrote(10)), (5000, Ev::Timeout)]));
    assert_eq!(seen.last().unwrap(), "close now");
    let seen = run(&D, &with(&[(10, Ev::PeerClosed)]));
    assert_eq!(seen.last().unwrap(), "close now");
}

#[test]
fn pipelined_requests_in_one_arrival_are_served_in_order_without_another_read() {
    const TWO: &[u8] = b"GET /mcp HTTP/1.1\r\nHost: a\r\n\r\nPOST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}";
    check(
        &D,
        &[
            (0, Ev::Recv(TWO)),
            (1, Ev::Admitted),
            (2, Ev::Reply { close: false }),
            (3, Ev::WroteAll),
            (4, Ev::Admitted),
            (5, Ev::Reply { close: false }),
            (6, Ev::WroteAll),
        ],
        &[
            &read_by(5000),
            "admit GET /mcp",
            "dispatch GET /mcp body 0 keep",
            "write \"HTTP/1.1 200 OK\" 40 by 2002",
            "admit POST /mcp",
            "dispatch POST /mcp body 2 keep",
            "write \"HTTP/1.1 200 OK\" 40 by 2005",
            &read_by(5006),
        ],
    );
}

#[test]
fn an_error_on_the_second_request_closes_and_the_bytes_after_it_are_never_read() {
    const TWO_BAD: &[u8] = b"GET /mcp HTTP/1.1\r\nHost: a\r\n\r\nGET /x HTTP/1.1\nHost: a\r\n\r\nGET /mcp HTTP/1.1\r\nHost: a\r\n\r\n";
    check(
        &D,
        &[
            (0, Ev::Recv(TWO_BAD)),
            (0, Ev::Admitted),
            (0, Ev::Reply { close: false }),
            (0, Ev::WroteAll),
            (0, Ev::Refused),
            (0, Ev::WroteAll),
        ],
        &[
            &read_by(5000),
            "admit GET /mcp",
            "dispatch GET /mcp body 0 keep",
            "write \"HTTP/1.1 200 OK\" 40 by 2000",
            "admit refused bare_lf",
            "write \"HTTP/1.1 400 Bad Request\" 66 by 2000 last",
            "close polite",
        ],
    );
    // Whatever the peer would send afterwards, the connection is over: it is never read.
    let more = [(0, Ev::Recv(TWO_BAD)), (0, Ev::Admitted), (0, Ev::Reply { close: false })];
    let script = [&more[..], &[(0, Ev::WroteAll), (0, Ev::Refused), (0, Ev::WroteAll)]].concat();
    let with_more = [&script[..], &[(1, Ev::Recv(b"more"))]].concat();
    assert_eq!(run_counting(&D, &with_more).1, 1, "the last arrival is never read");
}

#[test]
fn a_refused_head_gets_its_reply_and_a_polite_close_without_100_continue() {
    const EXPECTS: &[u8] =
        b"POST /mcp HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";
    check(
        &D,
        &[(0, Ev::Recv(EXPECTS)), (0, Ev::Refused), (1, Ev::WroteAll)],
        &[
            &read_by(5000),
            "admit POST /mcp",
            "write \"HTTP/1.1 400 Bad Request\" 66 by 2000 last",
            "close polite",
        ],
    );
}

#[test]
fn continue_is_sent_only_after_admission_and_only_while_the_body_is_missing() {
    const EXPECTS: &[u8] =
        b"POST /mcp HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";
    check(
        &D,
        &[(0, Ev::Recv(EXPECTS)), (0, Ev::Admitted), (1, Ev::WroteAll), (2, Ev::Recv(b"hello"))],
        &[
            &read_by(5000),
            "admit POST /mcp",
            // The machine's own interim response: fixed bytes, no Date.
            "write \"HTTP/1.1 100 Continue\" 25 by 2000",
            "read 5 by 2001",
            "dispatch POST /mcp body 5 keep",
        ],
    );
    const WITH_BODY: &[u8] =
        b"POST /mcp HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello";
    check(
        &D,
        &[(0, Ev::Recv(WITH_BODY)), (0, Ev::Admitted)],
        &[&read_by(5000), "admit POST /mcp", "dispatch POST /mcp body 5 keep"],
    );
    // HTTP/1.0 ignores the expectation.
    const OLD: &[u8] =
        b"POST /mcp HTTP/1.0\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";
    check(
        &D,
        &[(0, Ev::Recv(OLD)), (0, Ev::Admitted)],
        &[&read_by(5000), "admit POST /mcp", "read 5 by 2000"],
    );
}

#[test]
fn http_1_0_keeps_the_connection_only_when_asked() {
    let cases: [(&'static [u8], &str); 4] = [
        (b"GET /mcp HTTP/1.0\r\n\r\n", "close"),
        (b"GET /mcp HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "keep"),
        (b"GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n", "keep"),
        (b"GET /mcp HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "close"),
    ];
    for (request, keep) in cases {
        let seen = run(&D, &[(0, Ev::Recv(request)), (0, Ev::Admitted)]);
        assert_eq!(seen[2], format!("dispatch GET /mcp body 0 {keep}"), "{request:?}");
    }
    // A reply that closes ends the connection politely after it is written.
    let seen = run(
        &D,
        &[
            (0, Ev::Recv(cases[0].0)),
            (0, Ev::Admitted),
            (0, Ev::Reply { close: true }),
            (0, Ev::WroteAll),
        ],
    );
    assert_eq!(seen.last().unwrap(), "close polite");
}

#[test]
fn the_last_request_of_the_connection_budget_is_dispatched_to_close() {
    for max in [1usize, 3] {
        let limits = Limits { requests_per_connection_max: max, ..D };
        let mut script = Vec::new();
        for _ in 0..max {
            script.extend([
                (0, Ev::Recv(GET)),
                (0, Ev::Admitted),
                (0, Ev::Reply { close: false }),
                (0, Ev::WroteAll),
            ]);
        }
        // The last reply must say close; the script's keep-alive reply would break that, so it
        // is replaced by a closing one.
        let last = script.len() - 2;
        script[last] = (0, Ev::Reply { close: true });
        let seen = run(&limits, &script);
        let dispatches: Vec<&String> = seen.iter().filter(|s| s.starts_with("dispatch")).collect();
        assert_eq!(dispatches.len(), max);
        for (i, dispatch) in dispatches.iter().enumerate() {
            let keep = if i + 1 == max { "close" } else { "keep" };
            assert_eq!(**dispatch, format!("dispatch GET /mcp body 0 {keep}"), "max {max}");
        }
        assert_eq!(seen.last().unwrap(), "close polite");
    }
}

#[test]
fn a_peer_that_leaves_mid_request_gets_nothing_dispatched() {
    for script in [
        vec![(0, Ev::PeerClosed)],
        vec![(0, Ev::Recv(&PING[..30])), (1, Ev::PeerClosed)],
        vec![(0, Ev::Recv(&PING[..PING.len() - 1])), (0, Ev::Admitted), (1, Ev::PeerClosed)],
    ] {
        let seen = run(&D, &script);
        assert!(!seen.iter().any(|s| s.starts_with("dispatch")), "{seen:?}");
        assert_eq!(seen.last().unwrap(), "close now");
    }
}

#[test]
fn reads_never_ask_for_more_than_the_head_and_body_budgets() {
    let limits = Limits {
        header_section_bytes_max: 64,
        header_value_bytes_max: 16,
        header_fields_max: 4,
        request_target_bytes_max: 16,
        request_body_bytes_max: 8,
        ..D
    };
    let head_max = limits.request_head_bytes_max();
    let seen = run(
        &limits,
        &[
            (0, Ev::Recv(b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 8\r\n\r\n")),
            (0, Ev::Admitted),
        ],
    );
    assert_eq!(seen[0], format!("read {head_max} by 5000"));
    assert_eq!(seen[2], "read 8 by 2000", "exactly the body, not the next request");
    // A head at the section budget is accepted; one byte more is refused by the parser.
    let at_max = format!("GET / HTTP/1.1\r\nHost: a\r\nX: {}\r\n\r\n", "v".repeat(16));
    let over = format!("GET / HTTP/1.1\r\nHost: a\r\nX: {}\r\n\r\n", "v".repeat(17));
    let leak = |s: String| -> &'static [u8] { Box::leak(s.into_bytes().into_boxed_slice()) };
    assert_eq!(run(&limits, &[(0, Ev::Recv(leak(at_max)))])[1], "admit GET /");
    assert_eq!(
        run(&limits, &[(0, Ev::Recv(leak(over)))])[1],
        "admit refused field_value_too_large"
    );
}

#[test]
fn a_linger_drains_until_the_peer_closes_its_deadline_or_its_byte_budget() {
    let limits = Limits { drain_bytes_max: 10, ..D };
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let deadline = at(250);
    let mut linger = Linger::new(&limits, t0);
    assert_eq!(linger.action(), LingerAction::Drain { max: 10, deadline });
    assert_eq!(linger.drained(at(1), 9), LingerAction::Drain { max: 1, deadline });
    assert_eq!(linger.drained(at(2), 1), LingerAction::Close, "at the byte budget");
    let mut linger = Linger::new(&limits, t0);
    assert_eq!(linger.waited(at(249)), LingerAction::Drain { max: 10, deadline });
    assert_eq!(linger.waited(at(250)), LingerAction::Close, "at the deadline");
    let mut linger = Linger::new(&limits, t0);
    assert_eq!(linger.peer_closed(), LingerAction::Close);
    assert_eq!(linger.drained(at(4), 1), LingerAction::Close, "closed stays closed");
}

/// A connection under `--chunked`: its stages for `script`.
fn run_chunked(limits: &Limits, script: &[(u64, Ev)]) -> Vec<String> {
    run_counting_with(limits, TransferCodings::Chunked, script).0
}

const CHUNKED_HEAD: &[u8] = b"POST /mcp HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";

/// The room a read has while `kept` bytes of a chunked body are held after `CHUNKED_HEAD`.
fn chunked_room(kept: usize) -> usize {
    HEAD_MAX + ChunkedDecoder::kept_bytes_max(&D) + 1 - CHUNKED_HEAD.len() - kept
}

#[test]
fn a_chunked_body_is_decoded_in_place_and_a_request_pipelined_after_it_is_served() {
    let arrival = [CHUNKED_HEAD, b"1\r\n{\r\n1;x=y\r\n}\r\n0\r\nX-T: 1\r\n\r\n", GET].concat();
    let arrival: &'static [u8] = Box::leak(arrival.into_boxed_slice());
    let script = [
        (0, Ev::Recv(arrival)),
        (1, Ev::Admitted),
        (2, Ev::Reply { close: false }),
        (3, Ev::WroteAll),
        (4, Ev::Admitted),
        (5, Ev::Reply { close: false }),
        (6, Ev::WroteAll),
    ];
    let expected = [
        &read_by(5000),
        "admit POST /mcp",
        "dispatch POST /mcp body 2 keep",
        "write \"HTTP/1.1 200 OK\" 40 by 2002",
        "admit GET /mcp",
        "dispatch GET /mcp body 0 keep",
        "write \"HTTP/1.1 200 OK\" 40 by 2005",
        &read_by(5006),
    ];
    assert_eq!(run_chunked(&D, &script), expected);
    // Without the flag the same head is refused before its body, and nothing after it is read.
    let refused = run(&D, &[(0, Ev::Recv(arrival)), (0, Ev::Refused), (0, Ev::WroteAll)]);
    assert_eq!(refused[1], "admit refused transfer_encoding_chunked");
    assert_eq!(refused.last().unwrap(), "close polite");
}

#[test]
fn a_chunked_body_is_read_within_the_body_deadline_and_the_read_timeout() {
    let limits = Limits { request_body_deadline: Duration::from_millis(3000), ..D };
    let first = [CHUNKED_HEAD, b"2\r\n"].concat();
    let first: &'static [u8] = Box::leak(first.into_boxed_slice());
    let seen = run_chunked(
        &limits,
        &[
            (0, Ev::Recv(first)),
            (0, Ev::Admitted),
            (1500, Ev::Recv(b"{}\r\n0\r")),
            (2000, Ev::Recv(b"\n\r\n")),
        ],
    );
    let expected = [
        read_by(5000),
        "admit POST /mcp".into(),
        format!("read {} by 2000", chunked_room(0)),
        format!("read {} by 3000", chunked_room(2)),
        "dispatch POST /mcp body 2 keep".into(),
    ];
    assert_eq!(seen, expected);
    // Arriving too slowly: the body deadline ends it, with nothing dispatched; a body with no
    // last chunk ends at the peer's close, never as a request.
    let slow =
        [(0, Ev::Recv(first)), (0, Ev::Admitted), (1500, Ev::Recv(b"{}")), (3000, Ev::Timeout)];
    assert_eq!(run_chunked(&limits, &slow).last().unwrap(), "close now");
    let unfinished =
        [(0, Ev::Recv(first)), (0, Ev::Admitted), (10, Ev::Recv(b"{}\r\n")), (20, Ev::PeerClosed)];
    let seen = run_chunked(&D, &unfinished);
    assert!(!seen.iter().any(|s| s.starts_with("dispatch")), "{seen:?}");
    assert_eq!(seen.last().unwrap(), "close now");
}

#[test]
fn a_malformed_chunked_body_is_refused_and_nothing_after_it_is_interpreted() {
    let arrival = [CHUNKED_HEAD, b"0x2\r\n{}\r\n0\r\n\r\n", GET].concat();
    let arrival: &'static [u8] = Box::leak(arrival.into_boxed_slice());
    let script = [(0, Ev::Recv(arrival)), (0, Ev::Admitted), (0, Ev::Refused), (0, Ev::WroteAll)];
    let with_more = [&script[..], &[(1, Ev::Recv(GET))]].concat();
    let (seen, unread) = run_counting_with(&D, TransferCodings::Chunked, &with_more);
    let expected = [
        &read_by(5000),
        "admit POST /mcp",
        "admit refused chunk_size_byte",
        "write \"HTTP/1.1 400 Bad Request\" 66 by 2000 last",
        "close polite",
    ];
    assert_eq!(seen, expected);
    assert_eq!(unread, 1, "the connection is over: nothing more is read");
}

#[test]
fn continue_precedes_a_chunked_body_only_while_it_is_incomplete() {
    const EXPECTS: &[u8] = b"POST /mcp HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n";
    let room = HEAD_MAX + ChunkedDecoder::kept_bytes_max(&D) + 1 - EXPECTS.len();
    let seen = run_chunked(
        &D,
        &[
            (0, Ev::Recv(EXPECTS)),
            (0, Ev::Admitted),
            (1, Ev::WroteAll),
            (2, Ev::Recv(b"0\r\n\r\n")),
        ],
    );
    let expected = [
        read_by(5000),
        "admit POST /mcp".into(),
        "write \"HTTP/1.1 100 Continue\" 25 by 2000".into(),
        format!("read {room} by 2001"),
        "dispatch POST /mcp body 0 keep".into(),
    ];
    assert_eq!(seen, expected);
    let whole = [EXPECTS, b"0\r\n\r\n"].concat();
    let whole: &'static [u8] = Box::leak(whole.into_boxed_slice());
    let seen = run_chunked(&D, &[(0, Ev::Recv(whole)), (0, Ev::Admitted)]);
    assert_eq!(
        seen,
        [read_by(5000), "admit POST /mcp".into(), "dispatch POST /mcp body 0 keep".into()]
    );
}

/// Runs `items` on `connection` (fresh or renewed) from `t0`; the stages seen.
fn run_on(connection: &mut Connection, t0: Instant, items: &[(u64, Ev)]) -> Vec<String> {
    let script =
        RefCell::new(Script { t0, now: t0, items, next: 0, exhausted: false, seen: Vec::new() });
    drive(connection, &mut Peer(&script), &mut Endpoint(&script));
    script.into_inner().seen
}

#[test]
fn a_renewed_connection_behaves_exactly_like_a_fresh_one_whatever_the_last_one_left_behind() {
    // How the previous connection on the same buffers ended.
    let before: [&[(u64, Ev)]; 6] = [
        // Mid-head: bytes of an unfinished request left in the buffer.
        &[(1, Ev::Recv(b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Len")), (2, Ev::PeerClosed)],
        // Mid-body: a head admitted, half its body read.
        &[(1, Ev::Recv(&PING[..PING.len() - 1])), (2, Ev::Admitted), (3, Ev::PeerClosed)],
        // A request answered, the next one pipelined and cut short.
        &[
            (1, Ev::Recv(b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}GET /x H")),
            (2, Ev::Admitted),
            (3, Ev::Reply { close: false }),
            (4, Ev::WroteAll),
            (5, Ev::PeerClosed),
        ],
        // A refused head.
        &[
            (1, Ev::Recv(b"GET / HTTP/1.1\r\nBad Header\r\n\r\n")),
            (2, Ev::Refused),
            (3, Ev::WroteAll),
        ],
        // A write cut short by a timeout.
        &[
            (1, Ev::Recv(PING)),
            (2, Ev::Admitted),
            (3, Ev::Reply { close: false }),
            (4, Ev::Wrote(3)),
            (5, Ev::Timeout),
        ],
        // The idle deadline.
        &[(60_000, Ev::Timeout)],
    ];
    // What the next connection does.
    let after: [&[(u64, Ev)]; 4] = [
        &[
            (10, Ev::Recv(PING)),
            (11, Ev::Admitted),
            (12, Ev::Reply { close: false }),
            (13, Ev::WroteAll),
            (14, Ev::PeerClosed),
        ],
        &[
            (10, Ev::Recv(b"GET /mcp HTTP/1.1\r\nHo")),
            (11, Ev::Recv(b"st: a\r\n\r\n")),
            (12, Ev::Admitted),
            (13, Ev::Reply { close: true }),
            (14, Ev::WroteAll),
        ],
        &[(10, Ev::Recv(b"\r\n")), (11, Ev::PeerClosed)],
        // Two requests: the second one is the last the budget allows.
        &[
            (10, Ev::Recv(PING)),
            (11, Ev::Admitted),
            (12, Ev::Reply { close: false }),
            (13, Ev::WroteAll),
            (14, Ev::Recv(PING)),
            (15, Ev::Admitted),
            (16, Ev::Reply { close: false }),
            (17, Ev::WroteAll),
        ],
    ];
    // Two requests per connection, so that a count carried over would show.
    let limits = Limits { requests_per_connection_max: 2, ..D };
    // And the same under `--chunked`, with chunked bodies too.
    let chunked_before: [&[(u64, Ev)]; 1] = [
        // Mid-way through a chunked body.
        &[
            (1, Ev::Recv(CHUNKED_HEAD)),
            (2, Ev::Admitted),
            (3, Ev::Recv(b"5\r\nhel")),
            (4, Ev::PeerClosed),
        ],
    ];
    let chunked_after: [&[(u64, Ev)]; 1] = [
        // A chunked body, whole.
        &[
            (10, Ev::Recv(CHUNKED_HEAD)),
            (11, Ev::Admitted),
            (12, Ev::Recv(b"2\r\n{}\r\n0\r\n\r\n")),
            (13, Ev::Reply { close: false }),
            (14, Ev::WroteAll),
            (15, Ev::PeerClosed),
        ],
    ];
    let plain = (TransferCodings::LengthOnly, before.to_vec(), after.to_vec());
    let chunked = (
        TransferCodings::Chunked,
        [&before[..], &chunked_before].concat(),
        [&after[..], &chunked_after].concat(),
    );
    for (codings, befores, afters) in [plain, chunked] {
        for &previous in &befores {
            for &next in &afters {
                let t0 = Instant::now();
                let mut fresh: Connection = Connection::with_codings(&limits, codings, t0);
                let expected = run_on(&mut fresh, t0, next);
                let mut reused: Connection = Connection::with_codings(&limits, codings, t0);
                run_on(&mut reused, t0, previous);
                let t1 = t0 + Duration::from_secs(100);
                reused.renew(t1);
                assert_eq!(reused.buffered(), 0);
                assert_eq!(run_on(&mut reused, t1, next), expected, "after {previous:?}");
            }
        }
    }
}

/// The machine's buffer under the default budgets: a head and a body at most, and one byte
/// more, which only a stream's watch reaches.
const BUFFER: usize = HEAD_MAX + D.request_body_bytes_max + 1;

/// A ping answered with a stream, its head written at 1 ms.
const STREAM_OPENED: [(u64, Ev); 4] =
    [(0, Ev::Recv(PING)), (0, Ev::Admitted), (0, Ev::Stream), (1, Ev::WroteAll)];
/// What the machine asks for up to the stream's first production.
const UP_TO_PRODUCE: [&str; 5] = [
    "read 14384 by 5000",
    "admit POST /mcp",
    "dispatch POST /mcp body 2 keep",
    "write \"HTTP/1.1 200 OK\" 47 by 2000",
    "produce",
];

/// What happens once a stream is open, and the stages the machine asks for after its head.
type StreamCase<'c> = (&'c [(u64, Ev)], &'c [&'c str]);

fn stream_script(then: &[(u64, Ev)]) -> Vec<(u64, Ev)> {
    STREAM_OPENED.iter().copied().chain(then.iter().copied()).collect()
}

fn stream_stages(then: &[&str]) -> Vec<String> {
    UP_TO_PRODUCE.iter().chain(then).map(|s| s.to_string()).collect()
}

#[test]
fn an_open_stream_writes_each_chunk_as_it_is_produced_and_its_end_before_the_next_request() {
    let room_after = HEAD_MAX - PING.len() + PING.len();
    let cases: [StreamCase; 3] = [
        (
            &[(2, Ev::Chunk), (3, Ev::WroteAll), (4, Ev::End { close: false }), (5, Ev::WroteAll)],
            &[
                "write \"5\" 10 by 2002",
                "produce",
                "write \"0\" 5 by 2004",
                &format!("read {room_after} by 5005"),
            ],
        ),
        (
            // A stream that must close: its end is written, then the connection closes politely.
            &[(2, Ev::End { close: true }), (3, Ev::WroteAll)],
            &["write \"0\" 5 by 2002 last", "close polite"],
        ),
        (
            // A chunk written in parts: each write again waits at most the write timeout.
            &[(2, Ev::Chunk), (3, Ev::Wrote(4)), (1000, Ev::WroteAll)],
            &["write \"5\" 10 by 2002", "write \"ello\" 6 by 2003", "produce"],
        ),
    ];
    for (then, expected) in cases {
        assert_eq!(run(&D, &stream_script(then)), stream_stages(expected), "{then:?}");
    }
}

#[test]
fn a_quiet_stream_reads_until_its_next_step_so_a_close_is_seen_at_once() {
    // The stream's request left the buffer when the stream opened: the watch has all of it.
    let room = BUFFER;
    let watch = format!("read {room} by 500");
    let cases: [StreamCase; 5] = [
        (
            // The watch ends at its time: the handler produces again.
            &[(2, Ev::Wait(500)), (500, Ev::Timeout), (500, Ev::End { close: true })],
            &[&watch, "produce", "write \"0\" 5 by 2500 last"],
        ),
        (
            // The peer closes while the stream is quiet: the handler stops the work, and the
            // connection is hung up.
            &[(2, Ev::Wait(500)), (40, Ev::PeerClosed), (40, Ev::Depart(Departure::Stop))],
            &[&watch, "depart", "hang up", "close now"],
        ),
        (
            // Bytes that arrive meanwhile are the next request, kept: the stream goes on.
            &[(2, Ev::Wait(500)), (40, Ev::Recv(GET)), (41, Ev::Wait(900))],
            &[&watch, "produce", &format!("read {} by 900", room - GET.len())],
        ),
        (
            // ... and that request is answered once the stream has ended.
            &[
                (2, Ev::Wait(500)),
                (40, Ev::Recv(GET)),
                (41, Ev::End { close: false }),
                (42, Ev::WroteAll),
                (42, Ev::Admitted),
            ],
            &[
                &watch,
                "produce",
                "write \"0\" 5 by 2041",
                "admit GET /mcp",
                "dispatch GET /mcp body 0 keep",
            ],
        ),
        (
            // A watch cut short (a signal) before its time waits on, to the same time.
            &[(2, Ev::Wait(500)), (300, Ev::Timeout), (500, Ev::Timeout), (500, Ev::Wait(900))],
            &[&watch, &watch, "produce", &format!("read {room} by 900")],
        ),
    ];
    for (then, expected) in cases {
        assert_eq!(run(&D, &stream_script(then)), stream_stages(expected), "{then:?}");
    }
}

#[test]
fn a_peer_gone_from_a_stream_stops_it_or_lets_its_work_go_on_unwritten() {
    let cases: [StreamCase; 3] = [
        (
            // The work goes on: chunks are produced and dropped, waits are pauses, and the end
            // closes the connection at once, with nothing written.
            &[
                (2, Ev::Wait(500)),
                (40, Ev::PeerClosed),
                (40, Ev::Depart(Departure::Continue)),
                (41, Ev::Chunk),
                (42, Ev::Wait(700)),
                (700, Ev::Paused),
                (700, Ev::End { close: false }),
            ],
            &[
                &format!("read {BUFFER} by 500"),
                "depart",
                "hang up",
                "produce detached",
                "produce detached",
                "pause until 700",
                "produce detached",
                "close now",
            ],
        ),
        (
            // A chunk write that fails: the peer is gone.
            &[(2, Ev::Chunk), (3, Ev::PeerClosed), (3, Ev::Depart(Departure::Stop))],
            &["write \"5\" 10 by 2002", "depart", "hang up", "close now"],
        ),
        (
            // A peer that stops reading: the chunk stalls past the write timeout.
            &[(2, Ev::Chunk), (2002, Ev::Timeout), (2002, Ev::Depart(Departure::Stop))],
            &["write \"5\" 10 by 2002", "depart", "hang up", "close now"],
        ),
    ];
    for (then, expected) in cases {
        assert_eq!(run(&D, &stream_script(then)), stream_stages(expected), "{then:?}");
    }
}

#[test]
fn a_peer_that_fills_the_buffer_while_a_stream_is_open_is_over_budget() {
    // The buffer holds a head and a body at most, and one byte more: here 14384 + 2 + 1 bytes.
    // Bytes up to one request of the largest size wait for the stream's end; the byte past it
    // is over budget, whatever the handler then decides, and the connection is hung up.
    let limits = Limits { request_body_bytes_max: 2, ..D };
    let buffer = limits.request_head_bytes_max() + 2 + 1;
    let largest: &'static [u8] = Box::leak(vec![b'x'; buffer - 1].into_boxed_slice());
    let opened = |expected: &[&str]| {
        let mut stages = stream_stages(expected);
        stages[3] = "write \"HTTP/1.1 200 OK\" 47 by 2000".into();
        stages
    };
    let cases: [StreamCase; 3] = [
        (
            &[(2, Ev::Wait(500)), (3, Ev::Recv(largest)), (3, Ev::Wait(600))],
            &[&format!("read {buffer} by 500"), "produce", "read 1 by 600"],
        ),
        (
            &[
                (2, Ev::Wait(500)),
                (3, Ev::Recv(largest)),
                (3, Ev::Wait(600)),
                (4, Ev::Recv(b"x")),
                (4, Ev::Depart(Departure::Stop)),
            ],
            &[
                &format!("read {buffer} by 500"),
                "produce",
                "read 1 by 600",
                "depart over budget",
                "hang up",
                "close now",
            ],
        ),
        (
            &[
                (2, Ev::Wait(500)),
                (3, Ev::Recv(largest)),
                (3, Ev::Wait(600)),
                (4, Ev::Recv(b"x")),
                (4, Ev::Depart(Departure::Continue)),
                (5, Ev::Wait(700)),
                (700, Ev::Paused),
                (700, Ev::End { close: false }),
            ],
            &[
                &format!("read {buffer} by 500"),
                "produce",
                "read 1 by 600",
                "depart over budget",
                "hang up",
                "produce detached",
                "pause until 700",
                "produce detached",
                "close now",
            ],
        ),
    ];
    for (then, expected) in cases {
        assert_eq!(run(&limits, &stream_script(then)), opened(expected), "{then:?}");
    }
}
