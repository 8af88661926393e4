//! `Definition`: a definition of any kind with its parameter type erased, as registries and
//! bound tools hold it.

use std::time::Duration;

use serde_json::{Map, Value};

use super::annotations::ToolAnnotations;
use super::meta::ToolMeta;
use super::output::OutputSchema;
use super::schema::Schema;
use crate::BoxFuture;
use crate::binding::{BindError, BoundContext};
use crate::call::{ArgsError, CallInfo, ToolResult};
use crate::capability::Capabilities;
use crate::state::StateType;

/// A context-free tool definition with its parameter type erased: what a registry holds and a
/// [`BoundTool`](crate::binding::BoundTool) calls.
///
/// [`ToolDefinition`](crate::definition::ToolDefinition) and [`RawToolDefinition`](crate::definition::RawToolDefinition)
/// implement it; so can a host's own kind of tool (for example one that proxies a remote
/// server): it gives its [`ToolMeta`], capabilities, schema and a way to start a call, and the
/// bound tool wraps every call with the shared contract (argument payload forms, unknown
/// fields, timeout, cancellation, panics).
///
/// Its schema, capabilities and state types are fixed for the process: a
/// [`ToolRegistry`](crate::ToolRegistry) reads them at the definition's first bind and binds
/// every later session from what it read.
///
/// ```
/// use cy_tools::definition::Definition;
/// use cy_tools::prelude::*;
///
/// /// Answers pong.
/// #[tool(register = false)]
/// async fn ping() -> &'static str { "pong" }
///
/// let erased: &'static dyn Definition = &PING;
/// assert_eq!(erased.name(), "ping");
/// assert_eq!(erased.description(), "Answers pong.");
/// ```
pub trait Definition: Send + Sync + 'static {
    /// Name, description, annotations, timeout and state types.
    fn meta(&self) -> &ToolMeta;

    /// The context fields the tool may touch.
    fn capabilities(&self) -> Capabilities;

    /// The canonical parameter schema, computed once per process.
    ///
    /// # Errors
    /// The definition's schema cannot be a tool schema.
    fn schema(&self) -> Result<&Schema, BindError>;

    /// The schema of the structured JSON the tool returns, when it declares one (MCP's
    /// `outputSchema`).
    fn output_schema(&self) -> Option<&OutputSchema> {
        None
    }

    /// Checks `args` (already an object with only declared root fields) and starts the call.
    ///
    /// `context` provides every declared capability and state type: binding checked it, and
    /// only a bound tool makes a [`BoundContext`].
    ///
    /// # Errors
    /// What is wrong with the arguments, for the model and for programs (the caller adds the
    /// tool name and the field list); a plain message converts with `String::into`.
    fn start<'a>(
        &'a self,
        context: BoundContext<'a>,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, ToolResult>, ArgsError>;

    /// The tool's name.
    fn name(&self) -> &str {
        self.meta().name()
    }

    /// What the tool does, for the model.
    fn description(&self) -> &str {
        self.meta().description()
    }

    /// Behaviour hints.
    fn annotations(&self) -> ToolAnnotations {
        self.meta().annotations()
    }

    /// The default timeout of one call, if any.
    fn timeout(&self) -> Option<Duration> {
        self.meta().timeout()
    }

    /// The application state types the tool needs.
    fn states(&self) -> &'static [StateType] {
        self.meta().states()
    }

    /// The MCP server this tool is a tool of, by its name in the session, and the tool's own
    /// name there: `Some(("time", "get_current_time"))` for the session's
    /// `time__get_current_time`. `None` for the tools defined in Rust. Code mode groups a
    /// server's tools in a module of their own (`cy_sdk.servers.time`).
    fn mcp_server(&self) -> Option<(&str, &str)> {
        None
    }
}
