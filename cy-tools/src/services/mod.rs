//! The per-session services a [`ToolContext`](crate::ToolContext) carries, as traits.
//!
//! `cy-tools` knows nothing of processes, HTTP or databases: it only names what a tool may ask
//! of its session. `cy-tools-builtin` implements these traits for real; [`crate::memory`] has
//! in-memory versions for tests.

mod chat;
mod coordinator;
mod counter;
mod error;
mod executor;
mod factory;
mod fs_types;
mod log;
#[cfg(unix)]
mod passed_fd;
mod process;
mod random;
mod resources;
mod sandbox;

pub use chat::{Chat, ChatAnswer, ChatMessage, ChatTool};
pub use coordinator::Coordinator;
pub use counter::ProgressCounter;
pub use error::{ServiceError, ServiceErrorKind};
pub use executor::{CodeExecutor, CodeOptions, SdkCalls, ShellResult};
pub use factory::{ChildOutcome, ChildRequest, ChildSessionFactory};
pub use fs_types::{
    DirEntryInfo, EntryKind, SearchMatch, SearchOptions, SearchResult, WalkOptions, WalkResult,
};
pub use log::{ExecutionLog, LogEntry, UsageEntry};
#[cfg(unix)]
pub use passed_fd::PassedFd;
pub use process::{ProcessInfo, ProcessOutput, ProcessTable};
pub use random::random_hex;
pub use resources::ResourceLimits;
pub use sandbox::{ExecOptions, Sandbox};
