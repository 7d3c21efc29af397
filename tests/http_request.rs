//! The request head parser against a table of hostile and valid requests.
//!
//! The rows with corpus ids (B, RL, TF, HS, LM, FR, HO, VE, EX, PL, EO, TM) come from a corpus of
//! hostile HTTP/1.1 inputs with strict verdicts (baseline, request line, transfer framing, header
//! syntax, limits, framing rules, host, version, expect, pipelining, errors, timing), turned into
//! this project's verdicts, with the `limits` rows re-derived at this project's budgets; rows with
//! P ids are the project's own. Every row is also fed split at every
//! point and one byte at a time, and must get the same verdict.
//!
//! Corpus rows whose expectation is about the connection (a deadline, a close after an error, a
//! 100 Continue, ignoring pipelined bytes after `Connection: close`) are checked here for what the
//! parser contributes: the head it reports (`keep_alive`, `expect_continue`, `content_length`) or
//! that it is still waiting (`Partial`). The server tests check the rest over a socket.

mod common;

use common::{
    Verdict, assert_split_invariant, assert_split_invariant_with, cat, parse_once, parse_once_with,
    rep,
};
use loopback_mcp_http::http::{BodyFraming, Occurrence, Parsed, RequestParser, TransferCodings};
use loopback_mcp_http::limits::Limits;

/// What a row expects.
enum Expect {
    /// A complete head with this summary (see `common::summary`) and length.
    Head(&'static str, usize),
    /// Not complete yet.
    Partial,
    /// Refused with this status and public code.
    Refuse(u16, &'static str),
}

struct Row {
    id: &'static str,
    input: Vec<u8>,
    expect: Expect,
}

fn row(id: &'static str, input: impl AsRef<[u8]>, expect: Expect) -> Row {
    Row { id, input: input.as_ref().to_vec(), expect }
}

use Expect::{Head, Partial, Refuse};

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: a\r\n";

fn corpus() -> Vec<Row> {
    let l = Limits::DEFAULT;
    vec![
        // baseline
        row("B01", b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 27)),
        row(
            "B03",
            b"POST /submit HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
            Head("POST /submit HTTP/1.1 cl=5 keep", 53),
        ),
        row("B05", b"GET / HTTP/1.1\r\nHost: a\r\nX-Empty:\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 37)),
        row("B07", b"GET / HTTP/1.1\r\nHost: a\r\nX-Tab: a\tb\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 39)),
        // request line
        row("RL01", b"GET  / HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_missing")),
        row("RL03", b" GET / HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "request_line_start")),
        row("RL05", b"GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "version_syntax")),
        row("RL07", b"get / HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(501, "method_unknown")),
        row("RL09", cat(&[&rep(b'A', 64), b" / HTTP/1.1\r\nHost: a\r\n\r\n"]), Refuse(501, "method_too_long")),
        row("RL11", b"GET / HTTP/1.1\rHost: a\r\n\r\n", Refuse(400, "bare_cr")),
        row("RL13", b"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 29)),
        row("RL15", b"   \r\n\r\n", Refuse(400, "request_line_start")),
        row("RL17", b"GET /\x00 HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_byte")),
        row("RL19", b"GET /a\\b HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_byte_forbidden")),
        row("RL21", b"GET /\x7f HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_byte")),
        row("RL23", cat(&[b"GET /", &rep(b'A', 8200), b" HTTP/1.1\r\nHost: a\r\n\r\n"]), Refuse(414, "target_too_long")),
        // target form
        row("TF01", b"GET /search?q=1 HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "query_forbidden")),
        row("TF03", b"GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_not_origin_form")),
        row("TF05", b"GET * HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_not_origin_form")),
        row("TF07", b"GET /index.html#frag HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "fragment_forbidden")),
        row("TF09", b"GET /%2e%2e/secret HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "dot_segment")),
        row("TF11", b"GET /a%00b HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "encoded_byte_forbidden")),
        // header syntax
        row("HS01", b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length : 0\r\n\r\n", Refuse(400, "whitespace_before_colon")),
        row("HS03", b"GET / HTTP/1.1\r\n Host: a\r\n\r\n", Refuse(400, "field_line_starts_with_whitespace")),
        row("HS05", b"GET / HTTP/1.1\r\n: value\r\nHost: a\r\n\r\n", Refuse(400, "field_name_empty")),
        row("HS07", b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length 10\r\n\r\n0123456789", Refuse(400, "whitespace_before_colon")),
        row("HS09", b"GET / HTTP/1.1\r\nHost: a\r\nX-\xc3\xa4: v\r\n\r\n", Refuse(400, "field_name_byte")),
        row("HS11", b"GET / HTTP/1.1\r\nHost: a\r\nTransfer-\r\nEncoding: chunked\r\n\r\n0\r\n\r\n", Refuse(400, "colon_missing")),
        row("HS13", b"GET / HTTP/1.1\r\nHost: a\r\nX-Val: a\rb\r\n\r\n", Refuse(400, "bare_cr")),
        row("HS15", b"GET / HTTP/1.1\r\nHost: a\r\nX-Val: a\x7fb\r\n\r\n", Refuse(400, "field_value_byte")),
        row("HS17", b"GET / HTTP/1.1\r\nHost: a\nX-B: 1\r\n\r\n", Refuse(400, "bare_lf")),
        row("HS19", b"GET / HTTP/1.1\r\nHost: a\r\nX: v\r\r\n\r\n", Refuse(400, "bare_cr")),
        row("HS21", b"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n\tb\r\n\r\n", Refuse(400, "field_line_starts_with_whitespace")),
        // limits, re-derived at this project's budgets (the corpus assumes 8 KiB / 64 / 16 KiB / 1 MiB)
        row("LM01", cat(&[GET, b"X-Big: ", &rep(b'A', l.header_value_bytes_max + 1), b"\r\n\r\n"]), Refuse(431, "field_value_too_large")),
        row("LM03", fields(l.header_fields_max, b"v"), Refuse(431, "fields_too_many")),
        row("LM05", lm05(), Refuse(431, "field_section_too_large")),
        row("LM07", cat(&[GET, b"X-Never-Ends: ", &rep(b'A', 20000)]), Refuse(431, "field_value_too_large")),
        row(
            "LM09",
            cat(&[b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 16384\r\n\r\n", &rep(b'z', 16384)]),
            Head("POST / HTTP/1.1 cl=16384 keep", 51),
        ),
        // framing
        row("FR01", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", Refuse(501, "transfer_encoding_chunked")),
        row(
            "FR03",
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
            Refuse(400, "transfer_encoding_with_content_length"),
        ),
        row("FR05", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", Refuse(400, "transfer_encoding_invalid")),
        row(
            "FR07",
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\nContent-Length: 5\r\n\r\nhello",
            Refuse(400, "transfer_encoding_with_content_length"),
        ),
        row(
            "FR09",
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ,chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
            Refuse(400, "transfer_encoding_with_content_length"),
        ),
        row(
            "FR11",
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\nhello",
            Refuse(400, "whitespace_before_colon"),
        ),
        row(
            "FR13",
            b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello",
            Refuse(400, "transfer_encoding_on_http10"),
        ),
        row("FR15", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n\r\n", Refuse(501, "transfer_encoding_chunked")),
        row(
            "FR17",
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\x00\r\nContent-Length: 5\r\n\r\nhello",
            Refuse(400, "field_value_byte"),
        ),
        row(
            "FR19",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
            Refuse(400, "content_length_duplicate"),
        ),
        row("FR21", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\nhello!", Refuse(400, "content_length_invalid")),
        row("FR23", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", Refuse(400, "content_length_invalid")),
        row("FR25", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1_0\r\n\r\n0123456789", Refuse(400, "content_length_invalid")),
        row("FR27", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", Refuse(400, "content_length_invalid")),
        row(
            "FR29",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 010\r\n\r\n0123456789",
            Head("POST / HTTP/1.1 cl=10 keep", 49),
        ),
        row("FR31", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1Z\r\n\r\nZ", Refuse(400, "content_length_invalid")),
        row(
            "FR33",
            b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloGET /2 HTTP/1.1\r\nHost: a\r\n\r\n",
            Head("GET / HTTP/1.1 cl=5 keep", 46),
        ),
        row("FR35", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloXY", Head("POST / HTTP/1.1 cl=5 keep", 47)),
        // host
        row("HO01", b"GET / HTTP/1.1\r\n\r\n", Refuse(400, "host_missing")),
        row("HO03", b"GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", Refuse(400, "host_duplicate")),
        row("HO05", b"GET / HTTP/1.1\r\nHost: a, b\r\n\r\n", Refuse(400, "host_invalid")),
        row("HO07", b"GET / HTTP/1.1\r\nHost: a/path\r\n\r\n", Refuse(400, "host_invalid")),
        row("HO09", b"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", Refuse(400, "host_invalid")),
        row("HO11", b"GET / HTTP/1.1\r\nHost: a:8080\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 32)),
        // version
        row("VE01", b"GET / HTTP/1.2\r\nHost: a\r\n\r\n", Refuse(505, "version_unsupported")),
        row("VE03", b"GET / HTTP/3.0\r\nHost: a\r\n\r\n", Refuse(505, "version_unsupported")),
        row("VE05", b"GET / http/1.1\r\nHost: a\r\n\r\n", Refuse(400, "version_syntax")),
        row("VE07", b"GET / HTTP/01.1\r\nHost: a\r\n\r\n", Refuse(400, "version_syntax")),
        row("VE09", b"GET / HTTP/ 1.1\r\nHost: a\r\n\r\n", Refuse(400, "version_syntax")),
        row("VE11", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", Refuse(505, "version_unsupported")),
        row(
            "VE13",
            b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\n",
            Head("GET / HTTP/1.0 cl=0 keep", 42),
        ),
        // expect
        row(
            "EX01",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
            Head("POST / HTTP/1.1 cl=5 keep expect-100", 69),
        ),
        row("EX03", b"GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep expect-100", 49)),
        row(
            "EX05",
            b"POST / HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello",
            Head("POST / HTTP/1.0 cl=5 close", 60),
        ),
        row(
            "EX07",
            b"POST /denied HTTP/1.1\r\nHost: a\r\nContent-Length: 34\r\nExpect: 100-continue\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n",
            Head("POST /denied HTTP/1.1 cl=34 keep expect-100", 76),
        ),
        // pipelining
        row("PL01", b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n", Head("GET /1 HTTP/1.1 cl=0 keep", 28)),
        row(
            "PL03",
            b"GET /1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n",
            Head("GET /1 HTTP/1.1 cl=0 close", 47),
        ),
        row("PL05", b"GET /1 HTTP/1.0\r\n\r\nGET /2 HTTP/1.0\r\n\r\n", Head("GET /1 HTTP/1.0 cl=0 close", 19)),
        // end of input
        row("EO01", b"GET / HTT", Partial),
        row("EO03", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhello", Head("POST / HTTP/1.1 cl=10 keep", 48)),
        row("EO05", b"GET / HTTP/1.1\r\nHost: a\r\n\r", Partial),
        // slow clients: the parser keeps waiting; the server's head deadline closes them
        row("TM01", b"GET / HTTP/1.1\r\nHost: a\r\nX-a: b\r\n", Partial),
        row("TM03", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n ", Head("POST / HTTP/1.1 cl=1000 keep", 50)),
    ]
}

/// A GET with its Host field and `extra_fields` more field lines.
fn fields(extra_fields: usize, value: &[u8]) -> Vec<u8> {
    let mut out = GET.to_vec();
    for i in 0..extra_fields {
        out.extend_from_slice(format!("X-H{i}: ").as_bytes());
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// Field lines each well under the value budget whose total crosses the section budget.
fn lm05() -> Vec<u8> {
    let mut out = GET.to_vec();
    for i in 0..30 {
        out.extend_from_slice(format!("X-{i}: ").as_bytes());
        out.extend_from_slice(&rep(b'B', 500));
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

fn own_cases() -> Vec<Row> {
    vec![
        row("P01", b"DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", Head("DELETE /mcp HTTP/1.1 cl=0 keep", 46)),
        row("P02", b"PUT /mcp HTTP/1.1\r\nHost: a\r\n\r\n", Head("PUT /mcp HTTP/1.1 cl=0 keep", 30)),
        row("P03", b"FOO / HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(501, "method_unknown")),
        row("P04", b"\x00GET / HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "request_line_start")),
        row("P05", b"GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "method_byte")),
        row("P06", b"GET\r\n\r\n", Refuse(400, "target_missing")),
        row("P07", b"GET /\r\n\r\n", Refuse(400, "version_syntax")),
        row("P08", b"GET / HTTP/1.1 \r\nHost: a\r\n\r\n", Refuse(400, "version_syntax")),
        row("P09", b"GET / HTTP/1.1\nHost: a\r\n\r\n", Refuse(400, "bare_lf")),
        row("P10", b"\n", Refuse(400, "bare_lf")),
        row("P11", b"GET / HTTP/1.1\r\nHost: a\r\n\n", Refuse(400, "bare_lf")),
        row("P12", b"GET / HTTP/1.1\r\nHost: a\r\n\r\r", Refuse(400, "bare_cr")),
        row("P13", b"\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "leading_empty_lines")),
        row("P14", b"GET /mcp?access_token=secret HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "query_forbidden")),
        row("P15", b"GET /?a HTTP/2.0\r\nHost: a\r\n\r\n", Refuse(505, "version_unsupported")),
        row("P16", b"get /?a HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "query_forbidden")),
        // Asterisk-form names the server itself, for OPTIONS only (RFC 9112 §3.2.4).
        row("P17", b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", Head("OPTIONS * HTTP/1.1 cl=0 keep", 31)),
        row("P18", b"CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_not_origin_form")),
        row("P19", b"GET /a%2fb HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "encoded_byte_forbidden")),
        row("P20", b"GET /a/./b HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "dot_segment")),
        row("P21", b"GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "percent_encoding_invalid")),
        row("P22", b"GET /\xc3\xa4 HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_byte")),
        row("P23", b"GET / HTTP/1.1\r\nHost: a\r\nX: \xff\xfe\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 34)),
        row("P24", b"GET / HTTP/1.1\r\nHost: a\r\nX:\x00\r\n\r\n", Refuse(400, "field_value_byte")),
        row("P25", b"GET / HTTP/1.1\r\nHost: a\r\nX@Y: 1\r\n\r\n", Refuse(400, "field_name_byte")),
        row("P26", b"GET / HTTP/1.1\r\nhost: a\r\nHOST: a\r\n\r\n", Refuse(400, "host_duplicate")),
        row("P27", b"GET / HTTP/1.1\r\nHost:\r\n\r\n", Refuse(400, "host_invalid")),
        row("P28", b"GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 36)),
        row("P29", b"GET / HTTP/1.1\r\nHost: user@a\r\n\r\n", Refuse(400, "host_invalid")),
        row("P30", b"GET / HTTP/1.1\r\nHost: a:99999\r\n\r\n", Refuse(400, "host_invalid")),
        row("P31", b"GET / HTTP/1.0\r\nHost: a b\r\n\r\n", Refuse(400, "host_invalid")),
        row("P32", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", Refuse(400, "transfer_encoding_unsupported")),
        row(
            "P33",
            b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n",
            Refuse(400, "transfer_encoding_duplicate"),
        ),
        row("P34", b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", Refuse(400, "host_missing")),
        row("P35", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n", Refuse(400, "content_length_invalid")),
        row(
            "P36",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551616\r\n\r\n",
            Refuse(413, "content_length_too_large"),
        ),
        row(
            "P37",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
            Refuse(400, "content_length_duplicate"),
        ),
        row("P38", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", Refuse(400, "content_length_invalid")),
        row("P39", b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5 5\r\n\r\n", Refuse(400, "content_length_invalid")),
        row("P40", b"GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", Refuse(417, "expectation_unsupported")),
        row("P41", b"GET / HTTP/1.0\r\nExpect: 200-ok\r\n\r\n", Head("GET / HTTP/1.0 cl=0 close", 34)),
        row(
            "P42",
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999\r\nExpect: 200-ok\r\n\r\n",
            Refuse(413, "content_length_too_large"),
        ),
        row("P43", b"GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, , close\r\n\r\n", Head("GET / HTTP/1.1 cl=0 close", 60)),
        row("P44", b"GET / HTTP/1.1\r\nHost: a\r\nConnection: a b\r\n\r\n", Refuse(400, "connection_invalid")),
        row("P45", b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", Head("GET / HTTP/1.0 cl=0 keep", 42)),
        row("P46", b"GET / HTTP/1.1\r\nHost: a\r\nX:   padded  \t\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 43)),
        row("P47", b"GET / HTTP/1.1\r\nHost: a\r\nX\r\n\r\n", Refuse(400, "colon_missing")),
        row("P48", b"GET / HTTP/1.1\r\nHost: a\r\nX\t: 1\r\n\r\n", Refuse(400, "whitespace_before_colon")),
        row("P49", b"GET /mcp HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer tok\x01en\r\n\r\n", Refuse(400, "field_value_byte")),
        row("P50", b"GET / HTTP/9.9\r\n", Refuse(505, "version_unsupported")),
        row("P51", b"GET / HTTP/1.1\r\n", Partial),
        row("P52", b"", Partial),
        row("P53", b"\r\n", Partial),
        row("P54", b"GET /a", Partial),
        row("P55", b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", Refuse(400, "transfer_encoding_duplicate")),
        row("P56", b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", Head("GET / HTTP/1.1 cl=0 keep", 46)),
        row("P57", b"HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", Head("HEAD / HTTP/1.1 cl=0 keep", 28)),
        row("P58", b"GET /a:b@c!$&'()*+,;=-._~ HTTP/1.1\r\nHost: a\r\n\r\n", Head("GET /a:b@c!$&'()*+,;=-._~ HTTP/1.1 cl=0 keep", 47)),
        row("P59", b"GET //double//slash HTTP/1.1\r\nHost: a\r\n\r\n", Head("GET //double//slash HTTP/1.1 cl=0 keep", 41)),
        row("P61", b"GE@T / HTTP/2.0\r\nHost: a\r\n\r\n", Refuse(505, "version_unsupported")),
        row("P62", b"GE@T /?q HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "query_forbidden")),
        row("P63", b"GE@T / HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "method_not_token")),
        row("P64", b"GE\x01T / HTTP/2.0\r\nHost: a\r\n\r\n", Refuse(400, "method_byte")),
        row("P65", b"GET\n", Refuse(400, "bare_lf")),
        row("P66", b"GET /\n", Refuse(400, "bare_lf")),
        row("P67", b"GET / HTTP/1.1\r\nHost\n", Refuse(400, "bare_lf")),
        row("P68", cat(&[&rep(b'A', 33), b" / HTTP/2.0\r\nHost: a\r\n\r\n"]), Refuse(501, "method_too_long")),
        row("P69", b"GET /a/..;x/b HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "dot_segment")),
        row("P70", b"GET /a/.;/b HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "dot_segment")),
        row("P71", b"GET /a/..b;x HTTP/1.1\r\nHost: a\r\n\r\n", Head("GET /a/..b;x HTTP/1.1 cl=0 keep", 34)),
        row("P72", b"GET * HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_not_origin_form")),
        row("P73", b"OPTIONS ** HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_not_origin_form")),
        row("P74", b"OPTIONS *x HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_not_origin_form")),
        row("P75", b"options * HTTP/1.1\r\nHost: a\r\n\r\n", Refuse(400, "target_not_origin_form")),
        row("P60", b"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n", Refuse(400, "transfer_encoding_invalid")),
    ]
}

fn check(rows: Vec<Row>) {
    let limits = Limits::DEFAULT;
    for row in rows {
        let got = parse_once(&row.input, &limits);
        assert_expected(&row.expect, &got, row.id);
        assert_split_invariant(&row.input, &got, &limits, row.id);
    }
}

fn assert_expected(expect: &Expect, got: &Verdict, id: &str) {
    match (expect, got) {
        (Head(summary, len), Verdict::Head { summary: s, len: l, .. }) => {
            assert_eq!((s.as_str(), *l), (*summary, *len), "{id}");
        }
        (Partial, Verdict::Partial) => {}
        (Refuse(status, code), Verdict::Refused(e)) => {
            assert_eq!((e.status().code(), e.code()), (*status, *code), "{id}");
        }
        _ => panic!("{id}: got {got:?}"),
    }
}

/// The row counts README gives; a change to the tables must change them (and README) too.
const CORPUS_ROWS: usize = 81;
const OWN_ROWS: usize = 75;

#[test]
fn corpus_rows_get_the_strict_verdicts() {
    let rows = corpus();
    assert_eq!(rows.len(), CORPUS_ROWS, "a corpus row was added or lost");
    check(rows);
}

/// Under `--chunked` the corpus keeps every verdict but two: the rows whose head is a plain
/// `Transfer-Encoding: chunked` (FR01, and FR15 in capitals) are complete heads with a chunked
/// body, which the server then decodes (`tests/server_chunked.rs` takes them to the wire).
#[test]
fn corpus_rows_change_under_chunked_only_where_the_coding_is_plain_chunked() {
    let limits = Limits::DEFAULT;
    let mut changed = Vec::new();
    for row in corpus() {
        let default = parse_once(&row.input, &limits);
        let chunked = parse_once_with(&row.input, &limits, TransferCodings::Chunked);
        if chunked != default {
            let Verdict::Head { summary, len, .. } = &chunked else {
                panic!("{}: {chunked:?} under --chunked", row.id);
            };
            assert_eq!(
                (summary.as_str(), *len),
                ("POST / HTTP/1.1 chunked keep", 56),
                "{}",
                row.id
            );
            changed.push(row.id);
        }
        let codings = TransferCodings::Chunked;
        assert_split_invariant_with(&row.input, &chunked, &limits, codings, row.id);
    }
    assert_eq!(changed, ["FR01", "FR15"]);
}

/// Under `--chunked` a plain chunked head passes framing, and the checks after it still run: an
/// Expect other than 100-continue is a 417 and a Connection that is not a token list a 400,
/// wherever the field sits (the fuzz target's first catch, from CI, is the 417 row's shape).
#[test]
fn plain_chunked_heads_still_meet_the_expect_and_connection_checks_under_chunked() {
    let limits = Limits::DEFAULT;
    let te = "Transfer-Encoding: chunked\r\n";
    let cases: [(&str, &str, Expect); 7] = [
        ("C1", "Expect: 100-continue\r\n", Head("POST / HTTP/1.1 chunked keep expect-100", 78)),
        ("C2", "Expect: ontinue\r\n", Refuse(417, "expectation_unsupported")),
        ("C3", "Expect: 100-continue, x\r\n", Refuse(417, "expectation_unsupported")),
        ("C4", "Connection: close\r\n", Head("POST / HTTP/1.1 chunked close", 75)),
        ("C5", "Connection: a b\r\n", Refuse(400, "connection_invalid")),
        ("C6", "Connection: close\r\nExpect: x\r\n", Refuse(417, "expectation_unsupported")),
        ("C7", "Expect: 100-continue\r\nConnection: ,\"\r\n", Refuse(400, "connection_invalid")),
    ];
    for (id, later, expected) in cases {
        for te_first in [true, false] {
            let fields = if te_first { format!("{te}{later}") } else { format!("{later}{te}") };
            let input = format!("POST / HTTP/1.1\r\nHost: a\r\n{fields}\r\n");
            let default = parse_once(input.as_bytes(), &limits);
            let Verdict::Refused(e) = &default else { panic!("{id}: {default:?} by default") };
            assert_eq!(e.code(), "transfer_encoding_chunked", "{id}");
            let codings = TransferCodings::Chunked;
            let got = parse_once_with(input.as_bytes(), &limits, codings);
            let id = format!("{id}, te first: {te_first}");
            assert_expected(&expected, &got, &id);
            assert_split_invariant_with(input.as_bytes(), &got, &limits, codings, &id);
        }
    }
}

#[test]
fn own_rows_get_the_strict_verdicts() {
    check(own_cases());
}

#[test]
fn every_row_has_a_distinct_id() {
    let mut ids: Vec<&str> = corpus().iter().chain(own_cases().iter()).map(|r| r.id).collect();
    let total = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), total, "duplicate row ids");
    assert_eq!(total, CORPUS_ROWS + OWN_ROWS, "a row was added or lost");
}

/// Parses the bytes after a completed request (and its body) as the next request.
fn next_request(input: &[u8]) -> Verdict {
    let limits = Limits::DEFAULT;
    let mut parser = RequestParser::new(&limits);
    let (len, body) = match parser.parse(input) {
        Ok(Parsed::Complete { value: head, len }) => match head.body {
            BodyFraming::Length(body) => (len, body),
            BodyFraming::Chunked => panic!("a chunked body from a parser that refuses them"),
        },
        other => panic!("first request did not complete: {other:?}"),
    };
    parse_once(&input[len + body..], &limits)
}

#[test]
fn pipelined_requests_are_parsed_in_order() {
    let cases: [(&[u8], Option<&str>); 4] = [
        // PL01: two requests in one segment.
        (b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n", Some("GET /2 HTTP/1.1 cl=0 keep")),
        // FR33: the body of a GET is framed and skipped, never parsed as a request.
        (
            b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloGET /2 HTTP/1.1\r\nHost: a\r\n\r\n",
            Some("GET /2 HTTP/1.1 cl=0 keep"),
        ),
        // VE13: HTTP/1.0 with keep-alive, then a second one without it.
        (
            b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\n",
            Some("GET /2 HTTP/1.0 cl=0 close"),
        ),
        // FR35: bytes after the body are the start of the next request, still incomplete.
        (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloXY", None),
    ];
    for (input, second) in cases {
        match (next_request(input), second) {
            (Verdict::Head { summary, .. }, Some(expected)) => assert_eq!(summary, expected),
            (Verdict::Partial, None) => {}
            (other, _) => panic!("unexpected second verdict {other:?}"),
        }
    }
}

#[test]
fn field_values_are_reported_trimmed_in_order() {
    let input =
        b"GET / HTTP/1.1\r\nHost:  a \r\nAccept: application/json\r\nX-Empty:\r\nX: \xff\r\n\r\n";
    let Verdict::Head { fields, .. } = parse_once(input, &Limits::DEFAULT) else {
        panic!("not accepted");
    };
    let expected: Vec<(String, Vec<u8>)> = vec![
        ("Host".into(), b"a".to_vec()),
        ("Accept".into(), b"application/json".to_vec()),
        ("X-Empty".into(), b"".to_vec()),
        ("X".into(), b"\xff".to_vec()),
    ];
    assert_eq!(fields, expected);
}

#[test]
fn single_tells_absent_once_and_repeated_apart_case_insensitively() {
    let input = b"GET / HTTP/1.1\r\nHost: a\r\nX-One: 1\r\nx-two: 2\r\nX-TWO: 3\r\n\r\n";
    let mut parser = RequestParser::new(&Limits::DEFAULT);
    let Ok(Parsed::Complete { value: head, .. }) = parser.parse(input) else {
        panic!("not accepted");
    };
    let cases: [(&str, Occurrence<'_>); 4] = [
        ("x-absent", Occurrence::Absent),
        ("x-one", Occurrence::Once(b"1")),
        ("X-ONE", Occurrence::Once(b"1")),
        ("X-Two", Occurrence::Repeated),
    ];
    for (name, expected) in cases {
        assert_eq!(head.fields.single(name), expected, "{name}");
    }
}

#[test]
fn errors_never_carry_input_bytes() {
    let secret = "tok-3f9a-SECRET";
    let inputs = [
        format!("GET /mcp?access_token={secret} HTTP/1.1\r\nHost: a\r\n\r\n"),
        format!("GET /mcp HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {secret}\x01\r\n\r\n"),
        format!("GET /mcp HTTP/1.1\r\nHost: {secret} x\r\n\r\n"),
        format!("{secret}\x01 / HTTP/1.1\r\n\r\n"),
        format!("GET /{secret} HTTP/7.7\r\n\r\n"),
    ];
    for input in inputs {
        let Verdict::Refused(error) = parse_once(input.as_bytes(), &Limits::DEFAULT) else {
            panic!("accepted {input:?}");
        };
        for text in [error.to_string(), format!("{error:?}"), error.code().to_owned()] {
            assert!(!text.contains("SECRET"), "{text}");
        }
    }
}

#[test]
fn error_offsets_point_at_the_deciding_byte() {
    let cases: [(&[u8], usize); 8] = [
        (b"GET  / HTTP/1.1\r\n", 4),
        (b"GET / HTTP/1.1\rX", 15),
        (b"GET /search?q=1 HTTP/1.1\r\n", 11),
        (b"GET / HTTP/1.2\r\n", 6),
        (b"get / HTTP/1.1\r\n", 0),
        (b"GET / HTTP/1.1\r\nHost: a\r\nX : 1\r\n", 26),
        (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 25),
        (b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n", 25),
    ];
    for (input, offset) in cases {
        let Verdict::Refused(error) = parse_once(input, &Limits::DEFAULT) else {
            panic!("accepted {input:?}");
        };
        assert_eq!(error.offset(), offset, "{:?}", String::from_utf8_lossy(input));
    }
}
