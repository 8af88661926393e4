//! # cy-tools
//!
//! Tools an LLM agent calls, as context-free definitions bound to a session only when the
//! session is built.
//!
//! * A **definition** ([`ToolDefinition`], [`RawToolDefinition`]) is a `'static` value: name,
//!   description, parameter type and its JSON Schema, declared capabilities, annotations and a
//!   body. It holds no live reference.
//! * A **context** ([`ToolContext`]) is one session's services: sandbox view, code executor,
//!   identity, child-session factory, execution log, coordinator and chat.
//! * **Binding** ([`bind_tool`], [`ToolRegistry::build`]) joins the two into an [`AgentTool`]
//!   that a model loop or an MCP server calls. A tool body sees a [`Ctx`] narrowed to its
//!   declared capabilities; touching anything else does not compile.
//! * The **registry** resolves names to definitions, filled at link time, so a session spec
//!   that carries only names can be rebuilt in any process.
//!
//! Besides the root's items, the public modules are [`prelude`] (what a tool author imports),
//! [`cap`] (the capability markers a tool's `Ctx` is checked against) and [`memory`] (in-memory
//! session services, for tests and for tools that need no host). The built-in tools and the
//! real backends are in the `cy-tools-builtin` crate.
//!
//! ```
//! use std::sync::Arc;
//! use cy_tools::{capability_set, memory::MemorySandbox, BoxFuture, CallInfo, Ctx, SessionIdentity,
//!     ToolCall, ToolContext, ToolDefinition, ToolFactory, ToolRegistry, ToolResult};
//! use tokio_util::sync::CancellationToken;
//!
//! /// Parameters of `read_text`.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! #[serde(deny_unknown_fields)]
//! struct ReadText {
//!     /// Path relative to the workspace root.
//!     path: String,
//! }
//!
//! capability_set!(ReadCaps: env);
//!
//! fn read_text<'a>(p: ReadText, ctx: Ctx<'a, ReadCaps>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
//!     Box::pin(async move {
//!         match ctx.env().read(&p.path).await {
//!             Ok(bytes) => ToolResult::text(String::from_utf8_lossy(&bytes)),
//!             Err(err) => ToolResult::error(err.to_string()),
//!         }
//!     })
//! }
//!
//! static READ_TEXT: ToolDefinition<ReadText, ReadCaps> =
//!     ToolDefinition::new("read_text", "Reads a text file.", read_text);
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let mut registry = ToolRegistry::new();
//! registry.register("read_text", ToolFactory::new(&READ_TEXT)).unwrap();
//!
//! let sandbox = Arc::new(MemorySandbox::new());
//! # use cy_tools::Sandbox;
//! sandbox.write("a.txt", b"hello".to_vec()).await.unwrap();
//! let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(sandbox);
//! let tools = registry.build(&["read_text"], &context);
//!
//! let result = tools.execute("read_text", ToolCall::new("c1", serde_json::json!({"path": "a.txt"})), &CancellationToken::new()).await;
//! assert_eq!(result.text_content(), "hello");
//!
//! let wrong = tools.execute("read_text", ToolCall::new("c2", serde_json::json!({"path": 3})), &CancellationToken::new()).await;
//! assert!(wrong.is_error);
//! assert_eq!(wrong.text_content(), "invalid arguments for `read_text`: `path`: expected a string, got integer `3`; valid fields are `path` (string, required)");
//! # });
//! ```

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
        SearchResult, ServiceError, ServiceErrorKind, SessionFactory, ShellResult, WalkOptions,
        WalkResult,
    },
    session::{ExecutorSpec, SessionSpec, SpecStore, SubagentLimits, SubagentProfile},
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

    use crate::BoxFuture;
    use crate::call::ToolResult;

    /// Not public API. Used by generated code: an answer that is ready, as a tool body's
    /// future.
    pub fn ready<'a>(result: ToolResult) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(result))
    }
}
