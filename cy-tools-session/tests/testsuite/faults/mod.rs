//! Faults from outside, end to end: a tool that panics or hangs, code killed mid-run, and a
//! session store on a full or read-only disk. Each says what happened and what to do, and
//! leaves nothing running. (An MCP client that goes away and a control server killed mid-run
//! are `cy-tools-cli`'s.)

mod executor;
mod store;
mod tools;
