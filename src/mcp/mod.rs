//! The MCP this server speaks, in both eras, as pure data and functions.
//!
//! - [`revision`]: the protocol revisions, one row each, and sets of them.
//! - [`jsonrpc`]: one JSON-RPC message per body; requests, notifications, responses.
//! - [`flat`]: the fast path of a request's envelope, read with no value tree (its params apart).
//! - [`method`]: the methods a client may send, and every decision about each.
//! - [`era`]: which era a request belongs to, 2025-11-25 (sessions) or 2026-07-28 (`_meta`).
//! - [`conformance`]: the conformance suite's scope fixtures (a tool, resources, a prompt),
//!   served only on request.
//! - [`meta`]: a 2026-07-28 request's `_meta`: version, client capabilities, log level.
//! - [`requests`]: the messages a client sends, built as values.
//! - [`session`]: sessions bound to a principal, their lifetime and capacity.
//! - [`stream`]: a session's event streams: event ids as positions, the messages kept for
//!   resumption, and what a `Last-Event-ID` resumes.
//! - [`tag`]: a session's event-id tag, kept inline.
//! - [`uri`]: `kb://` resource URIs with the tenant percent-encoded as one segment.
//!
//! The constants and the session-id rule below are the wire vocabulary the server and the client
//! share; the client needs nothing else from here.
//!
//! Both eras are modelled: 2025-11-25 (sessions opened by `initialize`), the default, and
//! 2026-07-28 (no sessions, `_meta` on every request), which a server speaks on request. Nothing
//! here reads a clock, draws randomness or touches a socket.
//!
//! # The 2025-11-25 contract, and where this profile is stricter
//!
//! The middle column says what [the transport page][mcp-transport] and [the authorization
//! page][mcp-auth] of MCP 2025-11-25 ask for, in short; the right column, what this server does
//! in that era. The 2026-07-28 era's rules are `endpoint::modern`'s.
//!
//! | boundary | MCP 2025-11-25 | this server |
//! |---|---|---|
//! | endpoint | one path for POST and GET | `/mcp`; POST, GET, DELETE; any other method (HEAD included) 405 with `Allow: GET, POST, DELETE` |
//! | POST `Accept` | the client lists `application/json` and `text/event-stream` | both must be named exactly, with weight above zero; `*/*` does not count: 406 |
//! | POST `Content-Type` | not stated as a server requirement | `application/json` (UTF-8) or 415: **a hardening rule of this project**, against type confusion; GET and DELETE ignore it when they have no body |
//! | POST body | one JSON-RPC message | strict JSON (no duplicate keys, NaN, bad UTF-8, trailing bytes), one object, no batch, no `"id": null`: else 400 |
//! | replies | `application/json` or `text/event-stream` | `ping`, `logging/setLevel`, `initialize`, `tools/list`: JSON; `resources/list` and `tools/call`: an event stream, a priming event then the response with the same id (`test_reconnection` ends its stream after the priming event); an integer id comes back exactly as written (`-0` stays `-0`) |
//! | event streams | a priming event (an id, empty data) first: SHOULD; `retry` before a server-initiated close: SHOULD | every stream, POST or GET, fresh or resumed, even one with nothing to deliver, opens with `id: <id>`, `retry: 1000`, `data:` and an empty line (see [`stream`], and README's walk through one) |
//! | notifications | 202, no body | `notifications/initialized` (and any other notification) 202; a JSON-RPC *response* from the client 400: the server never asked anything |
//! | initialize | the server answers a version it supports | always `2025-11-25`, whatever was proposed (the later revision, 2026-07-28, included); a client that cannot use it must stop |
//! | `MCP-Protocol-Version` | required after initialize; invalid: 400 | exactly `2025-11-25`, once; absent after initialize: 400; any other value: 400 even on initialize, and before the credentials are looked at (see below) |
//! | session id | visible ASCII, secure | 192 random bits as hex from the OS generator; bound to subject, tenant and authorization revision |
//! | sessions | not stated | 8<!-- limit: sessions_active_max --> slots in all, at most 4<!-- limit: sessions_per_principal_max --> live for one principal (subject and tenant at its current revision): past the quota 429 `session_quota`, with a full table 503 `session_capacity`, both with `Retry-After` (the seconds until the earliest session in the way expires) |
//! | session errors | missing: 400; ended: 404 | missing or malformed: 400; unknown, expired, ended or someone else's: 404, the same answer for all |
//! | DELETE | may end the session | 204, then 404 for that id on every method (a second DELETE racing the first gets 404 too) |
//! | GET stream | SSE or 405; never a JSON-RPC response | a priming event, then every `notifications/message` not written yet, then the end of the stream; the client asks again after `retry` |
//! | event ids | unique across all streams of a session: MUST | `<tag>-g<n>` on the GET stream, `<tag>-p<k>-<n>` on the k-th POST stream, `n` the event's position on its stream, with a random tag per session |
//! | resumption | always a GET with `Last-Event-ID`; never replay another stream's messages: MUST NOT | the id's own stream, GET or POST, from right after its position: what it still owes, at new positions; nothing of another stream; a POST stream that owes nothing: 204; another session's id, an id never issued, a form the server never writes (`<tag>-g0001`, a sign), or one after which a kept message was dropped: 400, nothing replayed |
//! | Origin | a present, invalid Origin: 403 | exact allowlist (`http://127.0.0.1:<port>`, `http://localhost:<port>`, plus `--allow-origin`); no Origin is allowed (non-browser clients) |
//! | Host | not stated | `127.0.0.1:<port>` only: `localhost:<port>` gets 421 `host_not_canonical` (see below), any other name 421 `host_not_allowed`, a DNS-rebinding guard; a proxy's authority (`--allow-host`) is accepted on `/mcp` |
//! | discovery | the well-known paths, no credentials | GET or HEAD (the same headers, no content) at the canonical authority only; `Authorization`, `Proxy-Authorization` or `Cookie`: 400 `credentials_not_accepted` |
//! | listening | bind 127.0.0.1 when local | 127.0.0.1 only; anything else refused at startup |
//!
//! **Why an unsupported version is refused before authentication.** An obvious order would check
//! the bearer token first and the version header after it. This server refuses a present
//! `MCP-Protocol-Version` other than `2025-11-25` with the other header checks, before it reads the
//! body. The header's validity depends on nothing else, and clients of later revisions probe first
//! with `server/discover` and `MCP-Protocol-Version: 2026-07-28`, falling back to `initialize` on a
//! 4xx. Answering such a probe 401 (because it came without a token) could send the client into an
//! authorization flow instead of the fallback; a plain 400 never does. The *absence* of the header
//! is judged after authentication, since only the decoded body says whether it is an initialize.
//!
//! **One name, one resource.** The metadata document names the resource
//! `http://127.0.0.1:<port>/mcp`, and [RFC 9728][rfc9728] §3.3 tells a client not to use a document
//! whose `resource` differs from the identifier the well-known URL was built from. Served under
//! `localhost:<port>`, the same document would pair a `localhost` URL with a `127.0.0.1` resource,
//! and so would a 401 whose challenge links it. Of the two consistent answers (derive a resource
//! identifier per authority, or answer under one authority only), this server takes the second: the
//! `localhost` alias gets 421 `host_not_canonical` on every path, so every response that links or
//! serves the document comes from the authority it names. Deriving identifiers per authority would
//! also work, but every fixture token is bound to the one canonical identifier, so a `localhost`
//! client could only ever get 401 after a discovery that promised otherwise; refusing the name at
//! once is the clearer lesson. A loopback proxy in front (`serve --allow-host HOST:PORT`, which
//! keeps the client's `Host`) is accepted on `/mcp`: the operator declares that it forwards for the
//! canonical resource, and its clients hold tokens for that resource. Discovery is not served under
//! the proxy's authority (421 `host_not_canonical`), because the document would name another
//! resource than the URL it came from; a 401 through the proxy still links the canonical document,
//! whose URL and `resource` agree. The `lab` experiment `metadata-per-authority` shows it.
//!
//! **A quota per principal, refused rather than evicted.** Without it, one token could hold all
//! 8<!-- limit: sessions_active_max --> slots for a whole session lifetime, and real clients make
//! that likely: MCP Inspector never sends DELETE, so a few runs within a minute would leave
//! everyone else with 503. The quota is `sessions_per_principal_max` (`serve
//! --max-sessions-per-principal N`; above the table's capacity, the capacity binds), and sessions
//! bound to an older authorization revision do not count, since they can never be used again. It is
//! checked before anything is drawn or built. Ending that principal's oldest session instead would
//! be friendlier to a client that never says goodbye, but it turns one client's `initialize` into
//! another client's 404 under the same token (two tabs, two tools), and two such clients would
//! evict each other in turn; a refusal changes nothing that exists and says exactly when to try
//! again.
//!
//! [mcp-auth]: https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
//! [mcp-transport]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports
//! [rfc9728]: https://www.rfc-editor.org/rfc/rfc9728

pub mod conformance;
pub mod era;
pub mod flat;
pub mod jsonrpc;
pub mod meta;
pub mod method;
pub mod requests;
pub mod revision;
pub mod session;
pub mod stream;
pub mod tag;
pub mod uri;

use revision::{Era, Revision};

/// The newest revision of the legacy era, which this server speaks by default: sessions opened by
/// `initialize`.
pub const PROTOCOL_VERSION: &str = Revision::newest(Era::Legacy).name();

/// The newest revision of the modern era, spoken on request (`serve --protocol-versions`): no
/// sessions, `_meta` on every request, mirrored request headers.
pub const MODERN_PROTOCOL_VERSION: &str = Revision::newest(Era::Modern).name();

/// The one MCP endpoint path, for the server and its clients.
pub const MCP_PATH: &str = "/mcp";

/// The longest session id MCP allows.
pub const SESSION_ID_BYTES_MAX: usize = 128;

/// True for a session id as MCP 2025-11-25 allows them: 1 to 128 visible ASCII characters
/// (0x21 to 0x7E). The wire rule both sides check: the server on every request, the client on
/// the id `initialize` hands out.
pub fn is_valid_session_id(id: &[u8]) -> bool {
    // Every byte judged, without an early exit: one branch-free pass.
    let visible = id.iter().fold(true, |all, b| all & (0x21..=0x7e).contains(b));
    (1..=SESSION_ID_BYTES_MAX).contains(&id.len()) && visible
}
