//! Approval over MCP: the client is asked by elicitation (`elicitation/create`, a
//! server-to-client request of protocol 2025-11-25 and earlier).

use std::collections::BTreeMap;

use cy_tools::BoxFuture;
use cy_tools::approval::{ApprovalRequest, Approver, Decision};
use cy_tools::call::{ElicitForm, Elicited};
use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::Peer;

use super::ask::PeerAsker;

/// What a call that needs approval says when the client cannot be asked.
pub(super) const CANNOT_ELICIT: &str = "this MCP client does not answer elicitation requests, so nobody can be asked; connect with a client that supports elicitation, or have the server started with `--approve none` to run such calls without asking";

/// What a call that needs approval says to a 2025-11-25 client of the stateless HTTP server.
pub(super) const STATELESS: &str = "this server keeps no connection between requests (stateless HTTP), so a client of protocol 2025-11-25 cannot be asked in the middle of a call; have the server serve the session-bearing HTTP mode (`--http-sessions`), where it is asked, connect with protocol 2026-07-28, which is asked in the call's answer, or have the server started with `--approve none` to run such calls without asking";

/// [`STATELESS`] for a call of a tool of the MCP server `server` that this one fronts (a
/// gateway): its tools count as destructive unless the spec says otherwise, which is one more
/// way out.
pub(super) fn stateless_fronted(server: &str) -> String {
    format!(
        "{STATELESS}, or mark MCP server `{server}`'s tools in the session spec (`\"trust_annotations\": true` on its `mcp_servers` entry: then a tool it declares read-only, `readOnlyHint`, is not asked about)"
    )
}

/// Asks the client of one request, by an elicitation with an empty form (one use of the
/// call's [`PeerAsker::elicit`]): accepting approves, declining or dismissing declines.
pub(super) struct Eliciting {
    asker: PeerAsker,
}

impl Eliciting {
    pub(super) fn new(peer: Peer<RoleServer>) -> Self {
        Eliciting {
            asker: PeerAsker::new(peer),
        }
    }
}

/// The elicitation asking `question`, with an empty form.
pub(super) fn elicitation(question: &str) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.to_string(),
        requested_schema: ElicitationSchema::new(BTreeMap::new()),
    }
}

/// Answers for one call with a decision made already (the multi-round form's, read from the
/// client's second call). The calls that call makes in turn (code run by `execute_code`) were
/// not asked about, and there is no way to ask in the middle of a 2026-07-28 call: they are
/// refused, never approved on the strength of their parent's approval.
pub(super) struct Decided {
    call_id: String,
    decision: Decision,
}

impl Decided {
    pub(super) fn new(call_id: impl Into<String>, decision: Decision) -> Self {
        Decided {
            call_id: call_id.into(),
            decision,
        }
    }
}

/// Why a call made by a call approved in the multi-round form is refused.
const NESTED: &str = "it was made by code another call runs, and a client of protocol 2026-07-28 cannot be asked in the middle of a call; have the code do without it, or have the server started with `--approve none`";

impl Approver for Decided {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        let decision = if request.call_id == self.call_id {
            self.decision.clone()
        } else {
            Decision::Unavailable {
                reason: NESTED.to_string(),
            }
        };
        Box::pin(async move { decision })
    }
}

/// The decision an elicitation answer stands for, and who gave it.
pub(super) fn decision(action: &ElicitationAction, client: &str) -> Decision {
    let by = format!("MCP client `{client}` (elicitation)");
    match action {
        ElicitationAction::Accept => Decision::Approved { by },
        ElicitationAction::Decline => Decision::Declined { by, reason: None },
        // Dismissed, or an action this server does not know: either way, not a yes.
        _ => Decision::Declined {
            by,
            reason: Some("the request was dismissed".to_string()),
        },
    }
}

impl Approver for Eliciting {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            if !self.asker.can_elicit() {
                return Decision::Unavailable {
                    reason: CANNOT_ELICIT.to_string(),
                };
            }
            let by = format!("MCP client `{}` (elicitation)", self.asker.client_name());
            match self
                .asker
                .elicit(&request.question(), &ElicitForm::new())
                .await
            {
                Ok(Elicited::Accept(_)) => Decision::Approved { by },
                Ok(Elicited::Decline) => Decision::Declined { by, reason: None },
                Ok(Elicited::Cancel) => Decision::Declined {
                    by,
                    reason: Some("the request was dismissed".to_string()),
                },
                Err(err) => Decision::Unavailable {
                    reason: format!(
                        "{err}; use a client whose elicitation works, or `--approve none`"
                    ),
                },
            }
        })
    }
}
