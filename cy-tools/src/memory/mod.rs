//! In-memory implementations of the session services, for tests and examples.
//!
//! They keep everything in the process and are safe to share between tasks. The real backends
//! (a local sandbox on disk, SQLite, HTTP) live in `cy-tools-builtin`.

mod chat;
mod coordinator;
mod log;
mod sandbox;
mod specs;

pub use chat::MemoryChat;
pub use coordinator::MemoryCoordinator;
pub use log::MemoryLog;
pub use sandbox::MemorySandbox;
pub use specs::MemorySpecs;
