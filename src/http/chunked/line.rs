//! The scanner of a chunk-size line, `chunk-size [ chunk-ext ] CRLF`: the one home of that
//! grammar, for the request decoder and the response reader alike.
//!
//! Not here: what follows a line (a chunk's data, the trailer section), which the decoder and the
//! reader each read their own way.

use crate::http::chars::{self, FIELD_VALUE, TCHAR};
use crate::http::error::{ChunkedError, ChunkedErrorKind};
use crate::limits::Limits;

/// The budgets of one chunk-size line, read from [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LineBudget {
    size_digits_max: usize,
    extension_bytes_max: usize,
}

impl LineBudget {
    pub(super) const fn from_limits(limits: &Limits) -> LineBudget {
        LineBudget {
            size_digits_max: limits.chunk_size_digits_max,
            extension_bytes_max: limits.chunk_extension_bytes_max,
        }
    }
}

/// How large the chunk whose size is being read may be, and the error for a larger one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SizeRoom {
    pub(super) bytes: usize,
    pub(super) too_large: ChunkedErrorKind,
}

/// What the whitespace being read follows, which decides what may come after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    /// The size: only `;` may follow.
    Size,
    /// An extension name: `=` or `;`.
    Name,
    /// An extension value: `;`.
    Value,
}

/// Where a chunk-size line's scan is, after its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Extension {
    /// Whitespace (BWS).
    Whitespace(After),
    /// After `;` (and any whitespace): an extension name must start.
    NameStart,
    Name,
    /// After `=` (and any whitespace): a value must start.
    ValueStart,
    Token,
    Quoted,
    /// After a backslash inside a quoted value.
    QuotedPair,
    /// After a quoted value's closing quote.
    QuotedEnd,
}

/// Where a chunk-size line's scan is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// Before the line's first byte.
    Start,
    /// Inside the size's hex digits.
    Size,
    /// After the size, before the CR.
    Extension(Extension),
    /// After the line's CR.
    Lf,
}

/// What one byte of a chunk-size line did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LineStep {
    /// The line goes on.
    More,
    /// The byte was the line's LF: the chunk's size, within its room.
    Done(usize),
}

/// The scanner of one chunk-size line, `chunk-size [ chunk-ext ] CRLF`: the one home of that
/// grammar, for the request decoder and the response reader alike. It is fed one byte at a time,
/// decides each refusal at the byte that proves it, and checks the size against the room it is
/// given at the byte that ends the size, before any extension or data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SizeLine {
    budget: LineBudget,
    at: Line,
    /// The size's digits so far and its value.
    digits: usize,
    size: u64,
    /// The size once it ended within its room.
    length: usize,
    /// The line's extension bytes so far.
    extension_bytes: usize,
}

impl SizeLine {
    pub(super) const fn new(budget: LineBudget) -> SizeLine {
        SizeLine { budget, at: Line::Start, digits: 0, size: 0, length: 0, extension_bytes: 0 }
    }

    /// No byte of the current line was read yet.
    pub(super) fn is_fresh(&self) -> bool {
        self.at == Line::Start
    }

    /// Reads one byte of the line, at offset `at` of the body.
    pub(super) fn byte(
        &mut self,
        byte: u8,
        at: usize,
        room: SizeRoom,
    ) -> Result<LineStep, ChunkedError> {
        let fail = |kind| Err(ChunkedError { kind, offset: at });
        match self.at {
            Line::Start => match (hex_value(byte), byte) {
                (Some(digit), _) => {
                    (self.digits, self.size, self.extension_bytes) = (1, digit, 0);
                    self.at = Line::Size;
                    Ok(LineStep::More)
                }
                (None, b'\n') => fail(ChunkedErrorKind::BareLf),
                (None, _) => fail(ChunkedErrorKind::SizeMissing),
            },
            Line::Size => self.size_byte(byte, at, room),
            Line::Extension(extension) => self.extension_byte(extension, byte, at),
            Line::Lf if byte == b'\n' => {
                self.at = Line::Start;
                Ok(LineStep::Done(self.length))
            }
            Line::Lf => fail(ChunkedErrorKind::BareCr),
        }
    }

    /// A byte after the size's first digit: another digit (within the digit budget), or the byte
    /// that ends the size, where the size is checked against its room.
    fn size_byte(&mut self, byte: u8, at: usize, room: SizeRoom) -> Result<LineStep, ChunkedError> {
        let fail = |kind| Err(ChunkedError { kind, offset: at });
        if let Some(digit) = hex_value(byte) {
            self.digits += 1;
            let size = self.size.checked_mul(16).map(|s| s | digit);
            match size {
                Some(size) if self.digits <= self.budget.size_digits_max => self.size = size,
                _ => {
                    let limit = self.budget.size_digits_max;
                    return fail(ChunkedErrorKind::SizeTooLong { limit });
                }
            }
            return Ok(LineStep::More);
        }
        let next = match byte {
            b' ' | b'\t' => Line::Extension(Extension::Whitespace(After::Size)),
            b';' => Line::Extension(Extension::NameStart),
            b'\r' => Line::Lf,
            b'\n' => return fail(ChunkedErrorKind::BareLf),
            _ => return fail(ChunkedErrorKind::SizeByte),
        };
        match usize::try_from(self.size) {
            Ok(size) if size <= room.bytes => self.length = size,
            _ => return fail(room.too_large),
        }
        if next != Line::Lf {
            self.count_extension_byte(at)?;
        }
        self.at = next;
        Ok(LineStep::More)
    }

    /// A byte of a chunk-size line after its size: whitespace, an extension's name or value, or
    /// the CR that ends the line. Counted against the extension budget first (an unquoted CR or
    /// LF is not).
    fn extension_byte(
        &mut self,
        extension: Extension,
        byte: u8,
        at: usize,
    ) -> Result<LineStep, ChunkedError> {
        let quoted = matches!(extension, Extension::Quoted | Extension::QuotedPair);
        if quoted || (byte != b'\r' && byte != b'\n') {
            self.count_extension_byte(at)?;
        }
        match extension_next(extension, byte) {
            Ok(next) => {
                self.at = next;
                Ok(LineStep::More)
            }
            Err(kind) => Err(ChunkedError { kind, offset: at }),
        }
    }

    fn count_extension_byte(&mut self, at: usize) -> Result<(), ChunkedError> {
        self.extension_bytes += 1;
        if self.extension_bytes > self.budget.extension_bytes_max {
            let limit = self.budget.extension_bytes_max;
            let kind = ChunkedErrorKind::ExtensionTooLarge { limit };
            return Err(ChunkedError { kind, offset: at });
        }
        Ok(())
    }
}

/// Where a byte takes the extension part of a chunk-size line, or why it may not stand there:
/// BWS only before `;` and around `=`, names and token values of `tchar`s, quoted values of
/// field-value bytes, CRLF only after a name or a value.
fn extension_next(extension: Extension, byte: u8) -> Result<Line, ChunkedErrorKind> {
    use ChunkedErrorKind as K;
    let whitespace = byte == b' ' || byte == b'\t';
    let token = chars::is(byte, TCHAR);
    let to = |next| Ok(Line::Extension(next));
    match (extension, byte) {
        (Extension::Quoted, b'"') => to(Extension::QuotedEnd),
        (Extension::Quoted, b'\\') => to(Extension::QuotedPair),
        (Extension::Quoted | Extension::QuotedPair, _) if chars::is(byte, FIELD_VALUE) => {
            to(Extension::Quoted)
        }
        (Extension::Quoted | Extension::QuotedPair, _) => Err(K::ExtensionQuotedByte),
        (
            Extension::Whitespace(_)
            | Extension::NameStart
            | Extension::Name
            | Extension::ValueStart
            | Extension::Token
            | Extension::QuotedEnd,
            b'\n',
        ) => Err(K::BareLf),
        (Extension::Name | Extension::Token | Extension::QuotedEnd, b'\r') => Ok(Line::Lf),
        (Extension::Whitespace(_) | Extension::NameStart | Extension::ValueStart, _)
            if whitespace =>
        {
            to(extension)
        }
        (
            Extension::Whitespace(_) | Extension::Name | Extension::Token | Extension::QuotedEnd,
            b';',
        ) => to(Extension::NameStart),
        (Extension::Whitespace(After::Name) | Extension::Name, b'=') => to(Extension::ValueStart),
        (Extension::Whitespace(After::Size), _) => Err(K::SizeWhitespace),
        (Extension::Whitespace(After::Name | After::Value), _) => Err(K::ExtensionWhitespace),
        (Extension::NameStart, b'\r' | b';' | b'=') => Err(K::ExtensionNameMissing),
        (Extension::NameStart | Extension::Name, _) if token => to(Extension::Name),
        (Extension::Name, _) if whitespace => to(Extension::Whitespace(After::Name)),
        (Extension::ValueStart, b'\r' | b';') => Err(K::ExtensionValueMissing),
        (Extension::ValueStart, b'"') => to(Extension::Quoted),
        (Extension::ValueStart | Extension::Token, _) if token => to(Extension::Token),
        (Extension::Token | Extension::QuotedEnd, _) if whitespace => {
            to(Extension::Whitespace(After::Value))
        }
        (
            Extension::NameStart
            | Extension::Name
            | Extension::ValueStart
            | Extension::Token
            | Extension::QuotedEnd,
            _,
        ) => Err(K::ExtensionByte),
    }
}
/// The value of a hex digit (`HEXDIG`, either case).
fn hex_value(byte: u8) -> Option<u64> {
    char::from(byte).to_digit(16).map(u64::from)
}
