//! The per-session services a [`ToolContext`](crate::ToolContext) carries, as traits.
//!
//! `cy-tools` knows nothing of processes, HTTP or databases: it only names what a tool may ask
//! of its session. `cy-tools-builtin` implements these traits for real; [`crate::memory`] has
//! in-memory versions for tests.

mod chat;
mod coordinator;
mod error;
mod executor;
mod factory;
mod log;
mod sandbox;

pub use chat::{Chat, ChatMessage};
pub use coordinator::Coordinator;
pub use error::{ServiceError, ServiceErrorKind};
pub use executor::{CodeExecutor, CodeOptions, ShellResult};
pub use factory::{ChildRequest, ChildSession, SessionFactory};
pub use log::{ExecutionLog, LogEntry};
pub use sandbox::{ExecOptions, Sandbox};
