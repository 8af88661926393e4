//! The durable store of sessions: their specs and their execution logs, in one SQLite file.
//!
//! [`SqliteStore`] is the embedded default. Tests that need no file use the in-memory
//! [`MemorySpecs`](cy_tools::memory::MemorySpecs) and [`MemoryLog`](cy_tools::memory::MemoryLog).

mod disk;
mod sqlite;

pub use sqlite::SqliteStore;
