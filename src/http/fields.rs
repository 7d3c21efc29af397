//! The header section scanner shared by the request and the response parsers.
//!
//! It walks the field lines that follow a start line, one byte at a time, remembering where it
//! stopped so that each call looks only at bytes it has not seen. Grammar (RFC 9112 §5, RFC 9110
//! §5.5): `field-line = 1*tchar ":" OWS field-value OWS CRLF`, the section ending at an empty
//! line. Budgets are checked on the byte that crosses them, so an endless line fails as soon as
//! it is too long, never after its CRLF.
//!
//! The scanner records only spans (offsets into the caller's buffer); it never copies or
//! interprets value bytes, and it knows nothing about what any field means. A complete head's
//! spans become a [`FieldList`]: borrowed views of the field lines, with the lookups the
//! framing rules, the endpoint and the client share (first value, all values, at most once).

use std::fmt;
use std::ops::Range;

use super::chars::{self, FIELD_VALUE, TCHAR};
use super::error::{HeadError, HeadErrorKind};
use crate::limits::Limits;

/// The three budgets of a header section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FieldBudget {
    pub value_bytes_max: usize,
    pub fields_max: usize,
    pub section_bytes_max: usize,
}

impl FieldBudget {
    /// The header budgets of `limits`, the same for requests and responses.
    pub fn from_limits(limits: &Limits) -> FieldBudget {
        FieldBudget {
            value_bytes_max: limits.header_value_bytes_max,
            fields_max: limits.header_fields_max,
            section_bytes_max: limits.header_section_bytes_max,
        }
    }
}

/// Where one field line's name and (whitespace-trimmed) value lie in the buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldSpan {
    pub line_start: usize,
    pub name: Range<usize>,
    pub value: Range<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    LineStart,
    Name,
    ValueLeadingWhitespace,
    Value,
    ValueCr,
    EndCr,
}

/// An incremental scanner over one header section.
#[derive(Clone, Debug)]
pub(crate) struct FieldScanner {
    budget: FieldBudget,
    state: State,
    fields: Vec<FieldSpan>,
    section_bytes: usize,
    line_start: usize,
    name_end: usize,
    value_start: usize,
    value_end: usize,
    value_bytes: usize,
}

impl FieldScanner {
    pub fn new(budget: FieldBudget) -> Self {
        FieldScanner {
            budget,
            state: State::LineStart,
            fields: Vec::with_capacity(budget.fields_max),
            section_bytes: 0,
            line_start: 0,
            name_end: 0,
            value_start: 0,
            value_end: 0,
            value_bytes: 0,
        }
    }

    /// Forgets the section scanned so far, keeping the allocation.
    pub fn reset(&mut self) {
        self.state = State::LineStart;
        self.fields.clear();
        self.section_bytes = 0;
    }

    /// The field lines completed so far, in order.
    pub fn fields(&self) -> &[FieldSpan] {
        &self.fields
    }

    /// Scans `buf[*pos..]`, advancing `*pos` past every byte examined. Returns `Some(end)` once
    /// the empty line ending the section has been read (`end` is the offset just after it), or
    /// `None` when every byte was consumed and more are needed.
    pub fn scan(&mut self, buf: &[u8], pos: &mut usize) -> Result<Option<usize>, HeadError> {
        while let Some(&byte) = buf.get(*pos) {
            // Most bytes are the middle of a name or a value: take such runs in one go. A run stops
            // before any byte that ends the element, breaks the grammar or crosses a budget, and
            // that byte then goes through `step`, which decides it exactly as it would alone.
            let run = match self.state {
                State::Name => self.name_run(&buf[*pos..]),
                State::Value => self.value_run(&buf[*pos..], *pos),
                _ => 0,
            };
            if run > 0 {
                *pos += run;
                continue;
            }
            let at = *pos;
            *pos += 1;
            if self.step(byte, at)? {
                return Ok(Some(*pos));
            }
        }
        Ok(None)
    }

    /// How many bytes the section budget still allows.
    fn section_room(&self) -> usize {
        self.budget.section_bytes_max - self.section_bytes
    }

    /// Consumes the leading `tchar` bytes of `rest` that fit the section budget.
    fn name_run(&mut self, rest: &[u8]) -> usize {
        let limit = rest.len().min(self.section_room());
        let run = rest[..limit].iter().take_while(|&&b| chars::is(b, TCHAR)).count();
        self.section_bytes += run;
        run
    }

    /// Consumes the leading plain value bytes of `rest` (starting at offset `at`) that fit both the
    /// value and the section budgets, keeping track of the last non-whitespace byte.
    fn value_run(&mut self, rest: &[u8], at: usize) -> usize {
        let value_room = self.budget.value_bytes_max - self.value_bytes;
        let limit = rest.len().min(self.section_room()).min(value_room);
        let run = rest[..limit].iter().position(|&b| !chars::is(b, FIELD_VALUE)).unwrap_or(limit);
        if let Some(last) = rest[..run].iter().rposition(|&b| b != b' ' && b != b'\t') {
            self.value_end = at + last + 1;
        }
        self.section_bytes += run;
        self.value_bytes += run;
        run
    }

    /// Consumes one byte; true when it completed the section.
    fn step(&mut self, byte: u8, at: usize) -> Result<bool, HeadError> {
        let fail = |kind| Err(HeadError { kind, offset: at });
        match self.state {
            State::LineStart => {
                if byte == b'\r' {
                    self.state = State::EndCr;
                    return Ok(false);
                }
                if self.fields.len() >= self.budget.fields_max {
                    return fail(HeadErrorKind::FieldsTooMany { limit: self.budget.fields_max });
                }
                self.count_section_byte(at)?;
                match byte {
                    _ if chars::is(byte, TCHAR) => {
                        self.line_start = at;
                        self.state = State::Name;
                    }
                    b'\n' => return fail(HeadErrorKind::BareLf),
                    b' ' | b'\t' => return fail(HeadErrorKind::FieldLineStartsWithWhitespace),
                    b':' => return fail(HeadErrorKind::FieldNameEmpty),
                    _ => return fail(HeadErrorKind::FieldNameByte),
                }
            }
            State::Name => {
                self.count_section_byte(at)?;
                match byte {
                    _ if chars::is(byte, TCHAR) => {}
                    b':' => {
                        self.name_end = at;
                        self.state = State::ValueLeadingWhitespace;
                    }
                    b' ' | b'\t' => return fail(HeadErrorKind::WhitespaceBeforeColon),
                    b'\r' => return fail(HeadErrorKind::ColonMissing),
                    b'\n' => return fail(HeadErrorKind::BareLf),
                    _ => return fail(HeadErrorKind::FieldNameByte),
                }
            }
            State::ValueLeadingWhitespace => {
                self.count_section_byte(at)?;
                if byte != b' ' && byte != b'\t' {
                    self.value_start = at;
                    self.value_end = at;
                    self.value_bytes = 0;
                    self.state = State::Value;
                    self.value_byte(byte, at)?;
                }
            }
            State::Value => {
                self.count_section_byte(at)?;
                self.value_byte(byte, at)?;
            }
            State::ValueCr => {
                self.count_section_byte(at)?;
                if byte != b'\n' {
                    return fail(HeadErrorKind::BareCr);
                }
                self.fields.push(FieldSpan {
                    line_start: self.line_start,
                    name: self.line_start..self.name_end,
                    value: self.value_start..self.value_end,
                });
                self.state = State::LineStart;
            }
            State::EndCr => {
                if byte != b'\n' {
                    return fail(HeadErrorKind::BareCr);
                }
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// One byte of a field value, after its leading whitespace.
    fn value_byte(&mut self, byte: u8, at: usize) -> Result<(), HeadError> {
        let fail = |kind| Err(HeadError { kind, offset: at });
        match byte {
            b'\r' => {
                self.state = State::ValueCr;
                Ok(())
            }
            b'\n' => fail(HeadErrorKind::BareLf),
            _ if chars::is(byte, FIELD_VALUE) => {
                self.value_bytes += 1;
                if self.value_bytes > self.budget.value_bytes_max {
                    let limit = self.budget.value_bytes_max;
                    return fail(HeadErrorKind::FieldValueTooLarge { limit });
                }
                if byte != b' ' && byte != b'\t' {
                    self.value_end = at + 1;
                }
                Ok(())
            }
            _ => fail(HeadErrorKind::FieldValueByte),
        }
    }

    fn count_section_byte(&mut self, at: usize) -> Result<(), HeadError> {
        self.section_bytes += 1;
        if self.section_bytes > self.budget.section_bytes_max {
            let limit = self.budget.section_bytes_max;
            return Err(HeadError {
                kind: HeadErrorKind::FieldSectionTooLarge { limit },
                offset: at,
            });
        }
        Ok(())
    }
}

/// One field line of a parsed head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'b> {
    /// The name as sent; compare it case-insensitively.
    pub name: &'b str,
    /// The value without its surrounding whitespace. It may hold non-ASCII bytes, which this
    /// crate never decodes.
    pub value: &'b [u8],
}

impl<'b> Field<'b> {
    fn from_span(buf: &'b [u8], span: &FieldSpan) -> Self {
        Field { name: chars::ascii_str(&buf[span.name.clone()]), value: &buf[span.value.clone()] }
    }
}

/// Field names whose values are credentials, whatever they hold: `inspect` and the client's wire
/// trace never show them.
pub const CREDENTIAL_FIELDS: [&str; 5] =
    ["authorization", "proxy-authorization", "cookie", "set-cookie", "mcp-session-id"];

/// How often a field name occurs in a head, for fields that may occur at most once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occurrence<'b> {
    Absent,
    /// Exactly one field line, with this value.
    Once(&'b [u8]),
    /// Two or more field lines.
    Repeated,
}

/// The field lines of a head, in the order they arrived: a view over the spans the scanner
/// recorded and the buffer they point into. Building one copies and allocates nothing, and
/// looking a name up compares bytes (names are ASCII tokens, so nothing is decoded).
#[derive(Clone, Copy, Default)]
pub struct FieldList<'b> {
    buf: &'b [u8],
    spans: &'b [FieldSpan],
}

impl<'b> FieldList<'b> {
    pub(crate) fn from_spans(buf: &'b [u8], spans: &'b [FieldSpan]) -> Self {
        FieldList { buf, spans }
    }

    /// Every field line, in order.
    pub fn iter(&self) -> impl Iterator<Item = Field<'b>> + 'b {
        let buf = self.buf;
        self.spans.iter().map(move |span| Field::from_span(buf, span))
    }

    /// How many field lines there are.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The value of the first field line with this name (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&'b [u8]> {
        self.all(name).next()
    }

    /// The values of every field line with this name (case-insensitive), in order.
    pub fn all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'b [u8]> + 's {
        let buf = self.buf;
        self.spans
            .iter()
            .filter(move |span| buf[span.name.clone()].eq_ignore_ascii_case(name.as_bytes()))
            .map(move |span| &buf[span.value.clone()])
    }

    /// Whether this name (case-insensitive) is absent, present once (with its value) or repeated.
    pub fn single(&self, name: &str) -> Occurrence<'b> {
        let mut values = self.all(name);
        match (values.next(), values.next()) {
            (None, _) => Occurrence::Absent,
            (Some(value), None) => Occurrence::Once(value),
            (Some(_), Some(_)) => Occurrence::Repeated,
        }
    }

    /// How many field lines carry this name (case-insensitive).
    pub fn count(&self, name: &str) -> usize {
        self.all(name).count()
    }
}

/// Two lists are equal when they hold the same field lines in the same order, wherever their
/// bytes are.
impl PartialEq for FieldList<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for FieldList<'_> {}

impl fmt::Debug for FieldList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: FieldBudget =
        FieldBudget { value_bytes_max: 8, fields_max: 2, section_bytes_max: 40 };

    type Scanned = Option<(usize, Vec<(String, String)>)>;

    fn scan_all(input: &[u8]) -> Result<Scanned, HeadError> {
        let mut scanner = FieldScanner::new(BUDGET);
        let mut pos = 0;
        let end = scanner.scan(input, &mut pos)?;
        Ok(end.map(|end| {
            let fields = scanner
                .fields()
                .iter()
                .map(|f| {
                    let name = String::from_utf8_lossy(&input[f.name.clone()]).into_owned();
                    let value = String::from_utf8_lossy(&input[f.value.clone()]).into_owned();
                    (name, value)
                })
                .collect();
            (end, fields)
        }))
    }

    #[test]
    fn values_are_trimmed_of_surrounding_whitespace_only() {
        let got = scan_all(b"A: \t x y \t\r\nB:\r\n\r\nrest").unwrap().unwrap();
        assert_eq!(got.0, 18);
        assert_eq!(got.1, vec![("A".into(), "x y".into()), ("B".into(), "".into())]);
    }

    #[test]
    fn incomplete_sections_ask_for_more() {
        for input in [&b""[..], b"A", b"A:", b"A: v", b"A: v\r", b"A: v\r\n", b"A: v\r\n\r"] {
            assert_eq!(scan_all(input), Ok(None), "{input:?}");
        }
    }

    #[test]
    fn budgets_fail_on_the_crossing_byte() {
        let cases: [(&[u8], HeadErrorKind, usize); 3] = [
            (b"A: 123456789", HeadErrorKind::FieldValueTooLarge { limit: 8 }, 11),
            (b"A: 1\r\nB: 2\r\nC", HeadErrorKind::FieldsTooMany { limit: 2 }, 12),
            (
                b"Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                HeadErrorKind::FieldSectionTooLarge { limit: 40 },
                40,
            ),
        ];
        for (input, kind, offset) in cases {
            assert_eq!(scan_all(input), Err(HeadError { kind, offset }), "{input:?}");
        }
    }
}
