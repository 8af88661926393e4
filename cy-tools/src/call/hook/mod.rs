//! Hooks around every call, and one policy for results too large for the model.
//!
//! A [`CallHook`] sees each call of a session's tools before it runs (the tool, the session
//! and the arguments: it passes, rewrites the arguments, or refuses with a message the model
//! reads) and after (it sees the result, and may replace it). Hooks are the host's, never a
//! session spec's (a spec a store carries to other workers must not run commands on them):
//! the host gives them to the session's context ([`ToolContext::with_hook`](crate::ToolContext::with_hook)),
//! and every call of the session takes them, whoever made it (an MCP client, the command line,
//! the model loop, code mode's nested calls). They run in the order given, each under a timeout
//! (the hooks' own, or one per hook: [`Hooks::with_timed`]); a hook that fails or times out
//! refuses the call and is named (fail closed). A hook may also answer in the tool's place
//! ([`Before::Answer`]). Approval is one of them: the built-in approval hook asks a person
//! about a call that needs it, after the host's hooks unless placed with
//! [`Hooks::with_approval`], bounded by the approval timeout rather than the hooks'.
//!
//! [`ResultLimits`] bounds what one call answers: text past the limit (per session, per tool,
//! 200,000 bytes by default) and images past theirs (5 MiB each) are cut with a notice saying
//! how much was cut and where the whole result was written in the workspace, so code or
//! `read_file` can page through it. What a call streams while it runs has bounds of its own:
//! a log message's data past [`LOG_MESSAGE_BYTES`](crate::call::LOG_MESSAGE_BYTES) (16 KiB as
//! JSON text) is cut with a notice, a progress message past
//! [`PROGRESS_MESSAGE_BYTES`](crate::call::PROGRESS_MESSAGE_BYTES) (1 KiB) is cut, progress
//! reaches the caller at most every [`PROGRESS_INTERVAL`](crate::call::PROGRESS_INTERVAL), and
//! the MCP server keeps at most 1,024 of a call's log messages waiting to be sent, telling the
//! client how many it dropped past them.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use cy_tools::prelude::*;
//! use cy_tools::call::hook::{Before, CallHook, HookCall, HookError};
//!
//! /// Echoes.
//! #[tool(read_only)]
//! async fn echo_hooked(/** What. */ text: String) -> String { text }
//!
//! /// Refuses any call that mentions a password, and shouts everything else.
//! struct Guard;
//! impl CallHook for Guard {
//!     fn name(&self) -> &str { "guard" }
//!     fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<Before, HookError>> {
//!         Box::pin(async move {
//!             let text = call.arguments["text"].as_str().unwrap_or_default();
//!             Ok(if text.contains("password") {
//!                 Before::Refuse("arguments must not carry passwords".into())
//!             } else {
//!                 let mut arguments = call.arguments.clone();
//!                 arguments.insert("text".into(), text.to_uppercase().into());
//!                 Before::Rewrite(arguments)
//!             })
//!         })
//!     }
//! }
//! # use cy_tools::BoxFuture;
//!
//! let context = ToolContext::local().with_hook(Arc::new(Guard));
//! let session = Session::linked(context, &["echo_hooked"]).unwrap();
//! assert_eq!(session.call("echo_hooked", serde_json::json!({"text": "hi"})).await.to_string(), "HI");
//! let refused = session.call("echo_hooked", serde_json::json!({"text": "my password"})).await;
//! assert!(refused.is_error);
//! assert_eq!(refused.to_string(), "`echo_hooked` was refused by hook `guard`: arguments must not carry passwords");
//! # });
//! ```

mod call_hook;
pub(crate) mod chain;
mod limits;

pub use call_hook::{After, Before, CallHook, HookCall, HookError};
pub use chain::{DEFAULT_HOOK_TIMEOUT, Hooks};
pub(crate) use chain::{after, before};
pub use limits::{DEFAULT_IMAGE_BYTES, DEFAULT_TEXT_BYTES, RESULTS_FOLDER, ResultLimits};
pub(crate) use limits::{apply as apply_limits, within as within_limits};
