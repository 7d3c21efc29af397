//! Fuzzes the strict JSON decoder: no panic or stack overflow on any bytes, and every accepted
//! input is valid UTF-8 whose value survives encode → decode unchanged (and encodes to the same
//! text again). Also the flat-envelope fast path of a request body: whatever it takes, the
//! decoder and the message rules take to an equal message, under every depth budget up to 2.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::json;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::flat::flat_message;
use loopback_mcp_http::mcp::jsonrpc::Message;

fuzz_target!(|data: &[u8]| {
    let depth = Limits::DEFAULT.json_depth_max;
    for budget in [0, 1, 2, depth] {
        if let Some(fast) = flat_message(data, budget, json::no_words) {
            let slow = json::decode(data, budget).ok().map(Message::from_value);
            assert_eq!(slow, Some(Ok(fast)), "the fast path disagrees under depth {budget}");
        }
    }
    let Ok(value) = json::decode(data, depth) else {
        return;
    };
    assert!(std::str::from_utf8(data).is_ok());
    let text = json::encode(&value);
    let again = json::decode(text.as_bytes(), depth).expect("the encoder's output decodes");
    assert_eq!(again, value);
    assert_eq!(json::encode(&again), text);
});
