//! Sessions: built from a [`SessionSpec`](cy_tools::SessionSpec), recorded in a durable store,
//! resumed by id in any process that has the registry, and narrowed for their children.
//!
//! * [`LocalSessionFactory`]: `create(spec)`, `resume(id)` and `spawn_child`, from the host's
//!   infrastructure (registry, store, coordinator, chat, subagent runner).
//! * [`Session`] (the core's, re-exported): a bound toolset whose every call is recorded in the
//!   execution log.
//! * [`SubagentRunner`]: the application's agent loop, which `delegate` and `workflow` run a
//!   child's task with.
//! * [`compose`]: which tools a session gets, in which order: the chat's tools, the spec's, the
//!   caller's [`Extras`](compose::Extras).
//! * [`LocalChat`]: the default chat, in memory plus an append-only file.
//! * [`LocalSessionFactory::connect`]: a factory whose store is chosen by URL: PostgreSQL
//!   (feature `postgres`), shared by several workers, or the embedded SQLite folder.

mod children;
mod code_mode;
pub mod compose;
mod factory;
mod host_files;
mod keyed_log;
mod local_chat;
mod open;
mod rules;
mod runner;
mod tenant_coordinator;
mod tree_coordinator;
mod workspace;

pub use cy_tools::Session;
pub use factory::LocalSessionFactory;
#[cfg(feature = "cli")]
pub(crate) use host_files::{spec_outside, store_outside};
pub use keyed_log::KeyedLog;
pub use local_chat::LocalChat;
pub use runner::{SubagentRun, SubagentRunner};
pub use tenant_coordinator::TenantCoordinator;
