//! `cy-tools agent` against a fake provider on 127.0.0.1 (`support::fake_model`): `delegate`,
//! approval on the terminal, code mode, tool search, a narrower spec on resume, and what
//! reaches a terminal.

mod cli;
mod cli_code_mode;
mod cli_hooks;
mod cli_mcp_servers;
mod cli_narrowing;
mod cli_terminal;
mod cli_tool_search;
