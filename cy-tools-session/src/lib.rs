//! # cy-tools-session
//!
//! Sessions: built from a [`SessionSpec`](cy_tools::SessionSpec), recorded in a durable store,
//! resumed by id in any process that has the registry, and narrowed for their children.
//!
//! * [`LocalSessionFactory`]: `create(spec)`, `resume(id)` and `spawn_child`, from the host's
//!   infrastructure (registry, store, coordinator, chat, subagent runner).
//! * What it builds is the core's [`Session`](cy_tools::Session): a bound toolset whose every call is recorded in the
//!   execution log.
//! * [`SubagentRunner`]: the application's agent loop, which `delegate` and `workflow` run a
//!   child's task with.
//! * [`compose`]: which tools a session gets, in which order: the chat's tools, the spec's, the
//!   caller's [`Extras`](compose::Extras).
//! * [`LocalChat`]: the default chat, in memory plus an append-only file.
//! * [`LocalSessionFactory::connect`]: a factory whose store is chosen by URL: PostgreSQL
//!   (feature `postgres`), shared by several workers, or the embedded SQLite folder
//!   ([`store`]).
//! * [`tools`]: the tools that need a session (`delegate`, `workflow`, `signal`,
//!   `send_message`); the tools that work in a sandbox are `cy-tools-sandbox`'s, which every
//!   session's workspace is by default.
//!
//! | feature | adds |
//! |---|---|
//! | `postgres` | `store::PostgresStore`: specs, log, chat and signals in one PostgreSQL database shared by any number of workers |
//! | `remote` | sessions whose code runs, and whose workspace lives, on a control server (`cy-tools-remote`'s client) |
//! | `code-mode` | sessions in code mode (`cy-tools-code-mode`): the code `execute_code` runs calls the session's tools back |
//!
//! A spec that asks for what the build lacks is refused when the session is built, naming the
//! feature.

#![cfg_attr(docsrs, feature(doc_auto_cfg))]

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
pub mod store;
mod tenant_coordinator;
pub mod tools;
mod tree_coordinator;
mod workspace;

pub use factory::LocalSessionFactory;
pub use host_files::{spec_outside, store_outside};
pub use keyed_log::KeyedLog;
pub use local_chat::LocalChat;
pub use runner::{SubagentRun, SubagentRunner};
pub use tenant_coordinator::TenantCoordinator;
