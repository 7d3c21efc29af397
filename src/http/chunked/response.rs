//! The strict reader of chunked response bodies, one chunk at a time, for the client.
//!
//! [`ChunkReader::next`] is handed the bytes of a response body that earlier calls have not
//! taken, and answers [`NextChunk::Partial`] (more bytes needed), [`NextChunk::Chunk`] (one
//! chunk's data, as a range of those bytes, and how many bytes the chunk took with its framing)
//! or [`NextChunk::End`] (the last chunk and the empty line, and how many bytes they took). It
//! moves nothing: the caller drops the bytes taken and hands over the rest with whatever arrived
//! since, so the bytes after the body stay the caller's, for the next response on the
//! connection. A chunk comes out once its data and their CRLF are in, so a client reading an
//! event stream written one event per chunk gets each event as soon as it has arrived. Like the
//! decoder, it refuses at the byte that proves the body bad, with the same verdict whatever the
//! split, and errors count their offsets from the body's first byte.
//!
//! The size lines are the request decoder's, under the same size-digit and extension budgets (see
//! [`super::request`]); a stream has no chunk count. What differs:
//!
//! | bytes | code | why |
//! |---|---|---|
//! | a size over the response budget, 64 KiB<!-- limit: response_bytes_max --> | `chunk_too_large` | [`ChunkBudget::PerChunk`]: a stream's chunks are bounded one by one, decided when the size ends, before its data |
//! | sizes that add up past the response budget | `chunked_body_too_large` | [`ChunkBudget::WholeBody`]: a body read whole is bounded as a whole, decided likewise |
//! | `0\r\nX: 1\r\n\r\n` | `trailer_section_not_empty` | only the empty trailer section: this project's server writes none, and a trailer this client dropped unread could not say anything |
//! | `0\r\n\n`, `0\r\n\rX` | `chunk_bare_lf`, `chunk_bare_cr` | CRLF only |
//!
//! Not here: the chunk-size line's grammar (the scanner in `line`) and request bodies
//! ([`super::request`]).

use std::ops::Range;

use super::line::{LineBudget, LineStep, SizeLine, SizeRoom};
use crate::http::error::{ChunkedError, ChunkedErrorKind};
use crate::limits::Limits;

/// What a [`ChunkReader`] bounds a chunk's size by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkBudget {
    /// Each chunk alone, at most the response budget (`chunk_too_large`): a stream read chunk
    /// by chunk, however long it lasts.
    PerChunk,
    /// All the chunks together, at most the response budget (`chunked_body_too_large`): a body
    /// read whole.
    WholeBody,
}

/// What one call of [`ChunkReader::next`] found at the start of the bytes it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NextChunk {
    /// Every byte given was judged and more are needed: call again with the same bytes and the
    /// ones that arrive next.
    Partial,
    /// One chunk: its data is `buf[data]`, and it took `buf[..consumed]` with its framing.
    Chunk { data: Range<usize>, consumed: usize },
    /// The last chunk and the empty line that ends the body took `buf[..consumed]`; whatever
    /// follows belongs to the next message.
    End { consumed: usize },
}

/// Where the reader is in the current chunk; the data's range is counted from the start of the
/// bytes the current call was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// Inside a chunk-size line (the scanner knows where).
    Line,
    /// A chunk's data, then its CR, then its LF.
    Data {
        start: usize,
        end: usize,
    },
    DataCr {
        start: usize,
        end: usize,
    },
    DataLf {
        start: usize,
        end: usize,
    },
    /// After the last chunk's line: the CR, then the LF, of the empty trailer section's end.
    EndCr,
    EndLf,
}

/// The reader of one chunked response body, one chunk at a time; sans-IO, and it moves no byte.
///
/// Each call of [`ChunkReader::next`] gets the body's bytes that earlier calls have not taken
/// (`consumed`), followed by any that arrived since, and judges each byte once. A chunk comes out
/// only once its data and their CRLF are in. Errors count their offsets from the body's first
/// byte; once one is found, later calls repeat it, and after the end they take nothing more.
#[derive(Clone, Debug)]
pub struct ChunkReader {
    line: SizeLine,
    budget: ChunkBudget,
    /// The response budget, which bounds a chunk or the whole body.
    bytes_max: usize,
    reading: Reading,
    /// Bytes of the current call's buffer already judged: `Partial` keeps them judged.
    scanned: usize,
    /// Bytes of the body taken by earlier chunks: the body offset of the buffer's first byte.
    taken: usize,
    /// Data bytes of the chunks announced so far.
    declared: usize,
    /// The verdict once reached: the end (`Ok`) or the error. Later calls repeat it.
    verdict: Option<Result<(), ChunkedError>>,
}

impl ChunkReader {
    /// A reader enforcing the chunk-size line budgets of `limits` and, as `budget` says, its
    /// response budget on each chunk or on the whole body.
    pub fn new(limits: &Limits, budget: ChunkBudget) -> ChunkReader {
        ChunkReader {
            line: SizeLine::new(LineBudget::from_limits(limits)),
            budget,
            bytes_max: limits.response_bytes_max,
            reading: Reading::Line,
            scanned: 0,
            taken: 0,
            declared: 0,
            verdict: None,
        }
    }

    /// Reads the next chunk from `buf`: the bytes after the last ones taken (the body's first
    /// bytes at the first call). After [`NextChunk::Partial`], `buf` must come back whole, with
    /// new bytes after it; after a chunk, it must start right after that chunk's `consumed`
    /// bytes.
    ///
    /// # Panics
    ///
    /// When `buf` is shorter than the bytes judged by a previous `Partial` call: that is a caller
    /// bug, never input.
    pub fn next(&mut self, buf: &[u8]) -> Result<NextChunk, ChunkedError> {
        match self.verdict {
            Some(Err(error)) => return Err(error),
            Some(Ok(())) => return Ok(NextChunk::End { consumed: 0 }),
            None => {}
        }
        assert!(buf.len() >= self.scanned, "ChunkReader::next called with a shrunken buffer");
        let found = self.scan(buf);
        let taken = match &found {
            Ok(NextChunk::Partial) => return found,
            Ok(NextChunk::Chunk { consumed, .. }) => *consumed,
            Ok(NextChunk::End { consumed }) => {
                self.verdict = Some(Ok(()));
                *consumed
            }
            Err(error) => {
                self.verdict = Some(Err(*error));
                0
            }
        };
        self.taken += taken;
        self.scanned = 0;
        found
    }

    /// Judges the bytes of `buf` not judged yet, up to the end of the current chunk.
    fn scan(&mut self, buf: &[u8]) -> Result<NextChunk, ChunkedError> {
        loop {
            if let Reading::Data { start, end } = self.reading {
                if buf.len() < end {
                    self.scanned = buf.len();
                    return Ok(NextChunk::Partial);
                }
                self.scanned = end;
                self.reading = Reading::DataCr { start, end };
            }
            let Some(&byte) = buf.get(self.scanned) else {
                return Ok(NextChunk::Partial);
            };
            let at = self.scanned;
            self.scanned += 1;
            if let Some(found) = self.step(byte, at)? {
                return Ok(found);
            }
        }
    }

    /// One framing byte at `buf[at]`; the chunk or the end once its last byte is read.
    fn step(&mut self, byte: u8, at: usize) -> Result<Option<NextChunk>, ChunkedError> {
        let offset = self.taken + at;
        let fail = |kind| Err(ChunkedError { kind, offset });
        match (self.reading, byte) {
            (Reading::Line, _) => self.line_byte(byte, at).map(|()| None),
            (Reading::Data { .. }, _) => Ok(None), // `scan` takes data bytes itself
            (Reading::DataCr { start, end }, b'\r') => {
                self.reading = Reading::DataLf { start, end };
                Ok(None)
            }
            (Reading::DataLf { start, end }, b'\n') => {
                self.reading = Reading::Line;
                Ok(Some(NextChunk::Chunk { data: start..end, consumed: at + 1 }))
            }
            (Reading::EndCr, b'\r') => {
                self.reading = Reading::EndLf;
                Ok(None)
            }
            (Reading::EndLf, b'\n') => Ok(Some(NextChunk::End { consumed: at + 1 })),
            (Reading::DataCr { .. } | Reading::EndCr, b'\n') => fail(ChunkedErrorKind::BareLf),
            (Reading::DataCr { .. }, _) => fail(ChunkedErrorKind::DataUnterminated),
            (Reading::EndCr, _) => fail(ChunkedErrorKind::TrailerSectionNotEmpty),
            (Reading::DataLf { .. } | Reading::EndLf, _) => fail(ChunkedErrorKind::BareCr),
        }
    }

    /// A byte of a chunk-size line; its size is checked against the budget when it ends, and
    /// its LF starts the chunk's data or, after the last chunk, the end.
    fn line_byte(&mut self, byte: u8, at: usize) -> Result<(), ChunkedError> {
        let limit = self.bytes_max;
        let room = match self.budget {
            ChunkBudget::PerChunk => {
                SizeRoom { bytes: limit, too_large: ChunkedErrorKind::ChunkTooLarge { limit } }
            }
            ChunkBudget::WholeBody => SizeRoom {
                bytes: limit - self.declared,
                too_large: ChunkedErrorKind::BodyTooLarge { limit },
            },
        };
        if let LineStep::Done(size) = self.line.byte(byte, self.taken + at, room)? {
            self.declared = self.declared.saturating_add(size);
            let start = at + 1;
            self.reading = match size {
                0 => Reading::EndCr,
                _ => Reading::Data { start, end: start.saturating_add(size) },
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{PRIMING_EVENT_BYTES_MAX, RESPONSE_HEAD_BYTES_RESERVE};

    /// The smallest response budget the budgets' relations allow, so budget rows stay short.
    const SMALL: Limits = Limits {
        response_bytes_max: RESPONSE_HEAD_BYTES_RESERVE + PRIMING_EVENT_BYTES_MAX + 64,
        sse_event_bytes_max: 64,
        ..Limits::DEFAULT
    };
    const _: () = assert!(SMALL.validate().is_ok());

    /// How a reader stopped.
    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Stop {
        Partial,
        /// The end, after this many bytes of the body.
        End(usize),
        /// The code and the body offset.
        Refused(&'static str, usize),
    }

    /// The chunks a reader handed out, and how it stopped.
    type Read = (Vec<Vec<u8>>, Stop);

    /// A row: the body's bytes, the chunks they read to, and how the reader stops.
    type Row<'a> = (&'a [u8], &'a [&'a [u8]], Stop);

    /// Feeds `input` to a fresh reader in pieces ending at `ends`, as a client does: the bytes
    /// not taken stay, each piece is appended after them, and chunks are read until `Partial`.
    fn read_in_pieces(input: &[u8], ends: &[usize], limits: &Limits, budget: ChunkBudget) -> Read {
        let mut reader = ChunkReader::new(limits, budget);
        let (mut pending, mut fed, mut taken, mut chunks) = (Vec::new(), 0, 0, Vec::new());
        for &end in ends {
            pending.extend_from_slice(&input[fed..end]);
            fed = end;
            loop {
                match reader.next(&pending) {
                    Ok(NextChunk::Partial) => break,
                    Ok(NextChunk::Chunk { data, consumed }) => {
                        assert!(
                            !data.is_empty() && data.end + 2 == consumed,
                            "{data:?} {consumed}"
                        );
                        chunks.push(pending[data].to_vec());
                        pending.drain(..consumed);
                        taken += consumed;
                    }
                    Ok(NextChunk::End { consumed }) => {
                        let again = reader.next(&pending[consumed..]);
                        assert_eq!(again, Ok(NextChunk::End { consumed: 0 }), "after the end");
                        return (chunks, Stop::End(taken + consumed));
                    }
                    Err(e) => {
                        assert_eq!(reader.next(&pending), Err(e), "a refusal is repeated");
                        return (chunks, Stop::Refused(e.kind.code(), e.offset));
                    }
                }
            }
        }
        (chunks, Stop::Partial)
    }

    /// What `input` reads to whole, checked to be the same at every split point and one byte at
    /// a time, and a refusal to be decided by the byte at its offset.
    fn read_every_way(input: &[u8], limits: &Limits, budget: ChunkBudget) -> Read {
        let n = input.len();
        let whole = read_in_pieces(input, &[n], limits, budget);
        for k in 0..=n {
            let split = read_in_pieces(input, &[k, n], limits, budget);
            assert_eq!(split, whole, "split at {k} of {:?}", String::from_utf8_lossy(input));
        }
        let every: Vec<usize> = (0..=n).collect();
        assert_eq!(read_in_pieces(input, &every, limits, budget), whole, "byte by byte");
        if let (chunks, Stop::Refused(_, at)) = &whole {
            let before = read_in_pieces(&input[..*at], &[*at], limits, budget);
            assert_eq!(before, (chunks.clone(), Stop::Partial), "decided before its byte");
            let through = read_in_pieces(&input[..=*at], &[*at + 1], limits, budget);
            assert_eq!(through, whole, "not decided by its byte");
        }
        whole
    }

    fn check(rows: &[Row<'_>], limits: &Limits, budget: ChunkBudget) {
        for (input, chunks, stop) in rows {
            let chunks: Vec<Vec<u8>> = chunks.iter().map(|c| c.to_vec()).collect();
            let got = read_every_way(input, limits, budget);
            assert_eq!(got, (chunks, stop.clone()), "{:?}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn valid_chunked_bodies_read_to_their_chunks_and_end() {
        use Stop::*;
        let rows: [Row<'_>; 17] = [
            (b"0\r\n\r\n", &[], End(5)),
            (b"5\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(15)),
            (b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", &[b"hello", b" world"], End(26)),
            (
                b"A\r\n0123456789\r\na\r\n9876543210\r\n0\r\n\r\n",
                &[b"0123456789", b"9876543210"],
                End(35),
            ),
            (b"0005\r\nhello\r\n000\r\n\r\n", &[b"hello"], End(20)),
            (b"0000000000000005\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(30)),
            (b"4\r\n\r\n\r\n\r\n0\r\n\r\n", &[b"\r\n\r\n"], End(14)),
            (b"5;a\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(17)),
            (b"5 ; a = b\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(23)),
            (b"5;a=\"q \\\" ;x\"\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(27)),
            (b"5\t;\ta\t=\t\"v\"\t;b\r\nhello\r\n0;last=1\r\n\r\n", &[b"hello"], End(35)),
            (b"0\r\n\r\nHTTP/1.1 200 OK\r\n", &[], End(5)),
            (b"", &[], Partial),
            (b"5\r\nhel", &[], Partial),
            (b"5\r\nhello\r\n", &[b"hello"], Partial),
            (b"5\r\nhello\r\n0\r\n\r", &[b"hello"], Partial),
            (
                b"1b\r\nid: 1\ndata: {\"a\":[1,2,3]}\n\n\r\n",
                &[b"id: 1\ndata: {\"a\":[1,2,3]}\n\n"],
                Partial,
            ),
        ];
        for budget in [ChunkBudget::PerChunk, ChunkBudget::WholeBody] {
            check(&rows, &Limits::DEFAULT, budget);
        }
    }

    #[test]
    fn malformed_chunked_bodies_are_refused_at_the_deciding_byte() {
        use Stop::Refused;
        let long_extension = [&b"5;"[..], &[b'a'; 256], b"\r\n"].concat();
        let rows: [Row<'_>; 25] = [
            (b"\r\n", &[], Refused("chunk_size_missing", 0)),
            (b" 5\r\n", &[], Refused("chunk_size_missing", 0)),
            (b"-1\r\n", &[], Refused("chunk_size_missing", 0)),
            (b"\n", &[], Refused("chunk_bare_lf", 0)),
            (b"0x5\r\n", &[], Refused("chunk_size_byte", 1)),
            (b"5\n", &[], Refused("chunk_bare_lf", 1)),
            (b"5\rx", &[], Refused("chunk_bare_cr", 2)),
            (b"00000000000000005\r\n", &[], Refused("chunk_size_too_long", 16)),
            (b"5 \r\n", &[], Refused("chunk_size_whitespace", 2)),
            (b"5 x\r\n", &[], Refused("chunk_size_whitespace", 2)),
            (b"5;\r\n", &[], Refused("chunk_extension_name_missing", 2)),
            (b"5;=x\r\n", &[], Refused("chunk_extension_name_missing", 2)),
            (b"5;a=\r\n", &[], Refused("chunk_extension_value_missing", 4)),
            (b"5;a \r\n", &[], Refused("chunk_extension_whitespace", 4)),
            (b"5;a[\r\n", &[], Refused("chunk_extension_byte", 3)),
            (b"5;a=\"x\r\n", &[], Refused("chunk_extension_quoted_byte", 6)),
            (b"5;a=\"x\"y\r\n", &[], Refused("chunk_extension_byte", 7)),
            (&long_extension, &[], Refused("chunk_extension_too_large", 257)),
            (b"5\r\nhello!!\r\n", &[], Refused("chunk_data_unterminated", 8)),
            (b"5\r\nhello\n", &[], Refused("chunk_bare_lf", 8)),
            (b"5\r\nhello\rx", &[], Refused("chunk_bare_cr", 9)),
            (b"0\r\nX: 1\r\n\r\n", &[], Refused("trailer_section_not_empty", 3)),
            (b"5\r\nhello\r\n0\r\nX", &[b"hello"], Refused("trailer_section_not_empty", 13)),
            (b"0\r\n\n", &[], Refused("chunk_bare_lf", 3)),
            (b"0\r\n\rx", &[], Refused("chunk_bare_cr", 4)),
        ];
        for budget in [ChunkBudget::PerChunk, ChunkBudget::WholeBody] {
            check(&rows, &Limits::DEFAULT, budget);
        }
    }

    /// A chunk of `n` bytes (`x`), framed.
    fn chunk_of(n: usize) -> Vec<u8> {
        let mut out = format!("{n:x}\r\n").into_bytes();
        out.resize(out.len() + n, b'x');
        out.extend_from_slice(b"\r\n");
        out
    }

    #[test]
    fn every_reader_budget_holds_at_its_edge_and_refuses_one_past_it() {
        use ChunkBudget::{PerChunk, WholeBody};
        let max = SMALL.response_bytes_max;
        let digits = [&b"0000000000000001"[..], b"\r\nx\r\n0\r\n\r\n"].concat();
        let extension = [&b"1;"[..], &[b'e'; 255], b"\r\nx\r\n0\r\n\r\n"].concat();
        let longer = [&b"1;"[..], &[b'e'; 256], b"\r\n"].concat();
        let one = [chunk_of(max), b"0\r\n\r\n".to_vec()].concat();
        let two = [chunk_of(max - 1), chunk_of(1), b"0\r\n\r\n".to_vec()].concat();
        let past = [chunk_of(max - 1), chunk_of(2), b"0\r\n\r\n".to_vec()].concat();
        let twice = [chunk_of(max), chunk_of(max), b"0\r\n\r\n".to_vec()].concat();
        let second_size = chunk_of(max - 1).len() + 1;
        let cases: Vec<(&[u8], ChunkBudget, Stop)> = vec![
            (&digits, WholeBody, Stop::End(digits.len())),
            (b"00000000000000001\r\n", WholeBody, Stop::Refused("chunk_size_too_long", 16)),
            (&extension, WholeBody, Stop::End(extension.len())),
            (&longer, WholeBody, Stop::Refused("chunk_extension_too_large", 257)),
            (&one, PerChunk, Stop::End(one.len())),
            (&one, WholeBody, Stop::End(one.len())),
            (b"2c1\r\n", PerChunk, Stop::Refused("chunk_too_large", 3)),
            (b"2c1;a\r\n", WholeBody, Stop::Refused("chunked_body_too_large", 3)),
            (b"ffffffffffffffff\r\n", PerChunk, Stop::Refused("chunk_too_large", 16)),
            (&two, WholeBody, Stop::End(two.len())),
            (&past, WholeBody, Stop::Refused("chunked_body_too_large", second_size)),
            (&past, PerChunk, Stop::End(past.len())),
            (&twice, PerChunk, Stop::End(twice.len())),
        ];
        assert_eq!(max, 0x2c0, "the rows spell the budget in hex");
        for (input, budget, stop) in cases {
            let (_, got) = read_every_way(input, &SMALL, budget);
            assert_eq!(got, stop, "{budget:?} {:?}", String::from_utf8_lossy(&input[..20]));
        }
    }
}
