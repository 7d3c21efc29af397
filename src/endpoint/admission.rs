//! Admission and the one era switch: stages 2 and 3 of the receive order, which need only the
//! head (the server calls them before it reads a body), the route of each admitted request, and,
//! for a POST once its body is decoded (stage 4), the era whose pipeline answers it (`legacy` or
//! `modern`, decided by `mcp::era`).
//!
//! Not here: either era's stages after the body (their own files).

use super::modern;
use super::rejection::Rejection;
use super::reply::Reply;
use super::state::{Answer, Clock, Endpoint, KeptByConnection, Route};
use super::tools::Tool;
use crate::auth::metadata;
use crate::auth::policy::OfflineTokenPolicy;
use crate::http::chars;
use crate::http::media::{Accept, MediaType};
use crate::http::{self, BodyFraming, Occurrence, RequestHead, Status};
use crate::json;
use crate::limits::Limits;
use crate::mcp::MCP_PATH;
use crate::mcp::era::{CallKind, VersionHeader, era};
use crate::mcp::flat;
use crate::mcp::jsonrpc::Message;
use crate::mcp::method;
use crate::mcp::revision::{Era, Eras, Revision, Versions};
use crate::random::FillRandom;

/// What `/mcp` takes on a server that speaks 2025-11-25 (alone or beside 2026-07-28).
const MCP_ALLOW: &str = "GET, POST, DELETE";
/// What `/mcp` takes in the 2026-07-28 era, which has no GET stream and no session to DELETE:
/// on a server of that era alone, and for a request the era decision sends there.
const MODERN_ALLOW: &str = "POST";
const METADATA_ALLOW: &str = "GET, HEAD";
/// What `OPTIONS *` answers: every method some route of the server implements.
const SERVER_ALLOW: &str = "GET, HEAD, POST, DELETE";
/// The same, on a server of 2026-07-28 alone.
const MODERN_SERVER_ALLOW: &str = "GET, HEAD, POST";
/// Fields the discovery document refuses: it is public, and a client that sends credentials to
/// it is about to leak them wherever discovery leads.
const DISCOVERY_REFUSES: [&str; 3] = ["authorization", "proxy-authorization", "cookie"];

impl Endpoint {
    /// Stages 2 and 3, which need only the head: the server calls this before reading a body.
    pub fn admit(&self, head: &RequestHead<'_>) -> Result<Route, Rejection> {
        self.check_host_and_origin(head)?;
        let route = route(head, self.config.versions)?;
        self.check_version_on_admission(head, route)?;
        match route {
            Route::McpPost => {
                check_accept(
                    head,
                    [("application", "json"), ("text", "event-stream")],
                    self.limits(),
                )?;
                check_json_content_type(head)?;
            }
            Route::McpGet => {
                check_accept(head, [("text", "event-stream")], self.limits())?;
                check_no_body(head)?;
            }
            Route::McpDelete => check_no_body(head)?,
            Route::Metadata => {
                let credential = |name| head.fields.get(name).is_some();
                if DISCOVERY_REFUSES.into_iter().any(credential) {
                    return Err(Rejection::CredentialsNotAccepted);
                }
                check_no_body(head)?;
            }
            Route::ServerOptions => check_no_body(head)?,
        }
        Ok(route)
    }

    /// Stages 4 to 8 for an admitted request and its complete body, on a connection that kept
    /// `kept` from its earlier requests (and keeps it for its next one). Crate-private: `kept`
    /// must come from this endpoint, which only the server's connections guarantee.
    pub(crate) fn respond(
        &self,
        route: Route,
        head: &RequestHead<'_>,
        body: &[u8],
        clock: Clock,
        random: &mut FillRandom<'_>,
        kept: &mut KeptByConnection,
    ) -> Answer {
        let policy = &*self.policy.read();
        // GET and DELETE past admission are of the sessions' era: stage 3 sent the others away.
        let (era, result) = match route {
            Route::Metadata => (None, Ok(Reply::json_text(self.metadata_document.clone()).into())),
            Route::ServerOptions => {
                let versions = self.config.versions;
                let allow =
                    if sessions_spoken(versions) { SERVER_ALLOW } else { MODERN_SERVER_ALLOW };
                (None, Ok(Reply::empty(Status::NoContent).with("Allow", allow).into()))
            }
            Route::McpPost => self.post(policy, head, body, clock, random, kept),
            Route::McpGet => (Some(Era::Legacy), self.get(policy, head, clock, kept)),
            Route::McpDelete => {
                (Some(Era::Legacy), self.delete(policy, head, clock, kept).map(Answer::from))
            }
        };
        let mut answer = result.unwrap_or_else(|rejection| {
            rejection.reply_in(kept.lend_texts(), None, &self.metadata_url).into()
        });
        answer.reply_mut().era = era;
        answer
    }

    /// [`Endpoint::admit`] then stages 4 to 8, for callers that already hold the body,
    /// as the only request of its connection.
    pub fn handle(
        &self,
        head: &RequestHead<'_>,
        body: &[u8],
        clock: Clock,
        random: &mut FillRandom<'_>,
    ) -> Reply {
        match self.admit(head) {
            Ok(route) => {
                let kept = &mut self.kept_for_new_connection();
                match self.respond(route, head, body, clock, random, kept) {
                    Answer::Whole(reply) => reply,
                    // Answered whole: the stream runs to its end at once, time jumping ahead.
                    Answer::Open { mut head, stream } => {
                        head.body.extend_from_slice(&stream.collect(self, clock.now, clock.wall));
                        head
                    }
                }
            }
            Err(rejection) => rejection.reply(&self.metadata_url),
        }
    }

    /// Stage 3's version rule. A server of 2025-11-25 alone refuses a present version header
    /// that names anything else, before the body is read and before the credentials are looked
    /// at. A server that speaks 2026-07-28 decides a POST's era once the body names its method
    /// (the modern checks need the body), and a GET's or a DELETE's now: the modern era has
    /// neither (405).
    fn check_version_on_admission(
        &self,
        head: &RequestHead<'_>,
        route: Route,
    ) -> Result<(), Rejection> {
        let versions = self.config.versions;
        match (route, versions.eras()) {
            (Route::McpPost | Route::McpGet | Route::McpDelete, Eras::One(Era::Legacy)) => {
                check_protocol_version(head, versions)
            }
            (Route::McpGet | Route::McpDelete, Eras::One(Era::Modern) | Eras::Both) => {
                match era(versions, version_header(head), CallKind::Other) {
                    Era::Legacy => check_protocol_version(head, versions),
                    Era::Modern => Err(Rejection::MethodNotAllowed { allow: MODERN_ALLOW }),
                }
            }
            (Route::McpPost, Eras::One(Era::Modern) | Eras::Both)
            | (Route::Metadata | Route::ServerOptions, _) => Ok(()),
        }
    }

    /// Stage 2: the canonical authority (or a proxy's, on `/mcp`), then the Origin allowlist.
    fn check_host_and_origin(&self, head: &RequestHead<'_>) -> Result<(), Rejection> {
        let host = head.fields.get("host").unwrap_or_default();
        let is = |name: &String| chars::same_ignoring_case(host, name.as_bytes());
        let config = &self.config;
        let discovery = matches!(head.target, metadata::PATH_FOR_MCP | metadata::PATH_ROOT);
        if is(&config.canonical_host) {
            // The canonical authority: every route.
        } else if config.proxy_hosts.iter().any(is) && !discovery {
            // A proxy in front, forwarding `/mcp` for the canonical resource.
        } else if config.proxy_hosts.iter().any(is) || config.alias_hosts.iter().any(is) {
            return Err(Rejection::HostNotCanonical);
        } else {
            return Err(Rejection::HostNotAllowed);
        }
        match head.fields.single("origin") {
            Occurrence::Absent => Ok(()),
            Occurrence::Once(origin)
                if self.config.allowed_origins.iter().any(|o| o.as_bytes() == origin) =>
            {
                Ok(())
            }
            _ => Err(Rejection::OriginNotAllowed),
        }
    }

    /// A POST, under `policy` (one state of it for the whole request: stages 5 to 8 see the
    /// same tokens, revocations and revisions). Stage 4 reads the body, then the era decides
    /// which contract the rest follows.
    fn post(
        &self,
        policy: &OfflineTokenPolicy,
        head: &RequestHead<'_>,
        body: &[u8],
        clock: Clock,
        random: &mut FillRandom<'_>,
        kept: &mut KeptByConnection,
    ) -> (Option<Era>, Result<Answer, Rejection>) {
        let message = match self.message_of(body) {
            Ok(message) => message,
            Err(rejection) => return (None, Err(rejection)),
        };
        let era = self.era_of_post(head, &message);
        let answered = match era {
            Era::Legacy => self.legacy_post(policy, head, message, clock, random, kept),
            Era::Modern => Ok(modern::post(self, policy, head, message, (clock, &mut kept.token))),
        };
        (Some(era), answered)
    }

    /// Stage 4: the body, one JSON-RPC message (its envelope read by the fast path when it can).
    fn message_of(&self, body: &[u8]) -> Result<Message, Rejection> {
        let depth_max = self.limits().json_depth_max;
        match flat::flat_message(body, depth_max, shared_word) {
            Some(message) => Ok(message),
            None => {
                let value = json::decode_sharing(body, depth_max, shared_word)
                    .map_err(|e| Rejection::Json(e.kind))?;
                Message::from_value(value).map_err(Rejection::Message)
            }
        }
    }

    /// The era of a POST: 2025-11-25 on a server of that revision alone, else the decision table
    /// of [`crate::mcp::era`], from the version header and the method.
    fn era_of_post(&self, head: &RequestHead<'_>, message: &Message) -> Era {
        let versions = self.config.versions;
        if let Eras::One(era) = versions.eras() {
            return era;
        }
        let called = match message {
            Message::Request { method, .. } | Message::Notification { method, .. } => {
                CallKind::of_method(method)
            }
            Message::Response { .. } => CallKind::Other,
        };
        era(versions, version_header(head), called)
    }
}

/// The static copy of a word of an MCP message: the protocol's words, and the fixture's tool
/// names.
fn shared_word(text: &str) -> Option<&'static str> {
    method::shared_word(text).or_else(|| Tool::from_name(text).map(Tool::name))
}

/// Whether the server speaks the era of sessions, whose GET stream and DELETE `/mcp` takes.
fn sessions_spoken(versions: Versions) -> bool {
    versions.newest_in(Era::Legacy).is_some()
}

/// The route of a head on a server that speaks `versions`: `Allow` names what the resource
/// takes in those eras.
fn route(head: &RequestHead<'_>, versions: Versions) -> Result<Route, Rejection> {
    let mcp_allow = if sessions_spoken(versions) { MCP_ALLOW } else { MODERN_ALLOW };
    match head.target {
        MCP_PATH => match head.method {
            http::Method::Post => Ok(Route::McpPost),
            http::Method::Get if sessions_spoken(versions) => Ok(Route::McpGet),
            http::Method::Delete if sessions_spoken(versions) => Ok(Route::McpDelete),
            http::Method::Get
            | http::Method::Delete
            | http::Method::Head
            | http::Method::Put
            | http::Method::Connect
            | http::Method::Options
            | http::Method::Trace
            | http::Method::Patch => Err(Rejection::MethodNotAllowed { allow: mcp_allow }),
        },
        metadata::PATH_FOR_MCP | metadata::PATH_ROOT => match head.method {
            // HEAD is answered like GET, without content (the shell frames it).
            http::Method::Get | http::Method::Head => Ok(Route::Metadata),
            http::Method::Post
            | http::Method::Put
            | http::Method::Delete
            | http::Method::Connect
            | http::Method::Options
            | http::Method::Trace
            | http::Method::Patch => Err(Rejection::MethodNotAllowed { allow: METADATA_ALLOW }),
        },
        // Asterisk-form: the server as a whole (RFC 9110 §9.3.7), which the parser admits for
        // OPTIONS only.
        "*" => Ok(Route::ServerOptions),
        _ => Err(Rejection::NotFound),
    }
}

/// Every media type in `needed` must be listed explicitly (see `http::media` on `*/*`).
fn check_accept<const N: usize>(
    head: &RequestHead<'_>,
    needed: [(&str, &str); N],
    limits: &Limits,
) -> Result<(), Rejection> {
    let listed = Accept::lists_each(head.fields.all("accept"), limits.accept_ranges_max, needed)
        .map_err(|_| Rejection::AcceptInvalid)?;
    if listed.into_iter().all(|listed| listed) { Ok(()) } else { Err(Rejection::NotAcceptable) }
}

/// A POST body must be declared `application/json` (UTF-8): this project's hardening rule, not a
/// MUST of the transport specification.
fn check_json_content_type(head: &RequestHead<'_>) -> Result<(), Rejection> {
    match head.fields.single("content-type") {
        Occurrence::Once(value) if MediaType::names_json_utf8(value) => Ok(()),
        _ => Err(Rejection::UnsupportedMediaType),
    }
}

/// GET and DELETE carry no body; a `Content-Type` without one is ignored (the Python SDK client
/// sends one on every request). A chunked body is refused even when it would decode to nothing:
/// the head announces content, and it is refused before any of it is read.
fn check_no_body(head: &RequestHead<'_>) -> Result<(), Rejection> {
    if head.body == BodyFraming::Length(0) { Ok(()) } else { Err(Rejection::BodyNotAllowed) }
}

/// Stage 3: a present `MCP-Protocol-Version` is one field naming 2025-11-25.
fn version_header(head: &RequestHead<'_>) -> VersionHeader {
    match head.fields.single("mcp-protocol-version") {
        Occurrence::Absent => VersionHeader::of(None, false),
        Occurrence::Once(value) => VersionHeader::of(Some(value), false),
        Occurrence::Repeated => VersionHeader::of(None, true),
    }
}

/// A present version header names a revision of the legacy era that the server speaks.
fn check_protocol_version(head: &RequestHead<'_>, versions: Versions) -> Result<(), Rejection> {
    let spoken = |r: Revision| r.era() == Era::Legacy && versions.speaks(r);
    match head.fields.single("mcp-protocol-version") {
        Occurrence::Absent => Ok(()),
        Occurrence::Once(version) if Revision::from_name(version).is_some_and(spoken) => Ok(()),
        Occurrence::Once(_) => Err(Rejection::ProtocolVersionUnsupported),
        Occurrence::Repeated => Err(Rejection::ProtocolVersionRepeated),
    }
}
