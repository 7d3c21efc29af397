//! One connection's life, from its first byte to its close, as a sans-IO state machine, and the
//! one loop that drives it.
//!
//! [`Connection`] decides where each request begins and ends on a connection: when a head is
//! complete, when to ask for admission, whether to send `100 Continue`, how many body bytes
//! belong to the request, what follows a response (the next request, possibly already buffered,
//! or the close), and how long each wait may last. It never touches a socket, a clock or a
//! thread:
//!
//! ```text
//!            bytes          head complete       admitted, body incomplete
//!  ┌──▶ await head ──────────▶ admit ──────────────────────────┐ (100 Continue first,
//!  │       │  ▲                 │ admitted, body here          ▼  when it was asked for)
//!  │       │  └─ more bytes     │                          await body
//!  │       │                    ▼                              │
//!  │       │                 dispatch ◀────────────────────────┘ body complete
//!  │       │                    │ reply ready
//!  │       │                    ▼
//!  └───────┼───────────────── write ── the reply closes ──▶ close politely (linger)
//!   next   │  keep-alive        │
//!  request │                    └── refused head: its reply, then close politely
//!          └── peer closed, or a deadline passed ──▶ close at once, nothing dispatched
//! ```
//!
//! The machine is driven in stages, in the manner of ureq-proto: [`Connection::stage`] answers
//! with a handle for where the connection is ([`Stage`]), and each handle offers exactly the
//! transitions that can happen there. A read is offered the machine's own buffer to read into
//! ([`Read::buffer`]); an admission carries the parsed head ([`Admit::parts`]); a dispatch
//! carries the complete request, head and exactly its body ([`Dispatch::parts`]); each lends the
//! buffer the reply is serialized into, so that no response is copied on its way out. An event
//! that does not fit the state cannot be reported, because no handle offers it: the impossible
//! combinations are not asserted and then survived, they do not compile.
//!
//! [`drive`] is the loop, the only one in the crate: it carries out each stage through a
//! [`Transport`] (reads and writes with a deadline, and the clock) and a [`Handler`] (admit a
//! head, answer a request). The server's socket loop, `inspect connection`, the `connection`
//! fuzz target and the fake-clock tests are four pairs of those traits.
//!
//! Every lifecycle budget of [`Limits`](crate::limits::Limits) is enforced here: the idle time before a request's first
//! byte, the head and body deadlines (totals), one read's wait once a request has begun, one
//! write's wait without progress, the whole response's write deadline, and the requests a
//! connection may carry (the last one is dispatched as not keep-alive). The interim
//! `100 Continue` is the machine's own: its bytes are fixed and carry no `Date` (RFC 9110
//! §6.6.1 asks a `Date` only of 2xx to 4xx responses). A polite close hands over to a
//! [`Linger`], a small machine of its own: it drains what the peer still sends, within the drain
//! budgets, so that the peer reads its last response rather than a reset. The server's refused
//! connections (its 503) linger the same way without ever having had a request.
//!
//! A head is parsed once, by the machine (with [`RequestParser`](crate::http::RequestParser)); the handler only judges the
//! parsed head (the receive order's stages 2 and 3) and answers each dispatched request. Bytes
//! that follow a refused request are never parsed: the connection closes with them unread.

mod driver;
mod linger;
mod machine;

pub use driver::{Handler, Happened, Io, Transport, drive};
pub use linger::{Linger, LingerAction};
pub use machine::{
    Admit, Close, Connection, Dispatch, Read, Refuse, Refused, Request, Stage, Write,
};
