//! Who is asked, what they are asked, what they answer, and the settings a session holds.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::ApprovalPolicy;
use super::question::{show_arguments, visible};
use crate::BoxFuture;

/// One call waiting for approval, as an [`Approver`] sees it.
#[derive(Clone, Debug)]
pub struct ApprovalRequest<'a> {
    /// The session making the call.
    pub session_id: &'a str,
    /// The call's id.
    pub call_id: &'a str,
    /// The tool's name.
    pub tool: &'a str,
    /// The tool's title, when it declares one.
    pub title: Option<&'a str>,
    /// The arguments, validated against the tool's schema.
    pub arguments: &'a Value,
    /// The policy that asks.
    pub policy: ApprovalPolicy,
}

impl ApprovalRequest<'_> {
    /// The question for a person, one paragraph:
    /// ``Allow `write_file` ("Write a file") with {"path":"a.txt"}?``, the arguments whole
    /// with what could not be seen made visible, or, too long to show whole, their length,
    /// digest, first and last part ([`show_arguments`]).
    ///
    /// ```
    /// use cy_tools::approval::{ApprovalPolicy, ApprovalRequest};
    /// let args = serde_json::json!({"path": "a.txt"});
    /// let request = ApprovalRequest {
    ///     session_id: "s-1", call_id: "c1", tool: "write_file", title: None,
    ///     arguments: &args, policy: ApprovalPolicy::Destructive,
    /// };
    /// assert_eq!(request.question(), r#"Allow `write_file` with {"path":"a.txt"}? (session s-1, call c1)"#);
    /// ```
    pub fn question(&self) -> String {
        let arguments = show_arguments(self.arguments);
        // The ids may come from a client (an MCP call id), so they are shown visibly too.
        let title = self
            .title
            .map(|t| format!(" (\"{}\")", visible(t)))
            .unwrap_or_default();
        format!(
            "Allow `{}`{title} with {arguments}? (session {}, call {})",
            visible(self.tool),
            visible(self.session_id),
            visible(self.call_id)
        )
    }
}

/// What an [`Approver`] answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run the call.
    Approved {
        /// Who approved it, for the log: `chat: alice`, `mcp elicitation: claude-code`.
        by: String,
    },
    /// Do not run it.
    Declined {
        /// Who declined it.
        by: String,
        /// Why, when they said.
        reason: Option<String>,
    },
    /// Nobody can be asked: the call is refused, and `reason` says what to change.
    Unavailable {
        /// Why nobody can be asked, and what to do about it.
        reason: String,
    },
}

/// Asks a person whether a call may run, and waits for the answer. The runtime bounds the
/// wait ([`Approval::timeout`]) and the call's cancellation drops it.
///
/// ```
/// use cy_tools::BoxFuture;
/// use cy_tools::approval::{ApprovalRequest, Approver, Decision};
///
/// /// Approves everything but writes to `.git`.
/// struct NotGit;
/// impl Approver for NotGit {
///     fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
///         let into_git = request.arguments["path"].as_str().is_some_and(|p| p.starts_with(".git"));
///         Box::pin(async move {
///             if into_git {
///                 Decision::Declined { by: "policy NotGit".into(), reason: Some("`.git` is off limits".into()) }
///             } else {
///                 Decision::Approved { by: "policy NotGit".into() }
///             }
///         })
///     }
/// }
/// ```
pub trait Approver: Send + Sync {
    /// Asks about one call.
    fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision>;
}

/// A session's approval settings: which calls ask, how long an answer may take, and who is
/// asked when the call's host names nobody (by default the session's chat, if it has one).
///
/// ```
/// use std::time::Duration;
/// use cy_tools::approval::{Approval, ApprovalPolicy};
/// use cy_tools::{SessionIdentity, ToolContext};
///
/// let approval = Approval::new(ApprovalPolicy::Destructive).with_timeout(Duration::from_secs(60));
/// let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_approval(approval);
/// assert_eq!(context.approval().policy, ApprovalPolicy::Destructive);
/// ```
#[derive(Clone)]
pub struct Approval {
    /// Which calls need approval.
    pub policy: ApprovalPolicy,
    /// How long to wait for an answer before refusing the call.
    pub timeout: Duration,
    /// Who is asked when the call's host gives nobody; `None`: the session's chat.
    pub approver: Option<Arc<dyn Approver>>,
}

/// How long a call waits for approval unless told otherwise: five minutes.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(300);

impl Approval {
    /// Settings with `policy`, the default timeout and the session's chat as the approver.
    pub fn new(policy: ApprovalPolicy) -> Self {
        Approval {
            policy,
            timeout: DEFAULT_APPROVAL_TIMEOUT,
            approver: None,
        }
    }

    /// The same settings with another timeout.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same settings, asking `approver` when the call's host gives nobody.
    #[must_use]
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }
}

impl Default for Approval {
    fn default() -> Self {
        Approval::new(ApprovalPolicy::None)
    }
}

impl std::fmt::Debug for Approval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approval")
            .field("policy", &self.policy)
            .field("timeout", &self.timeout)
            .field("approver", &self.approver.is_some())
            .finish()
    }
}
