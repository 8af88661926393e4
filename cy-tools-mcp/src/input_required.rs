//! Approval in 2026-07-28's multi-round form: the first `tools/call` is answered
//! `input_required` with an elicitation and a signed `requestState`; the client asks its user
//! and calls again with the answer and the state, and whichever replica gets that call checks
//! the state and runs the call, or refuses it.

use std::collections::BTreeMap;

use cy_tools::BoundTool;
use cy_tools::approval::{ApprovalRequest, Decision};
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitResult, InputRequest, InputRequiredResult,
};
use rmcp::service::RequestContext;
use serde_json::Value;

use super::approval::{CANNOT_ELICIT, decision, elicitation};
use super::request_state::{Accepted, Scope, StateCodec};

/// The key of the approval question among a round's input requests.
const APPROVE: &str = "approve";

/// What the round comes to: ask (answer `input_required`), or a decision to run the call on.
pub(super) enum Round {
    Ask(InputRequiredResult),
    Decided(Decision),
    /// Answered with a state this replica accepted: the decision, and the state's nonce and
    /// expiry, for the shared store (or log) to say whether another replica spent it.
    Answered(Decision, Accepted),
}

/// The approval round of a call of `tool` that needs approval, from a client of protocol
/// 2026-07-28 or later, in the session `scope` names.
pub(super) fn approval_round(
    codec: Result<&StateCodec, &str>,
    scope: &Scope,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
    tool: &BoundTool,
    arguments: &Value,
) -> Round {
    let codec = match codec {
        Ok(codec) => codec,
        Err(why) => {
            return Round::Decided(Decision::Unavailable {
                reason: format!("the approval state cannot be signed ({why})"),
            });
        }
    };
    let client = context
        .meta
        .client_info()
        .map(|info| info.name)
        .or_else(|| {
            context
                .peer
                .peer_info()
                .map(|info| info.client_info.name.clone())
        })
        .unwrap_or_else(|| "client".to_string());
    if let Some(state) = &request.request_state {
        let accepted = match codec.open(state, scope, tool.name(), arguments) {
            Ok(accepted) => accepted,
            Err(refused) => {
                tracing::info!(tool = tool.name(), "refused an approval state: {refused:?}");
                return Round::Decided(Decision::Unavailable {
                    reason: refused.to_string(),
                });
            }
        };
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(APPROVE))
            .and_then(|answer| serde_json::from_value::<ElicitResult>(answer.clone()).ok());
        return match answer {
            Some(answer) => Round::Answered(decision(&answer.action, &client), accepted),
            None => Round::Decided(Decision::Unavailable {
                reason: format!(
                    "the client sent the approval state back without an answer to the `{APPROVE}` question (`inputResponses.{APPROVE}`); call the tool again to be asked anew"
                ),
            }),
        };
    }
    let can_elicit = context
        .meta
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.elicitation.is_some());
    if !can_elicit {
        return Round::Decided(Decision::Unavailable {
            reason: CANNOT_ELICIT.to_string(),
        });
    }
    let question = ApprovalRequest {
        session_id: &tool.session().session_id,
        call_id: &context.id.to_string(),
        tool: tool.name(),
        title: tool.annotations().title,
        arguments,
        policy: tool.approval_policy(),
    }
    .question();
    let state = match codec.seal(scope, tool.name(), arguments) {
        Ok(state) => state,
        Err(why) => {
            return Round::Decided(Decision::Unavailable {
                reason: format!("the approval state cannot be signed ({why})"),
            });
        }
    };
    let asks = BTreeMap::from([(
        APPROVE.to_string(),
        InputRequest::Elicitation(ElicitRequest::new(elicitation(&question))),
    )]);
    tracing::info!(
        tool = tool.name(),
        "asking the client for approval (input_required)"
    );
    Round::Ask(InputRequiredResult::new(Some(asks), Some(state)))
}
