//! The built-in tools that need a session: its child-session factory (`delegate`,
//! `workflow`), its coordinator (`signal`, `wait_for_signal`) or its chat (`send_message`).
//! Each registers itself at link time; the statics are the context-free definitions. A session
//! whose context lacks what a tool needs simply does not get it (a subagent without a chat has
//! no `send_message`).

pub mod delegate;
pub mod send_message;
pub mod signal;
pub mod workflow;
