//! Protected-resource metadata found as an MCP client finds it: the `resource_metadata` the 401's
//! `Bearer` challenge names (RFC 9728 §5.1), then the well-known URI with the endpoint's path
//! inserted, then the root one (RFC 9728 §3.1; MCP, authorization: Protected Resource Metadata
//! Discovery). The link is followed only when it names this server: `http://`, the probed host
//! (or the other name of this machine) and the probed port. Anything else is reported as not
//! followed, and no connection is made.
//!
//! Not here: the rows that judge what was found (`across`).

use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::json::{self, Value};

use super::judge::{self, Outcome};
use super::peer::Peer;
use super::shown;
use super::target::{self, Off};
use super::wire::Exchange;
use crate::cli::case::Sender;

/// The well-known path of protected-resource metadata (RFC 9728 §3).
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What one GET of a metadata URL gave.
#[derive(Clone, Debug)]
pub struct Fetched {
    /// What came back, in the grid's words.
    pub observed: String,
    /// The document: a 200 whose body is a JSON object.
    pub document: Option<Value>,
}

/// What the challenge's link led to.
#[derive(Clone, Debug)]
pub enum Link {
    /// No 401 with a `Bearer` challenge naming `resource_metadata`.
    Absent,
    /// It names somewhere the probe does not go.
    NotFollowed(&'static str),
    Followed(Fetched),
}

/// Everything the walk found.
#[derive(Clone, Debug)]
pub struct Found {
    pub link: Link,
    pub path_inserted: Fetched,
    pub root: Fetched,
}

/// The walk: the link from `challenge` (the answer to a request without credentials), then
/// both well-known URIs.
pub fn walk(peer: &mut Peer, challenge: Option<&Exchange>) -> Found {
    let named = challenge
        .and_then(|c| judge::bearer(c.head.as_ref()))
        .and_then(|c| c.param("resource_metadata").map(str::to_owned));
    let port = peer.target.address.port();
    let link = match named.map(|url| follows(port, &url)) {
        None => Link::Absent,
        Some(Err(why)) => Link::NotFollowed(why),
        Some(Ok((authority, target))) => Link::Followed(fetch(peer, &authority, &target)),
    };
    let authority = peer.target.authority.clone();
    let path = match peer.target.path.as_str() {
        "/" => String::new(),
        path => path.to_owned(),
    };
    let path_inserted = fetch(peer, &authority, &format!("{WELL_KNOWN}{path}"));
    let root = fetch(peer, &authority, WELL_KNOWN);
    Found { link, path_inserted, root }
}

/// The authority and request target of a link that names this server, on `port`; why not,
/// otherwise.
pub fn follows(port: u16, url: &str) -> Result<(String, String), &'static str> {
    let url = url.split('#').next().unwrap_or_default();
    let (authority, named, target) = target::split(url).map_err(|off| match off {
        Off::Https => "an https URL, and the probe speaks plain HTTP",
        Off::NotHttp => "not an http URL",
        Off::NoPort => "a URL without this server's port",
        Off::OtherHost(_) => "another host",
        Off::BadPort(_) => "another port",
    })?;
    if named != port {
        return Err("another port");
    }
    if !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("a path the probe does not send");
    }
    Ok((authority, target.to_owned()))
}

/// A GET of `target` under `authority`, with `Host` and nothing else.
fn fetch(peer: &mut Peer, authority: &str, target: &str) -> Fetched {
    let spec = RequestSpec {
        method: "GET".into(),
        target: target.to_owned(),
        fields: vec![("Host".into(), authority.to_owned())],
        body: Vec::new(),
    };
    let exchange = peer.send(Sender::Alice, &spec.bytes());
    let status = exchange.head.as_ref().map(|h| h.status);
    let document = json::decode(&exchange.body, 64)
        .ok()
        .filter(|d| status == Some(200) && d.as_object().is_some());
    Fetched { observed: shown::observed(&exchange), document }
}

impl Found {
    /// The first document in MCP's order, and where it was found.
    fn first(&self) -> Option<(&Value, &'static str)> {
        let link = match &self.link {
            Link::Followed(fetched) => fetched.document.as_ref().map(|d| (d, "by the link")),
            Link::Absent | Link::NotFollowed(_) => None,
        };
        link.or_else(|| {
            self.path_inserted.document.as_ref().map(|d| (d, "at the path-inserted URI"))
        })
        .or_else(|| self.root.document.as_ref().map(|d| (d, "at the root URI")))
    }

    /// The link yields the document.
    pub fn link(&self) -> Outcome {
        match &self.link {
            Link::Absent => Outcome::Aside("the 401 names no resource_metadata".into()),
            Link::NotFollowed(why) => Outcome::Aside(format!("not followed: {why}")),
            Link::Followed(fetched) => Outcome::Kept(
                fetched.document.is_some(),
                format!("the link was answered {}", fetched.observed),
            ),
        }
    }

    /// A well-known URI yields it.
    pub fn well_known(&self) -> Outcome {
        match (&self.path_inserted.document, &self.root.document) {
            (Some(_), _) => Outcome::Kept(true, "at the path-inserted URI".into()),
            (None, Some(_)) => Outcome::Kept(
                true,
                "at the root URI (the path-inserted one answered no document)".into(),
            ),
            (None, None) => Outcome::Kept(
                false,
                format!(
                    "the path-inserted URI was answered {}; the root one {}",
                    self.path_inserted.observed, self.root.observed
                ),
            ),
        }
    }

    /// One of the three yields it.
    pub fn discoverable(&self) -> Outcome {
        match self.first() {
            Some((_, by)) => Outcome::Kept(true, format!("found {by}")),
            None => Outcome::Kept(
                false,
                "neither the link nor either well-known URI yields a document".into(),
            ),
        }
    }

    /// The first document's `resource` is `endpoint`.
    pub fn resource(&self, endpoint: &str) -> Outcome {
        let Some((document, by)) = self.first() else {
            return Outcome::Aside("no document was found".into());
        };
        match document.get("resource").and_then(Value::as_str) {
            Some(resource) if resource == endpoint => {
                Outcome::Kept(true, format!("the document found {by} names the endpoint"))
            }
            Some(other) => Outcome::Kept(
                false,
                format!("the document found {by} names another resource ({} B)", other.len()),
            ),
            None => Outcome::Kept(false, format!("the document found {by} has no resource")),
        }
    }

    /// The first document lists an authorization server.
    pub fn authorization_servers(&self) -> Outcome {
        let Some((document, by)) = self.first() else {
            return Outcome::Aside("no document was found".into());
        };
        let servers = document.get("authorization_servers").and_then(Value::as_array);
        let named = servers.map_or(0, |list| list.iter().filter(|s| s.as_str().is_some()).count());
        match named {
            0 => Outcome::Kept(false, format!("the document found {by} lists none")),
            n => Outcome::Kept(true, format!("the document found {by} lists {n}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_followed_only_to_this_server() {
        type Followed = Result<(&'static str, &'static str), &'static str>;
        let cases: [(&str, Followed); 9] = [
            ("http://127.0.0.1:8/.well-known/x/mcp", Ok(("127.0.0.1:8", "/.well-known/x/mcp"))),
            ("http://LOCALHOST:008/m?a=1#f", Ok(("localhost:8", "/m?a=1"))),
            ("http://127.0.0.1:8", Ok(("127.0.0.1:8", "/"))),
            ("https://127.0.0.1:8/m", Err("an https URL, and the probe speaks plain HTTP")),
            ("http://example.invalid:8/m", Err("another host")),
            ("http://127.0.0.2:8/m", Err("another host")),
            ("http://127.0.0.1:9/m", Err("another port")),
            ("http://127.0.0.1:+8/m", Err("another port")),
            ("ftp://127.0.0.1:8/m", Err("not an http URL")),
        ];
        for (url, expected) in cases {
            let got = follows(8, url);
            let got = got.as_ref().map(|(a, t)| (a.as_str(), t.as_str())).map_err(|e| *e);
            assert_eq!(got, expected, "{url}");
        }
    }
}
