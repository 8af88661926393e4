//! Approval: a person says yes before a call that needs it runs.
//!
//! One [`ApprovalPolicy`] says which calls need it (`none`, `destructive`, `all`), read from
//! each tool's annotations, so a tool declared `read_only` never asks. The session's context
//! holds the policy ([`ToolContext::with_approval`](crate::ToolContext::with_approval)); the
//! runtime asks before the body runs, as one of the session's
//! [call hooks](crate::call::hook) (after the host's hooks unless they place it first), through the call's own [`Approver`] when its host gave
//! one (an MCP server asks its client by elicitation), else the context's, else the session's
//! chat ([`ChatApprover`]). A call that is declined, or not answered within
//! [`Approval::timeout`], or that nobody can be asked about, answers an error result saying
//! so, and its body never runs. Who decided is in the result's `details` (`"approval"`), which
//! the execution log keeps.

mod approver;
mod chat;
mod nonces;
mod policy;
mod question;

pub use approver::{Approval, ApprovalRequest, Approver, DEFAULT_APPROVAL_TIMEOUT, Decision};
pub use chat::ChatApprover;
pub use nonces::SpentNonces;
pub use policy::ApprovalPolicy;
pub use question::{HEAD_CHARS, MAX_SHOWN_CHARS, TAIL_CHARS, show_arguments, visible};

pub(crate) mod gate;
pub(crate) mod hook;
pub use hook::APPROVAL_HOOK;
