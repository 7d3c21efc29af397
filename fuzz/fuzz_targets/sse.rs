//! Fuzzes SSE both ways.
//!
//! Raw bytes go to the stream parser, whole and split in two at a point taken from the input:
//! no panic, the same verdict either way, and every event it accepts re-encodes and parses back
//! identically. The same bytes also describe events (through `arbitrary`), priming events among
//! them: whatever the encoder agrees to write must parse back to exactly those events, and a
//! priming event is exactly `id: <id>`, `retry: <ms>`, `data:` and an empty line, each line
//! ending in LF, which parses
//! back to that id and retry with empty data.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::limits::{BYTES_CEILING, COUNT_CEILING, Limits};
use loopback_mcp_http::sse::{self, Event, EventRef, SseParser};

#[derive(Arbitrary, Debug)]
enum EventDescription {
    Any { id: Option<String>, event: Option<String>, data: Option<String>, retry: Option<u64> },
    Priming { id: String, retry: u64 },
}

fn parse_split(data: &[u8], split: usize, limits: &Limits) -> Result<Vec<Event>, sse::SseError> {
    let mut parser = SseParser::new(limits);
    let mut events = Vec::new();
    parser.push(&data[..split], &mut events)?;
    parser.push(&data[split..], &mut events)?;
    parser.finish()?;
    Ok(events)
}

fuzz_target!(|data: &[u8]| {
    let limits = Limits::DEFAULT;
    let whole = sse::parse_stream(data, &limits);
    let split = data.first().map_or(0, |&b| usize::from(b) * data.len() / 256);
    assert_eq!(parse_split(data, split, &limits), whole);
    // Re-encoding may lengthen an event ("data:x" becomes "data: x"), so the round trip of
    // parsed events is checked with the budgets at their ceilings; the budget itself is checked
    // below.
    let unbounded = Limits {
        sse_event_bytes_max: BYTES_CEILING,
        response_bytes_max: BYTES_CEILING,
        sse_stream_events_max: COUNT_CEILING,
        ..limits
    };
    if let Ok(events) = &whole {
        let mut encoded = Vec::new();
        for event in events {
            sse::encode_event(event, unbounded.sse_event_bytes_max, &mut encoded)
                .expect("a parsed event can be encoded");
        }
        assert_eq!(sse::parse_stream(&encoded, &unbounded).as_ref(), Ok(events));
    }

    // Whatever the encoder agrees to write within the budget, the parser reads back exactly
    // under the same budget.
    let mut input = Unstructured::new(data);
    let Ok(descriptions) = Vec::<EventDescription>::arbitrary(&mut input) else {
        return;
    };
    let small = Limits { sse_event_bytes_max: 64, ..unbounded };
    let mut encoded = Vec::new();
    let mut written = Vec::new();
    for description in descriptions {
        let event = match description {
            EventDescription::Any { id, event, data, retry } => Event { id, event, data, retry },
            EventDescription::Priming { id, retry } => {
                let before = encoded.len();
                let priming = EventRef::priming(&id, retry);
                if sse::encode(priming, small.sse_event_bytes_max, &mut encoded).is_err() {
                    continue;
                }
                // (An empty id is written `id:` alone, like every empty value.)
                let id_line = if id.is_empty() { "id:".to_owned() } else { format!("id: {id}") };
                let exact = format!("{id_line}\nretry: {retry}\ndata:\n\n");
                assert_eq!(&encoded[before..], exact.as_bytes());
                written.push(Event {
                    id: Some(id),
                    event: None,
                    data: Some(String::new()),
                    retry: Some(retry),
                });
                continue;
            }
        };
        if sse::encode_event(&event, small.sse_event_bytes_max, &mut encoded).is_ok() {
            written.push(event);
        }
    }
    assert_eq!(sse::parse_stream(&encoded, &small), Ok(written));
});
