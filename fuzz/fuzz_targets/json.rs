//! Fuzzes the strict JSON decoder: no panic or stack overflow on any bytes, and every accepted
//! input is valid UTF-8 whose value survives encode → decode unchanged (and encodes to the same
//! text again).
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::json;
use loopback_mcp_http::limits::Limits;

fuzz_target!(|data: &[u8]| {
    let depth = Limits::DEFAULT.json_depth_max;
    let Ok(value) = json::decode(data, depth) else {
        return;
    };
    assert!(std::str::from_utf8(data).is_ok());
    let text = json::encode(&value);
    let again = json::decode(text.as_bytes(), depth).expect("the encoder's output decodes");
    assert_eq!(again, value);
    assert_eq!(json::encode(&again), text);
});
