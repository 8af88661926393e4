//! `AgentEvents`: what a run reports as it happens, for a terminal or a UI to show.

use cy_tools::ToolResult;

use super::transcript::{ModelCall, Usage};

/// Told what a run does as it does it. Every method does nothing by default.
///
/// ```
/// use cy_tools_agent::AgentEvents;
///
/// struct Printer;
/// impl AgentEvents for Printer {
///     fn text(&self, piece: &str) {
///         print!("{piece}");
///     }
/// }
/// ```
pub trait AgentEvents: Send + Sync {
    /// A piece of what the model writes: the whole turn's text when not streamed, else each
    /// piece as it arrives.
    fn text(&self, _piece: &str) {}

    /// The model called a tool (its call starts now).
    fn tool_call(&self, _call: &ModelCall) {}

    /// A call's result, as the model will see it.
    fn tool_result(&self, _call: &ModelCall, _result: &ToolResult) {}

    /// A turn ended, having used `usage`.
    fn turn_end(&self, _turn: u32, _usage: Usage) {}
}

/// Reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl AgentEvents for Quiet {}
