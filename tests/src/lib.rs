//! An application crate that defines its own tools with `#[tool]`, beside the built-ins it
//! links. The integration tests in `tests/` bind and call them.
//!
//! The crate denies `missing_docs`: every item `#[tool]` generates for a public function is
//! public and documented, so this crate building at all is the proof.

#![deny(missing_docs)]

// Named so the built-ins are linked and their registrations join ours.
use cy_tools_builtin as _;

#[cfg(feature = "app")]
pub mod app;
#[cfg(feature = "app")]
pub mod app_ask;
#[cfg(feature = "app")]
pub mod app_catalog;
pub mod files;
pub mod misc;
pub mod search;

/// The runtime under another path, for the `crate = ...` override of `#[tool]`.
pub mod runtime {
    pub use cy_tools as reexported;
}

/// The README's Rust code blocks, compiled and run as this crate's doctests, so the README's
/// examples cannot drift from the API; the same for each page of `docs/`.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;

/// Doctests of `docs/` (see [`ReadmeExamples`]), one item per page.
#[cfg(doctest)]
pub mod docs {
    #[doc = include_str!("../../docs/tools.md")]
    pub struct Tools;
    #[doc = include_str!("../../docs/resources-and-prompts.md")]
    pub struct ResourcesAndPrompts;
    #[doc = include_str!("../../docs/command-line.md")]
    pub struct CommandLine;
    #[doc = include_str!("../../docs/mcp-server.md")]
    pub struct McpServer;
    #[doc = include_str!("../../docs/security.md")]
    pub struct Security;
    #[doc = include_str!("../../docs/sessions.md")]
    pub struct Sessions;
    #[doc = include_str!("../../docs/code-mode.md")]
    pub struct CodeMode;
    #[doc = include_str!("../../docs/model-loop.md")]
    pub struct ModelLoop;
    #[doc = include_str!("../../docs/deployment.md")]
    pub struct Deployment;
    #[doc = include_str!("../../docs/layout.md")]
    pub struct Layout;
    #[doc = include_str!("../../docs/benchmarks.md")]
    pub struct Benchmarks;
}
