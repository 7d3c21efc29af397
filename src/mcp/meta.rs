//! A modern request's `_meta`: the protocol version, client capabilities and identity every
//! 2026-07-28 request carries, and the optional log level it asks for.
//!
//! `params._meta` must be an object with `io.modelcontextprotocol/protocolVersion` (a string) and
//! `io.modelcontextprotocol/clientCapabilities` (an object). `io.modelcontextprotocol/clientInfo`
//! is a SHOULD of the client, so it is not required. `io.modelcontextprotocol/logLevel`, when
//! present, must be a level: a server sends `notifications/message` for a request only when it
//! names one. The keys of results' `_meta` are here too.
//!
//! Not here: comparing the version with the `MCP-Protocol-Version` header, or deciding whether the
//! server speaks it (the endpoint does both, in that order, after this).

use super::session::LogLevel;
use crate::json::{Object, Value};

/// The request's protocol version.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The capabilities the client declares for this request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// Who the client is (optional).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The least severe level of `notifications/message` the request wants (optional).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// Who the server is, in a result's `_meta`.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// What a request's `_meta` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestMeta<'p> {
    pub protocol_version: &'p str,
    pub capabilities: &'p Object,
    /// The level asked for, if any: no `notifications/message` without one.
    pub log_level: Option<LogLevel>,
}

/// Why a request's `_meta` is not one (each a `-32602` with its own public code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetaError {
    /// No `params._meta` object.
    Missing,
    /// No protocol version string in it.
    ProtocolVersionMissing,
    /// No client capabilities object in it.
    ClientCapabilitiesMissing,
    /// A log level that is not one.
    LogLevelInvalid,
}

impl MetaError {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            MetaError::Missing => "meta_missing",
            MetaError::ProtocolVersionMissing => "meta_protocol_version_missing",
            MetaError::ClientCapabilitiesMissing => "meta_client_capabilities_missing",
            MetaError::LogLevelInvalid => "meta_log_level_invalid",
        }
    }
}

/// A capability a client declares, which some requests need.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientCapability {
    Sampling,
    Elicitation,
    Roots,
}

impl ClientCapability {
    /// Its key in the capabilities object.
    pub const fn name(self) -> &'static str {
        match self {
            ClientCapability::Sampling => "sampling",
            ClientCapability::Elicitation => "elicitation",
            ClientCapability::Roots => "roots",
        }
    }
}

impl<'p> RequestMeta<'p> {
    /// The `_meta` of a request's params.
    pub fn of(params: &'p Object) -> Result<RequestMeta<'p>, MetaError> {
        let meta = params.get("_meta").and_then(Value::as_object).ok_or(MetaError::Missing)?;
        let protocol_version = meta
            .get(PROTOCOL_VERSION_KEY)
            .and_then(Value::as_str)
            .ok_or(MetaError::ProtocolVersionMissing)?;
        let capabilities = meta
            .get(CLIENT_CAPABILITIES_KEY)
            .and_then(Value::as_object)
            .ok_or(MetaError::ClientCapabilitiesMissing)?;
        let log_level = match meta.get(LOG_LEVEL_KEY) {
            None => None,
            Some(level) => Some(
                level.as_str().and_then(LogLevel::from_name).ok_or(MetaError::LogLevelInvalid)?,
            ),
        };
        Ok(RequestMeta { protocol_version, capabilities, log_level })
    }

    /// Whether the client declared `capability` (an object under its name).
    pub fn declares(&self, capability: ClientCapability) -> bool {
        self.capabilities.get(capability.name()).is_some_and(|c| c.as_object().is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    type Read = Result<(String, Option<LogLevel>, bool), MetaError>;

    fn meta_of(text: &str) -> Read {
        let Ok(Value::Object(params)) = json::decode(text.as_bytes(), 16) else { panic!("{text}") };
        RequestMeta::of(&params).map(|m| {
            (m.protocol_version.to_owned(), m.log_level, m.declares(ClientCapability::Sampling))
        })
    }

    #[test]
    fn a_request_meta_needs_a_version_and_capabilities_and_nothing_else() {
        let v = "io.modelcontextprotocol/protocolVersion";
        let c = "io.modelcontextprotocol/clientCapabilities";
        let l = "io.modelcontextprotocol/logLevel";
        let cases: [(String, Read); 7] = [
            (
                format!(r#"{{"_meta":{{"{v}":"2026-07-28","{c}":{{}}}}}}"#),
                Ok(("2026-07-28".into(), None, false)),
            ),
            (
                format!(r#"{{"_meta":{{"{v}":"x","{c}":{{"sampling":{{}}}},"{l}":"debug"}}}}"#),
                Ok(("x".into(), Some(LogLevel::Debug), true)),
            ),
            (r#"{}"#.into(), Err(MetaError::Missing)),
            (r#"{"_meta":[]}"#.into(), Err(MetaError::Missing)),
            (format!(r#"{{"_meta":{{"{c}":{{}}}}}}"#), Err(MetaError::ProtocolVersionMissing)),
            (
                format!(r#"{{"_meta":{{"{v}":"2026-07-28","{c}":[]}}}}"#),
                Err(MetaError::ClientCapabilitiesMissing),
            ),
            (
                format!(r#"{{"_meta":{{"{v}":"2026-07-28","{c}":{{}},"{l}":"loud"}}}}"#),
                Err(MetaError::LogLevelInvalid),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(meta_of(&text), expected, "{text}");
        }
    }
}
