//! The chunked transfer coding (RFC 9112 §7.1): a strict decoder of request bodies that works in
//! place, a strict reader of response bodies that hands out one chunk at a time, and the encoder
//! the client sends with.
//!
//! ```text
//! chunked-body = *chunk last-chunk trailer-section CRLF
//! chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//! chunk-size   = 1*HEXDIG
//! last-chunk   = 1*("0") [ chunk-ext ] CRLF
//! chunk-ext    = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//! chunk-ext-val = token / quoted-string
//! ```
//!
//! Three parts:
//!
//! - [`request`]: [`ChunkedDecoder`](request::ChunkedDecoder), the strict decoder of request bodies under
//!   `serve --chunked`, which decodes in place, and its verdict table;
//! - [`response`]: [`ChunkReader`](response::ChunkReader), the strict reader of response bodies that hands out one chunk
//!   at a time, for the client;
//! - [`encode`], here: the chunked body the client sends.
//!
//! The decoder and the reader read a chunk-size line with one scanner (`SizeLine`, in `line`), the
//! grammar's one home: a size of hex digits in either case, then extensions that are checked and
//! dropped, then CRLF.
//!
//! Not here: transfer codings other than chunked, chunk extensions' meaning (they are checked and
//! dropped), and keeping trailers.

mod line;
pub mod request;
pub mod response;

/// Appends `chunks` as a chunked body: each non-empty chunk as its size in lower-case hex, CRLF,
/// its bytes and CRLF; then the last chunk and the empty line (no extensions, no trailers). An
/// empty chunk is skipped, since a zero size would end the body.
pub fn encode(chunks: &[&[u8]], out: &mut Vec<u8>) {
    for chunk in chunks.iter().filter(|c| !c.is_empty()) {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
}
