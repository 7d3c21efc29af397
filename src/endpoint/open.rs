//! Opening the streams that stay open: each takes its place in the share (and a listen in its
//! principal's listens) first, and is refused past them.
//!
//! Not here: what an open stream does (`live`), or which request opens one (the methods').

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::live::{Filter, Host, Live, NoStream, OpenStream, SlowRequest};
use super::stream::SseBody;
use super::{Endpoint, Rejection};
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
    /// A slow call's stream in 2025-11-25, on a fresh live POST stream of `session`: its first
    /// bytes (the priming event) and the stream.
    pub(super) fn open_slow_legacy(
        &self,
        session: &Arc<Session>,
        request: SlowRequest,
        now: Instant,
    ) -> Result<(Vec<u8>, OpenStream), Rejection> {
        let slot = Endpoint::live(self).open_slot(None).map_err(no_stream)?;
        let mut body = SseBody::new(&self.config.limits);
        let mut events = session.events();
        let post = events.open_live_post();
        events.deliver(Start::Opened(post), &mut body).map_err(|_| Rejection::Internal)?;
        drop(events);
        let first = body.finish().ok_or(Rejection::Internal)?;
        let limits = &self.config.limits;
        let stream =
            OpenStream::slow_legacy(request, (Arc::clone(session), post), slot, limits, now);
        Ok((first, stream))
    }

    /// A slow call's stream in 2026-07-28, its result written by `result`.
    pub(super) fn open_slow_modern(
        &self,
        request: SlowRequest,
        result: fn(&Id, Result<String, &'static str>) -> String,
        now: Instant,
    ) -> Result<OpenStream, Rejection> {
        let slot = Endpoint::live(self).open_slot(None).map_err(no_stream)?;
        Ok(OpenStream::slow_modern(request, result, slot, &self.config.limits, now))
    }

    /// A 2025-11-25 resumption of `stream`, a POST stream of `session` whose work still runs.
    pub(super) fn open_tail(
        &self,
        session: &Arc<Session>,
        stream: StreamRef,
        now: Instant,
    ) -> Result<OpenStream, Rejection> {
        let slot = Endpoint::live(self).open_slot(None).map_err(no_stream)?;
        Ok(OpenStream::tail(Arc::clone(session), stream, slot, &self.config.limits, now))
    }

    /// A listen of `subject` for the request `id`, which carried `authorization`, with `filter`
    /// as acknowledged.
    pub(super) fn open_listen(
        &self,
        (id, subject): (&Id, &str),
        authorization: &[u8],
        filter: Filter,
        now: Instant,
    ) -> Result<OpenStream, Rejection> {
        let live = Endpoint::live(self);
        let slot = live.open_slot(Some(subject)).map_err(no_stream)?;
        let generation = live.tools_generation();
        let limits = &self.config.limits;
        Ok(OpenStream::listen((id, authorization, filter), generation, slot, limits, now))
    }
}

/// Why a stream could not open, as the client sees it.
fn no_stream(refused: NoStream) -> Rejection {
    match refused {
        NoStream::ShareTaken => Rejection::StreamShareTaken,
        NoStream::ListenQuota => Rejection::ListenQuota,
    }
}
