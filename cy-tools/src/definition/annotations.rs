//! Behaviour hints a tool declares, with MCP's defaults.

use serde::Serialize;

/// Hints about a tool's behaviour, as MCP defines them. They are hints for clients (for example
/// whether to ask before a call), never a security boundary: capabilities are.
///
/// The defaults are MCP's: not read-only, destructive, not idempotent, open-world.
///
/// ```
/// use cy_tools::definition::ToolAnnotations;
/// const READER: ToolAnnotations = ToolAnnotations::DEFAULT.read_only();
/// assert!(READER.read_only && !READER.destructive);
/// assert!(ToolAnnotations::DEFAULT.destructive);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ToolAnnotations {
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// The tool does not change its environment.
    pub read_only: bool,
    /// The tool may destroy or overwrite data (meaningful when not read-only).
    pub destructive: bool,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// The tool reaches entities outside a closed world (network, processes).
    pub open_world: bool,
}

impl ToolAnnotations {
    /// MCP's defaults.
    pub const DEFAULT: ToolAnnotations = ToolAnnotations {
        title: None,
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };

    /// Marks the tool read-only, which also makes it non-destructive.
    #[must_use]
    pub const fn read_only(mut self) -> Self {
        self.read_only = true;
        self.destructive = false;
        self
    }

    /// Sets whether the tool is destructive.
    #[must_use]
    pub const fn destructive(mut self, destructive: bool) -> Self {
        self.destructive = destructive;
        self
    }

    /// Marks the tool idempotent.
    #[must_use]
    pub const fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Sets whether the tool reaches an open world.
    #[must_use]
    pub const fn open_world(mut self, open_world: bool) -> Self {
        self.open_world = open_world;
        self
    }

    /// Sets the title.
    #[must_use]
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }
}

impl Default for ToolAnnotations {
    fn default() -> Self {
        ToolAnnotations::DEFAULT
    }
}
