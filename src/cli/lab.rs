//! `lab`: change one thing in a correct request, predict the status, and compare.
//!
//! Each experiment is a row of data: a name, what it tries (words that give no answer away), an
//! explanation and its [`Step`]s (see `case`): a correct baseline request, then the same request
//! with one change, each with its prediction (status, plus the public error code or the header
//! that matters), and any state change in between. Each runs against a fresh in-process server
//! and shows, for every request, the prediction and what came back. `lab list` names the
//! experiments and what each tries, `lab run <name>` runs one, `lab run all` runs them all in
//! table order. An experiment that only drives a browser traces nothing of its own, so `all`
//! starts it beside the others at once and prints it in its turn: the table lists it last, when
//! it has long finished. The last line on stdout is a JSON summary; the exit status is nonzero
//! when any observation differs from its prediction.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::trace::TraceMode;
use loopback_mcp_http::mcp::PROTOCOL_VERSION;

use super::args::Flags;
use super::ask::Asking;
use super::case::{
    Action, BrowserProbe, Case, Change, Expect, Key, Message, Modern, Observation, Request, Sender,
    Step, Text,
};
use super::catalogue;
use super::scene::Scene;
use super::watch::StreamCheck;
use loopback_mcp_http::client::modern::Opened;
use loopback_mcp_http::mcp::revision::{Era, Versions};

/// One experiment.
struct Experiment {
    name: &'static str,
    /// What is sent or done, in words that give away no answer: what `lab list` and `--ask`
    /// show before anything is observed.
    tried: &'static str,
    /// Why it comes out as it does: the answer.
    explanation: &'static str,
    steps: &'static [Step],
}

impl Experiment {
    /// True when a step drives a real browser.
    fn needs_browser(&self) -> bool {
        self.steps.iter().any(|step| matches!(step, Step::Browser(_)))
    }

    /// True when every step drives a real browser: the experiment opens no session and sends
    /// nothing itself, so it traces nothing.
    fn browser_only(&self) -> bool {
        self.steps.iter().all(|step| matches!(step, Step::Browser(_)))
    }
}

const fn baseline(what: &'static str, sender: Sender, request: Request, expect: Expect) -> Step {
    Step::Baseline(Case { what, sender, request, expect })
}

const fn changed(what: &'static str, sender: Sender, request: Request, expect: Expect) -> Step {
    Step::Check(Case { what, sender, request, expect })
}

/// Alice's well-formed ping on her live session: the baseline most experiments change.
const PING_BASELINE: Step = baseline(
    "a well-formed ping",
    Sender::Alice,
    Request::post(Message::Ping, &[]),
    Expect::status(200),
);

/// A ping with one change, predicted to get `expect`.
const fn ping_with(what: &'static str, changes: &'static [Change], expect: Expect) -> Step {
    changed(what, Sender::Alice, Request::post(Message::Ping, changes), expect)
}

const INVALID_TOKEN: Expect = Expect::challenge(401, &[("error", "invalid_token")]);
const ANSWERS_CURRENT: Expect = Expect::body(200, r#""protocolVersion":"2025-11-25""#);

const EXPERIMENTS: [Experiment; 25] = [
    Experiment {
        name: "accept-without-sse",
        tried: "A ping whose Accept lists application/json but not text/event-stream.",
        explanation: "A POST must list both application/json and text/event-stream in Accept; without the stream type the server answers 406.",
        steps: &[PING_BASELINE, Step::Check(catalogue::ACCEPT_JSON_ONLY.case())],
    },
    Experiment {
        name: "content-type-text-plain",
        tried: "A ping whose body is declared text/plain.",
        explanation: "A POST body must be declared application/json: 415. This is this project's hardening rule, not a MUST of the transport specification.",
        steps: &[PING_BASELINE, Step::Check(catalogue::TEXT_PLAIN.case())],
    },
    Experiment {
        name: "missing-protocol-version",
        tried: "A ping in a live session without its MCP-Protocol-Version header.",
        explanation: "After initialize every request carries MCP-Protocol-Version: 2025-11-25; without it: 400.",
        steps: &[PING_BASELINE, Step::Check(catalogue::VERSION_MISSING.case())],
    },
    Experiment {
        name: "missing-session-id",
        tried: "A ping without its MCP-Session-Id header.",
        explanation: "Every request after initialize carries the session id; without it: 400 (a stale or unknown one would be 404).",
        steps: &[PING_BASELINE, Step::Check(catalogue::NO_SESSION.case())],
    },
    Experiment {
        name: "later-revision",
        tried: "Proposing 2026-07-28 to the default server: in initialize's body, then in the MCP-Protocol-Version header.",
        explanation: "2026-07-28 is the later revision, outside the default server's wire contract. Proposing it in the initialize body is not an error: the server answers with 2025-11-25 and the client decides. Naming it in the MCP-Protocol-Version header is a plain 400.",
        steps: &[
            baseline(
                "initialize proposing 2025-11-25",
                Sender::Alice,
                Request::post(Message::Initialize(PROTOCOL_VERSION), &[Change::OutsideSession]),
                ANSWERS_CURRENT,
            ),
            changed(
                "initialize proposing 2026-07-28",
                Sender::Alice,
                Request::post(Message::Initialize("2026-07-28"), &[Change::OutsideSession]),
                ANSWERS_CURRENT,
            ),
            ping_with(
                "MCP-Protocol-Version: 2026-07-28",
                &[Change::Set("MCP-Protocol-Version", Text::Lit("2026-07-28"))],
                Expect::code(400, "protocol_version_unsupported"),
            ),
        ],
    },
    Experiment {
        name: "metadata-per-authority",
        tried: "The protected-resource metadata and /mcp asked for under the localhost name of the same server.",
        explanation: "The metadata names the resource http://127.0.0.1:<port>/mcp, so it is served only under that authority: the localhost alias of the same server gets 421, and no response pairs a URL with a document naming another resource.",
        steps: &[
            baseline(
                "discovery at 127.0.0.1:<port>",
                Sender::Alice,
                Request::discovery(&[]),
                Expect::body(200, r#""resource":"http://127.0.0.1:"#),
            ),
            changed(
                "discovery at localhost:<port>",
                Sender::Alice,
                Request::discovery(&[Change::Set(
                    "Host",
                    Text::Join(&[Text::Lit("localhost:"), Text::Port]),
                )]),
                Expect::code(421, "host_not_canonical"),
            ),
            changed(
                "the MCP endpoint at localhost:<port>",
                Sender::Alice,
                Request::post(
                    Message::Ping,
                    &[Change::Set("Host", Text::Join(&[Text::Lit("localhost:"), Text::Port]))],
                ),
                Expect::code(421, "host_not_canonical"),
            ),
        ],
    },
    Experiment {
        name: "token-in-query",
        tried: "A ping with a token in the URL's query string.",
        explanation: "A token never travels in a URL: any query string is refused (400), and the refusal does not repeat it.",
        steps: &[PING_BASELINE, Step::Check(catalogue::TOKEN_IN_QUERY.case())],
    },
    Experiment {
        name: "other-subject-session",
        tried: "Alice's session named with another subject's valid token.",
        explanation: "A session belongs to the principal that opened it. Another subject's valid token with it gets 404, exactly like a session that does not exist: no disclosure of ownership.",
        steps: &[
            baseline(
                "alice's token, alice's session",
                Sender::Alice,
                Request::post(Message::Ping, &[]),
                Expect::status(200),
            ),
            Step::Check(catalogue::OTHER_PRINCIPAL.case()),
        ],
    },
    Experiment {
        name: "scope-vs-invalid-token",
        tried: "resources/list with a token short of a scope, then with tokens that are no good here.",
        explanation: "A valid token without the needed scope is 403 insufficient_scope with the scopes to ask for; a token that is not valid here is 401 invalid_token. Only the first invites a step-up.",
        steps: &[
            baseline(
                "resources/list with both scopes",
                Sender::Alice,
                Request::post(Message::ListResources, &[]),
                Expect::status(200),
            ),
            changed(
                "a token with mcp:connect only",
                Sender::Narrow,
                Request::post(Message::ListResources, &[]),
                Expect::challenge(
                    403,
                    &[("error", "insufficient_scope"), ("scope", "mcp:connect resources:read")],
                ),
            ),
            changed(
                "an expired token",
                Sender::Alice,
                Request::post(Message::ListResources, &[Change::Bearer(Role::Expired)]),
                INVALID_TOKEN,
            ),
        ],
    },
    Experiment {
        name: "rfc8707-resource-elsewhere",
        tried: "Tokens whose authorization request or token request named another server as the resource.",
        explanation: "A token is accepted only if both the authorization request and the token request named this server as the RFC 8707 resource; either naming another server gives 401, with the same challenge.",
        steps: &[
            baseline(
                "both requests named this server",
                Sender::Alice,
                Request::post(Message::Ping, &[]),
                Expect::status(200),
            ),
            Step::CheckEachRole(
                &[Role::WrongAuthorizationResource, Role::WrongTokenResource],
                Case {
                    what: "a token whose RFC 8707 resource was elsewhere",
                    sender: Sender::Alice,
                    request: Request::post(Message::Ping, &[]),
                    expect: INVALID_TOKEN,
                },
            ),
        ],
    },
    Experiment {
        name: "revoke-or-revision-then-reuse",
        tried: "A live session's next ping after its token is revoked, or after its principal's authorization revision changes.",
        explanation: "Revocation and a new authorization revision take effect on the very next request, even on a session that is still alive: 401.",
        steps: &[
            baseline(
                "ping on a live session",
                Sender::Narrow,
                Request::post(Message::Ping, &[]),
                Expect::status(200),
            ),
            Step::Do(Action::Revoke(Role::ConnectOnly)),
            changed(
                "the same, after revoke",
                Sender::Narrow,
                Request::post(Message::Ping, &[]),
                INVALID_TOKEN,
            ),
            Step::Do(Action::BumpRevision(Role::OtherSubject)),
            changed(
                "another subject's ping, after a revision change",
                Sender::Mallory,
                Request::post(Message::Ping, &[]),
                INVALID_TOKEN,
            ),
        ],
    },
    Experiment {
        name: "last-event-id",
        tried: "Last-Event-ID on a GET stream: the session's own cursor, then another session's event id.",
        explanation: "Last-Event-ID resumes the stream its id belongs to, from the position it names: the GET stream's cursor returns only the later events; another session's id is refused and replays nothing.",
        steps: &[
            Step::Do(Action::PollStream(Sender::Alice)),
            Step::Do(Action::ListResources(Sender::Alice)),
            Step::Do(Action::PollStream(Sender::AliceSecond)),
            baseline(
                "Last-Event-ID of this session's GET stream",
                Sender::Alice,
                Request::get(&[Change::With("Last-Event-ID", Text::GetEventOf(Sender::Alice))]),
                Expect::events("prime notification"),
            ),
            changed(
                "Last-Event-ID of another session",
                Sender::Alice,
                Request::get(&[Change::With(
                    "Last-Event-ID",
                    Text::GetEventOf(Sender::AliceSecond),
                )]),
                Expect::code(400, "last_event_id_other_session"),
            ),
        ],
    },
    Experiment {
        name: "stream-resumption",
        tried: "A tool call whose stream ends after its priming event, then a GET that names that event's id.",
        explanation: "Every event stream opens with a priming event (an id, retry and empty data). test_reconnection's stream ends right after it, so its result is owed; a GET with that id as Last-Event-ID resumes the stream: a new priming event, the call's notification and its result, at new positions. After the result, the stream owes nothing: 204. Another session cannot resume it.",
        steps: &[
            Step::Wire(Case {
                what: "tools/call test_reconnection: prime, then the stream ends",
                sender: Sender::Alice,
                request: Request::post(Message::CallReconnectionTool, &[]),
                expect: Expect::events("prime"),
            }),
            Step::Wire(Case {
                what: "GET with the priming event's id as Last-Event-ID",
                sender: Sender::Alice,
                request: Request::get(&[Change::With(
                    "Last-Event-ID",
                    Text::LastEventOf(Sender::Alice),
                )]),
                expect: Expect::events("prime notification response"),
            }),
            changed(
                "the same cursor from another session",
                Sender::AliceSecond,
                Request::get(&[Change::With("Last-Event-ID", Text::LastEventOf(Sender::Alice))]),
                Expect::code(400, "last_event_id_other_session"),
            ),
            changed(
                "GET with the result's id as Last-Event-ID",
                Sender::Alice,
                Request::get(&[Change::With("Last-Event-ID", Text::LastEventOf(Sender::Alice))]),
                Expect::status(204),
            ),
        ],
    },
    Experiment {
        name: "chunked-body",
        tried: "A ping whose body is in the chunked coding, to a server without --chunked and to one with it; then a malformed chunk size.",
        explanation: "The same ping with its body in the chunked coding: a server without --chunked refuses it before reading a body byte (501), one with --chunked decodes it and answers as for Content-Length. A malformed chunk size (0x2) is refused with 400 and the connection closes; Content-Length bodies are unchanged.",
        steps: &[
            PING_BASELINE,
            ping_with(
                "the body in chunks of 8 bytes, without --chunked",
                &[Change::Chunked(8)],
                Expect::code(501, "transfer_encoding_chunked"),
            ),
            Step::Do(Action::ServeChunked),
            Step::Wire(Case {
                what: "the same chunked ping, under --chunked",
                sender: Sender::Alice,
                request: Request::post(Message::Ping, &[Change::Chunked(8)]),
                expect: Expect::status(200),
            }),
            changed(
                "a chunk size written 0x2, under --chunked",
                Sender::Alice,
                Request::raw(
                    "POST /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n",
                ),
                Expect::code(400, "chunk_size_byte"),
            ),
            ping_with("the Content-Length ping, under --chunked", &[], Expect::status(200)),
        ],
    },
    Experiment {
        name: "two-eras-side-by-side",
        tried: "The same tools/list in 2025-11-25 and in 2026-07-28, on a server that speaks both.",
        explanation: "The same tools/list in both revisions, on a server that speaks both. 2025-11-25 rides a session: MCP-Session-Id names it and MCP-Protocol-Version repeats what initialize settled. 2026-07-28 has no session: each body carries its own _meta (the version, the client's capabilities, its name), and Mcp-Method repeats the method in the head, for a proxy that routes without reading bodies.",
        steps: &[
            Step::Do(Action::ServeVersions(Versions::ALL)),
            Step::Wire(Case {
                what: "tools/list in Alice's 2025-11-25 session",
                sender: Sender::Alice,
                request: Request::post(Message::ListTools, &[]),
                expect: Expect::body(200, r#""name":"test_reconnection""#),
            }),
            Step::Wire(Case {
                what: "tools/list in 2026-07-28",
                sender: Sender::Alice,
                request: Request::modern(Modern::ToolsList, &[]),
                expect: Expect::body(200, r#""x-mcp-header":"Tenant""#),
            }),
        ],
    },
    Experiment {
        name: "header-body-mismatch",
        tried: "A 2026-07-28 tool call whose Mcp-Param-Tenant header disagrees with its body.",
        explanation: "In 2026-07-28 a header may repeat a body field: tenant_documents marks its tenant argument with x-mcp-header, so the client sends it again as Mcp-Param-Tenant. A proxy may route on the header while the server acts on the body; when they disagree the server refuses the request (400, -32020) instead of choosing one, as it refuses Content-Length against Transfer-Encoding.",
        steps: &[
            Step::Do(Action::ServeVersions(Versions::ALL)),
            Step::Do(Action::ListToolsModern(Sender::Alice)),
            baseline(
                "tenant_documents for acme, Mcp-Param-Tenant: acme",
                Sender::Alice,
                Request::modern(Modern::Mirrored("acme"), &[]),
                Expect::events("response"),
            ),
            Step::Wire(catalogue::PARAM_MISMATCH.case()),
        ],
    },
    Experiment {
        name: "base64-sentinel",
        tried: "A mirrored tool argument that is not plain ASCII, and one that only looks like the base64 sentinel.",
        explanation: "A mirrored value that is not plain visible ASCII travels as =?base64?...?=, and so does a plain value that only looks like the sentinel, or the server would decode it. Both calls below reach the tool, which answers tenant_not_found (neither is alice's tenant). The look-alike sent plain is decoded by the server to acme, which the body does not say: 400, -32020.",
        steps: &[
            Step::Do(Action::ServeVersions(Versions::ALL)),
            Step::Do(Action::ListToolsModern(Sender::Alice)),
            Step::Wire(catalogue::PARAM_SENTINEL.case()),
            Step::Wire(Case {
                what: "tenant \"=?base64?YWNtZQ==?=\": shaped like the sentinel, so encoded too",
                sender: Sender::Alice,
                request: Request::modern(Modern::Mirrored("=?base64?YWNtZQ==?="), &[]),
                expect: Expect::body(200, "tenant_not_found"),
            }),
            Step::Check(catalogue::PARAM_LOOKALIKE.case()),
        ],
    },
    Experiment {
        name: "era-probe",
        tried: "A client that speaks both revisions, opening against the default server and against one that speaks both.",
        explanation: "A client that speaks both revisions cannot know the server's era in advance, so it sends a modern request first. The default server answers with a 400 whose body is no modern error (not -32020, -32021 or -32022), and the client falls back to initialize. A server that speaks 2026-07-28 answers the probe and the client stays modern; a modern error would have kept it modern too.",
        steps: &[
            Step::Wire(catalogue::ERA_PROBE.case()),
            Step::Open("a dual-era client at the default server", Opened::FellBack),
            Step::Do(Action::ServeVersions(Versions::ALL)),
            Step::Wire(Case {
                what: "the same probe at a server that speaks both",
                sender: Sender::Alice,
                request: Request::modern(Modern::Discover, &[]),
                expect: Expect::body(200, r#""supportedVersions""#),
            }),
            Step::Open("a dual-era client at that server", Opened::Modern),
        ],
    },
    Experiment {
        name: "disconnect-means-cancel",
        tried: "A slow call whose client closes its stream after step 2, in each revision.",
        explanation: "The two revisions read a closed stream in opposite ways. The same slow call (count_slowly, six steps of 50 ms, with a progress token) is closed by its client after step 2. In 2026-07-28 closing the stream cancels the request: the server stops at the next step and the call is counted cancelled. In 2025-11-25 a disconnect is not a cancellation: the call finishes without a reader, and a GET with the last event id the client saw brings the rest and the result.",
        steps: &[
            Step::Watch(StreamCheck::CloseAfterTwo(Era::Modern)),
            Step::Watch(StreamCheck::CloseAfterTwo(Era::Legacy)),
        ],
    },
    Experiment {
        name: "quiet-stream-idle-timer",
        tried: "A stream with nothing to say for a while, without and with keep-alive comment lines.",
        explanation: "A client, a proxy or a load balancer drops a connection that stays silent longer than its idle timer, even when the response is still coming. A stream that sends an SSE comment line (: keep-alive) while it has nothing to say restarts every such timer, and every SSE reader skips the comment. The same slow call, quiet for 300 ms, read with a 200 ms idle timer: cut without keep-alives, whole with one every 50 ms (serve --stream-keepalive-secs sets the interval).",
        steps: &[
            Step::Watch(StreamCheck::IdleTimer { keepalives: false }),
            Step::Watch(StreamCheck::IdleTimer { keepalives: true }),
        ],
    },
    Experiment {
        name: "stream-framing-by-version",
        tried: "An open stream asked for in HTTP/1.1 and in HTTP/1.0.",
        explanation: "A stream written as it happens has no length to announce. To HTTP/1.1 it is the chunked transfer coding: a size line before each event, and a last chunk that tells a complete stream from a cut one, so the connection carries the next request. An HTTP/1.0 recipient does not know that coding (RFC 9112 section 6.1: a server MUST NOT send Transfer-Encoding unless the request is HTTP/1.1), so to HTTP/1.0 the same events go out as they are, and closing the connection ends the body (section 6.3). The same slow call, asked both ways: its bytes as they came.",
        steps: &[
            Step::Watch(StreamCheck::Framing { http10: false }),
            Step::Watch(StreamCheck::Framing { http10: true }),
        ],
    },
    Experiment {
        name: "listen-and-a-list-change",
        tried: "A subscriptions/listen stream held open while the tool list changes.",
        explanation: "subscriptions/listen (2026-07-28) is a POST whose response stays open: the acknowledgement comes first, then only the notifications the client opted in to, each tagged with the listen's id in _meta. Here the tool list changes while the listen is open, as control FILE change-tools makes it change, and the notification arrives on the stream.",
        steps: &[Step::Watch(StreamCheck::ListenAndChange)],
    },
    Experiment {
        name: "cancel-reaches-own-session",
        tried: "notifications/cancelled naming a request id that is in progress in two sessions.",
        explanation: "In 2025-11-25 a client cancels a request by POSTing notifications/cancelled with the request's id, in the session the request came in. Clients choose their ids, so two sessions may each have a request 95 in progress: an id means something only within its own session. Alice starts test_tool_slow (150 ms) and cancels it in her session: the call stops at its next step, and its stream ends after the priming event, with no result. Then Mallory names the same id from her own session while Alice's next call runs: 202 all the same (a cancellation never tells which ids are in progress), and Alice's call finishes with its result.",
        steps: &[
            Step::Check(catalogue::CANCEL_OWN_SESSION.case()),
            Step::Check(catalogue::CANCEL_OTHER_PRINCIPAL.case()),
        ],
    },
    Experiment {
        name: "step-up-one-challenge",
        tried: "Operations with a token short of one scope or several, on the conformance fixtures.",
        explanation: "A valid token may still lack what one operation needs: 403 insufficient_scope, with one challenge naming every scope the operation needs, so that a single step-up is enough (2026-07-28, Runtime Insufficient Scope Errors). On a server started with --conformance-fixtures, the suite's low token calls test_simple_text and is told both of its scopes at once. A scope can also depend on the request: the suite's full token holds the template scope of id 123 alone, so id 123 reads and id 456 gets a challenge that names template:456.",
        steps: &[
            Step::Do(Action::ServeConformance),
            baseline(
                "the full token calls test_simple_text",
                Sender::Alice,
                Request::modern(Modern::CallTool("test_simple_text"), &[catalogue::FULL_TOKEN]),
                Expect::body(200, "This is a simple text response for testing."),
            ),
            Step::Wire(catalogue::STEP_UP_SCOPES.case()),
            changed(
                "the full token reads template id 123",
                Sender::Alice,
                Request::modern(
                    Modern::ReadResource("test://template/123/data"),
                    &[catalogue::FULL_TOKEN],
                ),
                Expect::body(200, "The data of template resource 123."),
            ),
            Step::Check(catalogue::STEP_UP_ARGUMENT.case()),
        ],
    },
    Experiment {
        name: "dns-rebinding",
        tried: "A real browser page under a foreign name, and one from another loopback origin, posting to the server.",
        explanation: "Why the Host and Origin guards exist: a real browser (headless Chromium). A page under a foreign name that resolves to 127.0.0.1 reaches the server with that name in Host: 421. A page from another loopback origin may POST a simple request without asking: its Origin is not allowed, 403, and nothing is created. Skipped when Chromium is not installed.",
        steps: &[
            Step::Browser(BrowserProbe::Rebinding),
            Step::Browser(BrowserProbe::ForeignOrigin),
        ],
    },
];

/// Every experiment's name, in table order.
pub fn experiment_names() -> Vec<&'static str> {
    EXPERIMENTS.iter().map(|e| e.name).collect()
}

/// `lab list` and `lab run <name|all> [--trace | --trace-bytes]`: the words first, then the
/// flags.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let words = args.iter().take_while(|a| !a.starts_with("--")).count();
    let (args, flags) = args.split_at(words);
    let flags = Flags::parse_traced(flags, &[], &["ask"])?;
    let (trace, ask) = (flags.trace()?, flags.has("ask"));
    if ask && trace != TraceMode::Off {
        return Err("--ask shows each request itself: it takes no --trace".to_owned());
    }
    match args {
        [verb] if verb == "list" => {
            for experiment in &EXPERIMENTS {
                out!("{}", listed(experiment));
            }
            Ok(ExitCode::SUCCESS)
        }
        [verb, name] if verb == "run" => {
            let chosen: Vec<&Experiment> =
                EXPERIMENTS.iter().filter(|e| name == "all" || e.name == name).collect();
            if chosen.is_empty() {
                let mut names = experiment_names();
                names.push("all");
                let near = super::help::did_you_mean(name, &names);
                return Err(format!("no experiment {name:?}{near} (`lab list` names them)"));
            }
            if ask {
                let echo = !std::io::stdin().is_terminal();
                return Ok(run_asking(&chosen, Asking::new(std::io::stdin().lock(), echo)));
            }
            Ok(run_experiments(&chosen, trace))
        }
        [] => Err("lab needs list or run".to_owned()),
        [verb, ..] if verb == "run" => Err("lab run takes one experiment name, or all".to_owned()),
        [verb, ..] if verb == "list" => Err("lab list takes nothing more".to_owned()),
        [other, ..] => {
            let near = super::help::did_you_mean(other, &["list", "run"]);
            Err(format!("unknown lab verb {other:?}{near}"))
        }
    }
}

/// An experiment as `lab list` shows it: its name on a line, then what it tries, indented.
fn listed(experiment: &Experiment) -> String {
    format!("{}\n{}", experiment.name, wrapped("   ", experiment.tried))
}

/// `text` in lines of at most 100 columns, the first after `label`, the rest indented as deep.
fn wrapped(label: &str, text: &str) -> String {
    let indent = " ".repeat(label.chars().count());
    let mut out = String::new();
    let mut line = label.to_owned();
    for word in text.split(' ') {
        let width = line.chars().count();
        if width > indent.len() && width + 1 + word.chars().count() > 100 {
            out.push_str(&line);
            out.push('\n');
            line.clone_from(&indent);
        }
        if line.chars().count() > indent.len() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn run_experiments(chosen: &[&Experiment], trace: TraceMode) -> ExitCode {
    let mut tally = Tally::new(chosen.len());
    std::thread::scope(|scope| {
        // Chromium's start-up is most of a browser experiment's time, and browser steps print
        // no trace: such an experiment runs beside the others from the start, and is printed in
        // its turn.
        let early: Vec<_> = chosen
            .iter()
            .map(|&e| {
                (tally.browser && e.browser_only()).then(|| scope.spawn(move || run_one(e, trace)))
            })
            .collect();
        for (experiment, early) in chosen.iter().zip(early) {
            if !tally.begin(experiment, experiment.explanation) {
                continue;
            }
            let seen = match early {
                Some(running) => running.join().unwrap_or_else(|_| Err("it panicked".into())),
                None => run_one(experiment, trace),
            };
            match seen {
                Ok(seen) => seen.iter().for_each(|o| tally.observed(o)),
                Err(problem) => tally.failed(&problem),
            }
        }
    });
    tally.finish(&[])
}

/// `--ask`: each experiment in turn, each request shown and guessed before it is sent, and
/// why it came out so once its last answer is in; then how the guesses did.
fn run_asking<R: BufRead + 'static>(chosen: &[&Experiment], mut asking: Asking<R>) -> ExitCode {
    let tally = ask_each(chosen, &mut asking);
    tally.finish(&[("guesses", asking.asked as u64), ("right", asking.right as u64)])
}

/// The experiments of [`run_asking`], and the line on the guesses: the tally of the lab's own
/// predictions.
fn ask_each<R: BufRead + 'static>(chosen: &[&Experiment], asking: &mut Asking<R>) -> Tally {
    let mut tally = Tally::new(chosen.len());
    out!("{}", wrapped("   waits    ", super::ask::PATIENCE_TEXT));
    for experiment in chosen {
        if !tally.begin(experiment, experiment.tried) {
            continue;
        }
        let ran = asking.scene(experiment.steps).and_then(|mut scene| {
            for step in experiment.steps {
                for observation in scene.run(step)? {
                    asking.ensure_guess(&observation);
                    tally.observed(&observation);
                    asking.judge(&observation);
                }
            }
            Ok(())
        });
        if let Err(problem) = ran {
            tally.failed(&problem);
        }
        out!("{}", wrapped("   why      ", experiment.explanation));
    }
    // How the learner did, apart from the exit status, which counts the lab's own predictions.
    outln!("   your guesses: {} right of {}", asking.right, asking.asked);
    tally
}

/// The counts of a `lab run`, and what it prints about each experiment besides its steps.
struct Tally {
    chosen: usize,
    observations: usize,
    mismatches: usize,
    skipped: usize,
    /// Whether a browser was found: an experiment that needs one is skipped without.
    browser: bool,
}

impl Tally {
    fn new(chosen: usize) -> Tally {
        let browser = super::browser::chromium().is_some();
        Tally { chosen, observations: 0, mismatches: 0, skipped: 0, browser }
    }

    /// Prints the experiment's name and `words` (its explanation, or what it tries when the
    /// learner is to guess); false (and why) when it is skipped.
    fn begin(&mut self, experiment: &Experiment, words: &str) -> bool {
        outln!("== {}\n   {}", experiment.name, words);
        if experiment.needs_browser() && !self.browser {
            self.skipped += 1;
            outln!("   skipped: {}", super::browser::INSTALL_HINT);
            return false;
        }
        true
    }

    fn observed(&mut self, observation: &Observation) {
        self.observations += 1;
        self.mismatches += usize::from(!observation.matched);
        print_observation(observation);
    }

    fn failed(&mut self, problem: &str) {
        self.mismatches += 1;
        outln!("   could not run: {problem}");
    }

    /// The summary line, with `more` counts after the tally's own; the exit status.
    fn finish(self, more: &[(&'static str, u64)]) -> ExitCode {
        let verdict = if self.mismatches == 0 { "PASS" } else { "FAIL" };
        let mut counts = vec![
            ("experiments", (self.chosen - self.skipped) as u64),
            ("observations", self.observations as u64),
            ("mismatches", self.mismatches as u64),
            ("skipped", self.skipped as u64),
        ];
        counts.extend_from_slice(more);
        super::print_summary(&counts, None, verdict);
        if self.mismatches == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
    }
}

/// Every observation of one experiment, on a fresh server.
fn run_one(experiment: &Experiment, trace: TraceMode) -> Result<Vec<Observation>, String> {
    let mut scene = Scene::open(trace, experiment.steps)?;
    let mut seen = Vec::new();
    for step in experiment.steps {
        seen.extend(scene.run(step)?);
    }
    Ok(seen)
}

fn print_observation(o: &Observation) {
    let observed = o.status.map_or("no response".to_owned(), |s| s.to_string());
    let verdict = if o.matched { "as predicted" } else { "DIFFERENT" };
    let label = match (o.baseline, o.expect.key, o.wire.is_some()) {
        (true, _, _) => "baseline",
        (false, Key::Facts(_), _) => "watched",
        (false, _, true) => "step",
        (false, _, false) => "changed",
    };
    outln!("   {label:<8} {}", o.what);
    outln!("            predicted {}{}", o.expect.status, o.expect.key_text());
    outln!("            observed  {observed} {}   {verdict}", o.key_seen);
    if let Some(wire) = &o.wire {
        for line in wire.lines() {
            outln!("            | {line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loopback_mcp_http::limits::Limits;
    use std::collections::VecDeque;
    use std::io::Read;
    use std::time::{Duration, Instant};

    /// A learner who answers every prompt with `guess`, `delay` after it is shown.
    struct Slow {
        guess: &'static str,
        delay: Duration,
        line: VecDeque<u8>,
    }

    impl Read for Slow {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.fill_buf()?.len().min(out.len());
            for (slot, byte) in out.iter_mut().zip(self.line.drain(..n)) {
                *slot = byte;
            }
            Ok(n)
        }
    }

    impl BufRead for Slow {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            if self.line.is_empty() {
                std::thread::sleep(self.delay);
                self.line.extend(format!("{}\n", self.guess).bytes());
            }
            Ok(self.line.as_slices().0)
        }

        fn consume(&mut self, n: usize) {
            self.line.drain(..n);
        }
    }

    #[test]
    fn a_guess_slower_than_every_idle_deadline_gets_the_same_answers() {
        // Experiments whose requests ride kept connections and sessions opened before the first
        // guess, and a cancellation's slow call.
        let names = ["accept-without-sse", "revoke-or-revision-then-reuse", "last-event-id"];
        let names = [names.as_slice(), &["cancel-reaches-own-session", "two-eras-side-by-side"]];
        let chosen: Vec<&Experiment> =
            EXPERIMENTS.iter().filter(|e| names.concat().contains(&e.name)).collect();
        let idle = Duration::from_millis(100);
        let mut seen = Vec::new();
        for delay in [Duration::ZERO, idle * 3] {
            let mut asking = Asking::new(Slow { guess: "200", delay, line: VecDeque::new() }, true);
            *asking.limits() = Limits { connection_idle_timeout: idle, ..*asking.limits() };
            let started = Instant::now();
            let tally = ask_each(&chosen, &mut asking);
            assert_eq!(tally.mismatches, 0, "every prediction held after {delay:?}");
            assert!(delay.is_zero() || started.elapsed() > delay * asking.asked as u32);
            seen.push((tally.observations, asking.asked, asking.right));
        }
        assert_eq!(seen[0], seen[1], "(observations, asked, right) at once and after a pause");
        assert!(seen[0].2 > 0 && seen[0].2 < seen[0].1, "some guesses right, some wrong");
    }
}
