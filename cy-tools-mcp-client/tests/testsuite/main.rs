//! The MCP client against real servers nobody here wrote (the reference servers from npm,
//! `mcp-server-time` from PyPI, installed by `.ci/run`) and fault servers written for these
//! tests (`fault_server.py` over stdio, `http_fault_server.py` over HTTP, standard library
//! only), each stdio one started confined in the session's sandbox.

mod everything;
mod faults;
mod http;
mod http_faults;
mod lazy;
mod list_changed;
mod reference;
mod support;
mod time;
