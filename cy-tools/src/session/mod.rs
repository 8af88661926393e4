//! Sessions: the spec a session is rebuilt from (names only), the live session, and the store
//! that keeps specs across processes.
//!
//! A [`SessionSpec`] carries a session's identity, workspace, tool names, executor and
//! subagent profiles, so any process with the registry can rebuild the session from it; a
//! [`SessionFactory`](crate::services::SessionFactory) turns specs into live [`Session`]s.

mod live;
mod spec;

pub use crate::services::ChildOutcome;
pub use live::Session;
pub use spec::{
    ExecutorSpec, ModelProvider, ModelSpec, SessionSpec, SpecStore, SubagentLimits,
    SubagentProfile, WorkspaceHost,
};
