//! The one dispatch of a request's method, in either era.
//!
//! A method is matched in one place, [`dispatch`]: each era's pipeline says what each method does
//! there ([`Methods`], implemented by `legacy` and `modern`), and a method new to the table does
//! not compile until this match names it and both eras say what it does. A request reaches here
//! only with a method its revision offers (`MethodName::of_request` filters by the method table),
//! so what an era says of a method it does not offer ([`Methods::not_offered`]) is what it answers
//! a method it does not implement.
//!
//! Not here: the stages before the method (each era's pipeline), or the method table itself
//! (`mcp::method`).

use super::rejection::Rejection;
use super::state::Answer;
use crate::json::Object;
use crate::mcp::method::McpMethod;

/// What each method comes to in one era.
pub(super) trait Methods {
    /// A method this era does not offer (never reached: see the module docs).
    fn not_offered(&self) -> Result<Answer, Rejection>;
    /// `ping`.
    fn ping(&self) -> Result<Answer, Rejection>;
    /// `logging/setLevel`.
    fn set_log_level(&self, params: &Object) -> Result<Answer, Rejection>;
    /// `resources/list`.
    fn resources_list(&self) -> Result<Answer, Rejection>;
    /// `tools/list`.
    fn tools_list(&self) -> Result<Answer, Rejection>;
    /// `tools/call`.
    fn tools_call(&self, params: &Object) -> Result<Answer, Rejection>;
    /// `server/discover`.
    fn discover(&self) -> Result<Answer, Rejection>;
    /// `subscriptions/listen`.
    fn listen(&self, params: &Object) -> Result<Answer, Rejection>;
    /// `resources/read` (the conformance suite's fixtures).
    fn resources_read(&self, params: &Object) -> Result<Answer, Rejection>;
    /// `prompts/get` (the conformance suite's fixture).
    fn prompts_get(&self, params: &Object) -> Result<Answer, Rejection>;
}

/// What the request of `method` with `params` comes to in `era`.
pub(super) fn dispatch(
    era: &impl Methods,
    method: McpMethod,
    params: &Object,
) -> Result<Answer, Rejection> {
    match method {
        McpMethod::Ping => era.ping(),
        McpMethod::LoggingSetLevel => era.set_log_level(params),
        McpMethod::ResourcesList => era.resources_list(),
        McpMethod::ToolsList => era.tools_list(),
        McpMethod::ToolsCall => era.tools_call(params),
        McpMethod::ServerDiscover => era.discover(),
        McpMethod::SubscriptionsListen => era.listen(params),
        McpMethod::ResourcesRead => era.resources_read(params),
        McpMethod::PromptsGet => era.prompts_get(params),
        // No request's method: `initialize` opens its session before any call, and the rest are
        // notifications.
        McpMethod::Initialize
        | McpMethod::NotificationsInitialized
        | McpMethod::NotificationsCancelled => era.not_offered(),
    }
}
