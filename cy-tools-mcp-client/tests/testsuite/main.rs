//! The MCP client against real servers nobody here wrote (the reference servers from npm,
//! `mcp-server-time` from PyPI, installed by `.ci/run`) and a fault server written for these
//! tests (`fault_server.py`, standard library only), each started confined in the session's
//! sandbox.

mod everything;
mod faults;
mod http;
mod reference;
mod support;
mod time;
