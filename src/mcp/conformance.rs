//! The conformance suite's request-time scope fixtures (SEP-2350), which a server serves only
//! when started with them (`serve --conformance-fixtures`), and only to 2026-07-28 requests, the
//! era the suite checks them in: one tool, one resource, one resource template and one prompt,
//! each needing two scopes of its own, the template's second one made from the id the request
//! names. What each is called and what it answers is here; which scopes
//! each needs is the endpoint's access rule, and who holds them the token policy's.
//!
//! Not here: the tokens the suite sends (`auth::fixtures`), or the scopes themselves
//! (`auth::scope`).

/// A fixture of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixture {
    /// The tool `test_simple_text`.
    Tool,
    /// The resource `test://static-text`.
    StaticResource,
    /// The resources of the template `test://template/{id}/data`.
    TemplateResource,
    /// The prompt `test_simple_prompt`.
    Prompt,
}

/// The fixture tool's name.
pub const TOOL: &str = "test_simple_text";
/// The static resource's URI.
pub const STATIC_URI: &str = "test://static-text";
/// The template's URI before and after its id.
pub const TEMPLATE: (&str, &str) = ("test://template/", "/data");
/// The prompt's name.
pub const PROMPT: &str = "test_simple_prompt";
/// The longest id a template URI may name: the id becomes part of a scope.
pub const TEMPLATE_ID_BYTES_MAX: usize = 64;

/// What the fixture tool answers.
pub const TOOL_TEXT: &str = "This is a simple text response for testing.";
/// What the static resource holds.
pub const STATIC_TEXT: &str = "This is the content of the static text resource.";
/// What the prompt asks.
pub const PROMPT_TEXT: &str = "This is a simple prompt for testing.";

/// The resource a `resources/read` URI names: its fixture, and for the template the id, which
/// is 1 to [`TEMPLATE_ID_BYTES_MAX`] letters, digits, `.`, `_` or `-` (so that it can be part of
/// a scope token).
pub fn resource(uri: &str) -> Option<(Fixture, Option<&str>)> {
    if uri == STATIC_URI {
        return Some((Fixture::StaticResource, None));
    }
    let id = uri.strip_prefix(TEMPLATE.0)?.strip_suffix(TEMPLATE.1)?;
    let valid = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-');
    let fits = !id.is_empty() && id.len() <= TEMPLATE_ID_BYTES_MAX && id.bytes().all(valid);
    fits.then_some((Fixture::TemplateResource, Some(id)))
}

/// The text of the template's resource for `id`.
pub fn template_text(id: &str) -> String {
    format!("The data of template resource {id}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a URI names: its fixture and its template id.
    type Named<'u> = Option<(Fixture, Option<&'u str>)>;

    #[test]
    fn resources_are_the_static_one_and_the_template_with_a_plain_id() {
        let max = "a".repeat(TEMPLATE_ID_BYTES_MAX);
        let at_max = format!("test://template/{max}/data");
        let long = format!("test://template/{max}a/data");
        let cases: [(&str, Named<'_>); 8] = [
            ("test://static-text", Some((Fixture::StaticResource, None))),
            ("test://template/123/data", Some((Fixture::TemplateResource, Some("123")))),
            ("test://template/a.b_c-d/data", Some((Fixture::TemplateResource, Some("a.b_c-d")))),
            ("test://template//data", None),
            ("test://template/1 2/data", None),
            ("test://template/123/data/x", None),
            (&at_max, Some((Fixture::TemplateResource, Some(&max)))),
            (&long, None),
        ];
        for (uri, expected) in cases {
            assert_eq!(resource(uri), expected, "{uri}");
        }
    }
}
