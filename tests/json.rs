//! The strict JSON decoder and encoder against must-accept and must-reject tables in the spirit
//! of JSONTestSuite (the `y_`, `n_` and `i_` naming is theirs: yes, no, implementation-defined,
//! where `i_` rows record the decision this project made).

use loopback_mcp_http::json::{self, JsonErrorKind, Number, Object, Value};
use loopback_mcp_http::limits::Limits;

const DEPTH: usize = Limits::DEFAULT.json_depth_max;

fn decode(input: &[u8]) -> Result<Value, json::JsonError> {
    json::decode(input, DEPTH)
}

/// Inputs that must decode, with the compact encoding the encoder gives back.
const MUST_ACCEPT: &[(&str, &[u8], &str)] = &[
    ("y_array_empty", b"[]", "[]"),
    ("y_array_arraysWithSpaces", b"[[]   ]", "[[]]"),
    ("y_array_heterogeneous", b"[null, 1, \"1\", {}]", "[null,1,\"1\",{}]"),
    ("y_array_with_several_null", b"[1,null,null,null,2]", "[1,null,null,null,2]"),
    ("y_array_with_trailing_space", b"[2] ", "[2]"),
    ("y_object_empty", b"{}", "{}"),
    ("y_object_empty_key", b"{\"\":0}", "{\"\":0}"),
    ("y_object_basic", b"{\"asd\":\"sdf\"}", "{\"asd\":\"sdf\"}"),
    ("y_object_sorted_on_output", b"{\"b\":1,\"a\":2}", "{\"a\":2,\"b\":1}"),
    ("y_object_same_key_different_case", b"{\"a\":1,\"A\":2}", "{\"A\":2,\"a\":1}"),
    ("y_object_escaped_keys_differ", b"{\"a\\u0000\":1,\"a\":2}", "{\"a\":2,\"a\\u0000\":1}"),
    ("y_object_with_newlines", b"{\n\"a\": \"b\"\n}", "{\"a\":\"b\"}"),
    ("y_number_0e1", b"[0e1]", "[0e1]"),
    ("y_number_negative_zero", b"[-0]", "[-0]"),
    ("y_number_real_capital_e_pos_exp", b"[1E+2]", "[1E+2]"),
    ("y_number_real_fraction_exponent", b"[123.456e78]", "[123.456e78]"),
    ("y_number_simple_real", b"[123.456789]", "[123.456789]"),
    ("i_number_huge_exp", b"[0.4e00669999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999969999999006]", "[0.4e00669999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999969999999006]"),
    ("i_number_very_big_negative_int", b"[-237462374673276894279832749832423479823246327846]", "[-237462374673276894279832749832423479823246327846]"),
    ("y_string_allowed_escapes", b"[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", "[\"\\\"\\\\/\\b\\f\\n\\r\\t\"]"),
    ("y_string_escaped_control_character", b"[\"\\u0012\"]", "[\"\\u0012\"]"),
    ("y_string_escaped_noncharacter", b"[\"\\uFFFF\"]", "[\"\u{ffff}\"]"),
    ("y_string_surrogates_U+1D11E_MUSICAL_SYMBOL_G_CLEF", b"[\"\\uD834\\uDd1e\"]", "[\"\u{1d11e}\"]"),
    ("y_string_utf8", b"[\"\xe2\x82\xac\xf0\x9d\x84\x9e\"]", "[\"\u{20ac}\u{1d11e}\"]"),
    ("y_string_nbsp_uescaped", b"[\"new\\u00A0line\"]", "[\"new\u{a0}line\"]"),
    ("y_string_null_escape", b"[\"\\u0000\"]", "[\"\\u0000\"]"),
    ("y_string_with_del_character", b"[\"a\x7fa\"]", "[\"a\x7fa\"]"),
    ("y_string_u+2028_line_sep", b"[\"\xe2\x80\xa8\"]", "[\"\u{2028}\"]"),
    ("y_string_comments", b"[\"a/*b*/c/*d//e\"]", "[\"a/*b*/c/*d//e\"]"),
    ("y_structure_lonely_false", b"false", "false"),
    ("y_structure_lonely_int", b"42", "42"),
    ("y_structure_lonely_negative_real", b"-0.1", "-0.1"),
    ("y_structure_lonely_null", b"null", "null"),
    ("y_structure_lonely_string", b"\"asd\"", "\"asd\""),
    ("y_structure_lonely_true", b"true", "true"),
    ("y_structure_whitespace_array", b" \t\r\n[]\n", "[]"),
    ("y_structure_true_in_array", b"[true]", "[true]"),
    ("y_jsonrpc_ping", b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"ping\"}"),
];

/// Inputs that must be refused, with the kind of error.
const MUST_REJECT: &[(&str, &[u8], JsonErrorKind)] = &[
    ("n_structure_no_data", b"", JsonErrorKind::UnexpectedEnd),
    ("n_structure_whitespace_only", b" \n", JsonErrorKind::UnexpectedEnd),
    ("n_array_1_true_without_comma", b"[1 true]", JsonErrorKind::UnexpectedByte),
    ("n_array_comma_after_close", b"[\"\"],", JsonErrorKind::TrailingBytes),
    ("n_array_extra_comma", b"[\"\",]", JsonErrorKind::UnexpectedByte),
    ("n_array_double_comma", b"[1,,2]", JsonErrorKind::UnexpectedByte),
    ("n_array_just_comma", b"[,]", JsonErrorKind::UnexpectedByte),
    ("n_array_unclosed", b"[\"\"", JsonErrorKind::UnexpectedEnd),
    ("n_array_unclosed_trailing_comma", b"[1,", JsonErrorKind::UnexpectedEnd),
    ("n_array_colon_instead_of_comma", b"[\"\": 1]", JsonErrorKind::UnexpectedByte),
    ("n_array_star_inside", b"[*]", JsonErrorKind::UnexpectedByte),
    ("n_object_trailing_comma", b"{\"id\":0,}", JsonErrorKind::UnexpectedByte),
    ("n_object_missing_colon", b"{\"a\" b}", JsonErrorKind::UnexpectedByte),
    ("n_object_missing_value", b"{\"a\":", JsonErrorKind::UnexpectedEnd),
    ("n_object_non_string_key", b"{1:1}", JsonErrorKind::UnexpectedByte),
    ("n_object_single_quote", b"{'a':0}", JsonErrorKind::UnexpectedByte),
    ("n_object_unquoted_key", b"{a: \"b\"}", JsonErrorKind::UnexpectedByte),
    ("n_object_with_trailing_garbage", b"{\"a\": true} \"x\"", JsonErrorKind::TrailingBytes),
    ("n_object_duplicated_key", b"{\"a\":\"b\",\"a\":\"c\"}", JsonErrorKind::DuplicateKey),
    (
        "n_object_duplicated_key_and_value",
        b"{\"a\":\"b\",\"a\":\"b\"}",
        JsonErrorKind::DuplicateKey,
    ),
    (
        "n_object_duplicated_key_nested",
        b"{\"p\":{\"x\":1,\"y\":2,\"x\":3}}",
        JsonErrorKind::DuplicateKey,
    ),
    ("n_object_duplicated_key_escaped", b"{\"a\":1,\"\\u0061\":2}", JsonErrorKind::DuplicateKey),
    (
        "n_object_duplicated_method",
        b"{\"method\":\"ping\",\"id\":1,\"method\":\"initialize\"}",
        JsonErrorKind::DuplicateKey,
    ),
    ("n_number_NaN", b"[NaN]", JsonErrorKind::UnexpectedByte),
    ("n_number_infinity", b"[Infinity]", JsonErrorKind::UnexpectedByte),
    ("n_number_minus_infinity", b"[-Infinity]", JsonErrorKind::InvalidNumber),
    ("n_number_leading_zero", b"[012]", JsonErrorKind::LeadingZero),
    ("n_number_negative_leading_zero", b"[-01]", JsonErrorKind::LeadingZero),
    ("n_number_plus_1", b"[+1]", JsonErrorKind::UnexpectedByte),
    ("n_number_starting_with_dot", b"[.123]", JsonErrorKind::UnexpectedByte),
    ("n_number_real_without_fractional_part", b"[1.]", JsonErrorKind::InvalidNumber),
    ("n_number_2.e3", b"[2.e3]", JsonErrorKind::InvalidNumber),
    ("n_number_exponent_without_digits", b"[1e]", JsonErrorKind::InvalidNumber),
    ("n_number_0_capital_E+", b"[0E+]", JsonErrorKind::InvalidNumber),
    ("n_number_minus_sign_only", b"[-]", JsonErrorKind::InvalidNumber),
    ("n_number_hex", b"[0x1]", JsonErrorKind::UnexpectedByte),
    ("n_number_with_alpha", b"[1.2a-3]", JsonErrorKind::UnexpectedByte),
    ("n_string_single_quote", b"['single quote']", JsonErrorKind::UnexpectedByte),
    ("n_string_unescaped_newline", b"[\"new\nline\"]", JsonErrorKind::ControlInString),
    ("n_string_unescaped_tab", b"[\"\t\"]", JsonErrorKind::ControlInString),
    ("n_string_unescaped_nul", b"[\"a\x00a\"]", JsonErrorKind::ControlInString),
    ("n_string_escape_x", b"[\"\\x00\"]", JsonErrorKind::InvalidEscape),
    ("n_string_invalid_unicode_escape", b"[\"\\uqqqq\"]", JsonErrorKind::InvalidEscape),
    ("n_string_incomplete_escape", b"[\"\\\"]", JsonErrorKind::UnexpectedEnd),
    ("n_string_incomplete_surrogate_escape", b"[\"\\uD834\\uDd\"]", JsonErrorKind::InvalidEscape),
    ("n_string_unterminated", b"[\"a", JsonErrorKind::UnexpectedEnd),
    ("i_string_1st_surrogate_but_2nd_missing", b"[\"\\uDADA\"]", JsonErrorKind::LoneSurrogate),
    ("i_string_lone_second_surrogate", b"[\"\\uDFAA\"]", JsonErrorKind::LoneSurrogate),
    ("i_string_incomplete_surrogate_pair", b"[\"\\uDd1ea\"]", JsonErrorKind::LoneSurrogate),
    ("i_string_inverted_surrogates_U+1D11E", b"[\"\\uDd1e\\uD834\"]", JsonErrorKind::LoneSurrogate),
    ("i_string_high_then_non_low", b"[\"\\uD834\\u0041\"]", JsonErrorKind::LoneSurrogate),
    (
        "i_string_UTF-8_invalid_sequence",
        b"[\"\xe6\x97\xa5\xd1\x88\xfa\"]",
        JsonErrorKind::InvalidUtf8,
    ),
    ("i_string_overlong_sequence_2_bytes", b"[\"\xc0\xaf\"]", JsonErrorKind::InvalidUtf8),
    ("i_string_UTF8_surrogate_U+D800", b"[\"\xed\xa0\x80\"]", JsonErrorKind::InvalidUtf8),
    ("i_string_invalid_utf-8_outside_string", b"[\xff]", JsonErrorKind::InvalidUtf8),
    ("i_structure_UTF-8_BOM_empty_object", b"\xef\xbb\xbf{}", JsonErrorKind::UnexpectedByte),
    ("n_structure_comment", b"[1] // comment", JsonErrorKind::TrailingBytes),
    ("n_structure_block_comment", b"[/* c */ 1]", JsonErrorKind::UnexpectedByte),
    ("n_structure_capitalized_True", b"[True]", JsonErrorKind::UnexpectedByte),
    ("n_structure_incomplete_true", b"[tru]", JsonErrorKind::InvalidLiteral),
    ("n_structure_null_byte_outside_string", b"[\x00]", JsonErrorKind::UnexpectedByte),
    ("n_structure_trailing_null_byte", b"{}\x00", JsonErrorKind::TrailingBytes),
    ("n_structure_double_array", b"[][]", JsonErrorKind::TrailingBytes),
    ("n_structure_unclosed_object", b"{\"a\":1", JsonErrorKind::UnexpectedEnd),
    ("n_structure_vertical_tab_whitespace", b"[\x0b1]", JsonErrorKind::UnexpectedByte),
    ("n_structure_form_feed_whitespace", b"[\x0c]", JsonErrorKind::UnexpectedByte),
    ("n_structure_u+2060_word_joiner", b"[\xe2\x81\xa0]", JsonErrorKind::UnexpectedByte),
    ("n_structure_close_unopened_array", b"1]", JsonErrorKind::TrailingBytes),
    ("n_structure_object_with_array_close", b"{\"a\":1]", JsonErrorKind::UnexpectedByte),
    ("n_structure_array_with_object_close", b"[1}", JsonErrorKind::UnexpectedByte),
];

#[test]
fn must_accept_rows_decode_and_encode_exactly() {
    for (name, input, encoded) in MUST_ACCEPT {
        let value = decode(input).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(json::encode(&value), *encoded, "{name}");
        assert_eq!(decode(encoded.as_bytes()).as_ref(), Ok(&value), "{name}: round trip");
    }
}

#[test]
fn must_reject_rows_fail_with_the_expected_kind() {
    for (name, input, kind) in MUST_REJECT {
        match decode(input) {
            Err(error) => assert_eq!(error.kind, *kind, "{name}: {error}"),
            Ok(value) => panic!("{name}: accepted as {value:?}"),
        }
    }
}

#[test]
fn error_offsets_point_at_the_deciding_byte() {
    let cases: [(&[u8], usize); 8] = [
        (b"[1,]", 3),
        (b"{\"a\":1,\"a\":2}", 7),
        (b"[012]", 1),
        (b"[\"\\uDADA\"]", 2),
        (b"[\"ok\xff\"]", 4),
        (b"[1] x", 4),
        (b"[\"a\nb\"]", 3),
        (b"  ", 2),
    ];
    for (input, offset) in cases {
        assert_eq!(
            decode(input).unwrap_err().offset,
            offset,
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn a_hundred_thousand_open_brackets_are_an_error_not_a_stack_overflow() {
    for opener in [b'[', b'{'] {
        let input = if opener == b'[' { vec![b'['; 100_000] } else { b"{\"a\":".repeat(100_000) };
        let error = decode(&input).unwrap_err();
        assert_eq!(error.kind, JsonErrorKind::DepthLimit { limit: DEPTH });
    }
    // Deep but valid nesting is only refused past the budget.
    let deep = [vec![b'['; DEPTH], vec![b']'; DEPTH]].concat();
    assert!(decode(&deep).is_ok());
}

#[test]
fn encoder_escapes_every_control_character() {
    for c in 0u32..0x20 {
        let s: String = char::from_u32(c).into_iter().collect();
        let encoded = json::encode(&Value::from(s.clone()));
        assert!(encoded.bytes().all(|b| b >= 0x20), "{c:#x}: {encoded:?}");
        assert_eq!(decode(encoded.as_bytes()), Ok(Value::from(s)));
    }
}

#[test]
fn values_built_in_code_round_trip() {
    let mut inner = Object::new();
    inner.insert("quote\"back\\slash".into(), Value::from("tab\tnul\u{0}é😀"));
    inner.insert(String::new().into(), Value::Array(vec![Value::Null, Value::Bool(false)]));
    let mut outer = Object::new();
    outer.insert("n".into(), Value::Number(Number::parse("-1.5e-7").unwrap()));
    outer.insert("i".into(), Value::from(i64::MIN));
    outer.insert("id".into(), Value::from(-0i64));
    outer.insert(String::from("jsonrpc").into(), Value::Number(Number::parse("-0").unwrap()));
    outer.insert("u".into(), Value::from(u64::MAX));
    outer.insert("o".into(), Value::Object(inner));
    let values = [
        Value::Null,
        Value::from(""),
        Value::Array(vec![]),
        Value::Object(Object::new()),
        Value::Object(outer),
    ];
    for value in values {
        assert_eq!(decode(json::encode(&value).as_bytes()), Ok(value));
    }
}

#[test]
fn deep_values_built_in_code_encode_without_recursion() {
    let mut value = Value::Null;
    for _ in 0..100_000 {
        value = Value::Array(vec![value]);
    }
    let encoded = json::encode(&value);
    assert_eq!(encoded.len(), 2 * 100_000 + 4);
    // Dismantle iteratively: the derived Drop would recurse once per level.
    let mut current = value;
    while let Value::Array(mut items) = current {
        current = items.pop().unwrap_or(Value::Null);
    }
}
