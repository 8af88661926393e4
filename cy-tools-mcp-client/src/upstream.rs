//! What a server asks of the session while it runs a call (MCP's `sampling/createMessage` and
//! `elicitation/create`): passed to whoever the call's host asks on its behalf (the MCP client
//! that called the session, the model loop's model), else declined with a reason. And what it
//! tells the session: a call's progress (to that call) and that its tool list changed (to the
//! servers' refresher).

// MCP 2026-07-28 deprecates sampling (SEP-2577); servers written for 2025-11-25 still ask.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cy_tools::call::{Asker, ElicitForm, Elicited, SampleMessage, SampleRequest, Sampled};
use cy_tools::catalog::Role;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, Implementation, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;

type McpError = rmcp::ErrorData;

/// The askers of a server's calls in flight, the latest last: a request the server makes while
/// they run goes to the latest.
pub(crate) type Askers = Arc<Mutex<Vec<Arc<dyn Asker>>>>;

/// The calls in flight that listen to their progress, by the progress token their request
/// carries: the server's `notifications/progress` for a token goes to its call.
pub(crate) type Progressing =
    Arc<Mutex<HashMap<ProgressToken, UnboundedSender<ProgressNotificationParam>>>>;

/// Where a server's `notifications/tools/list_changed` goes: the index of the server among the
/// session's, sent to the task that lists it again.
#[derive(Clone)]
pub(crate) struct ListChanged {
    pub(crate) index: usize,
    pub(crate) to: UnboundedSender<usize>,
}

impl ListChanged {
    /// Asks for the server's tools to be listed again.
    pub(crate) fn tell(&self) {
        // The refresher is gone only with the session, when nobody needs the list.
        let _ = self.to.send(self.index);
    }
}

/// The session's side of the protocol with one server.
#[derive(Clone)]
pub(crate) struct Handler {
    pub(crate) server: String,
    pub(crate) askers: Askers,
    pub(crate) progressing: Progressing,
    pub(crate) list_changed: ListChanged,
}

impl Handler {
    fn asker(&self, what: &str) -> Result<Arc<dyn Asker>, McpError> {
        self.askers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last()
            .cloned()
            .ok_or_else(|| {
                McpError::invalid_request(
                    format!(
                        "the cy-tools session using MCP server `{}` cannot {what} now: none of its calls is running from a host that can be asked",
                        self.server
                    ),
                    None,
                )
            })
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"sampling": {}, "elicitation": {"form": {}}}))
                .unwrap_or_default();
        ClientConfig::new(
            capabilities,
            Implementation::new("cy-tools", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let asker = self.asker("ask a model")?;
        let request = sample_request(&serde_json::to_value(&params).unwrap_or_default())?;
        let sampled = asker
            .sample(&request)
            .await
            .map_err(|err| McpError::internal_error(err.to_string(), None))?;
        result_of(&sampled)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            // A URL to open is for a person at a browser, which a session's host is not.
            return answer(json!({"action": "decline"}));
        };
        let asker = self.asker("ask its user")?;
        let schema = serde_json::to_value(&requested_schema).unwrap_or_default();
        let form = ElicitForm::from_schema(&schema)
            .map_err(|err| McpError::invalid_params(err.to_string(), None))?;
        let elicited = asker
            .elicit(&message, &form)
            .await
            .map_err(|err| McpError::internal_error(err.to_string(), None))?;
        answer(match elicited {
            Elicited::Accept(content) => json!({"action": "accept", "content": content}),
            Elicited::Decline => json!({"action": "decline"}),
            Elicited::Cancel => json!({"action": "cancel"}),
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let to = self
            .progressing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&params.progress_token)
            .cloned();
        // A token no call listens to: a call that ended, or whose host does not listen.
        if let Some(to) = to {
            let _ = to.send(params);
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(server = self.server, "MCP server's tool list changed");
        self.list_changed.tell();
    }
}

fn answer(value: Value) -> Result<ElicitResult, McpError> {
    serde_json::from_value(value).map_err(|err| McpError::internal_error(err.to_string(), None))
}

/// A `sampling/createMessage` request (its JSON) as the session's.
fn sample_request(params: &Value) -> Result<SampleRequest, McpError> {
    let mut messages = Vec::new();
    for message in params["messages"].as_array().into_iter().flatten() {
        // Text is what a model loop can pass on; other content is named, not dropped.
        let text = match message["content"]["type"].as_str() {
            Some("text") => message["content"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            Some(other) => format!("[{other} content]"),
            None => message["content"].to_string(),
        };
        messages.push(match message["role"].as_str() {
            Some("assistant") => SampleMessage::assistant(text),
            _ => SampleMessage::user(text),
        });
    }
    let max_tokens = params["maxTokens"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(1024);
    let mut request = SampleRequest::new(messages, max_tokens);
    if let Some(prompt) = params["systemPrompt"].as_str() {
        request = request.with_system_prompt(prompt);
    }
    if let Some(temperature) = params["temperature"].as_f64() {
        #[allow(clippy::cast_possible_truncation)] // a temperature fits an f32
        {
            request = request.with_temperature(temperature as f32);
        }
    }
    Ok(request)
}

/// The session's answer as a `sampling/createMessage` result.
fn result_of(sampled: &Sampled) -> Result<CreateMessageResult, McpError> {
    let role = match sampled.role {
        Role::Assistant => "assistant",
        Role::User => "user",
    };
    let mut value = json!({
        "role": role,
        "content": {"type": "text", "text": sampled.text()},
        "model": sampled.model,
    });
    if let Some(reason) = &sampled.stop_reason {
        value["stopReason"] = json!(reason);
    }
    serde_json::from_value(value).map_err(|err| McpError::internal_error(err.to_string(), None))
}
