//! The endpoint's state and what it is configured with: the budgets, the revisions spoken, the
//! published token policy, the session table and the open streams' shared state, read by every
//! stage of the receive order and by both eras' pipelines.
//!
//! Not here: any stage of the receive order (`admission`, `access`, `legacy`, `modern`).

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::live::{Live, OpenStream};
use super::published::{PolicyEdit, PublishedPolicy};
use super::reply::{Lent, Reply};
use crate::auth::policy::OfflineTokenPolicy;
use crate::digest::LastDigest;
use crate::http::TransferCodings;
use crate::json;
use crate::limits::Limits;
use crate::mcp::method::Offer;
use crate::mcp::revision::{Era, Revision, Versions};
use crate::mcp::session::{LastSession, SessionBudget, SessionTable};
use crate::mcp::stream::KeptBudget;

/// What the endpoint is configured with. `Host` values are compared case-insensitively,
/// `Origin` values exactly.
#[derive(Clone, Debug)]
pub struct EndpointConfig {
    /// Every `Origin` value allowed, exactly as a browser would send it.
    pub allowed_origins: Vec<String>,
    /// The one authority the server answers as (`127.0.0.1:<port>`): the resource identifier,
    /// the discovery document and every challenge name it.
    pub canonical_host: String,
    /// Other names of this server (`localhost:<port>`): refused with 421 `host_not_canonical`,
    /// so that no response pairs them with a document naming another resource.
    pub alias_hosts: Vec<String>,
    /// Authorities of loopback proxies in front (`serve --allow-host`), which keep the client's
    /// `Host`: accepted on `/mcp`, which they forward for the canonical resource; discovery is
    /// not served under them (421 `host_not_canonical`), since its document names the canonical
    /// resource.
    pub proxy_hosts: Vec<String>,
    pub limits: Limits,
    /// The transfer codings request bodies may use: none by default, chunked under
    /// `serve --chunked`.
    pub request_codings: TransferCodings,
    /// The protocol revisions spoken: 2025-11-25 alone by default, `serve --protocol-versions`
    /// otherwise.
    pub versions: Versions,
    /// The conformance suite's scope fixtures are served (`serve --conformance-fixtures`).
    pub conformance_fixtures: bool,
}

impl EndpointConfig {
    /// The configuration of a server on `127.0.0.1:<port>`: that canonical authority, its
    /// `localhost` alias, no proxy, and the server's own two loopback origins.
    pub fn loopback(port: u16, limits: Limits) -> EndpointConfig {
        EndpointConfig {
            allowed_origins: vec![
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
            ],
            canonical_host: format!("127.0.0.1:{port}"),
            alias_hosts: vec![format!("localhost:{port}")],
            proxy_hosts: Vec::new(),
            limits,
            request_codings: TransferCodings::LengthOnly,
            versions: Versions::LEGACY,
            conformance_fixtures: false,
        }
    }
}

/// The time of one request, read once by the shell.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// For session lifetimes.
    pub now: Instant,
    /// For token expiry.
    pub wall: SystemTime,
}

/// Where an admitted request goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    McpPost,
    McpGet,
    McpDelete,
    Metadata,
    /// `OPTIONS *`.
    ServerOptions,
}

/// What a connection keeps from one request for the next: the session it found last
/// ([`LastSession`]), so that a request in the same session does not take the table's lock; the
/// digests of the token and of the session id it presented last ([`LastDigest`]), so that the
/// same secret is not hashed twice; and two text buffers (a reply's body, one field's value)
/// that a reply's texts are written into and that come back once the reply is written, so that
/// a kept-alive ping allocates nothing. Each holds one entry, replaced by the next request that
/// differs; every check still runs on every request. A worker hands it from one connection to
/// the next, [`KeptByConnection::renew`]ed: the session and the secrets are forgotten, only the
/// buffers' room is kept, so a connection's first reply allocates nothing either.
#[derive(Debug)]
pub(crate) struct KeptByConnection {
    pub(super) session: LastSession,
    pub(super) token: LastDigest,
    pub(super) session_id: LastDigest,
    pub(super) text: Vec<u8>,
    /// The room of one field's value (a challenge, a session id), lent the same way.
    field: String,
    /// The most room kept in each buffer (`reply_text_bytes_kept_max`).
    room_max: usize,
}

/// Room reserved for the text of a small result (`ping`, `tools/list`).
pub(super) const SMALL_RESULT_BYTES: usize = 256;

impl KeptByConnection {
    /// Nothing kept yet, under `limits`.
    fn new(limits: &Limits) -> KeptByConnection {
        KeptByConnection {
            session: LastSession::default(),
            token: LastDigest::default(),
            session_id: LastDigest::default(),
            text: Vec::new(),
            field: String::new(),
            room_max: limits.reply_text_bytes_kept_max,
        }
    }

    /// Forgets everything the last connection presented, keeping the buffers for the next one.
    pub(crate) fn renew(&mut self) {
        self.session = LastSession::default();
        self.token.forget();
        self.session_id.forget();
        self.text.clear();
        self.field.clear();
    }

    /// Both buffers, empty, for one reply's texts; [`KeptByConnection::recycle`] gives them back.
    pub(super) fn lend_texts(&mut self) -> Lent {
        let field = std::mem::take(&mut self.field);
        Lent { body: KeptByConnection::lend(&mut self.text), field }
    }

    /// The body buffer `text`, empty, for one reply's body; [`KeptByConnection::recycle`] gives
    /// it back.
    pub(super) fn lend(text: &mut Vec<u8>) -> String {
        // Recycled bodies are cleared, and an empty buffer is UTF-8 whatever its room.
        String::from_utf8(std::mem::take(text)).unwrap_or_default()
    }

    /// Takes back a written reply's body and its owned field value as the buffers, when their
    /// room is small enough.
    pub(crate) fn recycle(&mut self, reply: &mut Reply) {
        let mut body = std::mem::take(&mut reply.body);
        if body.capacity() <= self.room_max && body.capacity() > self.text.capacity() {
            body.clear();
            self.text = body;
        }
        if let Some(mut field) = reply.added.take_owned()
            && field.capacity() <= self.room_max
            && field.capacity() > self.field.capacity()
        {
            field.clear();
            self.field = field;
        }
    }
}

/// The endpoint's state: the policy and the sessions.
#[derive(Debug)]
pub struct Endpoint {
    pub(super) config: EndpointConfig,
    pub(super) metadata_url: String,
    /// The protected-resource metadata, encoded once: nothing in it changes while serving.
    pub(super) metadata_document: String,
    pub(super) policy: PublishedPolicy,
    pub(super) sessions: SessionTable,
    /// The open streams' shared state: counters, the share, what changed, stopping.
    pub(super) live: Arc<Live>,
}

/// What the endpoint answers a request with.
#[derive(Debug)]
pub enum Answer {
    /// One reply, whole.
    Whole(Reply),
    /// A stream that stays open: `head` is its status, its fields and its first events (as its
    /// body); `stream` produces the rest.
    Open { head: Reply, stream: Box<OpenStream> },
}

impl Answer {
    /// The reply, or the head of the stream.
    pub(crate) fn reply_mut(&mut self) -> &mut Reply {
        match self {
            Answer::Whole(reply) | Answer::Open { head: reply, .. } => reply,
        }
    }
}

impl From<Reply> for Answer {
    fn from(reply: Reply) -> Answer {
        Answer::Whole(reply)
    }
}

impl Endpoint {
    /// An endpoint for `config`, deciding tokens with `policy`.
    pub fn new(config: EndpointConfig, policy: OfflineTokenPolicy) -> Endpoint {
        let limits = config.limits;
        let budget = SessionBudget {
            capacity: limits.sessions_active_max,
            per_principal: limits.sessions_per_principal_max,
            ttl: limits.session_ttl,
            kept: KeptBudget {
                messages_max: limits.sse_events_kept_per_session_max,
                bytes_max: limits.sse_bytes_kept_per_session_max,
            },
        };
        Endpoint {
            metadata_url: policy.metadata_url().to_owned(),
            metadata_document: json::encode(&policy.metadata()),
            config,
            policy: PublishedPolicy::new(policy),
            sessions: SessionTable::new(budget),
            live: Arc::new(Live::new(&limits)),
        }
    }

    /// The open streams' shared state: the counters `control … stats` reads, the tool list's
    /// changes, and the stop that ends every listen.
    pub fn live(&self) -> &Arc<Live> {
        &self.live
    }

    /// The budgets in force.
    pub fn limits(&self) -> &Limits {
        &self.config.limits
    }

    /// The protocol revisions spoken.
    pub fn versions(&self) -> Versions {
        self.config.versions
    }

    /// The revision a session of this server speaks: the newest of the legacy era it speaks.
    pub(super) fn legacy_revision(&self) -> Revision {
        self.config.versions.newest_in(Era::Legacy).unwrap_or(Revision::newest(Era::Legacy))
    }

    /// What this server offers a request of `revision`.
    pub fn offer(&self, revision: Revision) -> Offer {
        Offer { revision, fixtures: self.config.conformance_fixtures }
    }

    /// The transfer codings request bodies may use.
    pub fn request_codings(&self) -> TransferCodings {
        self.config.request_codings
    }

    /// Every `Origin` value allowed, exactly as compared.
    pub fn allowed_origins(&self) -> &[String] {
        &self.config.allowed_origins
    }

    /// The one authority the server answers as (`127.0.0.1:<port>`).
    pub fn canonical_host(&self) -> &str {
        &self.config.canonical_host
    }

    /// The URL challenges point to.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// What a new connection starts with: no session yet.
    pub(crate) fn kept_for_new_connection(&self) -> KeptByConnection {
        KeptByConnection::new(self.limits())
    }

    /// The control plane: revocations and revision changes, in force for every request that
    /// starts after the returned edit is dropped. The edit waits for the requests already past
    /// stage 5 to finish under the state they read.
    pub fn policy_mut(&self) -> PolicyEdit<'_> {
        self.policy.edit()
    }

    /// Sessions alive at `now`.
    pub fn live_sessions(&self, now: Instant) -> usize {
        self.sessions.live(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_buffer_comes_back_empty_and_never_larger_than_its_bound() {
        // (room of the body handed back, room the next lent buffer has)
        let max = Limits::DEFAULT.reply_text_bytes_kept_max;
        let rows: [(usize, usize); 5] = [(0, 0), (max, max), (max + 1, 0), (64, 64), (4096, 0)];
        for (row, (handed_back, lent)) in rows.into_iter().enumerate() {
            let mut kept = KeptByConnection::new(&Limits::DEFAULT);
            let mut body = Vec::with_capacity(handed_back);
            body.extend(std::iter::repeat_n(b'x', handed_back.min(3)));
            kept.recycle(&mut Reply::event_stream_body(body));
            let text = KeptByConnection::lend(&mut kept.text);
            assert_eq!((text.len(), text.capacity()), (0, lent), "row {row}");
        }
    }

    #[test]
    fn a_renewed_keep_forgets_the_secrets_and_keeps_the_buffer() {
        let mut kept = KeptByConnection::new(&Limits::DEFAULT);
        kept.token.of(b"token");
        kept.session_id.of(b"session");
        kept.recycle(&mut Reply::event_stream_body(Vec::with_capacity(SMALL_RESULT_BYTES)));
        kept.renew();
        assert!(!kept.token.keeps(b"token") && !kept.session_id.keeps(b"session"));
        assert_eq!(KeptByConnection::lend(&mut kept.text).capacity(), SMALL_RESULT_BYTES);
    }
}
