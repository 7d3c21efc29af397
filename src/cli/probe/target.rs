//! The server a probe URL names, on this machine only: `http://127.0.0.1:PORT/path` or
//! `http://localhost:PORT/path`, never resolved (localhost is 127.0.0.1 here). The probe sends
//! hostile bytes, so anything else is refused before a connection is made. The port is 1 to
//! 65535 in digits alone (RFC 3986 §3.2.3), and `Host` is written canonically: the host in
//! lowercase, the port without leading zeros.
//!
//! Not here: what is sent there (`peer`).

use std::net::SocketAddr;

use super::peer::Target;

/// Why a URL names no server the probe may reach.
const ONLY: &str = "the probe sends hostile bytes, so only to this machine: http://127.0.0.1:PORT/path or http://localhost:PORT/path";

/// The most digits a port takes before its value is read (leading zeros included).
const PORT_DIGITS_MAX: usize = 5;

/// Why a URL names no server on this machine, with the part that decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Off {
    Https,
    NotHttp,
    NoPort,
    OtherHost(String),
    BadPort(String),
}

/// An `http://` URL on this machine, split: its authority written canonically, its port, and
/// what follows the authority (`/` when nothing does). A link the probe follows is read by the
/// same rules as the URL it probes.
pub fn split(url: &str) -> Result<(String, u16, &str), Off> {
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(if url.starts_with("https://") { Off::Https } else { Off::NotHttp });
    };
    let (authority, path) = rest.find('/').map_or((rest, "/"), |at| (&rest[..at], &rest[at..]));
    let (host, port) = authority.rsplit_once(':').ok_or(Off::NoPort)?;
    let host = host.to_ascii_lowercase();
    if host != "127.0.0.1" && host != "localhost" {
        return Err(Off::OtherHost(host));
    }
    let port = port_number(port).ok_or_else(|| Off::BadPort(port.to_owned()))?;
    Ok((format!("{host}:{port}"), port, path))
}

/// The server named by a URL on this machine.
pub fn loopback_target(url: &str) -> Result<Target, String> {
    let (authority, port, path) = split(url).map_err(|off| match off {
        Off::Https | Off::NotHttp => format!("{url:?} is not an http:// URL; {ONLY}"),
        Off::NoPort => format!("{url:?} names no port; {ONLY}"),
        Off::OtherHost(host) => format!("{host:?} is not this machine; {ONLY}"),
        Off::BadPort(port) => format!("{port:?} is not a port from 1 to 65535; {ONLY}"),
    })?;
    if path.contains(['?', '#']) || !path.bytes().all(|b| b.is_ascii_graphic()) {
        // Not repeated: a query may hold a token.
        return Err("the URL's path takes no query, fragment or space".into());
    }
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    Ok(Target { address, authority, path: path.to_owned() })
}

/// A port: ASCII digits alone, 1 to 65535.
fn port_number(text: &str) -> Option<u16> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let short = text.trim_start_matches('0').len() <= PORT_DIGITS_MAX;
    let value: u32 = if digits && short { text.parse().ok()? } else { return None };
    u16::try_from(value).ok().filter(|p| *p != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_urls_on_this_machine_are_probed_with_their_host_written_canonically() {
        type Named = Result<(&'static str, &'static str), &'static str>;
        let cases: [(&str, Named); 16] = [
            ("http://127.0.0.1:8000/mcp", Ok(("127.0.0.1:8000", "/mcp"))),
            ("http://localhost:3000/", Ok(("localhost:3000", "/"))),
            ("http://localhost:3000", Ok(("localhost:3000", "/"))),
            ("http://LocalHost:03000/mcp", Ok(("localhost:3000", "/mcp"))),
            ("http://127.0.0.1:65535/mcp", Ok(("127.0.0.1:65535", "/mcp"))),
            ("http://127.0.0.1:000000080/mcp", Ok(("127.0.0.1:80", "/mcp"))),
            ("http://127.0.0.1:65536/mcp", Err("is not a port")),
            ("http://127.0.0.1:+80/mcp", Err("is not a port")),
            ("http://127.0.0.1:-80/mcp", Err("is not a port")),
            ("http://127.0.0.1: 80/mcp", Err("is not a port")),
            ("http://127.0.0.1:/mcp", Err("is not a port")),
            ("http://example.invalid:80/mcp", Err("is not this machine")),
            ("https://127.0.0.1:8000/mcp", Err("is not an http:// URL")),
            ("http://127.0.0.1/mcp", Err("names no port")),
            ("http://127.0.0.1:0/mcp", Err("is not a port")),
            ("http://127.0.0.1:8000/mcp?x=1", Err("no query")),
        ];
        for (url, expected) in cases {
            match (loopback_target(url), expected) {
                (Ok(t), Ok((authority, path))) => {
                    assert_eq!((t.authority.as_str(), t.path.as_str()), (authority, path), "{url}");
                    assert_eq!(t.address.to_string(), format!("127.0.0.1:{}", t.address.port()));
                }
                (Err(e), Err(part)) => assert!(e.contains(part), "{url}: {e}"),
                (got, _) => panic!("{url}: {got:?}"),
            }
        }
    }
}
