//! One load connection: its kept-alive HTTP connection and session, one operation of a route at
//! a time, each answer checked (status, content type, JSON-RPC id) before it counts; and the
//! thread each connection runs on.
//!
//! Not here: when an operation is sent (`closed`, `rate`).

use std::net::SocketAddr;
use std::thread::{self, JoinHandle};
use std::time::Instant;

use super::plan::Route;
use super::report::Tally;
use loopback_mcp_http::client::http::{ClientResponse, HttpConnection};
use loopback_mcp_http::client::mcp::{RequestSpec, is_priming};
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests::{self, ClientInfo};
use loopback_mcp_http::sse;

/// The name of `bench`'s own load threads: outside [`SERVER_THREADS`].
const LOAD_THREAD: &str = "bench-load";

/// Starts one load thread, named outside the server's names.
pub(super) fn spawn_load<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<JoinHandle<T>, String> {
    thread::Builder::new().name(LOAD_THREAD.into()).spawn(work).map_err(|e| e.to_string())
}

/// A session id as long as this server's, for `raw-ping`: sent, never looked up.
const PLACEHOLDER_SESSION: &str = "000000000000000000000000000000000000000000000000";

/// One load connection: where it goes, with which token, over which kept-alive connection, in
/// which session.
pub(super) struct Link<'t> {
    address: SocketAddr,
    host: String,
    token: &'t str,
    pub(super) conn: Option<HttpConnection>,
    session: Option<String>,
    /// Each request's latency goes to the tally (the closed loop); at a rate, the caller times
    /// the operation from its due time instead.
    time_requests: bool,
}

impl<'t> Link<'t> {
    pub(super) fn new(address: SocketAddr, token: &'t str, time_requests: bool) -> Link<'t> {
        let host = address.to_string();
        Link { address, host, token, conn: None, session: None, time_requests }
    }

    /// One operation of `route`, counted in `tally`. A failed one drops the connection and the
    /// session (it may have expired or been ended): the next one starts over.
    pub(super) fn operation(&mut self, route: Route, id: i64, tally: &mut Tally) -> bool {
        let ok = match route {
            Route::Initialize => self.initialize_and_delete(id, tally),
            Route::RawPing => self.raw_ping(id, tally),
            Route::Ping | Route::Resources => {
                if self.session.is_none() {
                    self.session = self.open_session(tally);
                }
                let session = self.session.take();
                let ok = session.as_deref().is_some_and(|s| self.call(s, route, id, tally));
                self.session = session;
                ok
            }
        };
        if ok {
            tally.operations += 1;
        } else {
            tally.errors += 1;
            self.conn = None;
            self.session = None;
        }
        ok
    }

    /// Sends one request on the kept-alive connection (opening one if needed). Its latency is
    /// recorded only when `valid` accepts the response: errors never count as fast answers.
    fn timed(
        &mut self,
        spec: &RequestSpec,
        tally: &mut Tally,
        valid: impl FnOnce(&ClientResponse) -> bool,
    ) -> Option<ClientResponse> {
        if self.conn.is_none() {
            match HttpConnection::connect(self.address, &Limits::DEFAULT) {
                Ok(conn) => self.conn = Some(conn),
                Err(e) => {
                    let why = format!("cannot connect to {}: {e}", self.address);
                    tally.first_failure.get_or_insert(why);
                    return None;
                }
            }
        }
        let bytes = spec.bytes();
        let began = Instant::now();
        let exchanged = self.conn.as_mut()?.exchange(&bytes);
        let response = match exchanged {
            Ok(response) => response,
            Err(e) => {
                tally.first_failure.get_or_insert(format!("{}: {e}", self.address));
                return None;
            }
        };
        let elapsed = began.elapsed();
        tally.requests += 1;
        tally.unavailable += u64::from(response.status == 503);
        *tally.answers.entry(response.status).or_default() += 1;
        if !response.keep_alive {
            self.conn = None;
        }
        if !valid(&response) {
            let why = format!("{}: an unexpected answer, status {}", self.address, response.status);
            tally.first_failure.get_or_insert(why);
            return None;
        }
        if self.time_requests {
            tally.latency.record(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
        }
        Some(response)
    }

    fn post(&self, session: Option<&str>, message: &Value) -> RequestSpec {
        RequestSpec::mcp_post(&self.host, self.token, session, json::encode(message).as_bytes())
    }

    /// initialize + initialized; the session id.
    fn open_session(&mut self, tally: &mut Tally) -> Option<String> {
        let init = self.post(None, &requests::initialize_current(&Id::from(0), CLIENT));
        let response = self.timed(&init, tally, |r| r.status == 200)?;
        let session = response.field_str("mcp-session-id")?.to_owned();
        let note = self.post(Some(&session), &requests::initialized());
        self.timed(&note, tally, |r| r.status == 202)?;
        Some(session)
    }

    /// One ping (a JSON reply) or resources/list (an event stream) with this id.
    fn call(&mut self, session: &str, route: Route, id: i64, tally: &mut Tally) -> bool {
        let message = match route {
            Route::Ping => requests::ping(&id.into()),
            _ => requests::list_resources(&id.into()),
        };
        let request = self.post(Some(session), &message);
        self.timed(&request, tally, |response| match route {
            Route::Ping => json_reply_with_id(response, id),
            _ => event_reply_with_id(response, id),
        })
        .is_some()
    }

    /// The ping of a session, without one: any 200 JSON result will do.
    fn raw_ping(&mut self, id: i64, tally: &mut Tally) -> bool {
        let request = self.post(Some(PLACEHOLDER_SESSION), &requests::ping(&id.into()));
        self.timed(&request, tally, json_result).is_some()
    }

    /// initialize then DELETE of the new session: one operation, two timed requests.
    fn initialize_and_delete(&mut self, id: i64, tally: &mut Tally) -> bool {
        let init = self.post(None, &requests::initialize_current(&id.into(), CLIENT));
        let Some(response) = self.timed(&init, tally, |r| json_reply_with_id(r, id)) else {
            return false;
        };
        let Some(session) = response.field_str("mcp-session-id") else {
            return false;
        };
        let delete = RequestSpec::mcp_session("DELETE", &self.host, self.token, Some(session));
        self.timed(&delete, tally, |r| r.status == 204).is_some()
    }
}

/// A 200 JSON reply with a `result`, whatever its id.
fn json_result(response: &ClientResponse) -> bool {
    response.status == 200
        && content_type_is(response, "application/json")
        && json::decode(&response.body, Limits::DEFAULT.json_depth_max)
            .is_ok_and(|reply| reply.get("result").is_some())
}

/// Who `initialize` says the load generator is.
const CLIENT: ClientInfo<'static> = ClientInfo { name: "loopback-mcp-http-bench", version: "1" };

fn content_type_is(response: &ClientResponse, expected: &str) -> bool {
    response.field_str("content-type") == Some(expected)
}

/// The id of a JSON-RPC response body.
fn id_of(body: &[u8]) -> Option<i64> {
    json::decode(body, Limits::DEFAULT.json_depth_max).ok()?.get("id")?.as_number()?.as_i64()
}

/// A 200 JSON reply to request `id`.
fn json_reply_with_id(response: &ClientResponse, id: i64) -> bool {
    response.status == 200
        && content_type_is(response, "application/json")
        && id_of(&response.body) == Some(id)
}

/// A 200 event stream whose first event answers request `id`.
fn event_reply_with_id(response: &ClientResponse, id: i64) -> bool {
    response.status == 200
        && content_type_is(response, "text/event-stream")
        && sse::parse_stream(&response.body, &Limits::DEFAULT)
            .ok()
            // The stream opens with its priming event (an id, empty data): the reply follows.
            .and_then(|events| events.into_iter().find(|e| !is_priming(e)).and_then(|e| e.data))
            .is_some_and(|data| id_of(data.as_bytes()) == Some(id))
}
