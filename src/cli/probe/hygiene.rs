//! The rules judged across every answer: no refusal repeats a distinctive value its request
//! carried (or a session id), no answer carries a token, none carries a stack trace or a file
//! path. Pure: each exchange is shown to [`Hygiene::observe`], and the findings say which case
//! broke a rule first, never the secret itself.
//!
//! Not here: the rows that send requests (`judge`).

use super::wire::Exchange;

/// Values the catalogue's hostile requests carry that a server has no reason to repeat.
/// (Not the 2026-era version a `-32022` names as `requested`: the specification asks for it.)
const MARKERS: [&str; 8] = [
    "evil.example",
    "probe-session-never-issued",
    "probe-session-ended",
    "probe-other-tool",
    "1999-01-01",
    "not-a-token",
    "globex",
    "=?base64?",
];

/// What gives a stack trace or a server's file layout away.
const TRACE_SIGNS: [&str; 9] = [
    "Traceback (most recent call last)",
    "node_modules/",
    ".py\", line ",
    "/home/",
    "/usr/lib/",
    "/usr/local/",
    "/root/",
    "panicked at ",
    "at Object.<anonymous>",
];

/// The first finding of each kind, and how many answers had one.
#[derive(Debug, Default)]
pub struct Hygiene {
    echo: Finding,
    token: Finding,
    trace: Finding,
}

#[derive(Debug, Default)]
struct Finding {
    first: Option<String>,
    count: usize,
}

impl Finding {
    fn note(&mut self, what: String) {
        self.count += 1;
        self.first.get_or_insert(what);
    }

    /// Whether nothing was found, and a line that says what was.
    fn result(&self, clean: &str) -> (bool, String) {
        match &self.first {
            None => (true, clean.to_owned()),
            Some(first) if self.count == 1 => (false, first.clone()),
            Some(first) => (false, format!("{first}, and {} more answers", self.count - 1)),
        }
    }
}

impl Hygiene {
    /// Looks at one exchange of the case `case`; `tokens` and `sessions` are the secrets it may
    /// not repeat.
    pub fn observe(
        &mut self,
        case: &str,
        request: &[u8],
        exchange: &Exchange,
        tokens: &[&str],
        sessions: &[&str],
    ) {
        let Some(head) = &exchange.head else { return };
        let body = String::from_utf8_lossy(&exchange.body);
        let raw = String::from_utf8_lossy(&exchange.raw);
        if tokens.iter().any(|t| !t.is_empty() && raw.contains(t)) {
            self.token.note(format!("the token came back in the answer to {case}"));
        }
        if let Some(sign) = TRACE_SIGNS.iter().find(|s| body.contains(*s)) {
            self.trace.note(format!("{sign:?} in the answer to {case}"));
        }
        if head.status < 400 {
            return;
        }
        let sent = String::from_utf8_lossy(request);
        let marker = MARKERS.iter().find(|m| sent.contains(*m) && body.contains(*m));
        let session =
            sessions.iter().any(|s| !s.is_empty() && sent.contains(s) && body.contains(s));
        match (marker, session) {
            (Some(marker), _) => self.echo.note(format!("{case}: the refusal repeats {marker:?}")),
            (None, true) => self.echo.note(format!("{case}: the refusal repeats the session id")),
            (None, false) => {}
        }
    }

    /// Whether no refusal repeated a value, and what was seen.
    pub fn echo(&self) -> (bool, String) {
        self.echo.result("no refusal repeated a value it was sent")
    }

    pub fn token(&self) -> (bool, String) {
        self.token.result("no answer carried a token")
    }

    pub fn trace(&self) -> (bool, String) {
        self.trace.result("no answer carried a stack trace or a file path")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::probe::answer;

    fn exchange(raw: &str) -> Exchange {
        let head = answer::head(raw.as_bytes()).unwrap().unwrap();
        let body = raw.as_bytes()[head.len..].to_vec();
        Exchange { head: Some(head), body, raw: raw.as_bytes().to_vec(), ..Exchange::default() }
    }

    #[test]
    fn findings_name_the_case_and_never_the_secret() {
        let mut hygiene = Hygiene::default();
        let echoed = "HTTP/1.1 403 Forbidden\r\n\r\nOrigin http://evil.example is not allowed";
        let traced = "HTTP/1.1 500 Error\r\n\r\n<pre>Error\n    at Object.<anonymous> (/home/app/node_modules/x.js:1)</pre>";
        let leaked = "HTTP/1.1 200 OK\r\nX-Debug: tok123456\r\n\r\n{}";
        let ok = "HTTP/1.1 400 Bad Request\r\n\r\n{\"error\":\"origin_not_allowed\"}";
        hygiene.observe(
            "foreign Origin",
            b"Origin: http://evil.example",
            &exchange(echoed),
            &["tok123456"],
            &[],
        );
        hygiene.observe("NaN", b"NaN", &exchange(traced), &["tok123456"], &[]);
        hygiene.observe(
            "ping",
            b"Authorization: Bearer tok123456",
            &exchange(leaked),
            &["tok123456"],
            &[],
        );
        hygiene.observe(
            "foreign Origin",
            b"Origin: http://evil.example",
            &exchange(ok),
            &["tok123456"],
            &[],
        );
        assert_eq!(
            hygiene.echo(),
            (false, "foreign Origin: the refusal repeats \"evil.example\"".into())
        );
        assert_eq!(hygiene.trace(), (false, "\"node_modules/\" in the answer to NaN".into()));
        assert_eq!(hygiene.token(), (false, "the token came back in the answer to ping".into()));
        assert!(!format!("{hygiene:?}").contains("tok123456"));
        assert!(Hygiene::default().echo().0);
    }
}
