//! Strict JSON ([RFC 8259][rfc8259]): a decoder that refuses everything the RFC leaves ambiguous or
//! to taste, and an encoder whose output the decoder always reads back to the same value.
//!
//! Strict means: UTF-8 only (invalid sequences and `\u` escapes naming lone surrogates are
//! refused), duplicate object keys refused at every depth, no NaN or Infinity, no leading zeros,
//! no trailing commas, no comments, no byte-order mark, nothing after the value but whitespace,
//! and a nesting budget. Each refusal is a typed error carrying a kind and a byte offset. A
//! protocol that carries session and authorization data cannot afford "last key wins": two readers
//! of the same bytes must never see two different messages.
//!
//! Numbers keep their exact text ([`Number`]; an integer that fits an `i64` and reads back to the
//! same text is kept as that integer, which is the same thing without a copy), so nothing is
//! rounded and no NaN can be built. Objects keep their members in key order, so encoding is
//! deterministic. `decode(encode(v)) == v` holds for every value nested no deeper than the
//! decoder's depth budget (the encoder itself has no budget: a deeper value built in code encodes,
//! and the decoder then refuses it).
//!
//! Neither direction recurses: the decoder and the encoder keep explicit stacks, and the decoder
//! stops at the depth budget, so 100 000 `[` cost one [`JsonErrorKind::DepthLimit`] error, not the
//! thread's stack. (The derived `Drop`, `Clone` and `PartialEq` of [`Value`] do recurse, once per
//! nesting level, which the depth budget bounds for every decoded value.)
//!
//! This module knows nothing about JSON-RPC or MCP.
//!
//! [rfc8259]: https://www.rfc-editor.org/rfc/rfc8259

mod decode;
mod encode;
mod stack;
mod value;
mod write;

pub use decode::{JsonError, JsonErrorKind, decode, decode_prefix, decode_sharing};
pub use encode::{encode, encode_into, encode_string_into};
pub(crate) use value::shared;
pub use value::{Key, Number, Object, Text, Value, Words, members, no_words, object};
pub use write::{ObjectWriter, StringWriter, object_text};
