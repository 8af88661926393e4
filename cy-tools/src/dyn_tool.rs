//! `DynTool`: a definition with its parameter type erased, as registries and bound tools hold it.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::{
    BindError, BoxFuture, CallInfo, Capabilities, Schema, ToolAnnotations, ToolContext, ToolResult,
};

/// A context-free tool definition with its parameter type erased.
///
/// [`ToolDefinition`](crate::ToolDefinition) and [`RawToolDefinition`](crate::RawToolDefinition)
/// implement it; so can a host's own kind of tool (for example one that proxies a remote
/// server). [`AgentTool`](crate::AgentTool) wraps every call with the shared contract (argument
/// payload forms, unknown fields, timeout, cancellation, panics), so an implementation only
/// checks its own arguments and starts its work.
pub trait DynTool: Send + Sync + 'static {
    /// The tool's name.
    fn name(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// The context fields the tool may touch.
    fn capabilities(&self) -> Capabilities;

    /// Behaviour hints.
    fn annotations(&self) -> ToolAnnotations;

    /// The default timeout of one call, if any.
    fn timeout(&self) -> Option<Duration>;

    /// The canonical parameter schema, computed once per process.
    ///
    /// # Errors
    /// The definition's schema cannot be a tool schema.
    fn schema(&self) -> Result<&Schema, BindError>;

    /// The schema of the structured JSON the tool returns, when it declares one (an object
    /// schema: MCP's `outputSchema`).
    fn output_schema(&self) -> Option<&Value> {
        None
    }

    /// Checks `args` (already an object with only declared root fields) and starts the call.
    ///
    /// `context` provides every declared capability: binding checked it.
    ///
    /// # Errors
    /// What is wrong with the arguments, for the model (the caller adds the tool name and the
    /// field list).
    fn start<'a>(
        &'a self,
        context: &'a ToolContext,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, ToolResult>, String>;
}
