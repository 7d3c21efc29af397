//! How a row's request is built for the server under probe: the [`World`] a row is rendered in,
//! and the requests of either era the probe sends of its own (`initialize`, a session's GET and
//! DELETE, a 2026-07-28 POST with its `_meta` and mirrored headers).
//!
//! Not here: sending (`Peer`), or the rows (`catalogue`).

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::client::mirroring;
use loopback_mcp_http::json::{self, Object, Value};
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::mcp::requests;
use loopback_mcp_http::mcp::revision::{Era, Revision};

use super::{Delete, Peer};
use crate::cli::case::{Base, Body, Message, Sender, Text};
use crate::cli::render::{self, CLIENT, Callable, World};

/// A field value past the budgets servers commonly have (16 KiB in Node, 64 KiB in h11).
const VALUE_OVER_TYPICAL: usize = 64 * 1024 + 1;
/// A body past the common 4 MiB.
const BODY_OVER_TYPICAL: usize = 4 * 1024 * 1024 + 1;
/// Field lines past what any common server takes.
const FIELDS_OVER_TYPICAL: usize = 1000;
/// Nesting past what a recursive parser's stack holds (Python's default recursion limit is
/// 1000), in a body under the common size budgets.
const DEPTH_OVER_TYPICAL: usize = 4_000;
/// The id sent as an ended session's where DELETE ends none.
const ENDED_STAND_IN: &str = "probe-session-ended";

impl Peer {
    /// A request of `method` with `Host`, the sender's token and the extra fields, no body.
    pub(super) fn bare(&self, method: &str, sender: Sender) -> RequestSpec {
        let mut spec = RequestSpec {
            method: method.into(),
            target: self.target.path.clone(),
            fields: vec![("Host".into(), self.target.authority.clone())],
            body: Vec::new(),
        };
        let accept = if method == "GET" {
            "text/event-stream"
        } else {
            "application/json, text/event-stream"
        };
        spec = spec.with("Accept", accept);
        if let Some(token) = self.token(sender) {
            spec = spec.with("Authorization", &format!("Bearer {token}"));
        }
        self.credentials.headers.iter().fold(spec, |spec, (n, v)| spec.with(n, v))
    }

    /// A 2025-11-25 request of `method` after `initialize`, no body: in `session` when there is
    /// one, and with the version it negotiated either way.
    pub(in crate::cli::probe) fn legacy_spec(
        &self,
        method: &str,
        sender: Sender,
        session: Option<&str>,
    ) -> RequestSpec {
        let spec = self.bare(method, sender);
        let spec = match session {
            Some(id) => spec.with("MCP-Session-Id", id),
            None => spec,
        };
        spec.with("MCP-Protocol-Version", Revision::newest(Era::Legacy).name())
    }

    /// A 2025-11-25 POST of `body` (see [`Peer::legacy_spec`]).
    pub(in crate::cli::probe) fn legacy_post(
        &self,
        sender: Sender,
        body: &[u8],
        session: Option<&str>,
    ) -> RequestSpec {
        let spec =
            self.legacy_spec("POST", sender, session).with("Content-Type", "application/json");
        RequestSpec { body: body.to_vec(), ..spec }
    }

    /// A 2026-era POST of `message`, with the headers it mirrors.
    pub(super) fn modern_spec(&self, sender: Sender, message: &Value) -> RequestSpec {
        let spec = RequestSpec {
            body: json::encode(message).into_bytes(),
            ..self.bare("POST", sender).with("Content-Type", "application/json")
        };
        let headers = mirroring::request_headers(message, &self.tools).unwrap_or_default();
        headers.iter().fold(spec, |spec, (name, value)| spec.with(name, value))
    }

    /// The methods the baseline may be, in the order they are tried: a ping in 2025-11-25
    /// (`tools/list` for a server that lacks it), `server/discover` where 2026-07-28 is all the
    /// server speaks.
    pub fn baseline_methods(&self) -> [&'static str; 2] {
        if self.modern.is_some() && !self.legacy {
            ["server/discover", "tools/list"]
        } else {
            ["ping", "tools/list"]
        }
    }

    /// Makes `method` the one the baseline and the bodies of the table name.
    pub fn use_baseline(&mut self, method: &'static str) {
        self.ordinary = method;
    }

    /// The method of the baseline.
    fn ordinary_method(&self) -> &'static str {
        self.ordinary
    }

    /// The sender's ordinary POST of `body` in the server's first era: 2025-11-25 in its session
    /// when it speaks that, else 2026-07-28 with `_meta` put into the body.
    fn ordinary(&self, sender: Sender, body: Vec<u8>) -> RequestSpec {
        match self.modern.filter(|_| !self.legacy) {
            None => self.legacy_post(sender, &body, self.session(sender)),
            Some(revision) => {
                let (body, method) = with_meta(&body, revision);
                let spec = RequestSpec {
                    body,
                    ..self.bare("POST", sender).with("Content-Type", "application/json")
                };
                let spec = spec.with("MCP-Protocol-Version", revision.name());
                match method {
                    Some(method) => spec.with("Mcp-Method", &method),
                    None => spec,
                }
            }
        }
    }
}

impl World for Peer {
    fn spec(&self, sender: Sender, base: Base) -> Result<RequestSpec, String> {
        Ok(match base {
            Base::Post(Body::Message(message)) => match self.modern.filter(|_| !self.legacy) {
                // The 2026-era baseline, built whole with its `_meta`.
                Some(revision) if matches!(message, Message::Ping) => {
                    let id = Id::from(render::MODERN_ID);
                    let method = (&id, self.ordinary, revision);
                    self.modern_spec(sender, &requests::modern(method, Object::new(), &[], CLIENT))
                }
                None if matches!(message, Message::Ping) && self.ordinary != "ping" => {
                    let message = jsonrpc::request(&Id::from(90), self.ordinary, Object::new());
                    self.ordinary(sender, json::encode(&message).into_bytes())
                }
                Some(_) | None => self
                    .ordinary(sender, json::encode(&render::message_value(message)).into_bytes()),
            },
            Base::Post(body) => self.ordinary(
                sender,
                match body {
                    Body::Message(message) => {
                        json::encode(&render::message_value(message)).into_bytes()
                    }
                    Body::Bytes(bytes) => render::with_method(bytes, self.ordinary_method()),
                    Body::OverBudget => vec![b' '; BODY_OVER_TYPICAL],
                    Body::TooDeep => render::nested(DEPTH_OVER_TYPICAL, self.ordinary_method()),
                },
            ),
            Base::Modern(modern) => {
                // The newest when the server speaks none: what a dual-era client probes with.
                let revision = self.modern.unwrap_or(Revision::newest(Era::Modern));
                let message = render::modern_message(modern, &self.callable, revision)?;
                self.modern_spec(sender, &message)
            }
            Base::Get | Base::Bodiless(_) if self.legacy => {
                let method = match base {
                    Base::Bodiless(m) => m,
                    _ => "GET",
                };
                self.legacy_spec(method, sender, self.session(sender))
            }
            Base::Get | Base::Bodiless(_) => {
                let method = match base {
                    Base::Bodiless(m) => m,
                    _ => "GET",
                };
                let revision = self.modern.map_or("2026-07-28", Revision::name);
                self.bare(method, sender).with("MCP-Protocol-Version", revision)
            }
            Base::Discovery => RequestSpec {
                method: "GET".into(),
                target: format!("/.well-known/oauth-protected-resource{}", self.target.path),
                fields: vec![("Host".into(), self.target.authority.clone())],
                body: Vec::new(),
            },
            Base::Raw(_) => return Err("a raw template has no spec".into()),
            Base::CancelDuring(_) => {
                let body = json::encode(&render::message_value(Message::CancelSlowCall));
                self.legacy_post(sender, body.as_bytes(), self.session(sender))
            }
        })
    }

    fn resolve(&self, text: Text) -> Result<String, String> {
        Ok(match text {
            Text::Lit(text) => text.to_owned(),
            Text::TokenOf(Role::Full) => self.credentials.token.clone().ok_or("no --token")?,
            Text::TokenOf(role) => return Err(format!("no token of {}", role.describe())),
            // A server without DELETE ended no session: any id stands in for one it ended.
            Text::SessionOf(Sender::Ended) if self.delete == Delete::Unsupported => {
                ENDED_STAND_IN.to_owned()
            }
            Text::SessionOf(sender) => self
                .session(sender)
                .map(str::to_owned)
                .ok_or(format!("no session of {sender:?}"))?,
            Text::GetEventOf(_) | Text::LastEventOf(_) => {
                return Err("no event ids are kept".into());
            }
            Text::OverValueBudget => "x".repeat(VALUE_OVER_TYPICAL),
            Text::Port => self.target.address.port().to_string(),
            Text::Host => self.target.authority.clone(),
            Text::Path => self.target.path.clone(),
            Text::Join(parts) => {
                parts.iter().map(|&part| self.resolve(part)).collect::<Result<String, String>>()?
            }
        })
    }

    fn token_of(&self, role: Role) -> Result<String, String> {
        self.resolve(Text::TokenOf(role))
    }

    fn sender_token(&self, sender: Sender) -> Option<String> {
        self.token(sender).map(str::to_owned)
    }

    fn callable(&self, _: Sender) -> Result<Callable, String> {
        Ok(self.callable.clone())
    }

    fn fields_over_budget(&self) -> usize {
        FIELDS_OVER_TYPICAL
    }
}

/// The body with `_meta` for `revision` put into its first `"params":{`, and the method the
/// body names last (what a reader keeping the last duplicate sees).
fn with_meta(body: &[u8], revision: Revision) -> (Vec<u8>, Option<String>) {
    let text = String::from_utf8_lossy(body);
    let meta = format!(
        r#""params":{{"_meta":{{"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/protocolVersion":"{}"}},"#,
        revision.name()
    );
    let method = text
        .rsplit(r#""method":""#)
        .next()
        .filter(|_| text.contains(r#""method":""#))
        .and_then(|rest| rest.split('"').next())
        .map(str::to_owned);
    let with = match text.find(r#""params":{"#) {
        Some(at) if body.is_ascii() || text.is_char_boundary(at) => {
            let rest = &body[at + r#""params":{"#.len()..];
            let comma = if rest.first() == Some(&b'}') {
                meta.trim_end_matches(',').to_owned()
            } else {
                meta
            };
            [&body[..at], comma.as_bytes(), rest].concat()
        }
        _ => body.to_vec(),
    };
    (with, method)
}

/// Whether the property at `path` of `schema` is a string.
pub(super) fn is_string(schema: Option<&Value>, path: &[String]) -> bool {
    let node = path.iter().try_fold(schema, |node, key| Some(node?.get("properties")?.get(key)));
    node.flatten().and_then(|n| n.get("type")).and_then(Value::as_str) == Some("string")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_goes_into_the_first_params_and_the_last_method_names_the_header() {
        let cases: [(&str, &str, Option<&str>); 3] = [
            (
                r#"{"id":1,"method":"tools/list","method":"ping","params":{}}"#,
                r#"{"id":1,"method":"tools/list","method":"ping","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
                Some("ping"),
            ),
            (
                r#"[{"method":"ping","params":{"n":1}}]"#,
                r#"[{"method":"ping","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"n":1}}]"#,
                Some("ping"),
            ),
            (r#"{"id":7,"result":{}}"#, r#"{"id":7,"result":{}}"#, None),
        ];
        for (body, expected, method) in cases {
            let (with, named) = with_meta(body.as_bytes(), Revision::V2026_07_28);
            assert_eq!(
                (String::from_utf8(with).unwrap(), named.as_deref()),
                (expected.to_owned(), method)
            );
        }
    }
}
