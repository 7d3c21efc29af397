//! `WWW-Authenticate` read as a client reads it: a list of challenges (RFC 9110 §11.6.1), each a
//! scheme followed by a token68 or by `name=value` parameters (§11.2), in any order, over any
//! number of field lines, which read as one list joined by commas (§5.3).
//!
//! Schemes and parameter names are case-insensitive: a scheme keeps its spelling and is compared
//! with [`Challenge::is`]; parameter names are lowercased. A value is a token or a quoted-string
//! with its escapes removed (§5.6.4). A parameter named twice in one challenge (which §11.2
//! forbids), a parameter after a token68, a bare quote or a stray byte is refused with the field
//! line and offset where it was found. The parse is one pass over the bytes with no recursion:
//! what it returns is never larger than what it was given, so the response head's budget bounds
//! it.
//!
//! Not here: the server's own challenges (`auth::challenge` writes them), or what a parameter
//! means (RFC 6750's `error`, RFC 9728's `resource_metadata`): that is the reader's business.

use super::chars::{TCHAR, is};

/// One challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    /// The scheme as sent.
    pub scheme: String,
    /// The token68 that follows the scheme instead of parameters, when there is one.
    pub token68: Option<String>,
    /// The parameters in order: names lowercased, values unquoted.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// Whether the scheme is `scheme`, ignoring ASCII case.
    pub fn is(&self, scheme: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme)
    }

    /// The value of the parameter `name` (any case).
    pub fn param(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.params.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
}

/// Why a `WWW-Authenticate` list was refused, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// The field line (0 for the first).
    pub line: usize,
    /// The offset of the byte that decided, within that line's value.
    pub offset: usize,
    pub why: Why,
}

/// What was wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// A byte that starts no scheme, parameter or token68.
    TokenExpected,
    /// A parameter before any scheme.
    ParameterWithoutScheme,
    /// `=` followed by neither a token nor a quoted-string.
    ValueExpected,
    /// A quoted-string that never ends, or holds a control byte.
    BadQuotedString,
    /// A parameter named twice in one challenge.
    ParameterRepeated,
    /// A parameter in a challenge that carries a token68.
    ParameterAfterToken68,
    /// Something other than a comma after a complete item.
    CommaExpected,
}

impl Why {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            Why::TokenExpected => "challenge_token_expected",
            Why::ParameterWithoutScheme => "challenge_parameter_without_scheme",
            Why::ValueExpected => "challenge_value_expected",
            Why::BadQuotedString => "challenge_bad_quoted_string",
            Why::ParameterRepeated => "challenge_parameter_repeated",
            Why::ParameterAfterToken68 => "challenge_parameter_after_token68",
            Why::CommaExpected => "challenge_comma_expected",
        }
    }
}

/// Every challenge of the `WWW-Authenticate` field lines `values`, in order.
pub fn parse<'v>(values: impl IntoIterator<Item = &'v [u8]>) -> Result<Vec<Challenge>, Malformed> {
    let mut challenges = Vec::new();
    for (line, value) in values.into_iter().enumerate() {
        let mut cursor = Cursor { bytes: value, at: 0 };
        parse_line(&mut cursor, &mut challenges).map_err(|why| Malformed {
            line,
            offset: cursor.at,
            why,
        })?;
    }
    Ok(challenges)
}

/// One field line's list elements, added to `challenges`.
fn parse_line(cursor: &mut Cursor<'_>, challenges: &mut Vec<Challenge>) -> Result<(), Why> {
    loop {
        cursor.skip(|b| b == b',' || is_space(b));
        if cursor.done() {
            return Ok(());
        }
        let name = cursor.token().ok_or(Why::TokenExpected)?;
        let after_name = cursor.at;
        cursor.skip(is_space);
        if cursor.peek() == Some(b'=') {
            let current = challenges.last_mut().ok_or(Why::ParameterWithoutScheme)?;
            cursor.at += 1;
            add_param(current, name, cursor)?;
        } else {
            cursor.at = after_name;
            challenges.push(Challenge { scheme: text(name), token68: None, params: Vec::new() });
            let Some(current) = challenges.last_mut() else { return Ok(()) };
            first_item(current, cursor)?;
        }
        cursor.skip(is_space);
        match cursor.peek() {
            None | Some(b',') => {}
            Some(_) => return Err(Why::CommaExpected),
        }
    }
}

/// What follows a scheme: nothing, a token68, or its first parameter.
fn first_item(challenge: &mut Challenge, cursor: &mut Cursor<'_>) -> Result<(), Why> {
    if cursor.peek() != Some(b' ') {
        return Ok(());
    }
    cursor.skip(|b| b == b' ');
    if matches!(cursor.peek(), None | Some(b',')) {
        return Ok(());
    }
    let start = cursor.at;
    if let Some(name) = cursor.token() {
        cursor.skip(is_space);
        if cursor.peek() == Some(b'=') {
            cursor.at += 1;
            cursor.skip(is_space);
            if cursor.peek().is_some_and(|b| b == b'"' || is(b, TCHAR)) {
                return add_param_value(challenge, name, cursor);
            }
        }
    }
    cursor.at = start;
    let run = cursor.run(is_token68);
    if run.is_empty() {
        return Err(Why::TokenExpected);
    }
    let padding = cursor.run(|b| b == b'=');
    challenge.token68 = Some(format!("{}{}", text(run), text(padding)));
    Ok(())
}

/// `name` `=` value, the `=` already read, added to `challenge`.
fn add_param(challenge: &mut Challenge, name: &[u8], cursor: &mut Cursor<'_>) -> Result<(), Why> {
    cursor.skip(is_space);
    add_param_value(challenge, name, cursor)
}

/// The value at the cursor, a token or a quoted-string, as the parameter `name` of `challenge`.
fn add_param_value(
    challenge: &mut Challenge,
    name: &[u8],
    cursor: &mut Cursor<'_>,
) -> Result<(), Why> {
    if challenge.token68.is_some() {
        return Err(Why::ParameterAfterToken68);
    }
    let value = match cursor.peek() {
        Some(b'"') => cursor.quoted()?,
        _ => text(cursor.token().ok_or(Why::ValueExpected)?),
    };
    let name = text(name).to_ascii_lowercase();
    if challenge.params.iter().any(|(n, _)| *n == name) {
        return Err(Why::ParameterRepeated);
    }
    challenge.params.push((name, value));
    Ok(())
}

/// A position in one field line's value.
struct Cursor<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Cursor<'b> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip(&mut self, class: impl Fn(u8) -> bool) {
        self.run(class);
    }

    /// The bytes from the cursor while `class` holds, the cursor moved past them.
    fn run(&mut self, class: impl Fn(u8) -> bool) -> &'b [u8] {
        let start = self.at;
        let bytes = self.bytes;
        self.at += bytes[start..].iter().take_while(|&&b| class(b)).count();
        &bytes[start..self.at]
    }

    /// A token (one or more `tchar`), or `None` with the cursor unmoved.
    fn token(&mut self) -> Option<&'b [u8]> {
        let run = self.run(|b| is(b, TCHAR));
        (!run.is_empty()).then_some(run)
    }

    /// A quoted-string at the cursor, its escapes removed; the cursor left after its closing
    /// quote, or on the byte that broke it.
    fn quoted(&mut self) -> Result<String, Why> {
        let mut out = Vec::new();
        self.at += 1;
        while let Some(b) = self.peek() {
            match b {
                b'"' => {
                    self.at += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                b'\\' => {
                    let escaped = self.bytes.get(self.at + 1).copied();
                    match escaped {
                        Some(e) if e == b'\t' || (e >= 0x20 && e != 0x7F) => out.push(e),
                        _ => return Err(Why::BadQuotedString),
                    }
                    self.at += 2;
                }
                b'\t' => {
                    out.push(b);
                    self.at += 1;
                }
                0x00..=0x1F | 0x7F => return Err(Why::BadQuotedString),
                _ => {
                    out.push(b);
                    self.at += 1;
                }
            }
        }
        Err(Why::BadQuotedString)
    }
}

/// Optional whitespace: SP or HTAB.
fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The characters of a token68 before its padding (RFC 9110 §11.2).
fn is_token68(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

/// Bytes the grammar has already limited to visible ASCII, as text.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A challenge as `Scheme[ token68][ name=value,...]`, for comparing.
    fn shown(challenges: &[Challenge]) -> String {
        let one = |c: &Challenge| {
            let params: Vec<String> = c.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
            let token = c.token68.as_ref().map(|t| format!(" {t}")).unwrap_or_default();
            let params =
                if params.is_empty() { String::new() } else { format!(" {}", params.join(",")) };
            format!("{}{token}{params}", c.scheme)
        };
        challenges.iter().map(one).collect::<Vec<_>>().join(" | ")
    }

    #[test]
    fn challenges_read_as_rfc_9110_writes_them() {
        let cases: [(&[&str], &str); 15] = [
            (&["Bearer"], "Bearer"),
            (
                &[r#"Bearer realm="mcp", error="invalid_token""#],
                "Bearer realm=mcp,error=invalid_token",
            ),
            (
                &[r#"Basic realm="mcp", Bearer resource_metadata="http://x/m""#],
                "Basic realm=mcp | Bearer resource_metadata=http://x/m",
            ),
            (
                &["Basic realm=mcp", "bearer ERROR=invalid_token"],
                "Basic realm=mcp | bearer error=invalid_token",
            ),
            (
                &[r#"BEARER RESOURCE_METADATA = "a", Scope="x y""#],
                "BEARER resource_metadata=a,scope=x y",
            ),
            (&["Negotiate abc+/=="], "Negotiate abc+/=="),
            (&["Negotiate abc=, Basic realm=x"], "Negotiate abc= | Basic realm=x"),
            (&["Bearer realm=, x"], "Bearer realm= | x"),
            (
                &[r#"Bearer error_description="a \"q\" and \\ b""#],
                r#"Bearer error_description=a "q" and \ b"#,
            ),
            (&[", , Bearer ,, realm=x ,"], "Bearer realm=x"),
            (&["Bearer", "realm=x"], "Bearer realm=x"),
            (&["Bearer realm=\"caf\u{e9}\""], "Bearer realm=caf\u{e9}"),
            (&["Digest realm=\"a\",\tqop=auth"], "Digest realm=a,qop=auth"),
            (&[""], ""),
            (
                &["Newauth realm=\"apps\", type=1, title=\"Login\", Basic realm=\"simple\""],
                "Newauth realm=apps,type=1,title=Login | Basic realm=simple",
            ),
        ];
        for (lines, expected) in cases {
            let got = parse(lines.iter().map(|l| l.as_bytes())).map(|c| shown(&c));
            assert_eq!(got.as_deref(), Ok(expected), "{lines:?}");
        }
    }

    #[test]
    fn malformed_lists_are_refused_where_they_break() {
        type Refused = (usize, usize, Why);
        let cases: [(&[&str], Refused); 9] = [
            (&["realm=x"], (0, 5, Why::ParameterWithoutScheme)),
            (&[r#"Bearer realm="x"#], (0, 15, Why::BadQuotedString)),
            (&["Bearer realm=\"a\u{1}\""], (0, 15, Why::BadQuotedString)),
            (&["Bearer realm=x, realm=y"], (0, 23, Why::ParameterRepeated)),
            (&["Bearer Realm=x, REALM=y"], (0, 23, Why::ParameterRepeated)),
            (&["Negotiate abc=, realm=y"], (0, 22, Why::ParameterAfterToken68)),
            (&["Bearer realm=x y"], (0, 15, Why::CommaExpected)),
            (&["Bearer realm=x, error="], (0, 22, Why::ValueExpected)),
            (&["Bearer", "@"], (1, 0, Why::TokenExpected)),
        ];
        for (lines, (line, offset, why)) in cases {
            let got = parse(lines.iter().map(|l| l.as_bytes()));
            assert_eq!(got, Err(Malformed { line, offset, why }), "{lines:?}");
        }
    }

    #[test]
    fn a_parameter_is_found_in_any_case_and_a_scheme_is_compared_in_any_case() {
        let challenges = parse([&b"BeArEr RESOURCE_METADATA=\"u\""[..]]).unwrap();
        assert!(challenges[0].is("bearer") && !challenges[0].is("basic"));
        assert_eq!(challenges[0].param("Resource_Metadata"), Some("u"));
        assert_eq!(challenges[0].param("scope"), None);
    }
}
