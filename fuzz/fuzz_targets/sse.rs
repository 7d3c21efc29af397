//! Fuzzes SSE both ways.
//!
//! Raw bytes go to the stream parser, whole and split in two at a point taken from the input:
//! no panic, the same verdict either way, and every event it accepts re-encodes and parses back
//! identically. The same bytes also describe events (through `arbitrary`): whatever the encoder
//! agrees to write must parse back to exactly those events.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::limits::{BYTES_CEILING, COUNT_CEILING, Limits};
use loopback_mcp_http::sse::{self, Event, SseParser};

#[derive(Arbitrary, Debug)]
struct EventDescription {
    id: Option<String>,
    event: Option<String>,
    data: Option<String>,
    retry: Option<u64>,
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
    for d in descriptions {
        let event = Event { id: d.id, event: d.event, data: d.data, retry: d.retry };
        if sse::encode_event(&event, small.sse_event_bytes_max, &mut encoded).is_ok() {
            written.push(event);
        }
    }
    assert_eq!(sse::parse_stream(&encoded, &small), Ok(written));
});
