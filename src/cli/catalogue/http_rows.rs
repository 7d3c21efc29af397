//! The rows about HTTP itself and the bytes of a message: framing, media types, the
//! DNS-rebinding guards, JSON and JSON-RPC.

use super::kinds::{
    Boundary, Group, Holds, Needs, RFC9112_FRAMING, SECURITY, TRANSPORT, must, ping, profile, row,
};
use crate::cli::case::{Body, Change, Expect, Message, Request, Text};

pub const TE_WITH_CL: Boundary = row(
    (
        "te-with-cl",
        "Transfer-Encoding with Content-Length",
        "the baseline with Transfer-Encoding: chunked and its Content-Length, a body no chunk",
    ),
    Group::Framing,
    Needs::Nothing,
    Request::raw(
        "POST {path} HTTP/1.1\r\n{fields}Transfer-Encoding: chunked\r\nContent-Length: {length}\r\n\r\n{body}\r\n",
    ),
    must(
        "rejected, or read by Transfer-Encoding alone (here a refusal too), never by its length; then closed",
        "RFC 9112 §6.1",
    ),
    Holds::RefusedThenClosed(None),
    Expect::code(400, "transfer_encoding_with_content_length"),
);

pub const TE_WITH_CL_CHUNKED: Boundary = row(
    (
        "te-with-cl-chunked",
        "Transfer-Encoding with Content-Length, a valid chunked body",
        "the baseline in chunks, with Transfer-Encoding: chunked and the unchunked length",
    ),
    Group::Framing,
    Needs::Nothing,
    Request::raw(
        "POST {path} HTTP/1.1\r\n{fields}Transfer-Encoding: chunked\r\nContent-Length: {length}\r\n\r\n{chunked}",
    ),
    must(
        "whether rejected or read by Transfer-Encoding, the connection closes after the answer",
        "RFC 9112 §6.1",
    ),
    Holds::Closes,
    Expect::code(400, "transfer_encoding_with_content_length"),
);

pub const TWO_LENGTHS: Boundary = row(
    (
        "two-lengths",
        "two Content-Length values that disagree",
        "the baseline with Content-Length: N and Content-Length: N+1",
    ),
    Group::Framing,
    Needs::Nothing,
    Request::raw(
        "POST {path} HTTP/1.1\r\n{fields}Content-Length: {length}\r\nContent-Length: {other_length}\r\n\r\n{body}",
    ),
    must("a length that is not one valid number: 400, then the connection closes", RFC9112_FRAMING),
    Holds::RefusedThenClosed(Some(400)),
    Expect::code(400, "content_length_duplicate"),
);

pub const SIGNED_LENGTH: Boundary = row(
    ("signed-length", "a Content-Length with a plus sign", "the baseline with Content-Length: +N"),
    Group::Framing,
    Needs::Nothing,
    Request::raw("POST {path} HTTP/1.1\r\n{fields}Content-Length: +{length}\r\n\r\n{body}"),
    must("a length that is not one valid number: 400, then the connection closes", RFC9112_FRAMING),
    Holds::RefusedThenClosed(Some(400)),
    Expect::code(400, "content_length_invalid"),
);

pub const CHUNKED_NOT_LAST: Boundary = row(
    (
        "chunked-not-last",
        "chunked not the last transfer coding",
        "the baseline, chunked, with Transfer-Encoding: chunked, identity",
    ),
    Group::Framing,
    Needs::Nothing,
    Request::raw(
        "POST {path} HTTP/1.1\r\n{fields}Transfer-Encoding: chunked, identity\r\n\r\n{chunked}",
    ),
    must(
        "chunked must come last or the length is unknown: 400, then the connection closes",
        RFC9112_FRAMING,
    ),
    Holds::RefusedThenClosed(Some(400)),
    Expect::code(400, "transfer_encoding_invalid"),
);

pub const NO_HOST: Boundary = row(
    ("no-host", "no Host field", "the baseline without Host"),
    Group::Framing,
    Needs::Nothing,
    ping(&[Change::Without("Host")]),
    must("an HTTP/1.1 request without Host gets 400", "RFC 9112 §3.2"),
    Holds::Refused(400),
    Expect::code(400, "host_missing"),
);

pub const TWO_HOSTS: Boundary = row(
    ("two-hosts", "two Host fields", "the baseline with its Host line twice"),
    Group::Framing,
    Needs::Nothing,
    ping(&[Change::With("Host", Text::Host)]),
    must("a request with more than one Host line gets 400", "RFC 9112 §3.2"),
    Holds::Refused(400),
    Expect::code(400, "host_duplicate"),
);

pub const BARE_LF: Boundary = row(
    ("bare-lf", "bare LF line endings", "the baseline with its request line ended by LF alone"),
    Group::Framing,
    Needs::Nothing,
    ping(&[Change::BareLf]),
    profile(
        "CRLF only: readers that take a lone LF and readers that do not split the same bytes differently",
        "RFC 9112 §2.2",
    ),
    Holds::Refused(400),
    Expect::code(400, "bare_lf"),
);

pub const SPACE_BEFORE_COLON: Boundary = row(
    (
        "space-before-colon",
        "whitespace before a field's colon",
        "the baseline with a line Transfer-Encoding : chunked",
    ),
    Group::Framing,
    Needs::Nothing,
    ping(&[Change::With("Transfer-Encoding ", Text::Lit("chunked"))]),
    must("whitespace between a field name and its colon gets 400", "RFC 9112 §5.1"),
    Holds::Refused(400),
    Expect::code(400, "whitespace_before_colon"),
);

pub const OBS_FOLD: Boundary = row(
    (
        "obs-fold",
        "a field folded onto a second line",
        "the baseline with X-Probe: a, then a line starting with a space",
    ),
    Group::Framing,
    Needs::Nothing,
    ping(&[Change::With("X-Probe", Text::Lit("a\r\n b"))]),
    profile(
        "a folded line is refused with 400 or unfolded; this project refuses it",
        "RFC 9112 §5.2",
    ),
    Holds::Refused(400),
    Expect::code(400, "field_line_starts_with_whitespace"),
);

pub const MANY_FIELDS: Boundary = row(
    (
        "many-fields",
        "more header fields than the budget",
        "the baseline with one field line more than the budget (1000 when unknown)",
    ),
    Group::Framing,
    Needs::Nothing,
    ping(&[Change::OverFieldCount]),
    profile(
        "a server may refuse a head it finds too large; this project answers 431 past its count",
        "RFC 6585 §5",
    ),
    Holds::Refused(431),
    Expect::code(431, "fields_too_many"),
);

pub const LONG_VALUE: Boundary = row(
    (
        "long-value",
        "a header field value over the budget",
        "the baseline with a value one byte over the budget (64 KiB when unknown)",
    ),
    Group::Framing,
    Needs::Nothing,
    ping(&[Change::With("X-Filler", Text::OverValueBudget)]),
    profile(
        "a server may refuse a field it finds too large; this project answers 431",
        "RFC 6585 §5",
    ),
    Holds::Refused(431),
    Expect::code(431, "field_value_too_large"),
);

pub const BIG_BODY: Boundary = row(
    (
        "big-body",
        "a body over the budget",
        "a POST one byte over the body budget (4 MiB when unknown)",
    ),
    Group::Framing,
    Needs::Nothing,
    Request::post_body(Body::OverBudget),
    profile(
        "content larger than the server takes gets 413, decided by Content-Length alone",
        "RFC 9110 §15.5.14",
    ),
    Holds::Refused(413),
    Expect::code(413, "content_length_too_large"),
);

pub const ACCEPT_JSON_ONLY: Boundary = row(
    (
        "accept-json-only",
        "Accept without text/event-stream",
        "the baseline with Accept: application/json",
    ),
    Group::Media,
    Needs::Nothing,
    ping(&[Change::Set("Accept", Text::Lit("application/json"))]),
    profile(
        "a client must accept both answers; this project refuses one that does not with 406",
        TRANSPORT,
    ),
    Holds::Refused(406),
    Expect::code(406, "not_acceptable"),
);

pub const NO_ACCEPT: Boundary = row(
    ("no-accept", "no Accept", "the baseline without Accept"),
    Group::Media,
    Needs::Nothing,
    ping(&[Change::Without("Accept")]),
    profile(
        "a client must accept both answers; this project refuses one that names none with 406",
        TRANSPORT,
    ),
    Holds::Refused(406),
    Expect::code(406, "not_acceptable"),
);

pub const GET_ACCEPT_JSON: Boundary = row(
    (
        "get-accept-json",
        "a GET stream without text/event-stream",
        "the session's GET with Accept: application/json",
    ),
    Group::Media,
    Needs::Session,
    Request::get(&[Change::Set("Accept", Text::Lit("application/json"))]),
    profile(
        "a GET asks for text/event-stream; this project refuses one that does not with 406",
        "MCP 2025-11-25, transports: Listening for Messages",
    ),
    Holds::Refused(406),
    Expect::code(406, "not_acceptable"),
);

pub const TEXT_PLAIN: Boundary = row(
    (
        "text-plain",
        "Content-Type: text/plain",
        "the baseline declared text/plain, as a web page may POST without a preflight",
    ),
    Group::Media,
    Needs::Nothing,
    ping(&[Change::Set("Content-Type", Text::Lit("text/plain"))]),
    profile(
        "a body that is not declared application/json is refused with 415",
        "RFC 9110 §15.5.16",
    ),
    Holds::Refused(415),
    Expect::code(415, "unsupported_media_type"),
);

pub const FOREIGN_ORIGIN: Boundary = row(
    ("foreign-origin", "foreign Origin", "the baseline with Origin: http://evil.example"),
    Group::Rebinding,
    Needs::Nothing,
    ping(&[Change::With("Origin", Text::Lit("http://evil.example"))]),
    must("an Origin that is present and not allowed gets 403", SECURITY),
    Holds::Refused(403),
    Expect::code(403, "origin_not_allowed"),
);

pub const NULL_ORIGIN: Boundary = row(
    (
        "null-origin",
        "Origin: null",
        "the baseline with Origin: null, as a sandboxed page or a file sends it",
    ),
    Group::Rebinding,
    Needs::Nothing,
    ping(&[Change::With("Origin", Text::Lit("null"))]),
    must("an Origin that is present and not allowed gets 403", SECURITY),
    Holds::Refused(403),
    Expect::code(403, "origin_not_allowed"),
);

pub const LOOPBACK_ORIGIN: Boundary = row(
    (
        "loopback-origin",
        "an Origin on another loopback port",
        "the baseline with Origin: http://127.0.0.1:1",
    ),
    Group::Rebinding,
    Needs::Nothing,
    ping(&[Change::With("Origin", Text::Lit("http://127.0.0.1:1"))]),
    profile(
        "a page on another local port is another origin; this project allows its own only",
        SECURITY,
    ),
    Holds::Refused(403),
    Expect::code(403, "origin_not_allowed"),
);

pub const FOREIGN_HOST: Boundary = row(
    ("foreign-host", "foreign Host", "the baseline with Host: evil.example"),
    Group::Rebinding,
    Needs::Nothing,
    ping(&[Change::Set("Host", Text::Lit("evil.example"))]),
    profile(
        "a name the server does not answer to is how DNS rebinding arrives; this project answers 421",
        "RFC 9110 §15.5.20",
    ),
    Holds::Refused(421),
    Expect::code(421, "host_not_allowed"),
);

pub const DUPLICATE_KEYS: Boundary = row(
    (
        "duplicate-keys",
        "duplicate JSON keys",
        r#"{"method":"tools/list","method":"ping"}: the first and the last are both methods"#,
    ),
    Group::Json,
    Needs::Nothing,
    Request::post_bytes(
        br#"{"jsonrpc":"2.0","id":91,"method":"tools/list","method":"{method}","params":{}}"#,
    ),
    profile("member names should be unique; this project refuses a repeated one", "RFC 8259 §4"),
    Holds::Refused(400),
    Expect::code(400, "json_duplicate_key"),
);

pub const NAN: Boundary = row(
    ("nan", "NaN in a number", r#"a ping whose params hold "n":NaN"#),
    Group::Json,
    Needs::Nothing,
    Request::post_bytes(br#"{"jsonrpc":"2.0","id":92,"method":"{method}","params":{"n":NaN}}"#),
    profile(
        "NaN is not JSON; a parser may take extensions, this project refuses them",
        "RFC 8259 §6, §9",
    ),
    Holds::Refused(400),
    Expect::code(400, "json_unexpected_byte"),
);

pub const BATCH: Boundary = row(
    ("batch", "JSON-RPC batch", "an array holding one ping"),
    Group::Json,
    Needs::Nothing,
    Request::post_bytes(br#"[{"jsonrpc":"2.0","id":93,"method":"{method}","params":{}}]"#),
    profile(
        "a POST carries one message (batches were removed in 2025-06-18); this project refuses 400",
        TRANSPORT,
    ),
    Holds::Refused(400),
    Expect::code(400, "batch_not_supported"),
);

pub const NULL_ID: Boundary = row(
    ("null-id", "a request with id null", r#"a ping with "id":null"#),
    Group::Json,
    Needs::Nothing,
    Request::post_bytes(br#"{"jsonrpc":"2.0","id":null,"method":"{method}","params":{}}"#),
    profile(
        "a request id must not be null; this project refuses it rather than guess",
        "MCP 2025-11-25, basic: Requests",
    ),
    Holds::Refused(400),
    Expect::code(400, "id_invalid"),
);

pub const TOO_DEEP: Boundary = row(
    (
        "too-deep",
        "JSON nested past the depth budget",
        "a ping whose params nest one array past the budget (4000 when unknown)",
    ),
    Group::Json,
    Needs::Nothing,
    Request::post_body(Body::TooDeep),
    profile(
        "a depth budget keeps a recursive reader's stack safe; this project refuses past it",
        "RFC 8259 §9",
    ),
    Holds::Refused(400),
    Expect::code(400, "json_depth_limit"),
);

pub const INVALID_UTF8: Boundary = row(
    (
        "invalid-utf8",
        "invalid UTF-8 in the body",
        "a ping whose params hold a string with the byte 0xFF",
    ),
    Group::Json,
    Needs::Nothing,
    Request::post_bytes(
        b"{\"jsonrpc\":\"2.0\",\"id\":95,\"method\":\"{method}\",\"params\":{\"s\":\"\xff\"}}",
    ),
    profile("messages are UTF-8; this project answers 400, never a failure of its own", TRANSPORT),
    Holds::Refused(400),
    Expect::code(400, "json_invalid_utf8"),
);

pub const UNSOLICITED: Boundary = row(
    (
        "unsolicited",
        "a JSON-RPC response nobody asked for",
        r#"{"id":7,"result":{}} for a request the server never sent"#,
    ),
    Group::Json,
    Needs::Nothing,
    Request::post(Message::Response, &[]),
    profile(
        "a server may accept a client's response (202); this project refuses an unsolicited one",
        TRANSPORT,
    ),
    Holds::Refused(400),
    Expect::code(400, "unsolicited_response"),
);
