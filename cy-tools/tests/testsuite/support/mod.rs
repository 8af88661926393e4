//! What the runtime's tests share: hand-written tool definitions, and the contexts and calls
//! they are bound to and called with.

mod context;
mod tools;

pub use context::*;
pub use tools::*;
