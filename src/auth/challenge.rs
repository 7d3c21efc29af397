//! `WWW-Authenticate: Bearer ...` challenges (RFC 6750 §3, RFC 9728 §5.1), rendered exactly.
//!
//! A challenge is the scheme followed by `name="value"` parameters separated by `, `. Values are
//! written as quoted-strings with `"` and `\` escaped. The values this project passes are a URL
//! it built itself and scope tokens (which cannot contain either character), so the escaping is
//! there for correctness, not because input reaches it; control characters never do, and the
//! response writer refuses any header value containing one.

/// `Bearer name1="value1", name2="value2", ...`.
pub fn bearer(params: &[(&str, &str)]) -> String {
    let mut out = String::from("Bearer");
    for (i, (name, value)) in params.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        out.push_str(name);
        out.push('=');
        push_quoted(value, &mut out);
    }
    out
}

/// Appends `value` as a quoted-string (RFC 9110 §5.6.4).
pub fn push_quoted(value: &str, out: &mut String) {
    out.push('"');
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_render_exactly() {
        let cases: [(&[(&str, &str)], &str); 4] = [
            (&[], "Bearer"),
            (&[("error", "invalid_token")], r#"Bearer error="invalid_token""#),
            (&[("realm", "a\"b\\c"), ("scope", "x y")], r#"Bearer realm="a\"b\\c", scope="x y""#),
            (&[("scope", "")], r#"Bearer scope="""#),
        ];
        for (params, expected) in cases {
            assert_eq!(bearer(params), expected);
        }
    }
}
