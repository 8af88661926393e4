//! # cy-tools-code-mode
//!
//! Code mode: code run by `execute_code` calls the session's tools back through a private,
//! per-execution SDK channel. The crate depends on the core (`cy-tools`) only: it wraps any
//! [`CodeExecutor`](cy_tools::services::CodeExecutor).
//!
//! For each run, a [`CodeModeExecutor`] opens a connected pair of Unix sockets and hands one end
//! to the process as an inherited descriptor (its number in `CY_SDK_FD`), made inheritable in
//! that process alone, so no other command started at the same moment gets it. The `cy_sdk`
//! Python package, with its `tools` module generated from the session's toolset (one typed,
//! documented function per tool, see [`ToolsModule`]), is written once per toolset into a
//! folder of this process's own, which the run imports from first
//! ([`CodeOptions::python_path`](cy_tools::services::CodeOptions::python_path), so isolated mode,
//! `python3 -I`, works too), without installing anything. No socket path and no
//! token are in the environment: the descriptor is the channel and the authority, and another
//! session's code, which cannot have it, cannot drive this session's tools. The broker answers
//! newline-delimited JSON requests with the session's own bound
//! [`Toolset`](cy_tools::Toolset) — the same validation, capability narrowing and execution log as
//! the model's calls — after consulting an [`ApprovalHook`]. When the run ends, the channel is
//! closed.
//!
//! What one run can make the host hold is bounded: one channel (no other can be opened), one
//! request at a time on it (the next waits in the kernel's socket buffer until the answer is
//! written), each request at most [`CodeModeLimits::max_payload_bytes`] (a longer line is
//! discarded in pieces, never held whole, and refused).
//!
//! In Python:
//!
//! ```python
//! import cy_sdk
//! text = cy_sdk.tools.read_file("a.txt", limit=5)  # text, or parsed JSON for structured results
//! help(cy_sdk.tools.read_file)                      # arguments, types, defaults, descriptions
//! try:
//!     cy_sdk.tools.write_file("../x", content="")
//! except cy_sdk.ToolError as err:
//!     print(err)                                    # the message the model would have seen
//! cy_sdk.call("read_file", path="a.txt")            # the same by name
//! print(cy_sdk.tools())                             # the tools that may be called
//! ```
//!
//! With the local executor (`cy-tools-sandbox`) the channel is opened on this host. With the
//! remote executor (`cy-tools-remote`) the control server opens it next to the code (writing
//! the module the runtime sends with the run, with a [`Broker`]) and relays each request back
//! over the connection carrying the run (an HTTP upgrade to `cy-sdk/1`), so the tools still run
//! here, under the session's context, approval hook, limits and log.

#![cfg_attr(docsrs, feature(doc_auto_cfg))]

mod approval;
mod broker;
mod dispatch;
mod executor;
mod limits;
mod module;
mod protocol;
mod python_api;
mod summary;
mod tools_module;

pub use approval::{AllowAll, Approval, ApprovalHook, ApprovalRequest};
pub use broker::Broker;
pub use executor::CodeModeExecutor;
pub use limits::CodeModeLimits;
pub use tools_module::{SUMMARY_CHARS, SUMMARY_LINES, ToolsModule};

/// The `cy_sdk` Python package's `__init__.py` (standard library only) that code-mode runs
/// import; its `tools` module is generated per toolset ([`ToolsModule`]).
pub const CY_SDK_PY: &str = include_str!("cy_sdk.py");

/// The variable holding the number of the run's inherited SDK channel descriptor.
pub const FD_VAR: &str = "CY_SDK_FD";
