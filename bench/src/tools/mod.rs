//! The 16 benchmark tools, written once: their parameter types and their bodies.
//!
//! Both frameworks are handed these same types (rmcp as `Parameters<T>`, cy-tools as
//! `#[args] p: T`), so the two sides derive the same schema from the same derive and
//! deserialize with the same `Deserialize` impl: whatever differs in the measurements is the
//! framework, not the tool. Every struct denies unknown fields, which cy-tools' own generated
//! parameter structs do too; giving rmcp the same rule keeps the validation work equal.
//!
//! The bodies are cheap and pure (they format what they were given), so a call measures the
//! path around the body: arguments to typed parameters, the body's future, the result wrapping.

mod answers;
mod params;

pub use answers::*;
pub use params::*;
