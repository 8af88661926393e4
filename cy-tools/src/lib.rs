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

mod agent_tool;
mod annotations;
mod args;
mod call;
mod capability;
mod context;
mod ctx;
mod definition;
mod dialect;
mod dyn_tool;
mod error;
mod into_result;
pub mod memory;
mod name;
mod raw;
mod registry;
mod result;
mod schema;
mod services;
mod taking;
mod toolset;
mod validate;

use std::future::Future;
use std::pin::Pin;

pub use agent_tool::{AgentTool, bind_tool};
pub use annotations::ToolAnnotations;
pub use call::{CallInfo, ToolCall};
pub use capability::{Capabilities, Capability, CapabilitySet, Grants, NoCapabilities, cap};
pub use context::{SessionIdentity, ToolContext};
pub use ctx::Ctx;
pub use cy_tools_macros::tool;
pub use definition::{Handler, ToolDefinition};
pub use dialect::{Dialect, DialectError};
pub use dyn_tool::DynTool;
pub use error::{BindError, RegistryError};
pub use into_result::{IntoToolResult, Json, ToolError};
pub use name::{MAX_TOOL_NAME_LEN, is_valid_tool_name};
pub use raw::{RawHandler, RawToolDefinition};
pub use registry::{ToolFactory, ToolRegistration, ToolRegistry};
pub use result::{Content, ToolResult};
pub use schema::Schema;
#[allow(deprecated)]
pub use services::ChildSession;
#[cfg(unix)]
pub use services::PassedFd;
pub use services::{
    Chat, ChatMessage, ChildRequest, CodeExecutor, CodeOptions, Coordinator, DirEntryInfo,
    EntryKind, ExecOptions, ExecutionLog, LogEntry, ProcessInfo, ProcessOutput, ProcessTable,
    ResourceLimits, Sandbox, SdkCalls, SearchMatch, SearchOptions, SearchResult, ServiceError,
    ServiceErrorKind, SessionFactory, ShellResult, WalkOptions, WalkResult,
};
pub use tokio_util::sync::CancellationToken;
pub use toolset::Toolset;

/// A boxed, sendable future: what tool bodies and session services return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The items a tool author needs, in one import.
pub mod prelude {
    pub use crate::{
        AgentTool, CallInfo, CancellationToken, Content, Ctx, IntoToolResult, Json,
        SessionIdentity, ToolCall, ToolContext, ToolError, ToolRegistry, ToolResult, tool,
    };
}

/// Not public API. Used by generated code.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::schema::{
        OutputProbe, OutputSchemaFallback, OutputSchemaViaJsonSchema, output_schema_of,
        schemas_generated,
    };
    pub use crate::validate::CompiledSchema;

    use std::future::Future;

    use crate::{BoxFuture, Capabilities, CapabilitySet, Grants, IntoToolResult, ToolResult, cap};

    /// Not public API. Used by generated code: boxes a `#[tool]` function's future and converts
    /// its output. One generic body for every tool, so the compiler checks it once instead of
    /// once per tool.
    pub fn box_result<'a, F>(future: F) -> BoxFuture<'a, ToolResult>
    where
        F: Future + Send + 'a,
        F::Output: IntoToolResult,
    {
        Box::pin(async move { future.await.into_tool_result() })
    }

    /// Not public API. Used by generated code: the set `#[tool]` gives a function's `Ctx` when
    /// the attribute has errors, so the body adds none of its own. Such a function is never
    /// registered, and binding would check this set against the session like any other.
    pub enum AllCapabilities {}

    impl CapabilitySet for AllCapabilities {
        const CAPABILITIES: Capabilities = Capabilities::ALL;
    }
    impl Grants<cap::Env> for AllCapabilities {}
    impl Grants<cap::ExecuteCode> for AllCapabilities {}
    impl Grants<cap::Session> for AllCapabilities {}
    impl Grants<cap::Factory> for AllCapabilities {}
    impl Grants<cap::Store> for AllCapabilities {}
    impl Grants<cap::Coordinator> for AllCapabilities {}
    impl Grants<cap::Chat> for AllCapabilities {}
}

// Sessions: the spec a session is rebuilt from, the live session, and the services around it.
mod session;
mod spec;
pub use services::ChildOutcome;
pub use session::Session;
pub use spec::{ExecutorSpec, SessionSpec, SpecStore, SubagentLimits, SubagentProfile};
