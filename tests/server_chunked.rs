//! `serve --chunked` as a black box, over a socket: the Http11Probe chunked cases (a strict
//! parser's verdict for each, and exactly today's verdict without the flag), a ping sent chunked
//! answered like one sent with `Content-Length`, and a GET that announces a chunked body.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use common::serve::Serve;
use loopback_mcp_http::client::mcp::{self, RequestSpec};
use loopback_mcp_http::client::{ClientResponse, HttpConnection};
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests::{self, ClientInfo};

/// A running `serve`, with what its announcement says.
struct Served {
    _serve: Serve,
    address: SocketAddr,
    token: String,
    announcement: Value,
}

fn serve(args: &[&str]) -> Served {
    let mut serve = Serve::start(args);
    let announcement = serve.line();
    let url = announcement.get("url").and_then(Value::as_str).expect("url").to_owned();
    let authority = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let address = authority.parse().expect("a loopback address");
    let token = announcement.get("tokens").and_then(|t| t.get("full")).and_then(Value::as_str);
    let token = token.expect("a token for the full role").to_owned();
    Served { _serve: serve, address, token, announcement }
}

impl Served {
    fn host(&self) -> String {
        self.address.to_string()
    }

    fn connect(&self) -> HttpConnection {
        HttpConnection::connect(self.address, &Limits::DEFAULT).expect("connect")
    }

    /// An MCP POST head (every field a POST needs) announcing a chunked body.
    fn chunked_head(&self) -> Vec<u8> {
        let spec = RequestSpec::mcp_post(&self.host(), &self.token, None, b"");
        let mut head = spec.bytes();
        head.truncate(head.len() - 2);
        head.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
        head
    }
}

/// What a row expects from `serve --chunked`.
enum Verdict {
    /// This status and public code, `Connection: close`, and nothing more on the connection (the
    /// request pipelined after the body is never answered).
    Refused(u16, &'static str),
    /// The answer a `Content-Length` request with this (decoded) body gets.
    AsLength(&'static [u8]),
    /// No answer at all: the peer's close ends the body, never as a request.
    Nothing,
}
use Verdict::{AsLength, Nothing, Refused};

/// The chunked cases of Http11Probe, as bodies after a `Transfer-Encoding: chunked` head.
const ROWS: [(&str, &[u8], Verdict); 16] = [
    (
        "SMUG-CHUNK-BARE-SEMICOLON",
        b"5;\r\nhello\r\n0\r\n\r\n",
        Refused(400, "chunk_extension_name_missing"),
    ),
    (
        "SMUG-CHUNK-EXT-INVALID-TOKEN",
        b"5;bad[=x\r\nhello\r\n0\r\n\r\n",
        Refused(400, "chunk_extension_byte"),
    ),
    (
        "SMUG-CHUNK-UNDERSCORE",
        b"1_0\r\nhello world!!!!!\r\n0\r\n\r\n",
        Refused(400, "chunk_size_byte"),
    ),
    ("SMUG-CHUNK-HEX-PREFIX", b"0x5\r\nhello\r\n0\r\n\r\n", Refused(400, "chunk_size_byte")),
    ("SMUG-CHUNK-SIZE-PLUS", b"+5\r\nhello\r\n0\r\n\r\n", Refused(400, "chunk_size_missing")),
    (
        "SMUG-CHUNK-SIZE-TRAILING-OWS",
        b"5 \r\nhello\r\n0\r\n\r\n",
        Refused(400, "chunk_size_whitespace"),
    ),
    ("SMUG-CHUNK-LEADING-SP", b" 5\r\nhello\r\n0\r\n\r\n", Refused(400, "chunk_size_missing")),
    (
        "SMUG-CHUNK-MISSING-TRAILING-CRLF",
        b"5\r\nhello0\r\n\r\n",
        Refused(400, "chunk_data_unterminated"),
    ),
    ("SMUG-CHUNK-SPILL", b"5\r\nhello!!\r\n0\r\n\r\n", Refused(400, "chunk_data_unterminated")),
    (
        "SMUG-CHUNK-EXT-CTRL",
        b"5;\x00ext\r\nhello\r\n0\r\n\r\n",
        Refused(400, "chunk_extension_byte"),
    ),
    ("SMUG-CHUNK-EXT-CR", b"5;a\rX\r\nhello\r\n0\r\n\r\n", Refused(400, "chunk_bare_cr")),
    ("SMUG-CHUNK-NEGATIVE", b"-1\r\nhello\r\n0\r\n\r\n", Refused(400, "chunk_size_missing")),
    ("SMUG-CHUNK-BARE-CR-TERM", b"5\rhello\r\n0\r\n\r\n", Refused(400, "chunk_bare_cr")),
    (
        "MAL-CHUNK-SIZE-OVERFLOW",
        b"FFFFFFFFFFFFFFFF0\r\nhello\r\n0\r\n\r\n",
        Refused(400, "chunk_size_too_long"),
    ),
    ("COMP-CHUNKED-EMPTY", b"0\r\n\r\n", AsLength(b"")),
    ("COMP-CHUNKED-NO-FINAL", b"5\r\nhello\r\n", Nothing),
];

fn status_and_code(response: &ClientResponse) -> (u16, String) {
    (response.status, mcp::error_code(response))
}

/// The answer `served` gives a Content-Length POST of `body` on a fresh connection.
fn answer_with_length(served: &Served, body: &[u8]) -> ClientResponse {
    let spec = RequestSpec::mcp_post(&served.host(), &served.token, None, body);
    served.connect().exchange(&spec.bytes()).expect("an answer")
}

/// Sends `bytes`, closes the sending side, and returns everything that comes back.
fn send_and_close(address: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(bytes).unwrap();
    stream.shutdown(Shutdown::Write).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    answer
}

#[test]
fn http11probe_chunked_cases_get_a_strict_verdict_under_the_flag_and_todays_without_it() {
    let chunked = serve(&["--chunked"]);
    let plain = serve(&[]);
    let follow_up = RequestSpec::mcp_post(&chunked.host(), &chunked.token, None, b"{}").bytes();
    for (id, body, verdict) in ROWS {
        let request = [chunked.chunked_head(), body.to_vec(), follow_up.clone()].concat();
        match verdict {
            Refused(status, code) => {
                let mut conn = chunked.connect();
                let response = conn.exchange(&request).unwrap();
                assert_eq!(status_and_code(&response), (status, code.to_owned()), "{id}");
                assert_eq!(response.field_str("connection"), Some("close"), "{id}");
                assert!(conn.is_closed_by_peer(), "{id}: the pipelined request was answered");
            }
            AsLength(decoded) => {
                let response = chunked.connect().exchange(&request).unwrap();
                let expected = answer_with_length(&chunked, decoded);
                assert_eq!(status_and_code(&response), status_and_code(&expected), "{id}");
                assert_eq!(response.body, expected.body, "{id}");
            }
            Nothing => {
                let request = [chunked.chunked_head(), body.to_vec()].concat();
                assert_eq!(send_and_close(chunked.address, &request), b"", "{id}");
            }
        }
        // Without the flag: 501 before the body, and the connection closes.
        let request = [plain.chunked_head(), body.to_vec(), follow_up.clone()].concat();
        let mut conn = plain.connect();
        let response = conn.exchange(&request).unwrap();
        assert_eq!(status_and_code(&response), (501, "transfer_encoding_chunked".into()), "{id}");
        assert!(conn.is_closed_by_peer(), "{id}");
    }
}

#[test]
fn the_corpus_rows_with_a_plain_chunked_coding_get_their_decoded_bodys_verdict() {
    let chunked = serve(&["--chunked"]);
    let host = chunked.host();
    // FR01 and FR15 of the shared corpus, at this server's authority: each now gets what the
    // same request with no body gets (POST / is not a route here).
    for coding in ["chunked", "CHUNKED"] {
        let with_coding = format!(
            "POST / HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: {coding}\r\n\r\n0\r\n\r\n"
        );
        let without = format!("POST / HTTP/1.1\r\nHost: {host}\r\n\r\n");
        let mut conn = chunked.connect();
        let decoded = conn.exchange(with_coding.as_bytes()).unwrap();
        let plain = chunked.connect().exchange(without.as_bytes()).unwrap();
        assert_eq!(status_and_code(&decoded), status_and_code(&plain), "{coding}");
        assert_eq!(decoded.body, plain.body);
        assert_eq!(decoded.field_str("connection"), plain.field_str("connection"), "{coding}");
    }
}

#[test]
fn serve_chunked_says_so_and_answers_a_chunked_ping_like_a_content_length_one() {
    let chunked = serve(&["--chunked"]);
    let codings = chunked.announcement.get("transfer_codings");
    assert_eq!(codings.map(json::encode).as_deref(), Some(r#"["chunked"]"#));
    assert!(serve(&[]).announcement.get("transfer_codings").is_none());
    let host = chunked.host();
    let mut conn = chunked.connect();
    let client = ClientInfo { name: "chunked-test", version: "1" };
    let init = json::encode(&requests::initialize_current(&Id::from(1), client));
    let init = RequestSpec::mcp_post(&host, &chunked.token, None, init.as_bytes());
    let response = conn.exchange(&init.chunked_bytes(16)).unwrap();
    assert_eq!(response.status, 200, "{}", String::from_utf8_lossy(&response.body));
    let session = response.field_str("mcp-session-id").expect("a session").to_owned();
    let initialized = json::encode(&requests::initialized());
    let spec = RequestSpec::mcp_post(&host, &chunked.token, Some(&session), initialized.as_bytes());
    assert_eq!(conn.exchange(&spec.chunked_bytes(7)).unwrap().status, 202);
    let ping = json::encode(&requests::ping(&Id::from(2)));
    let spec = RequestSpec::mcp_post(&host, &chunked.token, Some(&session), ping.as_bytes());
    let by_length = conn.exchange(&spec.bytes()).unwrap();
    for piece in [1, 5, ping.len()] {
        let by_chunks = conn.exchange(&spec.chunked_bytes(piece)).unwrap();
        assert_eq!(
            (by_chunks.status, &by_chunks.body),
            (200, &by_length.body),
            "chunks of {piece}"
        );
        assert_eq!(by_chunks.field_str("content-type"), by_length.field_str("content-type"));
    }
    // A GET that announces a chunked body is refused before the body, even an empty one.
    let get = RequestSpec::mcp_session("GET", &host, &chunked.token, Some(&session));
    let mut get = get.bytes();
    get.truncate(get.len() - 2);
    get.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    let response = chunked.connect().exchange(&get).unwrap();
    assert_eq!(status_and_code(&response), (400, "body_not_allowed".into()));
}

#[test]
fn every_other_transfer_coding_shape_keeps_todays_verdict_under_the_flag() {
    let chunked = serve(&["--chunked"]);
    let plain = serve(&[]);
    // (the framing fields after Host, the verdict with and without the flag)
    let cases: [(&str, u16, &str); 8] = [
        ("Transfer-Encoding: gzip, chunked\r\n", 501, "transfer_encoding_chunked"),
        ("Transfer-Encoding: chunked, gzip\r\n", 400, "transfer_encoding_invalid"),
        ("Transfer-Encoding: chunked, chunked\r\n", 400, "transfer_encoding_invalid"),
        ("Transfer-Encoding: xchunked\r\n", 400, "transfer_encoding_unsupported"),
        (
            "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
            400,
            "transfer_encoding_duplicate",
        ),
        (
            "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
            400,
            "transfer_encoding_with_content_length",
        ),
        (
            "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
            400,
            "transfer_encoding_with_content_length",
        ),
        ("Transfer-Encoding: chunked;x=1\r\n", 400, "transfer_encoding_invalid"),
    ];
    for served in [&chunked, &plain] {
        let host = served.host();
        for (framing, status, code) in cases {
            let request = format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\n{framing}\r\n0\r\n\r\n");
            let mut conn = served.connect();
            let response = conn.exchange(request.as_bytes()).unwrap();
            assert_eq!(status_and_code(&response), (status, code.into()), "{framing:?}");
            assert!(conn.is_closed_by_peer(), "{framing:?}: the connection closes");
        }
        // HTTP/1.0 with Transfer-Encoding: faulty framing (RFC 9112 §6.1), with the flag or not.
        let old = b"POST /mcp HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
        let response = served.connect().exchange(old).unwrap();
        assert_eq!(status_and_code(&response), (400, "transfer_encoding_on_http10".into()));
    }
}
