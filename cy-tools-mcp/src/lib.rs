//! # cy-tools-mcp
//!
//! An MCP server over a session's [`Toolset`](cy_tools::Toolset), with the `rmcp` crate. It depends on the core
//! (`cy-tools`) only: an application serving tools of its own links no built-in tool it did
//! not ask for (the built-ins are `cy-tools-sandbox`'s and `cy-tools-session`'s).
//!
//! A session, a toolset or an [`McpServer`] set up with its `with_*` methods is served one way
//! per transport: [`serve_stdio`], [`serve`] over any pair of byte streams, and
//! `http::McpHttpServer` over streamable HTTP (feature `http`).
//!
//! * `tools/list` answers every tool of the toolset, sorted by name, declared as the
//!   [`Dialect::Mcp`](cy_tools::dialect::Dialect::Mcp) export (input schema, title, annotations).
//!   A host whose session's tools change while it is served ([`ToolUpdates`], from
//!   [`McpServer::with_tool_updates`]) puts the new ones in place, and the clients that can be
//!   told are sent `notifications/tools/list_changed`.
//! * `tools/call` runs [`BoundTool::execute`](cy_tools::BoundTool::execute), the same path a
//!   model loop takes: arguments are validated against the canonical schema here, not by the
//!   client, and whatever goes wrong in the tool comes back as an `isError` result the model can
//!   act on. A name the toolset does not have is a JSON-RPC error (`-32602`) naming the tool and
//!   listing the valid ones.
//! * Structured results ([`Content::Json`](cy_tools::call::Content::Json)) become `structuredContent`
//!   plus a text copy; images, audio, embedded resources and resource links become their MCP
//!   blocks.
//! * A `notifications/cancelled` for a call cancels the token that call runs under, so the
//!   tool's work (a child process, say) stops, and no response is sent for it.
//! * Over stdio at most [`DEFAULT_MAX_CONCURRENT_CALLS`] calls run at once
//!   ([`McpServer::with_max_concurrent_calls`]); later ones wait, in order, and a cancelled one
//!   leaves the queue.
//! * A call whose request carries a `progressToken` sends the tool's progress
//!   ([`CallInfo::progress`](cy_tools::CallInfo::progress)) as `notifications/progress`, all of
//!   them before its result; without a token none are sent.
//! * The server declares `logging`: a tool's [`CallInfo::log`](cy_tools::CallInfo::log)
//!   messages reach the client as `notifications/message` before the result, at or above the
//!   level it asked for: a request's `_meta` log level (2026-07-28 clients opt in so, per
//!   request), else for older clients the connection's `logging/setLevel` (`info` until set).
//! * A method the server does not serve (resources, prompts, completion) is answered `-32601`
//!   naming the methods it serves and what to do.
//! * A call that needs approval (the session's
//!   [`ApprovalPolicy`](cy_tools::approval::ApprovalPolicy)) asks the client by elicitation
//!   before it runs: a 2025-11-25 client over stdio by an `elicitation/create` request, a
//!   2026-07-28 client by an `input_required` result whose `requestState` is signed
//!   ([`STATE_KEY_ENV`]) and good in the session it was asked in only; with a shared store
//!   ([`McpServer::with_spent_nonces`]) its nonce is spent there, once for every replica. A
//!   client that cannot be asked has the call refused, with what to do.
//! * Input that is not a valid message is answered as JSON-RPC 2.0 says, before `rmcp` sees it
//!   (`line_check`): `-32700` with `"id": null` for a line that is not JSON, `-32600` with the
//!   request's `id` (or `null`) for an invalid request, nothing for a malformed notification.
//! * The protocol owns stdout; logs go through `tracing`, which the `cy-tools` binary writes to
//!   stderr.
//! * Over streamable HTTP (feature `http`): the `http` module, the same server behind a bearer
//!   token, `Origin` checks and bounded requests, stateless so replicas can share a workspace.
//!
//! ```no_run
//! use cy_tools::prelude::*;
//!
//! /// Adds two numbers.
//! #[tool(read_only)]
//! async fn add(a: i64, b: i64) -> Result<String, ToolError> {
//!     Ok((a + b).to_string())
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let context = ToolContext::new(SessionIdentity::root("s-1", "local"));
//! let tools = ToolRegistry::linked()?.try_build(&["add"], context)?;
//! cy_tools_mcp::serve_stdio(tools).await?;
//! # Ok(())
//! # }
//! //! ```

#![cfg_attr(docsrs, feature(doc_auto_cfg))]

mod approval;
mod approval_state;
mod ask;
mod call;
mod call_slots;
mod call_task;
mod catalog;
mod convert;
mod error;
mod fronted;
mod handler;
#[cfg(unix)]
mod hangup;
#[cfg(feature = "http")]
pub mod http;
mod input_required;
mod line_check;
mod lines;
mod logging;
mod notes;
mod protocol;
mod request_state;
mod search_tools;
mod serve;
mod server;
mod tool_updates;
mod trace;
mod transport;
mod unsupported;

pub use call_slots::DEFAULT_MAX_CONCURRENT_CALLS;
pub use error::ServeError;
pub use notes::MAX_PENDING_LOG_MESSAGES;
pub use request_state::{MIN_STATE_KEY_LEN, STATE_KEY_ENV, STATE_LIFETIME};
pub use serve::{IntoMcpServer, serve, serve_stdio};
pub use server::{McpServer, TOOL_LIST_TTL_MS};
pub use tool_updates::ToolUpdates;
