//! Media types (`Content-Type`) and media ranges with weights (`Accept`), [RFC 9110][rfc9110] §8.3,
//! §12.5.1.
//!
//! Grammar, read strictly:
//!
//! ```text
//! media-type  = type "/" subtype parameters          ; type, subtype: tokens, case-insensitive
//! parameters  = *( OWS ";" OWS [ name "=" ( token / quoted-string ) ] )
//! Accept      = #( media-range )                     ; media-range: "*/*", "type/*" or a type
//! weight      = the "q" parameter: "0" [ "." 0*3DIGIT ] / "1" [ "." 0*3"0" ]
//! ```
//!
//! A parameter named `q` is the weight (in thousandths) wherever it appears among a range's
//! parameters (RFC 9110 §12.5.1 asks recipients to read it so), and must be a bare qvalue. Other
//! parameters are parsed (so malformed ones are refused) but play no part in matching. The
//! `Accept` fields of one request hold at most 16<!-- limit: accept_ranges_max --> ranges. Nothing
//! here allocates except the list of ranges [`Accept::parse`] builds (at most the caller's budget),
//! the parameters of a type that has some, and an unescaped copy of a quoted parameter value that
//! contains a backslash.
//!
//! # Does `*/*` satisfy the MCP Accept rule?
//!
//! No. MCP 2025-11-25 asks a client to **list** both `application/json` and `text/event-stream`
//! on a POST, and `text/event-stream` on a GET. This project reads that literally: the question
//! the server asks is [`Accept::lists`], is this exact type named, with a weight above zero, and
//! never named with weight zero? `*/*` (curl's default) and `application/*` answer no. A wildcard
//! says "anything", not "I can read an event stream", and answering an SSE stream to a client that
//! never said it could read one is the failure the rule exists to prevent. [`Accept::quality`] is
//! the general RFC 9110 negotiation, where `*/*` does match, for callers that want it.
//!
//! The server's check, [`Accept::lists_each`], reads every range of every `Accept` line once and
//! builds no list; the `media` fuzz target checks that it always agrees with the parsed list.
//! Within it, [`Accept::names_exactly`] recognises the one spelling clients send most (each
//! needed type, in order, joined by `", "`, nothing else), as [`MediaType::names_json_utf8`] does
//! the bare `application/json`, by comparing bytes; anything else takes the parser. Tests and the
//! `media` fuzz target check that each fast answer is the parser's.
//!
//! [rfc9110]: https://www.rfc-editor.org/rfc/rfc9110

use std::borrow::Cow;
use std::fmt;

use super::chars::{self, TCHAR};

/// Why a media type or an Accept value was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MediaErrorKind {
    /// The value does not follow the grammar at this byte.
    Syntax,
    /// A `q` weight that is not a valid qvalue, or a second `q` on one range.
    QualityInvalid,
    /// A wildcard in the wrong place (`*/json`), or any wildcard in a Content-Type.
    WildcardInvalid,
    /// More media ranges than the budget.
    TooManyRanges { limit: usize },
}

impl MediaErrorKind {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            MediaErrorKind::Syntax => "media_type_syntax",
            MediaErrorKind::QualityInvalid => "media_quality_invalid",
            MediaErrorKind::WildcardInvalid => "media_wildcard_invalid",
            MediaErrorKind::TooManyRanges { .. } => "media_ranges_too_many",
        }
    }
}

/// A refused media type or Accept value, and the offset in the value where it was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MediaError {
    pub kind: MediaErrorKind,
    pub offset: usize,
}

impl fmt::Display for MediaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.code(), self.offset)
    }
}

impl std::error::Error for MediaError {}

/// One `name=value` parameter. The value is unescaped when it was a quoted-string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediaParam<'a> {
    pub name: &'a str,
    pub value: Cow<'a, [u8]>,
    /// The value was written as a quoted-string.
    pub quoted: bool,
}

/// A parsed media type or media range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediaType<'a> {
    /// The type's bytes as sent (ASCII `tchar`s); compare them case-insensitively.
    pub type_: &'a [u8],
    /// The subtype's bytes as sent.
    pub subtype: &'a [u8],
    pub params: Vec<MediaParam<'a>>,
}

impl<'a> MediaType<'a> {
    /// Parses a `Content-Type` value. Wildcards are refused: a body has one concrete type.
    pub fn parse(value: &'a [u8]) -> Result<MediaType<'a>, MediaError> {
        let mut cursor = Cursor { bytes: value, pos: 0 };
        let media = cursor.media_type()?;
        if media.type_ == b"*" || media.subtype == b"*" {
            return Err(MediaError { kind: MediaErrorKind::WildcardInvalid, offset: 0 });
        }
        cursor.skip_ows();
        cursor.require_end()?;
        Ok(media)
    }

    /// True when the type and subtype are these (case-insensitive).
    pub fn is(&self, type_: &str, subtype: &str) -> bool {
        chars::same_ignoring_case(self.type_, type_.as_bytes())
            && chars::same_ignoring_case(self.subtype, subtype.as_bytes())
    }

    /// The value of the first parameter with this name (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&[u8]> {
        self.params.iter().find(|p| p.name.eq_ignore_ascii_case(name)).map(|p| &*p.value)
    }

    /// True when the `Content-Type` value `value` parses to a type that
    /// [`MediaType::is_json_utf8`]: the spelling clients send, exactly `application/json`, is
    /// recognised by its bytes, any other is parsed.
    pub fn names_json_utf8(value: &[u8]) -> bool {
        value == b"application/json" || MediaType::parse(value).is_ok_and(|m| m.is_json_utf8())
    }

    /// True for `application/json` with no parameter other than an optional `charset=utf-8`
    /// (RFC 8259 §11 defines no parameters; JSON is UTF-8).
    pub fn is_json_utf8(&self) -> bool {
        self.is("application", "json")
            && self.params.iter().all(|p| {
                p.name.eq_ignore_ascii_case("charset") && p.value.eq_ignore_ascii_case(b"utf-8")
            })
    }
}

/// One element of an Accept list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediaRange<'a> {
    /// The range; `type_` and/or `subtype` may be `*`.
    pub media: MediaType<'a>,
    /// The weight in thousandths: 1000 is `q=1`, 0 means "not acceptable".
    pub quality: u16,
}

/// A parsed Accept header (all of its field lines, in order).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Accept<'a> {
    pub ranges: Vec<MediaRange<'a>>,
}

impl<'a> Accept<'a> {
    /// Parses every Accept field line of a request as one list (RFC 9110 §5.3 combines them),
    /// refusing more than `ranges_max` ranges. No field line at all gives an empty list, which
    /// lists nothing.
    pub fn parse<I>(values: I, ranges_max: usize) -> Result<Accept<'a>, MediaError>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let mut ranges = Vec::new();
        for_each_range(values, ranges_max, |range| ranges.push(range))?;
        Ok(Accept { ranges })
    }

    /// [`Accept::lists`] for each of `types` at once, straight from the field values: one pass,
    /// no list built, the same ranges refused with the same errors as [`Accept::parse`]. One
    /// field line spelled as clients send it ([`Accept::names_exactly`]) is answered by its bytes.
    pub fn lists_each<I, const N: usize>(
        values: I,
        ranges_max: usize,
        types: [(&str, &str); N],
    ) -> Result<[bool; N], MediaError>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let mut values = values.into_iter();
        let (first, second) = (values.next(), values.next());
        if let (Some(value), None) = (first, second)
            && Accept::names_exactly(value, ranges_max, types)
        {
            return Ok([true; N]);
        }
        // Per type: named with a weight above zero, named with weight zero.
        let mut seen = [(false, false); N];
        let values = first.into_iter().chain(second).chain(values);
        for_each_range(values, ranges_max, |range| {
            for ((type_, subtype), (positive, zero)) in types.iter().zip(seen.iter_mut()) {
                if range.media.is(type_, subtype) {
                    *positive |= range.quality > 0;
                    *zero |= range.quality == 0;
                }
            }
        })?;
        Ok(seen.map(|(positive, zero)| positive && !zero))
    }

    /// True when `value` is exactly `types` in order, each `type/subtype`, joined by `", "`:
    /// one field line that [`Accept::lists_each`] finds listing every one of them, recognised
    /// without parsing (when `ranges_max` allows that many ranges). False says nothing: the
    /// value may still list them in another spelling.
    pub fn names_exactly<const N: usize>(
        value: &[u8],
        ranges_max: usize,
        types: [(&str, &str); N],
    ) -> bool {
        let mut rest = value;
        for (at, (type_, subtype)) in types.iter().enumerate() {
            let separator: &[u8] = if at == 0 { b"" } else { b", " };
            let parts = [separator, type_.as_bytes(), b"/", subtype.as_bytes()];
            for part in parts {
                match rest.strip_prefix(part) {
                    Some(after) => rest = after,
                    None => return false,
                }
            }
        }
        rest.is_empty() && N > 0 && N <= ranges_max
    }

    /// True when `type_/subtype` is named exactly (no wildcard) with a weight above zero and is
    /// never named with weight zero. This is the MCP Accept rule; see the module docs.
    pub fn lists(&self, type_: &str, subtype: &str) -> bool {
        let mut named = self.ranges.iter().filter(|r| r.media.is(type_, subtype)).peekable();
        named.peek().is_some() && named.all(|r| r.quality > 0)
    }

    /// The RFC 9110 §12.5.1 weight of `type_/subtype`: the most specific matching range wins
    /// (exact, then `type/*`, then `*/*`); among equally specific ones the lowest weight wins.
    /// 0 when nothing matches.
    pub fn quality(&self, type_: &str, subtype: &str) -> u16 {
        let specificity = |r: &MediaRange<'_>| {
            let m = &r.media;
            if m.is(type_, subtype) {
                Some(2)
            } else if m.subtype == b"*" && m.type_.eq_ignore_ascii_case(type_.as_bytes()) {
                Some(1)
            } else if m.type_ == b"*" && m.subtype == b"*" {
                Some(0)
            } else {
                None
            }
        };
        let best = self.ranges.iter().filter_map(specificity).max();
        self.ranges
            .iter()
            .filter(|r| best.is_some() && specificity(r) == best)
            .map(|r| r.quality)
            .min()
            .unwrap_or(0)
    }
}

/// Reads every field line of an Accept header as one comma-separated list (RFC 9110 §5.3
/// combines them), handing each range to `each` in order, and refusing the range that would
/// exceed `ranges_max`. Empty elements (`a, , b`) are allowed, as RFC 9110 §5.6.1 asks.
fn for_each_range<'a, I>(
    values: I,
    ranges_max: usize,
    mut each: impl FnMut(MediaRange<'a>),
) -> Result<(), MediaError>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let mut count = 0;
    for value in values {
        let mut cursor = Cursor { bytes: value, pos: 0 };
        loop {
            cursor.skip_ows();
            if cursor.at_end() {
                break;
            }
            if !cursor.eat(b',') {
                if count >= ranges_max {
                    let kind = MediaErrorKind::TooManyRanges { limit: ranges_max };
                    return Err(cursor.error(kind));
                }
                count += 1;
                each(cursor.media_range()?);
                cursor.skip_ows();
                if cursor.at_end() {
                    break;
                }
                cursor.require(b',')?;
            }
        }
    }
    Ok(())
}

/// A position in a header value.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        self.pos += usize::from(hit);
        hit
    }

    fn error(&self, kind: MediaErrorKind) -> MediaError {
        MediaError { kind, offset: self.pos }
    }

    fn require(&mut self, byte: u8) -> Result<(), MediaError> {
        if self.eat(byte) { Ok(()) } else { Err(self.error(MediaErrorKind::Syntax)) }
    }

    fn require_end(&self) -> Result<(), MediaError> {
        if self.at_end() { Ok(()) } else { Err(self.error(MediaErrorKind::Syntax)) }
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn token(&mut self) -> Result<&'a [u8], MediaError> {
        let start = self.pos;
        let len = self.bytes[start..].iter().take_while(|&&b| chars::is(b, TCHAR)).count();
        if len == 0 {
            return Err(self.error(MediaErrorKind::Syntax));
        }
        self.pos += len;
        Ok(&self.bytes[start..self.pos])
    }

    /// `type "/" subtype parameters`.
    fn media_type(&mut self) -> Result<MediaType<'a>, MediaError> {
        let type_ = self.token()?;
        self.require(b'/')?;
        let subtype = self.token()?;
        let mut params = Vec::new();
        loop {
            let before = self.pos;
            self.skip_ows();
            if !self.eat(b';') {
                self.pos = before;
                break;
            }
            self.skip_ows();
            if self.peek().is_some_and(|b| chars::is(b, TCHAR)) {
                params.push(self.param()?);
            }
        }
        Ok(MediaType { type_, subtype, params })
    }

    fn param(&mut self) -> Result<MediaParam<'a>, MediaError> {
        let name = chars::ascii_str(self.token()?);
        self.require(b'=')?;
        let quoted = self.peek() == Some(b'"');
        let value = if quoted { self.quoted_string()? } else { self.token()?.into() };
        Ok(MediaParam { name, value, quoted })
    }

    /// `DQUOTE *( qdtext / quoted-pair ) DQUOTE`, unescaped.
    fn quoted_string(&mut self) -> Result<Cow<'a, [u8]>, MediaError> {
        self.require(b'"')?;
        let start = self.pos;
        let mut unescaped: Option<Vec<u8>> = None;
        loop {
            let Some(byte) = self.peek() else {
                return Err(self.error(MediaErrorKind::Syntax));
            };
            match byte {
                b'"' => break,
                b'\\' => {
                    let owned =
                        unescaped.get_or_insert_with(|| self.bytes[start..self.pos].to_vec());
                    self.pos += 1;
                    match self.peek() {
                        Some(b) if b == b'\t' || (b >= 0x20 && b != 0x7f) => owned.push(b),
                        _ => return Err(self.error(MediaErrorKind::Syntax)),
                    }
                }
                b'\t' | b' ' | 0x21..=0x7e | 0x80..=0xff => {
                    if let Some(owned) = unescaped.as_mut() {
                        owned.push(byte);
                    }
                }
                _ => return Err(self.error(MediaErrorKind::Syntax)),
            }
            self.pos += 1;
        }
        let end = self.pos;
        self.pos += 1;
        Ok(match unescaped {
            Some(owned) => Cow::Owned(owned),
            None => Cow::Borrowed(&self.bytes[start..end]),
        })
    }

    /// A media range with its weight taken out of the parameters.
    fn media_range(&mut self) -> Result<MediaRange<'a>, MediaError> {
        let start = self.pos;
        let mut media = self.media_type()?;
        if media.type_ == b"*" && media.subtype != b"*" {
            return Err(MediaError { kind: MediaErrorKind::WildcardInvalid, offset: start });
        }
        let mut quality = None;
        for param in media.params.iter().filter(|p| p.name.eq_ignore_ascii_case("q")) {
            let invalid = MediaError { kind: MediaErrorKind::QualityInvalid, offset: start };
            if quality.is_some() {
                return Err(invalid);
            }
            // A weight is a bare qvalue (RFC 9110 §12.4.2), never a quoted-string.
            if param.quoted {
                return Err(invalid);
            }
            quality = Some(parse_qvalue(&param.value).ok_or(invalid)?);
        }
        if quality.is_some() {
            media.params.retain(|p| !p.name.eq_ignore_ascii_case("q"));
        }
        Ok(MediaRange { media, quality: quality.unwrap_or(1000) })
    }
}

/// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
fn parse_qvalue(value: &[u8]) -> Option<u16> {
    let (whole, fraction) = match value {
        [w] => (*w, &b""[..]),
        [w, b'.', fraction @ ..] if fraction.len() <= 3 => (*w, fraction),
        _ => return None,
    };
    if !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let thousandths = fraction
        .iter()
        .chain(std::iter::repeat(&b'0'))
        .take(3)
        .fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
    match whole {
        b'0' => Some(thousandths),
        b'1' if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qvalues() {
        let cases: [(&str, Option<u16>); 12] = [
            ("0", Some(0)),
            ("1", Some(1000)),
            ("0.5", Some(500)),
            ("0.25", Some(250)),
            ("0.001", Some(1)),
            ("1.000", Some(1000)),
            ("1.", Some(1000)),
            ("1.001", None),
            ("0.0001", None),
            ("2", None),
            (".5", None),
            ("0.a", None),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_qvalue(value.as_bytes()), expected, "{value}");
        }
    }

    #[test]
    fn the_fast_answers_are_the_parsers_answers() {
        const BOTH: [(&str, &str); 2] = [("application", "json"), ("text", "event-stream")];
        const SSE: [(&str, &str); 1] = [("text", "event-stream")];
        // (Accept value, range budget, whether the fast path recognises it for BOTH)
        let rows: [(&str, usize, bool); 14] = [
            ("application/json, text/event-stream", 16, true),
            ("application/json, text/event-stream", 2, true),
            ("application/json, text/event-stream", 1, false),
            ("text/event-stream, application/json", 16, false),
            ("application/json,text/event-stream", 16, false),
            ("application/json,  text/event-stream", 16, false),
            ("Application/JSON, text/event-stream", 16, false),
            ("application/json, text/event-stream ", 16, false),
            ("application/json, text/event-stream;q=0", 16, false),
            ("application/json, text/event-stream, */*", 16, false),
            ("application/json, text/event-streams", 16, false),
            ("application/json", 16, false),
            ("", 16, false),
            ("application/json, text/event-stream,", 16, false),
        ];
        for (row, (value, ranges_max, fast)) in rows.into_iter().enumerate() {
            let bytes = value.as_bytes();
            assert_eq!(Accept::names_exactly(bytes, ranges_max, BOTH), fast, "row {row}");
            if fast {
                assert_eq!(Accept::lists_each([bytes], ranges_max, BOTH), Ok([true, true]));
            }
        }
        assert!(Accept::names_exactly(b"text/event-stream", 1, SSE));
        assert_eq!(Accept::lists_each([&b"text/event-stream"[..]], 1, SSE), Ok([true]));
        assert!(!Accept::names_exactly(b"text/event-stream", 0, SSE));
        for value in ["application/json", "application/json; charset=utf-8", "Application/JSON"] {
            assert!(MediaType::names_json_utf8(value.as_bytes()), "{value}");
        }
        assert!(!MediaType::names_json_utf8(b"application/json; charset=latin-1"));
    }
}
