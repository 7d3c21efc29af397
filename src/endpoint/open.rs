//! Opening the streams that stay open: each takes its place first (in the share, in its
//! principal's part of it, and a listen among its principal's listens), and is refused past them.
//!
//! Not here: what an open stream does (`live`), the places themselves (`share`), or which request
//! opens one (the methods').

use std::sync::Arc;
use std::time::SystemTime;

use super::live::{
    Filter, Host, Live, NoStream, OpenStream, Opener, Opening, SlowRequest, StreamKind,
};
use super::rejection::Rejection;
use super::share::PrincipalKey;
use super::state::Endpoint;
use super::stream::SseBody;
use crate::limits::Limits;
use crate::mcp::jsonrpc::Id;
use crate::mcp::session::Session;
use crate::mcp::stream::{Start, StreamRef};

impl Host for Endpoint {
    fn live(&self) -> &Live {
        Endpoint::live(self)
    }

    fn limits(&self) -> &Limits {
        &self.config.limits
    }

    fn token_still_valid(&self, authorization: &[u8], wall: SystemTime) -> bool {
        self.policy.read().identify([authorization], wall).is_ok()
    }
}

impl Endpoint {
    /// A place of `kind` for `opener`'s principal, and what the stream opens with.
    fn opening(&self, opener: Opener<'_>, kind: StreamKind) -> Result<Opening, Rejection> {
        let principal = opener.principal;
        let key = PrincipalKey::of(&principal.subject, &principal.tenant);
        let slot = Endpoint::live(self).open_slot(&key, kind).map_err(no_stream)?;
        let authorization = opener.head.fields.get("authorization").unwrap_or_default().to_vec();
        Ok(Opening { slot, authorization, now: opener.now })
    }

    /// A slow call's stream in 2025-11-25, on a fresh live POST stream of `session`: its first
    /// bytes (the priming event) and the stream.
    pub(super) fn open_slow_legacy(
        &self,
        session: &Arc<Session>,
        request: SlowRequest,
        opener: Opener<'_>,
    ) -> Result<(Vec<u8>, OpenStream), Rejection> {
        let opening = self.opening(opener, StreamKind::Work)?;
        let mut body = SseBody::new(&self.config.limits);
        let mut events = session.events();
        let post = events.open_live_post();
        events.deliver(Start::Opened(post), &mut body).map_err(|_| Rejection::Internal)?;
        drop(events);
        let first = body.finish().ok_or(Rejection::Internal)?;
        let limits = &self.config.limits;
        let stream = OpenStream::slow_legacy(request, (Arc::clone(session), post), opening, limits);
        Ok((first, stream))
    }

    /// A slow call's stream in 2026-07-28, its result written by `result`.
    pub(super) fn open_slow_modern(
        &self,
        request: SlowRequest,
        result: fn(&Id, Result<String, &'static str>) -> String,
        opener: Opener<'_>,
    ) -> Result<OpenStream, Rejection> {
        let opening = self.opening(opener, StreamKind::Work)?;
        Ok(OpenStream::slow_modern(request, result, opening, &self.config.limits))
    }

    /// A 2025-11-25 resumption of `stream`, a POST stream of `session` whose work still runs.
    pub(super) fn open_tail(
        &self,
        session: &Arc<Session>,
        stream: StreamRef,
        opener: Opener<'_>,
    ) -> Result<OpenStream, Rejection> {
        let opening = self.opening(opener, StreamKind::Work)?;
        Ok(OpenStream::tail(Arc::clone(session), stream, opening, &self.config.limits))
    }

    /// A listen for the request `id`, with `filter` as acknowledged.
    pub(super) fn open_listen(
        &self,
        id: &Id,
        filter: Filter,
        opener: Opener<'_>,
    ) -> Result<OpenStream, Rejection> {
        let opening = self.opening(opener, StreamKind::Listen)?;
        let generation = Endpoint::live(self).tools_generation_for(&opener.principal.tenant);
        Ok(OpenStream::listen((id, filter), generation, opening, &self.config.limits))
    }
}

/// Why a stream could not open, as the client sees it.
fn no_stream(refused: NoStream) -> Rejection {
    match refused {
        NoStream::ListenQuota => Rejection::ListenQuota,
        NoStream::StreamQuota => Rejection::StreamQuota,
        NoStream::ShareTaken => Rejection::StreamShareTaken,
    }
}
