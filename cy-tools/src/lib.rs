//! # cy-tools
//!
//! Tools an LLM agent calls, as context-free definitions bound to a session only when the
//! session is built.
//!
//! ## Quickstart
//!
//! Define a tool, run it once in-process, serve it over MCP stdio (with `cy-tools-builtin`,
//! feature `mcp`, for the session over a folder and the server):
//!
//! ```no_run
//! use cy_tools::prelude::*;
//!
//! /// Adds two integers.
//! #[tool(read_only)]
//! fn add(/** The first. */ a: i64, /** The second. */ b: i64) -> i64 {
//!     a + b
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Your tool beside a built-in one, in a session over the folder `work`.
//!     let session = cy_tools_builtin::local_session("work", &["add", "read_file"])?;
//!
//!     // Run it once, as a model would call it: prints 5.
//!     println!("{}", session.call("add", serde_json::json!({"a": 2, "b": 3})).await);
//!
//!     // Serve the same tools to any MCP client over stdio.
//!     cy_tools_builtin::mcp::serve_stdio(session).await?;
//!     Ok(())
//! }
//! ```
//!
//! ## The layer below
//!
//! A host builds the session itself: a [`ToolContext`] with the services it chooses, the tools
//! bound to it by name, calls with their own ids and cancellation.
//!
//! ```
//! use std::sync::Arc;
//! use cy_tools::{memory::MemorySandbox, prelude::*};
//!
//! /// Counts the lines of a text file in the workspace.
//! #[tool(capabilities(env), read_only)]
//! async fn count_lines(ctx: Ctx<'_>, /** Path in the workspace. */ path: String) -> Result<String, ToolError> {
//!     let text = ctx.env().read(&path).await?; // `ctx.chat()` here would not compile
//!     Ok(text.split(|b| *b == b'\n').count().to_string())
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let sandbox = Arc::new(MemorySandbox::new());
//! sandbox.write("notes.txt", b"one\ntwo".to_vec()).await.unwrap();
//! let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(sandbox);
//! let tools = ToolRegistry::linked().unwrap().build(&["count_lines"], &context);
//! let call = ToolCall::new("c1", serde_json::json!({"path": "notes.txt"}));
//! let result = tools.execute("count_lines", call, &CancellationToken::new()).await;
//! assert_eq!(result.text_content(), "2");
//!
//! let wrong = ToolCall::new("c2", serde_json::json!({"path": 3}));
//! let wrong = tools.execute("count_lines", wrong, &CancellationToken::new()).await;
//! assert_eq!(wrong.text_content(), "invalid arguments for `count_lines`: `path`: expected a string, got integer `3`; valid fields are `path` (string, required)");
//! # });
//! ```
//!
//! * A **definition** ([`definition`]) is a `'static` value: name, description, parameter type
//!   and its JSON Schema, declared capabilities, the application state it needs, annotations
//!   and a body. It holds no live reference. `#[tool]` writes one from an `async fn`; the
//!   [`definition`] module shows what it writes, by hand.
//! * A **context** ([`ToolContext`]) is one session's services (sandbox view, code executor,
//!   identity, child-session factory, execution log, coordinator, chat) and the application's
//!   [`state`] objects.
//! * **Binding** ([`binding`]) joins the two: [`ToolRegistry::build`] turns a session's tool
//!   names into [`BoundTool`]s, leaving out (with the reason) a tool whose declared
//!   [`capability`] or state the context lacks. A body sees a [`Ctx`] narrowed to its declared
//!   capabilities; touching anything else does not compile, and a grant cannot be forged.
//! * A **call** ([`call`]) always answers with a [`ToolResult`]: wrong arguments, a panic, a
//!   timeout and cancellation are error results that name the problem and the fix.
//! * The **registry** resolves names to definitions, filled at link time, so a [`session`] spec
//!   that carries only names can be rebuilt in any process. [`services`] are the traits a
//!   context's services implement (real ones in `cy-tools-builtin`, in-memory ones in
//!   [`memory`]); [`dialect`] exports tools in OpenAI's, Anthropic's, Gemini's and MCP's forms.
//!
//! The root holds the names most code uses; [`prelude`] is what a tool author imports.
//!
//! # One name per concept
//!
//! Every public item has one path: the root's names are not also in their modules, and a
//! module's are not at the root (the [`prelude`] alone repeats some, as a one-line import).
//!
//! | concept | name |
//! |---|---|
//! | what a tool is, before any session | a definition: [`definition::ToolDefinition`] (typed), [`definition::RawToolDefinition`] (hand-written schema), [`definition::Definition`] (either, types erased) |
//! | one session's services and state | [`ToolContext`], its identity [`SessionIdentity`] |
//! | a definition bound to a session | [`BoundTool`]; a session's tools in order, a [`Toolset`] |
//! | names to definitions, filled at link time | [`ToolRegistry`] |
//! | a running session | [`Session`]: its context, its toolset, its log; rebuilt in any process from a [`SessionSpec`] of names |
//! | the fields a tool may touch | capabilities, named as the context's fields: `env`, `execute_code`, `session`, `factory`, `log`, `coordinator`, `chat`; a tool declares them in `#[tool(capabilities(...))]` and its body gets a [`Ctx`] offering those alone ([`capability`] has the set as a value, [`capability::Capabilities`], for a hand-written definition [`capability::capability_set!`]) |
//! | a session's workspace, as its tools see it | its sandbox view: the [`services::Sandbox`] trait (`cy-tools-sandbox`'s `SandboxView` on a local folder) |
//! | the session's record of calls | its execution log: the `log` capability, the [`services::ExecutionLog`] trait, [`ToolContext::with_log`] |
//! | what makes and runs a session's children | its child-session factory: the `factory` capability, the [`services::ChildSessionFactory`] trait (`cy-tools-session`'s `LocalSessionFactory` makes sessions from specs, and gives each session that may have children one of these) |
//! | application objects a tool reaches by type | state: [`State`] in a tool, [`state::StateMap`] in a context |
//! | what an MCP server offers beside tools | resources (read by URI or URI template) and prompts, defined with [`catalog::resource`] and [`catalog::prompt`], a session's bound set its [`catalog::Catalog`] |
//!
//! # Limits
//!
//! Each bounds something different, so each is its own type, set where that thing is decided:
//!
//! * [`services::ResourceLimits`]: what one process may use (CPU seconds, memory, processes), per
//!   command or per sandbox;
//! * `ExecLimits` (`cy-tools-sandbox`): a sandbox's commands as a whole: their resource limits,
//!   isolation, timeout and output cap; code runs are commands, so `execute_code` is held to them
//!   too;
//! * `RunSlots` (`cy-tools-sandbox`): how many code runs a host runs at once, across sessions;
//! * `CodeModeLimits` (`cy-tools-code-mode`): the calls one code-mode run may make back into its
//!   session (how many, how large, how deep);
//! * [`session::SubagentLimits`]: one subagent's turns, tokens and time, in its profile;
//! * `AgentLimits` (`cy-tools-agent`): one model turn's parallel calls and bytes;
//! * a tool's own timeout (`#[tool(timeout_ms = ...)]`).

pub mod approval;
pub mod binding;
pub mod call;
pub mod capability;
pub mod catalog;
pub mod definition;
pub mod dialect;
pub mod memory;
pub mod services;
pub mod session;
pub mod state;

use std::future::Future;
use std::pin::Pin;

pub use binding::bound::BoundTool;
pub use binding::context::{SessionIdentity, ToolContext};
pub use binding::registry::ToolRegistry;
pub use binding::toolset::Toolset;
pub use call::info::{CallInfo, ToolCall};
pub use call::into_result::{Json, ToolError};
pub use call::result::ToolResult;
pub use capability::ctx::Ctx;
pub use cy_tools_macros::{tool, tools};
pub use session::live::Session;
pub use session::spec::SessionSpec;
pub use state::param::State;
pub use tokio_util::sync::CancellationToken;

/// A boxed, sendable future: what tool bodies and session services return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The items a tool author needs, in one import: the attribute, what a tool body takes and
/// returns, the service traits a tool takes as parameters, and the session that runs tools.
///
/// ```
/// use cy_tools::prelude::*;
///
/// /// Says hello.
/// #[tool(register = false)]
/// async fn hello(/** Who. */ name: String) -> Result<String, ToolError> {
///     Ok(format!("hello, {name}"))
/// }
/// ```
pub mod prelude {
    pub use crate::call::{Content, IntoToolResult};
    pub use crate::catalog::{prompt, resource};
    pub use crate::definition::Definition;
    pub use crate::services::{
        Chat, ChatMessage, ChildSessionFactory, CodeExecutor, Coordinator, ExecutionLog, Sandbox,
    };
    pub use crate::{
        BoundTool, CallInfo, CancellationToken, Ctx, Json, Session, SessionIdentity, State,
        ToolCall, ToolContext, ToolError, ToolRegistry, ToolResult, tool, tools,
    };
}

/// Not public API. Used by generated code: `#[tool]` and `capability_set!` reach everything
/// they need through here, so the public names can change without breaking them.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use cy_tools_macros::capability_set;

    pub use crate::binding::ToolRegistration;
    pub use crate::call::blocking::run_blocking;
    pub use crate::call::box_result;
    pub use crate::call::returned::{
        PickAny, PickIntoToolResult, PickResult, PickSerialize, PickSerializeResult, Returned,
        box_converted,
    };
    pub use crate::capability::{AllCapabilities, Caps, NoCapabilities};
    pub use crate::catalog::{
        IntoPromptReply, IntoReadOutput, PromptDefinition, PromptRegistration, PromptReply,
        ReadOutput, ResourceDefinition, ResourceRegistration,
    };
    pub use crate::definition::schema::schemas_generated;
    pub use crate::definition::validate::CompiledSchema;
    pub use crate::definition::{
        Arg, ArgReader, ArgSchemaFns, ToolAnnotations, ToolDefinition, default_arg,
        deserialize_arg, output_schema_of,
    };
    pub use crate::state::StateType;
    pub use crate::{BoxFuture, CallInfo, Ctx, State, ToolResult};

    /// Not public API. Used by generated code: a description written with
    /// `#[doc = include_str!(...)]`, without the blank lines and spaces around it.
    pub const fn trim_doc(text: &'static str) -> &'static str {
        text.trim_ascii()
    }

    /// Not public API. Used by generated code: a resource's or prompt's future, its output
    /// converted.
    pub fn box_mapped<'a, F, O>(
        future: F,
        convert: impl FnOnce(F::Output) -> O + Send + 'a,
    ) -> BoxFuture<'a, O>
    where
        F: std::future::Future + Send + 'a,
    {
        Box::pin(async move { convert(future.await) })
    }

    /// Not public API. Used by generated code: a resource's or prompt's answer when the
    /// application state it takes is missing (binding makes that unreachable in a session).
    pub fn state_failed<'a, T: Send + 'a>(error: ToolResult) -> BoxFuture<'a, Result<T, String>> {
        Box::pin(std::future::ready(Err(error.text_content())))
    }

    /// Not public API. Used by generated code: an answer that is ready, as a tool body's
    /// future.
    pub fn ready<'a>(result: ToolResult) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(result))
    }
}
