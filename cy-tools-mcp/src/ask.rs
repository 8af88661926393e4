//! A call's questions to its MCP client: `sampling/createMessage` (the client's model) and
//! `elicitation/create` (its user), server-to-client requests of protocol 2025-11-25 and
//! earlier, sent on the connection the call came in on.

// MCP 2026-07-28 deprecates sampling (SEP-2577); 2025-11-25 clients use it.
#![allow(deprecated)]

use std::sync::{Arc, LazyLock, OnceLock};

use cy_tools::BoxFuture;
use cy_tools::call::{AskError, Asker, Content, ElicitForm, Elicited, SampleRequest, Sampled};
use cy_tools::catalog::Role;
use rmcp::RoleServer;
use rmcp::model::{
    ClientResult, CreateMessageRequestParams, ElicitRequest, ElicitRequestParams,
    ElicitationAction, ServerRequest,
};
use rmcp::service::Peer;
use serde_json::{Value, json};

/// Why a call of a 2026-07-28 client cannot ask.
const MODERN: &str = "a client of protocol 2026-07-28 cannot be asked in the middle of a call (that protocol has no server-to-client requests); connect with protocol 2025-11-25 over stdio or the session-bearing HTTP mode (`--http-sessions`) to be asked";

/// Why a 2025-11-25 client of the stateless HTTP server cannot be asked.
const STATELESS: &str = "this server keeps no connection between requests (stateless HTTP), so its client cannot be asked in the middle of a call; serve with the session-bearing HTTP mode (`--http-sessions`) or over stdio to be asked";

/// The asker of a call that cannot ask (`why` says so): one shared value per reason, so such a
/// call allocates nothing for it.
struct CannotAsk(&'static str);

impl Asker for CannotAsk {
    fn sample<'a>(&'a self, _: &'a SampleRequest) -> BoxFuture<'a, Result<Sampled, AskError>> {
        Box::pin(std::future::ready(Err(AskError::new(self.0))))
    }

    fn elicit<'a>(
        &'a self,
        _: &'a str,
        _: &'a ElicitForm,
    ) -> BoxFuture<'a, Result<Elicited, AskError>> {
        Box::pin(std::future::ready(Err(AskError::new(self.0))))
    }
}

/// The asker of a call of a connection: the connection's own (made once, on its first call,
/// and kept in `cache`), or a shared one that says why it cannot ask.
pub(super) fn for_call(
    cache: &OnceLock<Arc<dyn Asker>>,
    peer: &Peer<RoleServer>,
    modern: bool,
    stateless: bool,
) -> Arc<dyn Asker> {
    static CANNOT_MODERN: LazyLock<Arc<dyn Asker>> = LazyLock::new(|| Arc::new(CannotAsk(MODERN)));
    static CANNOT_STATELESS: LazyLock<Arc<dyn Asker>> =
        LazyLock::new(|| Arc::new(CannotAsk(STATELESS)));
    if modern {
        Arc::clone(&CANNOT_MODERN)
    } else if stateless {
        Arc::clone(&CANNOT_STATELESS)
    } else {
        Arc::clone(cache.get_or_init(|| Arc::new(PeerAsker::new(peer.clone()))))
    }
}

/// Asks the client of one connection.
pub(super) struct PeerAsker {
    peer: Peer<RoleServer>,
}

impl PeerAsker {
    /// The asker of the connection to `peer` (one that carries server-to-client requests).
    pub(super) fn new(peer: Peer<RoleServer>) -> Self {
        PeerAsker { peer }
    }

    fn client(&self) -> String {
        self.peer.peer_info().map_or_else(
            || "client".to_string(),
            |info| info.client_info.name.clone(),
        )
    }

    /// Whether the client declared `what` (`sampling`, `elicitation`).
    fn offers(&self, what: &str) -> bool {
        self.peer.peer_info().is_some_and(|info| match what {
            "sampling" => info.capabilities.sampling.is_some(),
            _ => info.capabilities.elicitation.is_some(),
        })
    }

    fn check(&self, what: &str) -> Result<(), AskError> {
        if !self.offers(what) {
            return Err(AskError::new(format!(
                "the MCP client `{}` does not offer {what}, so it cannot be asked; use a client that declares the `{what}` capability",
                self.client()
            )));
        }
        Ok(())
    }

    async fn sample(&self, request: &SampleRequest) -> Result<Sampled, AskError> {
        self.check("sampling")?;
        let params = sampling_params(request)?;
        let answer = self.peer.create_message(params).await.map_err(|err| {
            AskError::new(format!(
                "the MCP client `{}` could not sample: {err}",
                self.client()
            ))
        })?;
        let role = match serde_json::to_value(&answer.message.role) {
            Ok(Value::String(role)) if role == "user" => Role::User,
            _ => Role::Assistant,
        };
        let content = answer
            .message
            .content
            .into_vec()
            .into_iter()
            .next()
            .map(|block| serde_json::to_value(block).unwrap_or(Value::Null))
            .map(content_of)
            .unwrap_or_else(|| Content::text(""));
        Ok(Sampled {
            role,
            content,
            model: answer.model,
            stop_reason: answer.stop_reason,
        })
    }

    pub(super) async fn elicit(
        &self,
        message: &str,
        form: &ElicitForm,
    ) -> Result<Elicited, AskError> {
        self.check("elicitation")?;
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": message,
            "requestedSchema": form.schema(),
        }))
        .map_err(|err| {
            AskError::new(format!(
                "the form cannot be sent as an MCP elicitation ({err}); use flat fields of strings, numbers, booleans and enums"
            ))
        })?;
        let asked = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        match self.peer.send_request(asked).await {
            Ok(ClientResult::ElicitResult(answer)) => Ok(match answer.action {
                ElicitationAction::Accept => Elicited::Accept(match answer.content {
                    Some(Value::Object(values)) => values,
                    _ => serde_json::Map::new(),
                }),
                ElicitationAction::Decline => Elicited::Decline,
                // Dismissed, or an action this server does not know: not a yes either way.
                _ => Elicited::Cancel,
            }),
            Ok(other) => Err(AskError::new(format!(
                "the MCP client `{}` answered the elicitation with something else ({other:?})",
                self.client()
            ))),
            Err(err) => Err(AskError::new(format!(
                "the MCP client `{}` could not be asked: {err}",
                self.client()
            ))),
        }
    }

    /// The client's name, for who decided an approval.
    pub(super) fn client_name(&self) -> String {
        self.client()
    }

    /// Whether an approval question can reach this client.
    pub(super) fn can_elicit(&self) -> bool {
        self.offers("elicitation")
    }
}

impl Asker for PeerAsker {
    fn sample<'a>(
        &'a self,
        request: &'a SampleRequest,
    ) -> BoxFuture<'a, Result<Sampled, AskError>> {
        Box::pin(PeerAsker::sample(self, request))
    }

    fn elicit<'a>(
        &'a self,
        message: &'a str,
        form: &'a ElicitForm,
    ) -> BoxFuture<'a, Result<Elicited, AskError>> {
        Box::pin(PeerAsker::elicit(self, message, form))
    }
}

/// The request as MCP's `sampling/createMessage` params.
fn sampling_params(request: &SampleRequest) -> Result<CreateMessageRequestParams, AskError> {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            let content = match &m.content {
                Content::Text { text } => json!({"type": "text", "text": text}),
                Content::Image { data, mime_type } => {
                    json!({"type": "image", "data": data, "mimeType": mime_type})
                }
                Content::Audio { data, mime_type } => {
                    json!({"type": "audio", "data": data, "mimeType": mime_type})
                }
                other => {
                    let mut text = String::new();
                    other.write_text(&mut text);
                    json!({"type": "text", "text": text})
                }
            };
            json!({"role": role, "content": content})
        })
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": request.max_tokens});
    if let Some(prompt) = &request.system_prompt {
        params["systemPrompt"] = json!(prompt);
    }
    if let Some(temperature) = request.temperature {
        params["temperature"] = json!(temperature);
    }
    if !request.stop_sequences.is_empty() {
        params["stopSequences"] = json!(request.stop_sequences);
    }
    serde_json::from_value(params)
        .map_err(|err| AskError::new(format!("the sampling request cannot be sent: {err}")))
}

/// A sampled content block (as MCP's JSON) as a content block of ours.
fn content_of(block: Value) -> Content {
    let text = |key: &str| {
        block
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    match block.get("type").and_then(Value::as_str) {
        Some("text") => Content::text(text("text")),
        Some("image") => Content::Image {
            data: text("data"),
            mime_type: text("mimeType"),
        },
        Some("audio") => Content::Audio {
            data: text("data"),
            mime_type: text("mimeType"),
        },
        _ => Content::json(block),
    }
}
