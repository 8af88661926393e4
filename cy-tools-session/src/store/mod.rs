//! The durable store of sessions: their specs and their execution logs.
//!
//! * [`SqliteStore`] is the embedded default: one SQLite file, for the workers of one host.
//! * `PostgresStore` (feature `postgres`) is one PostgreSQL database shared by any number of
//!   workers on any number of hosts, with the chat and the coordinator in it too.
//! * Both spend an MCP server's approval nonces once for every replica
//!   ([`SpentNonces`](cy_tools::approval::SpentNonces)).
//! * [`StoreLocation`] is where a store is, as a URL or a folder says it (`--store`,
//!   `CY_TOOLS_STORE`).
//!
//! Tests that need no file use the in-memory [`MemorySpecs`](cy_tools::memory::MemorySpecs)
//! and [`MemoryLog`](cy_tools::memory::MemoryLog).

mod disk;
mod location;
mod nonces;
#[cfg(feature = "postgres")]
mod postgres;
mod sqlite;
mod sqlite_schema;

pub use location::StoreLocation;
#[cfg(feature = "postgres")]
pub use postgres::{PostgresSettings, PostgresStore, TenantStore, schema::SCHEMA_VERSION};
pub use sqlite::SqliteStore;
