//! The client's side of the 2026-07-28 mirrored headers: which tool definitions a client may use,
//! and the headers it writes for a request.
//!
//! A tool's `inputSchema` may mark properties with `x-mcp-header`; a client then sends each such
//! argument again as `Mcp-Param-{Name}`. [`tool_headers`] reads the annotations and refuses a
//! tool whose annotations break a constraint of the specification: a name that is empty or not
//! an HTTP token (`1*tchar`, so no control character), two names equal but for case, an
//! annotated property whose `type` is not `string`, `integer` or `boolean`, or an annotation that
//! is not reached from the schema's root through `properties` keys alone (under `items`,
//! `oneOf`, `$ref`, a conditional, or on the root itself). A client leaves such a tool out of its
//! list rather than guess. The schema is walked with an explicit stack, never by recursion, and
//! members that hold instance data (`const`, `default`, `enum`, `examples`) are not read as
//! schema. The annotations come out in the order of their paths.
//!
//! [`request_headers`] writes a request's headers from its body: `MCP-Protocol-Version` from
//! the `_meta` version, `Mcp-Method` from the method, `Mcp-Name` from the field the method's row
//! names (see [`crate::mcp::method::Row::mcp_name`]), and for a `tools/call` one `Mcp-Param-{Name}`
//! per annotated argument that has a value (none for an absent or `null` one). Values go through
//! [`crate::http::mirror::header_value`]: plain when they may be, the base64 sentinel when the
//! specification says they must be. An integer outside JavaScript's safe range, a fraction, an
//! array or an object cannot be mirrored: the request is not sent.
//!
//! Not here: the server's comparison ([`crate::http::mirror::compare`]), or sending anything.

use crate::http::chars::is_token;
use crate::http::mirror::header_value;
use crate::json::Value;
use crate::mcp::meta::PROTOCOL_VERSION_KEY;
use crate::mcp::method::McpMethod;

/// The largest integer a header may mirror: 2^53 - 1, JavaScript's `Number.MAX_SAFE_INTEGER`.
pub const SAFE_INTEGER_MAX: i64 = (1 << 53) - 1;

/// Schema members whose values are instances, not schemas: an `x-mcp-header` inside one is data.
const INSTANCE_MEMBERS: [&str; 4] = ["const", "default", "enum", "examples"];

/// The annotation key.
const ANNOTATION: &str = "x-mcp-header";

/// One annotated argument: where it is in `arguments`, and the `{Name}` of its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    /// The chain of `properties` keys from the schema's root.
    pub path: Vec<String>,
    pub name: String,
}

/// A tool a client may call, and the arguments it mirrors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolHeaders {
    pub tool: String,
    pub params: Vec<ParamHeader>,
}

/// Why a tool's annotations were refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnnotationError {
    /// An `x-mcp-header` that is not a string.
    NotText,
    /// An empty `x-mcp-header`.
    Empty,
    /// An `x-mcp-header` with a byte that is not a token character (control characters included).
    NotAToken,
    /// Two annotations equal but for case.
    Repeated,
    /// An annotated property whose `type` is not `string`, `integer` or `boolean`.
    NotPrimitive,
    /// An annotation not reached through `properties` keys alone.
    NotReachable,
}

impl AnnotationError {
    /// The stable code.
    pub const fn code(self) -> &'static str {
        match self {
            AnnotationError::NotText => "x_mcp_header_not_text",
            AnnotationError::Empty => "x_mcp_header_empty",
            AnnotationError::NotAToken => "x_mcp_header_not_a_token",
            AnnotationError::Repeated => "x_mcp_header_repeated",
            AnnotationError::NotPrimitive => "x_mcp_header_not_primitive",
            AnnotationError::NotReachable => "x_mcp_header_not_reachable",
        }
    }
}

impl std::fmt::Display for AnnotationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self {
            AnnotationError::NotText => "an x-mcp-header that is not a string",
            AnnotationError::Empty => "an empty x-mcp-header",
            AnnotationError::NotAToken => "an x-mcp-header that is not an HTTP token",
            AnnotationError::Repeated => "two x-mcp-header names equal but for case",
            AnnotationError::NotPrimitive => {
                "x-mcp-header on a type other than string, integer, boolean"
            }
            AnnotationError::NotReachable => "x-mcp-header outside a chain of properties",
        };
        write!(f, "{what} ({})", self.code())
    }
}

/// The annotations of the tool `tool` whose input schema is `schema` (none without a schema).
pub fn tool_headers(tool: &str, schema: Option<&Value>) -> Result<ToolHeaders, AnnotationError> {
    let mut params: Vec<ParamHeader> = Vec::new();
    // Each node with its path from the root when only `properties` keys lead to it.
    let mut stack: Vec<(&Value, Option<Vec<String>>)> =
        schema.map(|s| (s, Some(Vec::new()))).into_iter().collect();
    while let Some((node, path)) = stack.pop() {
        match node {
            Value::Object(members) => {
                if let Some(annotation) = members.get(ANNOTATION) {
                    let param = annotated(annotation, members.get("type"), path.as_deref())?;
                    if params.iter().any(|p| p.name.eq_ignore_ascii_case(&param.name)) {
                        return Err(AnnotationError::Repeated);
                    }
                    params.push(param);
                }
                for (key, value) in members.iter() {
                    match (key.as_ref(), value, &path) {
                        (ANNOTATION, ..) => {}
                        (key, ..) if INSTANCE_MEMBERS.contains(&key) => {}
                        ("properties", Value::Object(properties), Some(path)) => {
                            for (name, property) in properties.iter() {
                                let mut below = path.clone();
                                below.push(name.to_string());
                                stack.push((property, Some(below)));
                            }
                        }
                        (_, value, _) => stack.push((value, None)),
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, None))),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    // In the order of their paths, whatever order the walk met them in.
    params.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ToolHeaders { tool: tool.to_owned(), params })
}

/// One annotation, on a property at `path` (`None`: not reached through `properties` alone).
fn annotated(
    annotation: &Value,
    ty: Option<&Value>,
    path: Option<&[String]>,
) -> Result<ParamHeader, AnnotationError> {
    let path = path.filter(|p| !p.is_empty()).ok_or(AnnotationError::NotReachable)?;
    let name = annotation.as_str().ok_or(AnnotationError::NotText)?;
    if name.is_empty() {
        return Err(AnnotationError::Empty);
    }
    if !is_token(name.as_bytes()) {
        return Err(AnnotationError::NotAToken);
    }
    match ty.and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => {}
        Some(_) | None => return Err(AnnotationError::NotPrimitive),
    }
    Ok(ParamHeader { path: path.to_vec(), name: name.to_owned() })
}

/// Why an argument cannot go into its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unmirrorable {
    /// An integer outside ±[`SAFE_INTEGER_MAX`], or a number with a fraction or an exponent.
    Number { header: String },
    /// An array or an object.
    NotPrimitive { header: String },
}

impl Unmirrorable {
    /// The stable code.
    pub const fn code(&self) -> &'static str {
        match self {
            Unmirrorable::Number { .. } => "argument_number_not_mirrorable",
            Unmirrorable::NotPrimitive { .. } => "argument_not_primitive",
        }
    }
}

/// The mirrored headers of the request `message`, in the order they are written; `tools` are the
/// annotations of the tools the client may call.
pub fn request_headers(
    message: &Value,
    tools: &[ToolHeaders],
) -> Result<Vec<(String, String)>, Unmirrorable> {
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
    let params = message.get("params");
    let mut headers = Vec::new();
    let version = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(PROTOCOL_VERSION_KEY));
    if let Some(version) = version.and_then(Value::as_str) {
        headers.push(("MCP-Protocol-Version".to_owned(), version.to_owned()));
    }
    headers.push(("Mcp-Method".to_owned(), method.to_owned()));
    let source = McpMethod::from_name(method).and_then(|m| m.row().mcp_name);
    let named = source.and_then(|s| params.and_then(|p| p.get(s.member()))).and_then(Value::as_str);
    if let Some(named) = named {
        headers.push(("Mcp-Name".to_owned(), header_value(named).into_owned()));
    }
    let tool = match McpMethod::from_name(method) {
        Some(McpMethod::ToolsCall) => tools.iter().find(|t| Some(t.tool.as_str()) == named),
        _ => None,
    };
    let arguments = params.and_then(|p| p.get("arguments"));
    for param in tool.map_or(&[][..], |t| &t.params) {
        let header = format!("Mcp-Param-{}", param.name);
        let value = param.path.iter().try_fold(arguments, |at, key| Some(at?.get(key)));
        if let Some(text) = argument_text(value.flatten(), &header)? {
            headers.push((header, text));
        }
    }
    Ok(headers)
}

/// An argument's header value; `None` for an absent or `null` one.
fn argument_text(value: Option<&Value>, header: &str) -> Result<Option<String>, Unmirrorable> {
    Ok(Some(match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) => header_value(text).into_owned(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) if i.unsigned_abs() <= SAFE_INTEGER_MAX.unsigned_abs() => i.to_string(),
            Some(_) | None => return Err(Unmirrorable::Number { header: header.to_owned() }),
        },
        Some(Value::Array(_) | Value::Object(_)) => {
            return Err(Unmirrorable::NotPrimitive { header: header.to_owned() });
        }
    }))
}
