//! # cy-tools
//!
//! Tools an LLM agent calls, as context-free definitions bound to a session only when the
//! session is built.
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

pub mod approval;
pub mod binding;
pub mod call;
pub mod capability;
pub mod definition;
pub mod dialect;
pub mod memory;
pub mod services;
pub mod session;
pub mod state;

use std::future::Future;
use std::pin::Pin;

pub use binding::{BoundTool, SessionIdentity, ToolContext, ToolRegistry, Toolset, bind_tool};
pub use call::{CallInfo, Json, ToolCall, ToolError, ToolResult};
pub use capability::Ctx;
pub use cy_tools_macros::tool;
pub use definition::{RawToolDefinition, ToolDefinition};
pub use session::Session;
pub use state::State;
pub use tokio_util::sync::CancellationToken;
// What argument and result types derive through: `#[tool]` names them here, and an application
// can too instead of depending on them itself.
pub use {schemars, serde, serde_json};

/// A boxed, sendable future: what tool bodies and session services return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The items a tool author needs, in one import: the attribute, what a tool body takes and
/// returns, and the service traits a tool takes as parameters.
pub mod prelude {
    pub use crate::binding::{BoundTool, SessionIdentity, ToolContext, ToolRegistry};
    pub use crate::call::{
        CallInfo, Content, IntoToolResult, Json, ToolCall, ToolError, ToolResult,
    };
    pub use crate::capability::Ctx;
    pub use crate::definition::Definition;
    pub use crate::services::{
        Chat, ChatMessage, CodeExecutor, Coordinator, ExecutionLog, Sandbox, SessionFactory,
    };
    pub use crate::state::State;
    pub use crate::{CancellationToken, tool};
}

// The paths of the previous release, when everything sat at the root: kept, out of the
// documentation, for one release so code written against them still builds.
#[cfg(unix)]
#[doc(hidden)]
pub use services::PassedFd;
#[doc(hidden)]
#[allow(deprecated)]
pub use {
    binding::{
        AgentTool, BindError, BuildReport, IntoSharedContext, LeftOut, RegistryError, ToolFactory,
        ToolRegistration,
    },
    call::{Content, IntoToolResult},
    capability::{Capabilities, Capability, CapabilitySet, Caps, NoCapabilities},
    definition::{
        Definition, Definition as DynTool, Handler, MAX_TOOL_NAME_LEN, RawHandler, Schema,
        ToolAnnotations, ToolMeta, is_valid_tool_name,
    },
    dialect::{Dialect, DialectError},
    services::{
        Chat, ChatMessage, ChildOutcome, ChildRequest, ChildSession, CodeExecutor, CodeOptions,
        Coordinator, DirEntryInfo, EntryKind, ExecOptions, ExecutionLog, LogEntry, ProcessInfo,
        ProcessOutput, ProcessTable, ResourceLimits, Sandbox, SdkCalls, SearchMatch, SearchOptions,
        SearchResult, ServiceError, ServiceErrorKind, SessionFactory, ShellResult, UsageEntry,
        WalkOptions, WalkResult,
    },
    session::{
        ExecutorSpec, ModelProvider, ModelSpec, SessionSpec, SpecStore, SubagentLimits,
        SubagentProfile, WorkspaceHost,
    },
    state::{StateMap, StateType},
};

/// Not public API. Used by generated code.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use cy_tools_macros::capability_set;

    pub use crate::capability::AllCapabilities;
    pub use crate::definition::schema::{
        OutputProbe, OutputSchemaFallback, OutputSchemaViaJsonSchema, output_schema_of,
        schemas_generated,
    };
    pub use crate::definition::validate::CompiledSchema;

    use crate::BoxFuture;
    use crate::call::ToolResult;

    /// Not public API. Used by generated code: an answer that is ready, as a tool body's
    /// future.
    pub fn ready<'a>(result: ToolResult) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(result))
    }
}
