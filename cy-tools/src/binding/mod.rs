//! Binding: joining context-free definitions to one session's context.
//!
//! A [`ToolContext`] is one session's services (one per capability) and the application's
//! state objects. [`ToolRegistry::build`] binds a list of names to it — the one way a session
//! gets its tools — into a [`Toolset`] of [`BoundTool`]s, leaving out (with the reason) a tool
//! whose declared capabilities or state the context lacks; [`ToolRegistry::try_build`] returns
//! those reasons as a [`BuildReport`] instead. [`bind_tool`] binds one definition, for tests and
//! for hosts that assemble toolsets themselves.
//!
//! # Why these names
//!
//! `BoundTool` was `AgentTool` and a definition of any kind is a
//! [`Definition`](crate::definition::Definition) (was `DynTool`): the names say what the values
//! are, a definition bound to a session and a definition whose types are erased. `ToolFactory`,
//! a wrapper of a definition that added nothing, is gone: a registry takes and returns
//! definitions. The old names stay, deprecated, for one release (the trait's old name as a
//! hidden re-export, since Rust cannot deprecate one).

mod bound;
mod context;
mod error;
mod registry;
mod report;
mod toolset;

#[allow(deprecated)]
pub use bound::AgentTool;
pub(crate) use bound::format_duration;
pub use bound::{BoundTool, bind_tool};
pub use context::{IntoSharedContext, SessionIdentity, ToolContext};
pub use error::{BindError, RegistryError};
#[allow(deprecated)]
pub use registry::ToolFactory;
pub use registry::{ToolRegistration, ToolRegistry};
pub use report::{BuildReport, LeftOut};
pub use toolset::Toolset;
