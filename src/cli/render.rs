//! A request described as data (`case`) turned into bytes, for any [`World`] that answers what
//! the description leaves open: this server with its fixture (`scene`), or any server under
//! `probe`. The changes are applied here, once, for both.
//!
//! Not here: sending, or judging what comes back.

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::json::{self, Object, Value, members};
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::mcp::meta::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY,
};
use loopback_mcp_http::mcp::requests::{self, ClientInfo};
use loopback_mcp_http::mcp::revision::Revision;

use super::case::{Base, Change, Message, Modern, Request, Sender, Text};

/// Who `initialize` and `_meta` say the sender is.
pub const CLIENT: ClientInfo<'static> = ClientInfo { name: "loopback-mcp-http-lab", version: "1" };

/// What a request's description leaves to the server it goes to.
pub trait World {
    /// The sender's request of `base` before its changes (never [`Base::Raw`]).
    fn spec(&self, sender: Sender, base: Base) -> Result<RequestSpec, String>;
    /// What a text stands for.
    fn resolve(&self, text: Text) -> Result<String, String>;
    /// The bearer token of a fixture role.
    fn token_of(&self, role: Role) -> Result<String, String>;
    /// The token the sender sends, when it has one.
    fn sender_token(&self, sender: Sender) -> Option<String>;
    /// The tools the sender may call by name.
    fn callable(&self, sender: Sender) -> Result<Callable, String>;
    /// One more field line than the server takes.
    fn fields_over_budget(&self) -> usize;
}

/// The bytes of `request` from `sender`; `role`, when given, sends that role's token instead.
pub fn build(
    world: &dyn World,
    sender: Sender,
    request: &Request,
    role: Option<Role>,
) -> Result<Vec<u8>, String> {
    if let Base::Raw(template) = request.base {
        return fill(world, sender, template);
    }
    let mut spec = world.spec(sender, request.base)?;
    let (mut chunks, mut bare_lf) = (None, false);
    for change in request.changes {
        spec = match *change {
            Change::Set(name, value) => spec.set(name, &world.resolve(value)?),
            Change::With(name, value) => spec.with(name, &world.resolve(value)?),
            Change::Without(name) => spec.without(name),
            Change::Bearer(role) => spec.bearer(&world.token_of(role)?),
            Change::OutsideSession => {
                spec.without("MCP-Session-Id").without("MCP-Protocol-Version")
            }
            Change::Target(target) => RequestSpec { target: world.resolve(target)?, ..spec },
            Change::Chunked(piece) => {
                chunks = Some(piece);
                spec
            }
            Change::BareLf => {
                bare_lf = true;
                spec
            }
            Change::OverFieldCount => (0..world.fields_over_budget())
                .fold(spec, |spec, n| spec.with(&format!("X-Probe-{n}"), "1")),
            Change::SetMirrored(value) => {
                spec.set(&world.callable(sender)?.mirrored()?.header, &world.resolve(value)?)
            }
            Change::WithoutMirrored => spec.without(&world.callable(sender)?.mirrored()?.header),
        };
    }
    if let Some(role) = role {
        spec = spec.bearer(&world.token_of(role)?);
    }
    let mut bytes = chunks.map_or_else(|| spec.bytes(), |piece| spec.chunked_bytes(piece));
    if bare_lf && let Some(end) = bytes.windows(2).position(|w| w == b"\r\n") {
        bytes.remove(end);
    }
    Ok(bytes)
}

/// A raw template filled in (see [`Base::Raw`]): the placeholders from the sender's ordinary
/// ping.
pub fn fill(world: &dyn World, sender: Sender, template: &str) -> Result<Vec<u8>, String> {
    let ping = world.spec(sender, Base::Post(super::case::Body::Message(Message::Ping)))?;
    let token = world.sender_token(sender);
    let auth = token.as_ref().map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let fields: String = ping.fields.iter().map(|(n, v)| format!("{n}: {v}\r\n")).collect();
    let body = String::from_utf8_lossy(&ping.body).into_owned();
    let mut chunked = Vec::new();
    loopback_mcp_http::http::chunked::encode(&[&ping.body], &mut chunked);
    let text = template
        .replace("{path}", &world.resolve(Text::Path)?)
        .replace("{host}", &world.resolve(Text::Host)?)
        .replace("{token}", token.as_deref().unwrap_or_default())
        .replace("{auth}", &auth)
        .replace("{fields}", &fields)
        .replace("{other_length}", &(ping.body.len() + 1).to_string())
        .replace("{length}", &ping.body.len().to_string())
        .replace("{chunked}", &String::from_utf8_lossy(&chunked))
        .replace("{body}", &body);
    Ok(text.into_bytes())
}

/// Ids of the messages cases send (the values do not matter; they are checked where they do).
const PING_ID: i64 = 90;
const LIST_ID: i64 = 91;
const INITIALIZE_ID: i64 = 92;
const RESPONSE_ID: i64 = 7;
const TOOL_ID: i64 = 93;
/// The id of every 2026-07-28 request a case sends.
pub const MODERN_ID: i64 = 94;
/// The id of the slow call a cancellation names.
pub const SLOW_CALL_ID: i64 = 95;
/// How long the slow call works: long enough for a cancellation sent once it is under way to
/// arrive first, on any server on this machine.
pub const SLOW_CALL_MS: u64 = 150;

/// A well-formed 2025-11-25 message.
pub fn message_value(message: Message) -> Value {
    match message {
        Message::Ping => requests::ping(&Id::from(PING_ID)),
        Message::ListResources => requests::list_resources(&Id::from(LIST_ID)),
        Message::Initialize(version) => {
            requests::initialize(&Id::from(INITIALIZE_ID), version, CLIENT)
        }
        Message::Response => jsonrpc::result(&Id::from(RESPONSE_ID), json::object([])),
        Message::CallReconnectionTool => {
            requests::call_tool(&Id::from(TOOL_ID), "test_reconnection")
        }
        Message::ListTools => requests::list_tools(&Id::from(LIST_ID)),
        Message::SlowCall => {
            let arguments = json::object([("durationMs", SLOW_CALL_MS.into())]);
            let params = members([("name", "test_tool_slow".into()), ("arguments", arguments)]);
            jsonrpc::request(&Id::from(SLOW_CALL_ID), "tools/call", params)
        }
        Message::CancelSlowCall => {
            let params = members([
                ("reason", "the lab cancels it".into()),
                ("requestId", SLOW_CALL_ID.into()),
            ]);
            jsonrpc::notification("notifications/cancelled", params)
        }
        Message::Initialized => requests::initialized(),
    }
}

/// The tools a sender may call by name, from the server's latest `tools/list`.
#[derive(Clone, Debug, Default)]
pub struct Callable {
    /// The first tool listed.
    pub first: Option<String>,
    /// A tool that mirrors a string argument into a header.
    pub mirrored: Option<MirroredArgument>,
}

/// A string argument a tool mirrors into a header (`x-mcp-header`).
#[derive(Clone, Debug)]
pub struct MirroredArgument {
    pub tool: String,
    /// The chain of `properties` keys to the argument.
    pub path: Vec<String>,
    /// The header: `Mcp-Param-{Name}`.
    pub header: String,
}

impl Callable {
    fn mirrored(&self) -> Result<&MirroredArgument, String> {
        self.mirrored.as_ref().ok_or("no tool mirrors a string argument into a header".into())
    }
}

/// A 2026-07-28 request at `revision`, calling a tool of `tools` where it calls one.
pub fn modern_message(
    modern: Modern,
    tools: &Callable,
    revision: Revision,
) -> Result<Value, String> {
    let (method, params) = match modern {
        Modern::Discover | Modern::DiscoverWithoutCapabilities | Modern::DiscoverAs(_) => {
            ("server/discover", Object::new())
        }
        Modern::ToolsList => ("tools/list", Object::new()),
        Modern::FirstTool => {
            let tool = tools.first.as_deref().ok_or("the server lists no tool to call")?;
            ("tools/call", members([("name", tool.into()), ("arguments", json::object([]))]))
        }
        Modern::Mirrored(value) => {
            let mirrored = tools.mirrored()?;
            let arguments = mirrored.path.iter().rev().fold(Value::from(value), |inner, key| {
                let mut level = Object::new();
                level.insert(key.clone().into(), inner);
                Value::Object(level)
            });
            let name = mirrored.tool.as_str().into();
            ("tools/call", members([("name", name), ("arguments", arguments)]))
        }
        Modern::CallTool(tool) => {
            ("tools/call", members([("name", tool.into()), ("arguments", json::object([]))]))
        }
        Modern::ReadResource(uri) => ("resources/read", members([("uri", uri.into())])),
    };
    let id = Id::from(MODERN_ID);
    let hand_made = |version: &str, capabilities: bool| {
        let mut meta = Object::new();
        meta.insert(PROTOCOL_VERSION_KEY.into(), version.into());
        if capabilities {
            meta.insert(CLIENT_CAPABILITIES_KEY.into(), json::object([]));
        }
        let info = json::object([("name", CLIENT.name.into()), ("version", CLIENT.version.into())]);
        meta.insert(CLIENT_INFO_KEY.into(), info);
        jsonrpc::request(&id, method, members([("_meta", Value::Object(meta))]))
    };
    Ok(match modern {
        Modern::DiscoverWithoutCapabilities => hand_made(revision.name(), false),
        Modern::DiscoverAs(version) => hand_made(version, true),
        Modern::Discover
        | Modern::ToolsList
        | Modern::FirstTool
        | Modern::Mirrored(_)
        | Modern::CallTool(_)
        | Modern::ReadResource(_) => requests::modern((&id, method, revision), params, &[], CLIENT),
    })
}

/// A body of the table with `{method}` replaced by the ordinary request's method.
pub fn with_method(bytes: &[u8], method: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + method.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(8).position(|w| w == b"{method}") {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(method.as_bytes());
        rest = &rest[at + 8..];
    }
    out.extend_from_slice(rest);
    out
}

/// A request of `method` whose params nest `depth` arrays: one past a budget of `depth - 1`.
pub fn nested(depth: usize, method: &str) -> Vec<u8> {
    let open = "[".repeat(depth);
    let close = "]".repeat(depth);
    format!(
        r#"{{"jsonrpc":"2.0","id":{PING_ID},"method":"{method}","params":{{"a":{open}{close}}}}}"#
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::case::Modern;

    /// A world of fixed answers.
    struct Fixed;

    impl World for Fixed {
        fn spec(&self, _: Sender, base: Base) -> Result<RequestSpec, String> {
            let body = match base {
                Base::Post(_) => br#"{"id":1}"#.to_vec(),
                _ => Vec::new(),
            };
            Ok(RequestSpec::mcp_post("h:1", "tok", Some("sid"), &body))
        }
        fn resolve(&self, text: Text) -> Result<String, String> {
            Ok(match text {
                Text::Lit(t) => t.into(),
                Text::Path => "/mcp".into(),
                Text::Host => "h:1".into(),
                _ => "?".into(),
            })
        }
        fn token_of(&self, _: Role) -> Result<String, String> {
            Ok("other".into())
        }
        fn sender_token(&self, _: Sender) -> Option<String> {
            Some("tok".into())
        }
        fn callable(&self, _: Sender) -> Result<Callable, String> {
            let mirrored = MirroredArgument {
                tool: "t".into(),
                path: vec!["tenant".into()],
                header: "Mcp-Param-Tenant".into(),
            };
            Ok(Callable { first: Some("t".into()), mirrored: Some(mirrored) })
        }
        fn fields_over_budget(&self) -> usize {
            2
        }
    }

    #[test]
    fn templates_and_changes_render_exactly() {
        let text = |request: Request| {
            let bytes = build(&Fixed, Sender::Alice, &request, None).unwrap();
            String::from_utf8(bytes).unwrap()
        };
        let head = "Host: h:1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nAuthorization: Bearer tok\r\nMCP-Session-Id: sid\r\nMCP-Protocol-Version: 2025-11-25\r\n";
        let cases: [(Request, String); 5] = [
            (
                Request::raw("POST {path} HTTP/1.1\r\n{fields}Content-Length: {length}\r\nContent-Length: {other_length}\r\n\r\n{body}"),
                format!("POST /mcp HTTP/1.1\r\n{head}Content-Length: 8\r\nContent-Length: 9\r\n\r\n{{\"id\":1}}"),
            ),
            (
                Request::raw("POST {path} HTTP/1.1\r\n{auth}\r\n{chunked}"),
                "POST /mcp HTTP/1.1\r\nAuthorization: Bearer tok\r\n\r\n8\r\n{\"id\":1}\r\n0\r\n\r\n".into(),
            ),
            (
                Request::post(Message::Ping, &[Change::BareLf, Change::OverFieldCount]),
                format!("POST /mcp HTTP/1.1\n{head}X-Probe-0: 1\r\nX-Probe-1: 1\r\nContent-Length: 8\r\n\r\n{{\"id\":1}}"),
            ),
            (
                Request::modern(Modern::Mirrored("a"), &[Change::SetMirrored(Text::Lit("b"))]),
                format!("POST /mcp HTTP/1.1\r\n{head}Mcp-Param-Tenant: b\r\n\r\n"),
            ),
            (
                Request::post(Message::Ping, &[Change::Bearer(Role::Expired), Change::Without("Host")]),
                format!("POST /mcp HTTP/1.1\r\n{}Authorization: Bearer other\r\nContent-Length: 8\r\n\r\n{{\"id\":1}}", &head["Host: h:1\r\n".len()..].replace("Authorization: Bearer tok\r\n", "")),
            ),
        ];
        for (request, expected) in cases {
            assert_eq!(text(request), expected);
        }
    }

    #[test]
    fn a_body_names_the_ordinary_method_wherever_it_says_so() {
        let body =
            with_method(br#"{"method":"tools/list","method":"{method}","x":"\xff"}"#, "ping");
        assert_eq!(body, br#"{"method":"tools/list","method":"ping","x":"\xff"}"#);
    }

    #[test]
    fn a_nested_request_is_as_deep_as_asked() {
        let body = nested(3, "ping");
        assert_eq!(body, br#"{"jsonrpc":"2.0","id":90,"method":"ping","params":{"a":[[[]]]}}"#);
    }
}
