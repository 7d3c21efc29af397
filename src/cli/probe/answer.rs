//! Reading any server's answer, leniently: the probe must see what a server did, including what
//! this project's strict client would refuse to read (a bare LF, a body delimited by the close).
//! Pure functions over the bytes received so far; `wire` does the reading.
//!
//! Not here: judging the answer (`judge`), or any rule of this project's own parser.

/// The most bytes a head may take before the answer counts as malformed.
pub const HEAD_BYTES_MAX: usize = 64 * 1024;

/// The most body bytes kept; the rest is read and dropped.
pub const BODY_BYTES_KEPT: usize = 256 * 1024;

/// A response head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    pub status: u16,
    /// Field lines in order, names as sent, values trimmed.
    pub fields: Vec<(String, String)>,
    /// Its length in bytes, the empty line included.
    pub len: usize,
}

impl Head {
    /// The first value of the field `name` (case-insensitive).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// How the body after this head ends.
    pub fn framing(&self, to_head: bool) -> Framing {
        let chunked = self.field("transfer-encoding").is_some_and(|v| {
            v.rsplit(',').next().is_some_and(|c| c.trim().eq_ignore_ascii_case("chunked"))
        });
        if to_head || matches!(self.status, 100..=199 | 204 | 304) {
            return Framing::Empty;
        }
        if chunked {
            return Framing::Chunked;
        }
        match self.field("content-length").map(|v| v.trim().parse::<usize>()) {
            Some(Ok(length)) => Framing::Length(length),
            Some(Err(_)) | None => Framing::UntilClose,
        }
    }
}

/// How a body ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    Empty,
    Length(usize),
    Chunked,
    UntilClose,
}

/// The head at the start of `bytes`: `Ok(None)` while it is incomplete, an error when the bytes
/// are not an HTTP response head. A line may end in CRLF or a bare LF.
pub fn head(bytes: &[u8]) -> Result<Option<Head>, &'static str> {
    let end = match (find(bytes, b"\r\n\r\n"), find(bytes, b"\n\n")) {
        (Some(crlf), Some(lf)) if lf + 2 < crlf + 4 => lf + 2,
        (Some(crlf), _) => crlf + 4,
        (None, Some(lf)) => lf + 2,
        (None, None) if bytes.len() > HEAD_BYTES_MAX => return Err("a head over 64 KiB"),
        (None, None) => {
            return if bytes.len() >= 5 && !bytes.starts_with(b"HTTP/") {
                Err("not an HTTP response")
            } else {
                Ok(None)
            };
        }
    };
    let text = String::from_utf8_lossy(&bytes[..end]);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let status_line = lines.next().unwrap_or_default();
    let mut words = status_line.splitn(3, ' ');
    let version = words.next().unwrap_or_default();
    let status = words.next().and_then(|s| s.parse::<u16>().ok());
    let status = match (version.starts_with("HTTP/"), status) {
        (true, Some(status @ 100..=599)) => status,
        _ => return Err("not an HTTP status line"),
    };
    let fields = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Ok(Some(Head { status, fields, len: end }))
}

/// A chunked body decoded as far as `bytes` go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunks {
    /// The data so far.
    pub data: Vec<u8>,
    /// How many bytes the body took, when its last chunk and trailer section were reached.
    pub complete: Option<usize>,
}

/// A chunked body decoded as far as `bytes` go. Sizes may carry extensions, and lines may end in
/// a bare LF; trailer fields are skipped up to the empty line that ends them.
pub fn chunks(bytes: &[u8]) -> Chunks {
    let mut data = Vec::new();
    let mut at = 0;
    let incomplete = |data| Chunks { data, complete: None };
    loop {
        let Some(line_end) = line_end(bytes, at) else { return incomplete(data) };
        let line = String::from_utf8_lossy(&bytes[at..line_end]);
        let size = line.trim().split(';').next().unwrap_or_default().trim().to_owned();
        let Ok(size) = usize::from_str_radix(&size, 16) else { return incomplete(data) };
        at = line_end + 1;
        if size == 0 {
            return Chunks { complete: trailers_end(bytes, at), data };
        }
        let end = at.saturating_add(size);
        if end > bytes.len() {
            data.extend_from_slice(&bytes[at..]);
            return incomplete(data);
        }
        if data.len() < BODY_BYTES_KEPT {
            data.extend_from_slice(&bytes[at..end]);
        }
        at = end;
        // The line end after the data.
        match bytes.get(at..) {
            Some([b'\r', b'\n', ..]) => at += 2,
            Some([b'\n', ..]) => at += 1,
            _ => return incomplete(data),
        }
    }
}

/// Where the line starting at `at` ends: the offset of its LF.
fn line_end(bytes: &[u8], at: usize) -> Option<usize> {
    bytes.get(at..)?.iter().position(|&b| b == b'\n').map(|i| at + i)
}

/// The end of the trailer section starting at `at` (after its empty line), when it has come.
fn trailers_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let end = line_end(bytes, at)?;
        let empty = matches!(&bytes[at..end], [] | [b'\r']);
        at = end + 1;
        if empty {
            return Some(at);
        }
    }
}

/// The status of an answer that starts `bytes`, from its status line alone (`HTTP/1.1 400`):
/// enough to know that a second answer came, even cut short.
pub fn status_line(bytes: &[u8]) -> Option<u16> {
    let rest = bytes.strip_prefix(b"HTTP/")?;
    let space = rest.iter().position(|&b| b == b' ')?;
    let digits = rest.get(space + 1..space + 4)?;
    let status = std::str::from_utf8(digits).ok()?.parse::<u16>().ok()?;
    (100..=599).contains(&status).then_some(status)
}

/// The data lines of an event stream, each a message's text (a `data:` field's value).
pub fn event_data(body: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(body);
    text.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d).to_owned())
        .filter(|d| !d.is_empty())
        .collect()
}

fn find(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_read_with_either_line_end_and_frame_their_body() {
        type Read = Result<Option<(u16, usize, Framing)>, &'static str>;
        let cases: [(&[u8], Read); 7] = [
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
                Ok(Some((200, 38, Framing::Length(2)))),
            ),
            (
                b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n",
                Ok(Some((200, 44, Framing::Chunked))),
            ),
            (b"HTTP/1.0 404 Not Found\r\n\r\nbody", Ok(Some((404, 26, Framing::UntilClose)))),
            (
                b"HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n",
                Ok(Some((204, 46, Framing::Empty))),
            ),
            (b"HTTP/1.1 200 OK\r\nContent-", Ok(None)),
            (b"<html>", Err("not an HTTP response")),
            (b"HTTP/1.1 abc\r\n\r\n", Err("not an HTTP status line")),
        ];
        for (bytes, expected) in cases {
            let got = head(bytes).map(|h| h.map(|h| (h.status, h.len, h.framing(false))));
            assert_eq!(got, expected, "{:?}", String::from_utf8_lossy(bytes));
        }
    }

    #[test]
    fn chunks_decode_as_far_as_they_go_and_say_where_they_end() {
        type Decoded = (&'static [u8], Option<usize>);
        let cases: [(&[u8], Decoded); 7] = [
            (b"2\r\n{}\r\n0\r\n\r\n", (b"{}", Some(12))),
            (b"2\r\n{}\r\n0\r\n\r\nHTTP/1.1 400", (b"{}", Some(12))),
            (b"2;x=1\n{}\n3\nabc\n0\n\n", (b"{}abc", Some(18))),
            (b"0\r\nX-T: 1\r\n\r\n", (b"", Some(13))),
            (b"2\r\n{}\r\n0\r\n", (b"{}", None)),
            (b"5\r\nab", (b"ab", None)),
            (b"zz\r\n", (b"", None)),
        ];
        for (bytes, (data, complete)) in cases {
            assert_eq!(chunks(bytes), Chunks { data: data.to_vec(), complete }, "{bytes:?}");
        }
    }

    #[test]
    fn a_status_line_says_a_second_answer_began() {
        let cases: [(&[u8], Option<u16>); 5] = [
            (b"HTTP/1.1 400 Bad Request\r\n", Some(400)),
            (b"HTTP/1.1 200", Some(200)),
            (b"HTTP/1.1 20", None),
            (b"HTTP/1.1 999 x", None),
            (b"<html>", None),
        ];
        for (bytes, status) in cases {
            assert_eq!(status_line(bytes), status, "{bytes:?}");
        }
    }

    #[test]
    fn event_data_is_every_data_line() {
        let body = b"event: message\r\ndata: {\"id\":1}\r\n\r\nid: 2\ndata:\n\ndata:{}\n\n";
        assert_eq!(event_data(body), ["{\"id\":1}", "{}"]);
    }
}
