//! Binding: joining context-free definitions to one session's context.
//!
//! A [`ToolContext`] is one session's services (one per capability) and the application's
//! state objects. [`ToolRegistry::build`](crate::ToolRegistry::build) binds a list of names to it — the one way a session
//! gets its tools — into a [`Toolset`] of [`BoundTool`]s, leaving out (with the reason) a tool
//! whose declared capabilities or state the context lacks; [`ToolRegistry::try_build`](crate::ToolRegistry::try_build) returns
//! those reasons as a [`BuildReport`] instead. [`bind_tool`] binds one definition, for tests and
//! for hosts that assemble toolsets themselves.

pub(crate) mod bound;
pub(crate) mod context;
mod custom;
pub(crate) mod ending;
mod error;
pub(crate) mod name;
pub(crate) mod registry;
mod report;
mod resolved;
pub(crate) mod toolset;

// At the root: `BoundTool`, `SessionIdentity`, `ToolContext`, `ToolRegistry`, `Toolset`.
pub(crate) use bound::BoundTool;
pub use bound::bind_tool;
pub use context::{BoundContext, IntoSharedContext};
pub(crate) use context::{SessionIdentity, ToolContext};
pub(crate) use ending::format_duration;
pub use error::{BindError, RegistryError};
pub use registry::ToolRegistration;
pub(crate) use registry::ToolRegistry;

pub use report::{BuildReport, LeftOut};
pub(crate) use toolset::Toolset;
