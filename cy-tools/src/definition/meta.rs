//! `ToolMeta`: what every kind of definition says about itself besides its parameters and body.

use std::time::Duration;

use super::annotations::ToolAnnotations;
use super::name::is_valid_tool_name;
use crate::state::StateType;

/// A tool's name, description, annotations (with the title), default timeout and the
/// application state types it needs: shared by [`ToolDefinition`](crate::definition::ToolDefinition) and
/// [`RawToolDefinition`](crate::definition::RawToolDefinition), and what a host's own kind of definition
/// returns from [`Definition::meta`](crate::definition::Definition::meta).
///
/// ```
/// use std::time::Duration;
/// use cy_tools::definition::{ToolAnnotations, ToolMeta};
///
/// const META: ToolMeta = ToolMeta::new("search_docs", "Searches the docs.")
///     .with_annotations(ToolAnnotations::DEFAULT.read_only().title("Search docs"))
///     .with_timeout(Duration::from_secs(30));
/// assert_eq!(META.name(), "search_docs");
/// assert_eq!(META.title(), Some("Search docs"));
/// assert_eq!(META.timeout(), Some(Duration::from_secs(30)));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ToolMeta {
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
    timeout: Option<Duration>,
    states: &'static [StateType],
}

impl ToolMeta {
    /// A tool called `name` that does what `description` says, with MCP's default annotations,
    /// no timeout and no application state.
    ///
    /// # Panics
    /// When `name` is not a valid tool name (`^[A-Za-z0-9_.-]{1,128}$`,
    /// [`is_valid_tool_name`](crate::definition::is_valid_tool_name)); in a `static` or a `const`
    /// that is a compile error.
    pub const fn new(name: &'static str, description: &'static str) -> Self {
        assert!(
            is_valid_tool_name(name),
            "invalid tool name: use 1 to 128 ASCII letters, digits, `_`, `-` or `.`"
        );
        ToolMeta {
            name,
            description,
            annotations: ToolAnnotations::DEFAULT,
            timeout: None,
            states: &[],
        }
    }

    /// Sets the behaviour hints (and the title, which is one of them).
    #[must_use]
    pub const fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets the default timeout of one call.
    #[must_use]
    pub const fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Declares the application state types the body reads
    /// ([`Ctx::state`](crate::Ctx::state)): binding leaves the tool out of a session without
    /// one of them.
    #[must_use]
    pub const fn needs_state(mut self, states: &'static [StateType]) -> Self {
        self.states = states;
        self
    }

    /// The name the model calls the tool by.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// What the tool does, for the model.
    pub const fn description(&self) -> &'static str {
        self.description
    }

    /// The human-readable title, when the annotations set one.
    pub const fn title(&self) -> Option<&'static str> {
        self.annotations.title
    }

    /// Behaviour hints.
    pub const fn annotations(&self) -> ToolAnnotations {
        self.annotations
    }

    /// The default timeout of one call, if any.
    pub const fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The application state types the tool needs.
    pub const fn states(&self) -> &'static [StateType] {
        self.states
    }
}
