//! Faults from outside, end to end through the binary: an MCP client that goes away, a control
//! server killed or stopped mid-run. Each says what happened and what to do, and leaves nothing
//! running.

mod control_server;
mod mcp;
