//! The 2026-07-28 era: a POST the era decision sent here, from its decoded message to its reply.
//!
//! There are no sessions: every request is checked whole, on its own. After the body is read,
//! in this order, so that one request gets one answer:
//!
//! 1. `_meta` is there, with a protocol version and client capabilities (400, `-32602`);
//! 2. every standard mirrored header agrees with the body: `MCP-Protocol-Version` with the
//!    `_meta` version, `Mcp-Method` with the method, and `Mcp-Name` with the field the method's
//!    row names (`params.name` for `tools/call`; this server implements no `prompts/get` or
//!    `resources/read`, which answer 404 below) (400, `-32020`);
//! 3. the version is one the server speaks (400, `-32022`, naming the ones it does);
//! 4. the bearer token (401) and its scopes and tenant (403), exactly as in the 2025-11-25 era;
//! 5. the method exists in this revision (404, `-32601`);
//! 6. for `tools/call`: the tool exists (`-32602`), every `Mcp-Param-{Name}` its schema asks for
//!    agrees with its argument (400, `-32020`), and the client declared the capability the tool
//!    needs (400, `-32021`); then the tool runs.
//!
//! A header with `2026-07-28` over `_meta` saying `v999` therefore gets `-32020`, not `-32022`.
//!
//! A notification POST meets two checks, before the token, each a 400 with no id (a notification
//! has none): a `Mcp-Method` that is there agrees with its method (`-32020`), since an
//! intermediary that routes on the field routes notifications too; and a `MCP-Protocol-Version`
//! that is there is one field line naming a revision the server speaks in this era (`-32020`
//! `header_repeated` for two lines, `-32022` for any other value), as for a request. Neither field
//! is required: the transport page requires them on requests and says that header requirements
//! for notification POSTs are not defined by this revision, and the TypeScript SDK sends its
//! `notifications/cancelled` without `Mcp-Method`. So this is the project's own rule: a
//! notification is held to every header check that needs neither a method's row nor a `_meta`
//! (a notification has no `Mcp-Name` to compare and no `_meta` version to mirror). Then the
//! notification is accepted (202) and ignored: this revision defines no client notification over
//! HTTP. A `notifications/cancelled` too: here closing the request's stream is the cancellation
//! (the cancellation page: none is required or expected), and there is no session in which an id
//! would name a request.
//!
//! **Where the mirrored headers are compared, and why.** Steps 1 to 3 read only the request
//! itself, so they run before the token: a peer without credentials learns nothing it did not
//! send (which versions the server speaks is public, as `server/discover` says). The
//! `Mcp-Param-{Name}` headers are compared only in step 6, after authentication and
//! authorization, because which arguments a tool mirrors is part of its schema: a peer without a
//! token must not be able to tell, from `-32020` against 401, which tools mirror which
//! arguments. An authorized caller can read every schema in `tools/list` anyway.
//!
//! Steps 2 and 6 compare through [`standard_checks`] and [`param_checks`]: pure functions of the
//! head and the body that report every header's outcome. The endpoint refuses the first failure
//! ([`first_failure`]); `inspect mirroring` shows them all.
//!
//! Every error after the body is read carries the request's id; an unreadable body (no id to
//! carry) gets the same 400 as in the 2025-11-25 era. A mismatch names the header and what was
//! wrong with it, never a value that was sent; `data.requested` repeats a requested version only
//! when it is shaped like one (a date `2026-07-28`, or `v999.0.0`), which is what the conformance
//! suite asks for.
//!
//! What takes the place of a session: nothing is bound to a connection or to a server-side
//! session. A server that needs state across calls mints a handle (an opaque, unguessable
//! value), hands it out as an ordinary tool result, and binds it to the principal that received
//! it, refusing it to anyone else; this fixture's tools need none. `Mcp-Session-Id` and
//! `Last-Event-ID` are ignored, and no session id is minted or echoed.
//!
//! Replies: results carry `resultType: "complete"` and the server's identity in `_meta`, list
//! results `ttlMs` and `cacheScope`. `resources/list` and `tools/call` answer as an event stream
//! (`X-Accel-Buffering: no`, no event ids, no priming event: nothing resumes), everything else as
//! JSON; `notifications/message` is sent only when the request's `_meta` asks for a log level.

use super::access::{self, requirement_of};
use super::dispatch::{Methods, dispatch};
use super::live::{Filter, Opener, SlowRequest};
use super::methods::{self, SERVER_NAME};
use super::rejection::MirroredHeader;
use super::rejection::Rejection;
use super::reply::Reply;
use super::state::Answer;
use super::state::{Clock, Endpoint};
use super::tools::{self, Tool};
use crate::auth::policy::{OfflineTokenPolicy, Principal};
use crate::digest::LastDigest;
use crate::http::mirror::{self, BodyValue, Encoding, MirrorError};
use crate::http::{Occurrence, RequestHead, Status};
use crate::json::{Object, ObjectWriter, Value};
use crate::mcp::conformance;
use crate::mcp::jsonrpc::{self, Id, Message, code};
use crate::mcp::meta::{RequestMeta, SERVER_INFO_KEY};
use crate::mcp::method::{Access, Capability, McpMethod, MethodName, ReplyForm};
use crate::mcp::revision::{Era, Revision};
use crate::mcp::session::LogLevel;
use crate::sse::Event;

/// Room reserved for a modern result's text.
const RESULT_BYTES: usize = 512;

/// A POST of the modern era: its reply, whatever happens (every error is a reply here).
pub(super) fn post(
    endpoint: &Endpoint,
    policy: &OfflineTokenPolicy,
    head: &RequestHead<'_>,
    message: Message,
    (clock, token): (Clock, &mut LastDigest),
) -> Answer {
    let url = endpoint.metadata_url();
    match message {
        Message::Request { id, method, params } => {
            request(endpoint, policy, head, (&id, &method, &params), (clock, token))
                .unwrap_or_else(|rejection| rejection.reply_to(Some(&id), url).into())
        }
        // This revision defines no client notification over HTTP: one whose `Mcp-Method` agrees
        // is accepted and ignored, once its sender is known.
        Message::Notification { method, .. } => {
            let connect = requirement_of(Access::Connect);
            first_failure(&notification_checks(head, &method))
                .and_then(|()| notification_version(endpoint, head))
                .and_then(|()| access::authenticate(policy, head, (clock, token), connect))
                .and_then(|principal| access::authorize(policy, principal, connect))
                .map_or_else(|r| r.reply(url), |()| Reply::empty(Status::Accepted))
                .into()
        }
        Message::Response { .. } => Rejection::UnsolicitedResponse.reply(url).into(),
    }
}

/// Steps 1 to 6 of a request (the module docs).
fn request(
    endpoint: &Endpoint,
    policy: &OfflineTokenPolicy,
    head: &RequestHead<'_>,
    (id, method, params): (&Id, &str, &Object),
    (clock, token): (Clock, &mut LastDigest),
) -> Result<Answer, Rejection> {
    let meta = RequestMeta::of(params).map_err(Rejection::MetaInvalid)?;
    let fixtures = endpoint.config.conformance_fixtures;
    first_failure(&standard_checks(head, &meta, (method, fixtures), params))?;
    let revision = spoken(endpoint, meta.protocol_version)?;
    let offer = endpoint.offer(revision);
    let named = MethodName::of_request(method, offer);
    let access = access::access_of(named, params, offer);
    let principal = access::authenticate(policy, head, (clock, token), requirement_of(access))?;
    access::authorize_access(policy, principal, access, params)?;
    let MethodName::Request(method, form) = named else {
        return Err(Rejection::MethodNotFound);
    };
    let called = ModernCall { endpoint, head, id, meta: &meta, principal, revision, clock };
    dispatch(&ModernMethods { called, form }, method, params)
}

/// What one admitted request carries into its method.
struct ModernCall<'c> {
    endpoint: &'c Endpoint,
    head: &'c RequestHead<'c>,
    id: &'c Id,
    meta: &'c RequestMeta<'c>,
    principal: &'c Principal,
    revision: Revision,
    clock: Clock,
}

impl ModernCall<'_> {
    /// Who opens a stream for this request.
    fn opener(&self) -> Opener<'_> {
        Opener { principal: self.principal, head: self.head, now: self.clock.now }
    }
}

/// What a tool call comes to.
enum ToolAnswer {
    /// Its notifications and its result, all known now.
    Done(Vec<String>, String),
    /// A slow call, whose stream stays open while it counts.
    Slow(SlowRequest),
    /// The call's arguments are refused before it starts: this JSON-RPC error, as JSON.
    Refused(String),
}

/// One mirrored header compared with the body value it mirrors: what the server decides about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Check<'r> {
    pub header: MirroredHeader,
    /// What the header mirrors.
    pub mirrors: Mirrored<'r>,
    /// Whether the header may carry its value as the base64 sentinel.
    pub encoding: Encoding,
    /// The comparison's verdict.
    pub outcome: Result<(), MirrorError>,
}

/// The body value a mirrored header is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mirrored<'r> {
    /// Text the request names itself: the `_meta` version, or the method.
    Text(&'r str),
    /// A member of the params or of the arguments; `None` when the body has none.
    Member(Option<&'r Value>),
}

impl Check<'_> {
    /// The lower-case field name of the header, as the field list looks names up.
    pub fn field(&self) -> String {
        field_name(self.header)
    }

    /// The header's field lines in `head` against the body value.
    fn of<'r>(head: &RequestHead<'_>, header: MirroredHeader, mirrors: Mirrored<'r>) -> Check<'r> {
        let encoding = match header {
            MirroredHeader::ProtocolVersion | MirroredHeader::Method => Encoding::Plain,
            MirroredHeader::Name | MirroredHeader::Param(_) => Encoding::Sentinel,
        };
        let mut number = String::new();
        let body = match mirrors {
            Mirrored::Text(text) => BodyValue::Text(text),
            Mirrored::Member(value) => body_value(value, &mut number),
        };
        let field = head.fields.single(&field_name(header));
        Check { header, mirrors, encoding, outcome: mirror::compare(field, body, encoding) }
    }
}

/// The lower-case field name of a mirrored header, as the field list looks names up.
fn field_name(header: MirroredHeader) -> String {
    header.name().to_ascii_lowercase()
}

/// Step 2's checks, in the server's order: `MCP-Protocol-Version` against the `_meta` version,
/// `Mcp-Method` against the method, and `Mcp-Name` against the field the method's row names
/// (a fixture method's only when `fixtures` are served: otherwise the name is no method here).
pub fn standard_checks<'r>(
    head: &RequestHead<'_>,
    meta: &RequestMeta<'r>,
    (method, fixtures): (&'r str, bool),
    params: &'r Object,
) -> Vec<Check<'r>> {
    let known = McpMethod::from_name(method).filter(|m| fixtures || !m.row().fixture);
    let source = known.and_then(|m| m.row().mcp_name);
    let named = source.map(|source| params.get(source.member()));
    let mut checks = vec![
        Check::of(head, MirroredHeader::ProtocolVersion, Mirrored::Text(meta.protocol_version)),
        Check::of(head, MirroredHeader::Method, Mirrored::Text(method)),
    ];
    checks
        .extend(named.map(|named| Check::of(head, MirroredHeader::Name, Mirrored::Member(named))));
    checks
}

/// The check of a notification's POST: a `Mcp-Method` that is there agrees with its method (see
/// the module docs on why one that is not there is not required). A notification has no `_meta`
/// to check, and no id for the error to carry.
pub fn notification_checks<'r>(head: &RequestHead<'_>, method: &'r str) -> Vec<Check<'r>> {
    let header = MirroredHeader::Method;
    match head.fields.get(&field_name(header)) {
        Some(_) => vec![Check::of(head, header, Mirrored::Text(method))],
        None => Vec::new(),
    }
}

/// Step 6's checks of a `tools/call` to `tool`: every `Mcp-Param-{Name}` its schema asks for,
/// against its argument, in the schema's order.
pub fn param_checks<'r>(head: &RequestHead<'_>, tool: Tool, params: &'r Object) -> Vec<Check<'r>> {
    let arguments = params.get("arguments").and_then(Value::as_object);
    let mirrored = tool.row().params.iter().filter_map(|param| {
        let argument = arguments.and_then(|arguments| arguments.get(param.name));
        param.header.map(|name| (MirroredHeader::Param(name), Mirrored::Member(argument)))
    });
    mirrored.map(|(header, mirrors)| Check::of(head, header, mirrors)).collect()
}

/// The refusal of the first check that fails, as the server answers it.
pub fn first_failure(checks: &[Check<'_>]) -> Result<(), Rejection> {
    match checks.iter().find_map(|check| check.outcome.err().map(|error| (check.header, error))) {
        Some((header, error)) => Err(Rejection::HeaderMismatch { header, error }),
        None => Ok(()),
    }
}

/// A body value as the header comparison sees it; a number's text is written into `number`.
fn body_value<'v>(value: Option<&'v Value>, number: &'v mut String) -> BodyValue<'v> {
    match value {
        None => BodyValue::Absent,
        Some(Value::Null) => BodyValue::Null,
        Some(Value::String(text)) => BodyValue::Text(text),
        Some(Value::Number(n)) => {
            n.write_to(number);
            BodyValue::Number(number)
        }
        Some(Value::Bool(b)) => BodyValue::Bool(*b),
        Some(Value::Array(_) | Value::Object(_)) => BodyValue::Other,
    }
}

/// A notification's `MCP-Protocol-Version`, when it is there: one field line naming a revision
/// the server speaks in this era (the module docs).
fn notification_version(endpoint: &Endpoint, head: &RequestHead<'_>) -> Result<(), Rejection> {
    let header = MirroredHeader::ProtocolVersion;
    match head.fields.single(&field_name(header)) {
        Occurrence::Absent => Ok(()),
        Occurrence::Repeated => {
            Err(Rejection::HeaderMismatch { header, error: MirrorError::Repeated })
        }
        Occurrence::Once(value) => match std::str::from_utf8(value) {
            Ok(version) => spoken(endpoint, version).map(drop),
            Err(_) => Err(Rejection::HeaderMismatch { header, error: MirrorError::InvalidByte }),
        },
    }
}

/// Step 3: the revision the `_meta` version names, when the server speaks it in this era.
fn spoken(endpoint: &Endpoint, version: &str) -> Result<Revision, Rejection> {
    let versions = endpoint.config.versions;
    Revision::from_name(version.as_bytes())
        .filter(|r| r.era() == Era::Modern && versions.speaks(*r))
        .ok_or_else(|| Rejection::VersionNotSpoken {
            requested: version_shaped(version).then(|| version.to_owned()),
            supported: versions.names(),
        })
}

/// Whether a requested version may be repeated in an error: a date (`2026-07-28`) or a dotted
/// number with an optional `v` (`v999.0.0`), at most 32 bytes. Anything else that was sent is
/// never echoed.
fn version_shaped(text: &str) -> bool {
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let date = text.len() == 10
        && text.split('-').map(str::len).eq([4, 2, 2])
        && text.split('-').all(digits);
    let dotted = text.strip_prefix('v').unwrap_or(text);
    let number =
        text.len() <= 32 && dotted.split('.').count() <= 4 && dotted.split('.').all(digits);
    date || number
}

/// A modern request on its way to its method, and how the method answers.
struct ModernMethods<'c> {
    called: ModernCall<'c>,
    form: ReplyForm,
}

impl ModernMethods<'_> {
    /// A method's answer: its notifications and its response, as the method's form says.
    fn answer(&self, notes: Vec<String>, response: String) -> Result<Answer, Rejection> {
        answered(self.called.endpoint, self.form, notes, response).map(Answer::from)
    }

    /// A fixture method's answer: its result, or its JSON-RPC error as a JSON reply.
    fn fixture_answer(&self, response: Result<String, (i64, &str)>) -> Result<Answer, Rejection> {
        match response {
            Ok(response) => self.answer(Vec::new(), response),
            Err((code, message)) => {
                let error = jsonrpc::error_text(Some(self.called.id), code, message);
                Ok(Reply::json_text(error).into())
            }
        }
    }
}

impl Methods for ModernMethods<'_> {
    // Methods of 2025-11-25 alone: `of_request` finds none of them in this era.
    fn not_offered(&self) -> Result<Answer, Rejection> {
        Err(Rejection::MethodNotFound)
    }

    fn ping(&self) -> Result<Answer, Rejection> {
        self.not_offered()
    }

    fn set_log_level(&self, _params: &Object) -> Result<Answer, Rejection> {
        self.not_offered()
    }

    fn resources_list(&self) -> Result<Answer, Rejection> {
        let called = &self.called;
        let notes = logged(called.meta, LogLevel::Info, "resources_listed");
        let response = resources_list_result(called.endpoint, called.id, &called.principal.tenant);
        self.answer(notes, response)
    }

    fn tools_list(&self) -> Result<Answer, Rejection> {
        let c = &self.called;
        let response = tools_list_result(c.endpoint, c.id, c.revision, &c.principal.tenant);
        self.answer(Vec::new(), response)
    }

    fn tools_call(&self, params: &Object) -> Result<Answer, Rejection> {
        let called = &self.called;
        let tool = match tools::tool_called(params, called.endpoint.offer(called.revision)) {
            Ok(tool) => tool,
            Err(message) => {
                let error = jsonrpc::error_text(Some(called.id), code::INVALID_PARAMS, message);
                return Ok(Reply::json_text(error).into());
            }
        };
        match tool_call(called, tool, params)? {
            ToolAnswer::Done(notes, response) => self.answer(notes, response),
            ToolAnswer::Slow(request) => {
                let first = tools::opening_event(tool, &request).to_vec();
                let opener = called.opener();
                let stream = called.endpoint.open_slow_modern(request, tool_result, opener)?;
                Ok(open_with(first, stream))
            }
            ToolAnswer::Refused(error) => Ok(Reply::json_text(error).into()),
        }
    }

    fn resources_read(&self, params: &Object) -> Result<Answer, Rejection> {
        let id = self.called.id;
        let response = methods::resource(params).map(|(uri, text)| {
            jsonrpc::result_text(id, RESULT_BYTES, |result| {
                server_meta(result);
                methods::resource_result(&uri, &text, result);
                result.string("resultType", "complete");
            })
        });
        self.fixture_answer(response)
    }

    fn prompts_get(&self, params: &Object) -> Result<Answer, Rejection> {
        let id = self.called.id;
        let response = methods::prompt(params).map(|()| {
            jsonrpc::result_text(id, RESULT_BYTES, |result| {
                server_meta(result);
                methods::prompt_result(result);
                result.string("resultType", "complete");
            })
        });
        self.fixture_answer(response)
    }

    fn discover(&self) -> Result<Answer, Rejection> {
        let called = &self.called;
        self.answer(Vec::new(), discover_result(called.endpoint, called.id, called.revision))
    }

    fn listen(&self, params: &Object) -> Result<Answer, Rejection> {
        listen(&self.called, params)
    }
}

/// An event stream that stays open, its events all to come.
fn open(stream: super::live::OpenStream) -> Answer {
    open_with(Vec::new(), stream)
}

/// An event stream that stays open, `first` written with its head.
fn open_with(first: Vec<u8>, stream: super::live::OpenStream) -> Answer {
    let head = Reply::event_stream_body(first).with("X-Accel-Buffering", "no");
    Answer::Open { head, stream: Box::new(stream) }
}

/// `subscriptions/listen`: the notification types this server can honour among those asked for
/// (`toolsListChanged`), acknowledged first on a stream that stays open.
fn listen(called: &ModernCall<'_>, params: &Object) -> Result<Answer, Rejection> {
    let asked = params.get("notifications");
    let tools = asked.and_then(|n| n.get("toolsListChanged")) == Some(&Value::Bool(true));
    let filter = Filter { tools_list_changed: tools };
    let stream = called.endpoint.open_listen(called.id, filter, called.opener())?;
    Ok(open(stream))
}

/// The reply: one JSON object, or an event stream of the notifications and then the response.
fn answered(
    endpoint: &Endpoint,
    answer: ReplyForm,
    notes: Vec<String>,
    response: String,
) -> Result<Reply, Rejection> {
    match answer {
        ReplyForm::Json => Ok(Reply::json_text(response)),
        ReplyForm::EventStream => {
            let events: Vec<Event> = notes
                .into_iter()
                .chain([response])
                .map(|data| Event { data: Some(data), ..Event::default() })
                .collect();
            let limits = endpoint.limits();
            let reply = Reply::event_stream(&events, limits.sse_event_bytes_max)
                .map_err(|_| Rejection::Internal)?;
            Ok(reply.with("X-Accel-Buffering", "no"))
        }
    }
}

/// Step 6 of a `tools/call` to `tool`: its mirrored arguments, the capability it needs, then its
/// notifications and its result.
fn tool_call(
    called: &ModernCall<'_>,
    tool: Tool,
    params: &Object,
) -> Result<ToolAnswer, Rejection> {
    let empty = Object::new();
    let arguments = params.get("arguments").and_then(Value::as_object).unwrap_or(&empty);
    first_failure(&param_checks(called.head, tool, params))?;
    let row = tool.row();
    if let Some(needed) = row.needs.filter(|c| !called.meta.declares(*c)) {
        return Err(Rejection::CapabilityMissing(needed));
    }
    let principal = called.principal;
    let (notes, outcome) = match tool {
        Tool::Whoami => {
            (Vec::new(), Ok(format!("subject {}, tenant {}", principal.subject, principal.tenant)))
        }
        Tool::TenantDocuments => {
            (Vec::new(), tools::tenant_documents(arguments, &principal.tenant))
        }
        Tool::TestMissingCapability => (Vec::new(), Ok("the client declared sampling".to_owned())),
        Tool::TestLogging => (
            logged(called.meta, LogLevel::Info, "test_logging_tool_called"),
            Ok("logged".to_owned()),
        ),
        Tool::CountSlowly | Tool::TestToolWithProgress | Tool::TestToolSlow => {
            return Ok(slow_request(called, tool, params));
        }
        Tool::TestToolFast => (Vec::new(), Ok(tools::FAST_TEXT.to_owned())),
        Tool::TestSimpleText => (Vec::new(), Ok(conformance::TOOL_TEXT.to_owned())),
        // The fixture's hook changes what the caller's own tenant sees, and no one else's.
        Tool::TestTriggerToolChange => {
            let generation = called.endpoint.live().change_tools_for(&principal.tenant);
            (Vec::new(), Ok(format!("the tool list changed ({generation} changes so far)")))
        }
        Tool::SpareTool
            if called.endpoint.live().tools_generation_for(&principal.tenant) % 2 == 1 =>
        {
            (Vec::new(), Ok("spare".to_owned()))
        }
        // Not listed now, or a tool of 2025-11-25 alone (`tool_called` finds that in no modern
        // request).
        Tool::SpareTool | Tool::TestReconnection => (Vec::new(), Err("tool_unknown")),
    };
    Ok(ToolAnswer::Done(notes, tool_result(called.id, outcome)))
}

/// A slow call's request: its steps and pause (refused with `-32602` when out of bounds), and
/// the progress token of its `_meta`.
fn slow_request(called: &ModernCall<'_>, tool: Tool, params: &Object) -> ToolAnswer {
    match tools::slow_request(called.id, tool, params, called.endpoint.limits()) {
        Ok(request) => ToolAnswer::Slow(request),
        Err(message) => {
            ToolAnswer::Refused(jsonrpc::error_text(Some(called.id), code::INVALID_PARAMS, message))
        }
    }
}

/// The `notifications/message` of `event` at `level`, when the request's `_meta` asked for this
/// level or a less severe one; none otherwise.
fn logged(meta: &RequestMeta<'_>, level: LogLevel, event: &str) -> Vec<String> {
    match meta.log_level {
        Some(asked) if level >= asked => vec![methods::log_message(level, event)],
        Some(_) | None => Vec::new(),
    }
}

/// The `_meta` every modern result carries: who the server is.
fn server_meta(result: &mut ObjectWriter<'_>) {
    result.object("_meta", |meta| {
        meta.object(SERVER_INFO_KEY, |info| {
            info.string("name", SERVER_NAME).string("version", env!("CARGO_PKG_VERSION"));
        });
    });
}

/// `ttlMs`: how long a client may reuse a list.
fn ttl_ms(endpoint: &Endpoint) -> i64 {
    i64::try_from(endpoint.limits().list_ttl.as_millis()).unwrap_or(i64::MAX)
}

/// `server/discover`: the versions spoken, the capabilities of this era, and who the server is.
fn discover_result(endpoint: &Endpoint, id: &Id, revision: Revision) -> String {
    let versions = endpoint.config.versions.names();
    jsonrpc::result_text(id, RESULT_BYTES, |result| {
        server_meta(result);
        result.string("cacheScope", "public").object("capabilities", |capabilities| {
            for capability in Capability::ALL {
                if McpMethod::advertised(capability, endpoint.offer(revision)) {
                    // The tool list can change, and a listen that asks is told.
                    capabilities.object(capability.name(), |c| match capability {
                        Capability::Tools => {
                            c.boolean("listChanged", true);
                        }
                        Capability::Logging | Capability::Prompts | Capability::Resources => {}
                    });
                }
            }
        });
        result
            .string("resultType", "complete")
            .strings("supportedVersions", versions.iter().copied())
            .integer("ttlMs", ttl_ms(endpoint));
    })
}

/// `tools/list` of this era, as `tenant` sees it: the list can change for one tenant alone, so
/// only that caller may reuse it.
fn tools_list_result(endpoint: &Endpoint, id: &Id, revision: Revision, tenant: &str) -> String {
    jsonrpc::result_text(id, 4 * RESULT_BYTES, |result| {
        server_meta(result);
        result.string("cacheScope", "private").string("resultType", "complete");
        let changed = endpoint.live().tools_generation_for(tenant) % 2 == 1;
        tools::write_tools(endpoint.offer(revision), changed, result);
        result.integer("ttlMs", ttl_ms(endpoint));
    })
}

/// `resources/list`: the caller's tenant's documents (so only that caller may reuse it).
fn resources_list_result(endpoint: &Endpoint, id: &Id, tenant: &str) -> String {
    jsonrpc::result_text(id, RESULT_BYTES, |result| {
        server_meta(result);
        result.string("cacheScope", "private");
        methods::resources_list_result(tenant, result);
        result.string("resultType", "complete").integer("ttlMs", ttl_ms(endpoint));
    })
}

/// A tool's result: its text, or the public code of a tool error with `isError`.
pub(super) fn tool_result(id: &Id, outcome: Result<String, &'static str>) -> String {
    let (text, is_error) = match &outcome {
        Ok(text) => (text.as_str(), false),
        Err(code) => (*code, true),
    };
    jsonrpc::result_text(id, RESULT_BYTES, |result| {
        server_meta(result);
        result
            .objects("content", [text], |content, text| {
                content.string("text", text).string("type", "text");
            })
            .boolean("isError", is_error)
            .string("resultType", "complete");
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_version_shaped_values_are_repeated() {
        let cases: [(&str, bool); 9] = [
            ("2026-07-28", true),
            ("1900-01-01", true),
            ("v999.0.0", true),
            ("2", true),
            ("v1.2.3.4", true),
            ("v1.2.3.4.5", false),
            ("2026-07-2x", false),
            ("Bearer abc", false),
            ("0123456789abcdef0123456789abcdef0123", false),
        ];
        for (text, shaped) in cases {
            assert_eq!(version_shaped(text), shaped, "{text}");
        }
    }
}
