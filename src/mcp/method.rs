//! The MCP methods a client may send this server: one enum, [`McpMethod`], and one row of decisions
//! per method, [`McpMethod::row`].
//!
//! A method name is parsed once, into a [`MethodName`]: a known method of the message's kind, or
//! a name this server does not implement as such (a request then gets -32601, a notification is
//! accepted and ignored). Every decision about a method comes from [`McpMethod::row`], one `match`
//! with no default arm: the access its token needs, when in a session's life it may come, whether
//! it is a request (and then how it is answered) or a notification, the capability that
//! advertises it, and the protocol revisions that offer it (from one, until one or for good: a
//! new revision offers what the one before it offers). A method added to the list below
//! does not compile until its row is written, nor until every `match` on [`McpMethod`] elsewhere
//! (the endpoint's dispatch) handles it.
//!
//! The words a decoded message shares instead of copying ([`shared_word`]) live here too: the
//! JSON codec takes them as an argument and knows no protocol word itself.
//!
//! Not here: what a method does (the endpoint's business), or which token grants an access (the
//! token policy's).

use super::conformance::Fixture;
use super::revision::{Era, Offered, Revision};

/// Declares [`McpMethod`] from one list of variants and their wire names: the enum, [`McpMethod::ALL`],
/// [`McpMethod::name`] and [`McpMethod::from_name`] all come from the same list.
macro_rules! methods {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// A method a client may call or notify.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum McpMethod {
            $($(#[$doc])* $variant,)*
        }

        impl McpMethod {
            /// Every method, in the order of the list.
            pub const ALL: [McpMethod; [$($name),*].len()] = [$(McpMethod::$variant),*];

            /// The method's name on the wire.
            pub const fn name(self) -> &'static str {
                match self {
                    $(McpMethod::$variant => $name,)*
                }
            }

            /// The method of a wire name, if it is one.
            pub fn from_name(name: &str) -> Option<McpMethod> {
                match name {
                    $($name => Some(McpMethod::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

methods! {
    /// Opens a session.
    Initialize = "initialize",
    /// Answers an empty result: the one request allowed before `notifications/initialized`.
    Ping = "ping",
    /// Ends the handshake: requests other than `ping` are allowed from then on.
    NotificationsInitialized = "notifications/initialized",
    /// The client gave up on a request of its own.
    NotificationsCancelled = "notifications/cancelled",
    /// The tenant's knowledge-base documents.
    ResourcesList = "resources/list",
    /// The fixture's tools.
    ToolsList = "tools/list",
    /// Calls one of them.
    ToolsCall = "tools/call",
    /// Sets the level of the session's `notifications/message`.
    LoggingSetLevel = "logging/setLevel",
    /// What the server speaks: its versions, capabilities and identity.
    ServerDiscover = "server/discover",
    /// Opens a stream of the notifications the client opts in to; it stays open.
    SubscriptionsListen = "subscriptions/listen",
    /// Reads a resource: here the conformance suite's two fixtures alone.
    ResourcesRead = "resources/read",
    /// Gets a prompt: here the conformance suite's fixture alone.
    PromptsGet = "prompts/get",
}

/// The method of the notifications the server sends with a log message.
pub const NOTIFICATIONS_MESSAGE: &str = "notifications/message";
/// The method of a step of a request that asked for progress with a `progressToken`.
pub const NOTIFICATIONS_PROGRESS: &str = "notifications/progress";
/// The first message of a `subscriptions/listen` stream: the filter the server honours.
pub const NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED: &str =
    "notifications/subscriptions/acknowledged";
/// The list of tools changed.
pub const NOTIFICATIONS_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// What a method needs from its caller's token. The endpoint turns each into the scopes the
/// token policy checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Taking part in a session (`mcp:connect`).
    Connect,
    /// Reading the tenant's resources, which also passes the tenant ACL.
    ReadResources,
    /// Reaching one of the conformance suite's fixtures: the two scopes of its own.
    Fixture(Fixture),
}

/// What a server offers a request: the revision it is judged in, and whether the server was
/// started with the conformance suite's fixtures (some rows exist only then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    pub revision: Revision,
    pub fixtures: bool,
}

impl Offer {
    /// A revision's offer without the fixtures.
    pub const fn plain(revision: Revision) -> Offer {
        Offer { revision, fixtures: false }
    }
}

/// When in a session's life a method may come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifecycle {
    /// It opens the session, so it carries no session id.
    Opens,
    /// Any time in a live session, before `notifications/initialized` too.
    Anytime,
    /// Only once the session is initialized.
    Initialized,
}

/// How a request is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyForm {
    /// One `application/json` response.
    Json,
    /// An event stream: a priming event, then what the request produces.
    EventStream,
}

/// Whether a method is a request (with an id, and answered) or a notification (202, no body).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Request(ReplyForm),
    Notification,
}

/// The capabilities `initialize` advertises, each for the methods whose rows name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Capability {
    Logging,
    Prompts,
    Resources,
    Tools,
}

impl Capability {
    /// Every capability, in the order the result lists them (their names' order).
    pub const ALL: [Capability; 4] =
        [Capability::Logging, Capability::Prompts, Capability::Resources, Capability::Tools];

    /// The capability's key in the `capabilities` object.
    pub const fn name(self) -> &'static str {
        match self {
            Capability::Logging => "logging",
            Capability::Prompts => "prompts",
            Capability::Resources => "resources",
            Capability::Tools => "tools",
        }
    }
}

/// The body field a 2026-07-28 request mirrors into its `Mcp-Name` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameSource {
    /// `params.name` (a tool's or a prompt's name).
    Name,
    /// `params.uri` (a resource's).
    Uri,
}

impl NameSource {
    /// The params member it names.
    pub const fn member(self) -> &'static str {
        match self {
            NameSource::Name => "name",
            NameSource::Uri => "uri",
        }
    }
}

/// Every decision about one method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub access: Access,
    pub lifecycle: Lifecycle,
    pub kind: Kind,
    /// What its `Mcp-Name` header mirrors, in the modern era (none: the header is not read).
    pub mcp_name: Option<NameSource>,
    /// The capability whose presence in `initialize`'s result tells a client the method exists.
    pub capability: Option<Capability>,
    /// The revisions in which the method exists.
    pub offered: Offered,
    /// It exists only on a server started with the conformance suite's fixtures.
    pub fixture: bool,
    /// Its access is its target's (the tool, resource or prompt `mcp_name` names), not its own.
    pub access_by_target: bool,
}

impl McpMethod {
    /// Every decision about this method.
    pub const fn row(self) -> Row {
        use Access::{Connect, ReadResources};
        use Kind::{Notification, Request};
        use Lifecycle::{Anytime, Initialized, Opens};
        let json = Request(ReplyForm::Json);
        let stream = Request(ReplyForm::EventStream);
        // Sessions came with 2025-11-25 and went with 2026-07-28.
        let legacy = Offered::only(Revision::V2025_11_25);
        let both = Offered::since(Revision::V2025_11_25);
        let modern = Offered::since(Revision::V2026_07_28);
        let (access, lifecycle, kind, capability, offered) = match self {
            McpMethod::Initialize => (Connect, Opens, json, None, legacy),
            McpMethod::Ping => (Connect, Anytime, json, None, legacy),
            McpMethod::NotificationsInitialized => (Connect, Anytime, Notification, None, legacy),
            McpMethod::NotificationsCancelled => (Connect, Anytime, Notification, None, legacy),
            McpMethod::ResourcesList => {
                (ReadResources, Initialized, stream, Some(Capability::Resources), both)
            }
            McpMethod::ToolsList => (Connect, Initialized, json, Some(Capability::Tools), both),
            McpMethod::ToolsCall => (Connect, Initialized, stream, Some(Capability::Tools), both),
            McpMethod::LoggingSetLevel => {
                (Connect, Initialized, json, Some(Capability::Logging), legacy)
            }
            McpMethod::ServerDiscover => (Connect, Anytime, json, None, modern),
            McpMethod::SubscriptionsListen => (Connect, Anytime, stream, None, modern),
            // The conformance suite's step-up fixtures, which it checks in 2026-07-28 requests.
            McpMethod::ResourcesRead => {
                (Connect, Initialized, json, Some(Capability::Resources), modern)
            }
            McpMethod::PromptsGet => {
                (Connect, Initialized, json, Some(Capability::Prompts), modern)
            }
        };
        let fixture = matches!(self, McpMethod::ResourcesRead | McpMethod::PromptsGet);
        let mcp_name = match self {
            McpMethod::ToolsCall | McpMethod::PromptsGet => Some(NameSource::Name),
            McpMethod::ResourcesRead => Some(NameSource::Uri),
            McpMethod::Initialize
            | McpMethod::Ping
            | McpMethod::NotificationsInitialized
            | McpMethod::NotificationsCancelled
            | McpMethod::ResourcesList
            | McpMethod::ToolsList
            | McpMethod::LoggingSetLevel
            | McpMethod::ServerDiscover
            | McpMethod::SubscriptionsListen => None,
        };
        let access_by_target = mcp_name.is_some();
        Row { access, lifecycle, kind, mcp_name, capability, offered, fixture, access_by_target }
    }

    /// Whether `offer` has this method: its revision, and the fixtures when the row needs them.
    pub fn offered_in(self, offer: Offer) -> bool {
        let row = self.row();
        row.offered.includes(offer.revision) && (offer.fixtures || !row.fixture)
    }

    /// Whether `offer` advertises `capability`: some method it offers names it, or, for logging
    /// in the modern era, a request may ask for log messages in its `_meta`.
    pub fn advertised(capability: Capability, offer: Offer) -> bool {
        let by_method = McpMethod::ALL
            .iter()
            .any(|m| m.offered_in(offer) && m.row().capability == Some(capability));
        let by_meta = match (capability, offer.revision.era()) {
            (Capability::Logging, Era::Modern) => true,
            (Capability::Logging, Era::Legacy)
            | (
                Capability::Prompts | Capability::Resources | Capability::Tools,
                Era::Legacy | Era::Modern,
            ) => false,
        };
        by_method || by_meta
    }
}

/// The method a message names, parsed once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodName {
    /// A request's method, and how it is answered.
    Request(McpMethod, ReplyForm),
    /// A notification's method.
    Notification(McpMethod),
    /// A name that is no method of the message's kind here: a request gets -32601, a
    /// notification is accepted and ignored.
    Unknown,
}

impl MethodName {
    /// What a request (a message with an id) names in `offer`.
    pub fn of_request(name: &str, offer: Offer) -> MethodName {
        let offered = McpMethod::from_name(name).filter(|m| m.offered_in(offer));
        match offered.map(|method| (method, method.row().kind)) {
            Some((method, Kind::Request(answer))) => MethodName::Request(method, answer),
            Some((_, Kind::Notification)) | None => MethodName::Unknown,
        }
    }

    /// What a notification (a message without an id) names in `offer`.
    pub fn of_notification(name: &str, offer: Offer) -> MethodName {
        let offered = McpMethod::from_name(name).filter(|m| m.offered_in(offer));
        match offered.map(|method| (method, method.row().kind)) {
            Some((method, Kind::Notification)) => MethodName::Notification(method),
            Some((_, Kind::Request(_))) | None => MethodName::Unknown,
        }
    }

    /// The access the message needs: a known method's, and the least for an unknown name (it
    /// reaches nothing, and a request then gets -32601 in its session).
    pub const fn access(self) -> Access {
        match self {
            MethodName::Request(method, _) | MethodName::Notification(method) => {
                method.row().access
            }
            MethodName::Unknown => Access::Connect,
        }
    }
}

/// Declares [`shared_word`] from a list of words.
macro_rules! words {
    ($($word:literal),* $(,)?) => {
        /// The JSON-RPC and MCP words other than method names: keys, and the version strings.
        fn message_word(text: &str) -> Option<&'static str> {
            match text {
                $($word => Some($word),)*
                _ => None,
            }
        }
    };
}

words!(
    "2.0",
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "code",
    "message",
    "data",
    "protocolVersion",
    "capabilities",
    "clientInfo",
    "serverInfo",
    "name",
    "title",
    "version",
    "level",
    "logger",
    "cursor",
    "nextCursor",
    "resources",
    "uri",
    "mimeType",
    "description",
    "instructions",
    "_meta",
    "progressToken",
    "roots",
    "sampling",
    "elicitation",
    "experimental",
    "listChanged",
    "subscribe",
    "logging",
    "tools",
    "prompts",
    "resultType",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
);

/// The static copy of `text` when it is one of MCP's words (a key, a method name, a protocol
/// version), for a decoder that shares such words instead of copying them.
pub fn shared_word(text: &str) -> Option<&'static str> {
    if let Some(revision) = Revision::from_name(text.as_bytes()) {
        return Some(revision.name());
    }
    message_word(text).or_else(|| McpMethod::from_name(text).map(McpMethod::name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_reads_back_from_its_name_and_no_two_share_one() {
        for method in McpMethod::ALL {
            assert_eq!(McpMethod::from_name(method.name()), Some(method));
        }
        let mut names: Vec<&str> = McpMethod::ALL.iter().map(|m| m.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), McpMethod::ALL.len());
    }

    #[test]
    fn a_name_is_known_only_for_its_own_kind() {
        let cases: [(&str, MethodName, MethodName); 5] = [
            ("ping", MethodName::Request(McpMethod::Ping, ReplyForm::Json), MethodName::Unknown),
            (
                "notifications/initialized",
                MethodName::Unknown,
                MethodName::Notification(McpMethod::NotificationsInitialized),
            ),
            (
                "resources/list",
                MethodName::Request(McpMethod::ResourcesList, ReplyForm::EventStream),
                MethodName::Unknown,
            ),
            ("Ping", MethodName::Unknown, MethodName::Unknown),
            ("server/discover", MethodName::Unknown, MethodName::Unknown),
        ];
        let legacy = Offer::plain(Revision::V2025_11_25);
        for (name, as_request, as_notification) in cases {
            assert_eq!(MethodName::of_request(name, legacy), as_request, "{name}");
            assert_eq!(MethodName::of_notification(name, legacy), as_notification, "{name}");
        }
    }

    #[test]
    fn only_resources_list_reads_tenant_data() {
        for method in McpMethod::ALL {
            let expected = if method == McpMethod::ResourcesList {
                Access::ReadResources
            } else {
                Access::Connect
            };
            assert_eq!(method.row().access, expected, "{method:?}");
        }
        assert_eq!(MethodName::Unknown.access(), Access::Connect);
    }

    #[test]
    fn shared_words_are_the_static_copies_and_nothing_else() {
        let cases: [(&str, Option<&str>); 6] = [
            ("jsonrpc", Some("jsonrpc")),
            ("tools/call", Some("tools/call")),
            ("2025-11-25", Some("2025-11-25")),
            ("Method", None),
            ("ping ", None),
            ("x", None),
        ];
        for (text, expected) in cases {
            assert_eq!(shared_word(text), expected, "{text}");
        }
    }

    #[test]
    fn fixture_methods_exist_only_in_a_modern_offer_with_the_fixtures() {
        let offer = |revision, fixtures| Offer { revision, fixtures };
        let (legacy, modern) = (Revision::V2025_11_25, Revision::V2026_07_28);
        let cases = [
            (offer(modern, true), true),
            (offer(modern, false), false),
            (offer(legacy, true), false),
            (offer(legacy, false), false),
        ];
        for (offer, expected) in cases {
            for method in [McpMethod::ResourcesRead, McpMethod::PromptsGet] {
                assert_eq!(method.offered_in(offer), expected, "{method:?} {offer:?}");
            }
            assert_eq!(McpMethod::advertised(Capability::Prompts, offer), expected, "{offer:?}");
        }
    }
}
