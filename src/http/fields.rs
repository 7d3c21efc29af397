//! The header section scanner shared by the request and the response parsers.
//!
//! It walks the field lines that follow a start line, remembering where it stopped so that each
//! call looks only at bytes it has not seen. Grammar (RFC 9112 §5, RFC 9110 §5.5):
//! `field-line = 1*tchar ":" OWS field-value OWS CRLF`, the section ending at an empty line.
//! Every byte can go through one step of the grammar, which checks each budget on the byte that
//! crosses it, so an endless line fails as soon as it is too long, never after its CRLF. A line
//! that is all there and well-formed is taken in one go instead, leaving the scanner exactly as
//! the steps would; a table test feeds both ways the same inputs and compares results and state.
//!
//! The scanner records only spans (offsets into the caller's buffer) and, per line, which of the
//! few names the crate looks up it carries ([`KnownName`]); it never copies or interprets value
//! bytes, and it knows nothing about what any field means. A complete head's
//! spans become a [`FieldList`]: borrowed views of the field lines, with the lookups the
//! framing rules, the endpoint and the client share (first value, all values, at most once).

use std::fmt;
use std::ops::Range;

use super::chars::{self, FIELD_VALUE, TCHAR};
use super::error::{HeadError, HeadErrorKind};
use super::known::{KnownIndex, KnownName, NO_FIELDS};
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
    /// Which of the names this crate looks up it is, decided once as the line ends, so that a
    /// lookup of a known name compares one byte per line.
    pub known: KnownName,
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldScanner {
    budget: FieldBudget,
    state: State,
    fields: Vec<FieldSpan>,
    index: KnownIndex,
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
            index: KnownIndex::EMPTY,
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
        self.index = KnownIndex::EMPTY;
        self.section_bytes = 0;
    }

    /// The field lines completed so far, in order.
    pub fn fields(&self) -> &[FieldSpan] {
        &self.fields
    }

    /// The field lines completed so far, as a list over `buf` (the bytes scanned).
    pub fn list<'b>(&'b self, buf: &'b [u8]) -> FieldList<'b> {
        FieldList { buf, spans: &self.fields, index: &self.index }
    }

    /// Adds a completed line to the spans and the index.
    fn push(&mut self, span: FieldSpan) {
        self.index.record(span.known, self.fields.len());
        self.fields.push(span);
    }

    /// Scans `buf[*pos..]`, advancing `*pos` past every byte examined. Returns `Some(end)` once
    /// the empty line ending the section has been read (`end` is the offset just after it), or
    /// `None` when every byte was consumed and more are needed.
    #[inline]
    pub fn scan(&mut self, buf: &[u8], pos: &mut usize) -> Result<Option<usize>, HeadError> {
        self.scan_as::<true>(buf, pos)
    }

    /// [`FieldScanner::scan`], taking whole lines in one go when `WHOLE_LINES` (the scanner's
    /// one fast path) or every byte through `step` otherwise. A test feeds both the same inputs
    /// and compares their results and states.
    fn scan_as<const WHOLE_LINES: bool>(
        &mut self,
        buf: &[u8],
        pos: &mut usize,
    ) -> Result<Option<usize>, HeadError> {
        while let Some(&byte) = buf.get(*pos) {
            // Most lines arrive whole and well-formed: take such a line in one go. Anything else,
            // a line still partial or one that breaks the grammar or a budget, goes byte by byte.
            if WHOLE_LINES && self.state == State::LineStart {
                let line = self.whole_line(&buf[*pos..], *pos);
                if line > 0 {
                    *pos += line;
                    continue;
                }
            }
            let at = *pos;
            *pos += 1;
            if self.step(buf, byte, at)? {
                return Ok(Some(*pos));
            }
        }
        Ok(None)
    }

    /// How many bytes the section budget still allows.
    fn section_room(&self) -> usize {
        self.budget.section_bytes_max - self.section_bytes
    }

    /// Takes the field line at the start of `rest` (offset `at`) when all of it is there and
    /// nothing in it breaks the grammar or a budget, leaving exactly the state `step` would have
    /// left after its LF; returns its length. Anything else returns 0 and consumes nothing, and
    /// the line goes through `step`, which finds the same line or the same error.
    fn whole_line(&mut self, rest: &[u8], at: usize) -> usize {
        if self.fields.len() >= self.budget.fields_max {
            return 0;
        }
        let name_len = chars::run_of(rest, TCHAR);
        if name_len == 0 || rest.get(name_len) != Some(&b':') {
            return 0;
        }
        let leading = rest[name_len + 1..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        let value_start = name_len + 1 + leading;
        let window = rest.len().min(value_start + self.budget.value_bytes_max);
        let value_len = chars::field_value_run(&rest[value_start..window]);
        let cr = value_start + value_len;
        let line_len = cr + 2;
        if rest.get(cr..line_len) != Some(b"\r\n") || line_len > self.section_room() {
            return 0;
        }
        let value = &rest[value_start..cr];
        let trimmed = value.iter().rposition(|&b| b != b' ' && b != b'\t').map_or(0, |i| i + 1);
        self.section_bytes += line_len;
        self.line_start = at;
        self.name_end = at + name_len;
        self.value_start = at + value_start;
        self.value_end = at + value_start + trimmed;
        self.value_bytes = value_len;
        let known = KnownName::of(&rest[..name_len]);
        let (name, value) = (at..self.name_end, self.value_start..self.value_end);
        self.push(FieldSpan { line_start: at, name, value, known });
        line_len
    }

    /// Consumes one byte, by the grammar's stage: a line's first byte, the name, the value's
    /// leading whitespace, the value, the line's LF, the section's final LF. True when it
    /// completed the section.
    fn step(&mut self, buf: &[u8], byte: u8, at: usize) -> Result<bool, HeadError> {
        let fail = |kind| Err(HeadError { kind, offset: at });
        match self.state {
            State::LineStart => self.line_start_byte(byte, at)?,
            State::Name => self.name_byte(byte, at)?,
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
                self.end_line(buf);
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

    /// The first byte of a line: the CR of the empty line that ends the section, or a name's.
    fn line_start_byte(&mut self, byte: u8, at: usize) -> Result<(), HeadError> {
        let fail = |kind| Err(HeadError { kind, offset: at });
        if byte == b'\r' {
            self.state = State::EndCr;
            return Ok(());
        }
        if self.fields.len() >= self.budget.fields_max {
            return fail(HeadErrorKind::FieldsTooMany { limit: self.budget.fields_max });
        }
        self.count_section_byte(at)?;
        match byte {
            _ if chars::is(byte, TCHAR) => {
                self.line_start = at;
                self.state = State::Name;
                Ok(())
            }
            b'\n' => fail(HeadErrorKind::BareLf),
            b' ' | b'\t' => fail(HeadErrorKind::FieldLineStartsWithWhitespace),
            b':' => fail(HeadErrorKind::FieldNameEmpty),
            _ => fail(HeadErrorKind::FieldNameByte),
        }
    }

    /// A byte of a field name, or the colon that ends it.
    fn name_byte(&mut self, byte: u8, at: usize) -> Result<(), HeadError> {
        let fail = |kind| Err(HeadError { kind, offset: at });
        self.count_section_byte(at)?;
        match byte {
            _ if chars::is(byte, TCHAR) => Ok(()),
            b':' => {
                self.name_end = at;
                self.state = State::ValueLeadingWhitespace;
                Ok(())
            }
            b' ' | b'\t' => fail(HeadErrorKind::WhitespaceBeforeColon),
            b'\r' => fail(HeadErrorKind::ColonMissing),
            b'\n' => fail(HeadErrorKind::BareLf),
            _ => fail(HeadErrorKind::FieldNameByte),
        }
    }

    /// A field line's LF arrived: its spans are recorded.
    fn end_line(&mut self, buf: &[u8]) {
        let name = self.line_start..self.name_end;
        let known = KnownName::of(&buf[name.clone()]);
        let value = self.value_start..self.value_end;
        self.push(FieldSpan { line_start: self.line_start, name, value, known });
        self.state = State::LineStart;
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
#[derive(Clone, Copy)]
pub struct FieldList<'b> {
    buf: &'b [u8],
    spans: &'b [FieldSpan],
    /// Where the known names are among `spans`.
    index: &'b KnownIndex,
}

impl Default for FieldList<'_> {
    fn default() -> Self {
        FieldList { buf: &[], spans: &[], index: &NO_FIELDS }
    }
}

impl<'b> FieldList<'b> {
    /// The value of the line at `position`.
    fn value_at(&self, position: usize) -> Option<&'b [u8]> {
        let span = self.spans.get(position)?;
        self.buf.get(span.value.clone())
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
    #[inline(always)]
    pub fn get(&self, name: &str) -> Option<&'b [u8]> {
        match KnownName::of_lower(name.as_bytes()) {
            KnownName::Other => self.all(name).next(),
            known => match self.index.lines(known) {
                (_, 0) => None,
                (first, _) => self.value_at(first),
            },
        }
    }

    /// The values of every field line with this name (case-insensitive), in order.
    #[inline]
    pub fn all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'b [u8]> + 's {
        let buf = self.buf;
        // The names this crate looks up are written in lower case, and found through the index
        // (from the first line of that name, until all of them are found); any other spelling is
        // compared with every line, byte by byte, with the same result.
        let known = KnownName::of_lower(name.as_bytes());
        let (first, count) = match known {
            KnownName::Other => (0, usize::MAX),
            known => self.index.lines(known),
        };
        self.spans
            .get(first..)
            .unwrap_or_default()
            .iter()
            .filter(move |span| match known {
                KnownName::Other => buf[span.name.clone()].eq_ignore_ascii_case(name.as_bytes()),
                known => span.known == known,
            })
            .take(count)
            .map(move |span| &buf[span.value.clone()])
    }

    /// Whether this name (case-insensitive) is absent, present once (with its value) or repeated.
    #[inline(always)]
    pub fn single(&self, name: &str) -> Occurrence<'b> {
        let count = match KnownName::of_lower(name.as_bytes()) {
            KnownName::Other => self.all(name).take(2).count(),
            known => self.index.lines(known).1,
        };
        match count {
            0 => Occurrence::Absent,
            1 => self.get(name).map_or(Occurrence::Absent, Occurrence::Once),
            _ => Occurrence::Repeated,
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

    #[test]
    fn lookups_of_known_and_other_names_find_the_same_lines() {
        let input = b"HOST: a\r\nX-Trace: 1\r\naccept: b\r\nx-trace: 2\r\nAccept: c\r\n\r\n";
        let budget = FieldBudget { value_bytes_max: 8, fields_max: 8, section_bytes_max: 200 };
        let mut scanner = FieldScanner::new(budget);
        let mut pos = 0;
        assert_eq!(scanner.scan(input, &mut pos), Ok(Some(input.len())));
        let list = scanner.list(input);
        let all = |name| list.all(name).collect::<Vec<_>>();
        assert_eq!(all("host"), [b"a"]);
        assert_eq!(all("ACCEPT"), [b"b", b"c"]);
        assert_eq!(all("x-trace"), [b"1", b"2"]);
        assert_eq!(all("X-TRACE"), [b"1", b"2"]);
        assert_eq!(all("Host"), [b"a"]);
        assert_eq!(all("content-type"), Vec::<&[u8]>::new());
    }

    #[test]
    fn indexed_lookups_agree_with_comparing_every_line() {
        let sections: [&[u8]; 5] = [
            b"\r\n",
            b"Host: a\r\nAccept: x\r\nhost: b\r\nMCP-Session-Id: s\r\nX: 1\r\n\r\n",
            b"content-length: 1\r\nCONTENT-LENGTH: 2\r\ncontent-length: 3\r\n\r\n",
            b"Cookie:\r\nOrigin: o\r\nLast-Event-ID: e\r\nProxy-Authorization: p\r\n\r\n",
            b"Accept: \t a \r\nExpect: 100-continue\r\nconnection: close\r\n\r\n",
        ];
        let budget = FieldBudget { value_bytes_max: 64, fields_max: 16, section_bytes_max: 512 };
        // One scanner for every section, so that each starts from a reset index; each section
        // whole (lines taken in one go) and byte by byte (lines taken by the slow path).
        let mut scanner = FieldScanner::new(budget);
        for section in sections {
            for step in [section.len(), 1] {
                scanner.reset();
                let mut pos = 0;
                let mut end = None;
                for stop in (step..=section.len()).step_by(step) {
                    end = scanner.scan(&section[..stop], &mut pos).unwrap();
                }
                assert_eq!(end, Some(section.len()));
                let list = scanner.list(section);
                for known in KnownName::ALL {
                    let lower = known.lower();
                    let upper = lower.to_ascii_uppercase();
                    for name in [lower, upper.as_str()] {
                        let by_line: Vec<&[u8]> = list
                            .iter()
                            .filter(|f| f.name.eq_ignore_ascii_case(name))
                            .map(|f| f.value)
                            .collect();
                        let what = format!("{name} in {:?}", String::from_utf8_lossy(section));
                        assert_eq!(list.all(name).collect::<Vec<_>>(), by_line, "{what}");
                        assert_eq!(list.get(name), by_line.first().copied(), "{what}");
                        assert_eq!(list.count(name), by_line.len(), "{what}");
                        let single = match by_line[..] {
                            [] => Occurrence::Absent,
                            [one] => Occurrence::Once(one),
                            _ => Occurrence::Repeated,
                        };
                        assert_eq!(list.single(name), single, "{what}");
                    }
                }
            }
        }
    }

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

    /// Scans `input` fed in two pieces (split at `split`) with whole lines taken in one go or
    /// not, and returns every outcome and the scanner's state after each piece.
    fn scanned_as<const WHOLE_LINES: bool>(
        input: &[u8],
        split: usize,
    ) -> Vec<(Result<Option<usize>, HeadError>, FieldScanner, usize)> {
        let mut scanner = FieldScanner::new(BUDGET);
        let mut pos = 0;
        let mut seen = Vec::new();
        for end in [split, input.len()] {
            let outcome = scanner.scan_as::<WHOLE_LINES>(&input[..end], &mut pos);
            let failed = outcome.is_err();
            seen.push((outcome, scanner.clone(), pos));
            if failed {
                break;
            }
        }
        seen
    }

    #[test]
    fn whole_lines_leave_the_same_result_and_state_as_byte_by_byte_steps() {
        // Budgets of `BUDGET`: values of 8 bytes, 2 lines, a section of 40 bytes.
        let inputs: [&[u8]; 24] = [
            b"A: v\r\n\r\n",
            b"Host: x\r\nB:\r\n\r\nnext",
            b"A: \t x y \t\r\nB: 2\r\n\r\n",
            b"A: 12345678\r\n\r\n",
            b"A: 123456789\r\n\r\n",
            b"A: 1\r\nB: 2\r\nC: 3\r\n\r\n",
            b"Aaaaaaaaaaaaaaaaaaaaaaaaa: 12345678\r\n\r\n",
            b"Aaaaaaaaaaaaaaaaaaaaaaaaaaa: 1234\r\n\r\n",
            b"Aaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1234\r\n\r\n",
            b"A : v\r\n\r\n",
            b" A: v\r\n\r\n",
            b"A: v\r\n folded\r\n\r\n",
            b": v\r\n\r\n",
            b"A\r\n\r\n",
            b"A: v\n\r\n",
            b"A: v\rx\r\n",
            b"A: \x01\r\n\r\n",
            b"A: \x7f\r\n\r\n",
            b"A: \xc3\xa9\r\n\r\n",
            b"A\x80: v\r\n\r\n",
            b"A: v\r\n\rx",
            b"A: v\r\n\n",
            b"Content-Length: 5\r\nmcp-session-id: s\r\n\r\n",
            b"A: v  \r\n\r\n",
        ];
        for input in inputs {
            for split in 0..=input.len() {
                assert_eq!(
                    scanned_as::<true>(input, split),
                    scanned_as::<false>(input, split),
                    "{:?} split at {split}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }
}
