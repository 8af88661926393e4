//! Code mode: code run by `execute_code` calls the session's tools back through a private,
//! per-execution SDK channel.
//!
//! For each run, a [`CodeModeExecutor`] opens a Unix domain socket inside a fresh temp folder
//! (mode `0700`), writes the `cy_sdk` Python module next to it, and passes three variables to the
//! process: `CY_SDK_SOCKET` (the socket's path), `CY_SDK_TOKEN` (a random one-time token) and
//! `PYTHONPATH` (the folder, so `import cy_sdk` works without installing anything). The
//! broker answers newline-delimited JSON requests with the session's own bound
//! [`Toolset`](cy_tools::Toolset) — the same validation, capability narrowing and execution log as
//! the model's calls — after consulting an [`ApprovalHook`]. When the run ends, the socket, the
//! folder and every open connection are closed, so a stale address or token is refused.
//!
//! In Python:
//!
//! ```python
//! import cy_sdk
//! text = cy_sdk.call("read_file", path="a.txt")   # text, or parsed JSON for structured results
//! try:
//!     cy_sdk.call("write_file", path="../x", content="")
//! except cy_sdk.ToolError as err:
//!     print(err)                                    # the message the model would have seen
//! print(cy_sdk.tools())                             # the tools that may be called
//! ```
//!
//! With a [`LocalExecutor`](crate::executor::LocalExecutor) the socket is opened on this host.
//! With a [`RemoteExecutor`](crate::executor::RemoteExecutor) the control server opens it next to
//! the code and relays each request back over the connection carrying the run (an HTTP upgrade
//! to `cy-sdk/1`, see `control_server`), so the tools still run here, under the session's
//! context, approval hook, limits and log.
//!
mod approval;
pub(crate) mod broker;
mod dispatch;
mod executor;
mod limits;
mod protocol;

pub use approval::{AllowAll, Approval, ApprovalHook, ApprovalRequest};
pub use executor::{CodeModeBinding, CodeModeExecutor};
pub use limits::CodeModeLimits;

/// The `cy_sdk` Python module (standard library only) that code-mode runs import.
pub const CY_SDK_PY: &str = include_str!("cy_sdk.py");

/// The variable holding the SDK socket's path.
pub const SOCKET_VAR: &str = "CY_SDK_SOCKET";

/// The variable holding the execution's one-time token.
pub const TOKEN_VAR: &str = "CY_SDK_TOKEN";
