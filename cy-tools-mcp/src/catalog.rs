//! A session's resources and prompts over MCP: their declarations (made once, when the server
//! is), and `resources/read`, `prompts/get`, `completion/complete` and the subscriptions.

// MCP 2026-07-28 deprecates the resource subscriptions; 2025-11-25 clients use them.
#![allow(deprecated)]

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use cy_tools::CancellationToken;
use cy_tools::catalog::{Catalog, CatalogError, CompletionTarget, PromptReply, Role};
use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptResult, Prompt, PromptMessage,
    ReadResourceResult, Reference, Resource, ResourceTemplate, ResourceUpdatedNotificationParam,
    Role as McpRole,
};
use rmcp::service::Peer;
use serde_json::{Value, json};

use super::ServeError;
use super::convert;

/// What `resources/list`, `resources/templates/list` and `prompts/list` answer, made once.
pub(super) struct Declarations {
    pub(super) resources: Vec<Resource>,
    pub(super) templates: Vec<ResourceTemplate>,
    pub(super) prompts: Vec<Prompt>,
}

impl Declarations {
    /// Whether there is anything to read: a fixed resource or a template.
    pub(super) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    pub(super) fn of(catalog: &Catalog) -> Result<Declarations, ServeError> {
        let mut resources = Vec::new();
        let mut templates = Vec::new();
        for resource in catalog.resources() {
            let meta = resource.definition().meta();
            let template = resource.template();
            let mut value = json!({
                "name": meta.name(),
                "description": meta.description(),
            });
            if let Some(title) = meta.title() {
                value["title"] = json!(title);
            }
            if let Some(mime_type) = meta.mime_type() {
                value["mimeType"] = json!(mime_type);
            }
            if template.is_template() {
                value["uriTemplate"] = json!(template.as_str());
                templates.push(declared(meta.name(), value)?);
            } else {
                value["uri"] = json!(template.as_str());
                resources.push(declared(meta.name(), value)?);
            }
        }
        let mut prompts = Vec::new();
        for prompt in catalog.prompts() {
            let meta = prompt.definition().meta();
            let mut value = json!({
                "name": meta.name(),
                "description": meta.description(),
                "arguments": prompt.arguments(),
            });
            if let Some(title) = meta.title() {
                value["title"] = json!(title);
            }
            prompts.push(declared(meta.name(), value)?);
        }
        Ok(Declarations {
            resources,
            templates,
            prompts,
        })
    }
}

fn declared<T: serde::de::DeserializeOwned>(name: &str, value: Value) -> Result<T, ServeError> {
    serde_json::from_value(value).map_err(|err| ServeError::Declaration {
        tool: name.to_string(),
        message: format!("not an MCP declaration: {err}"),
        source: err.into(),
    })
}

/// `resources/read`.
pub(super) async fn read(
    catalog: &Catalog,
    uri: &str,
    cancel: &CancellationToken,
) -> Result<ReadResourceResult, ErrorData> {
    let contents = catalog.read(uri, cancel).await.map_err(error)?;
    Ok(ReadResourceResult::new(
        contents
            .into_iter()
            .map(|c| convert::resource_contents(c.uri, c.mime_type, c.body))
            .collect(),
    ))
}

/// `prompts/get`.
pub(super) async fn get(
    catalog: &Catalog,
    name: &str,
    arguments: Option<serde_json::Map<String, Value>>,
    cancel: &CancellationToken,
) -> Result<GetPromptResult, ErrorData> {
    let PromptReply {
        description,
        messages,
    } = catalog
        .get_prompt(name, arguments.unwrap_or_default(), cancel)
        .await
        .map_err(error)?;
    let messages = messages
        .into_iter()
        .map(|m| {
            let role = match m.role {
                Role::User => McpRole::User,
                Role::Assistant => McpRole::Assistant,
            };
            PromptMessage::new(role, convert::block(m.content))
        })
        .collect();
    let mut result = GetPromptResult::new(messages);
    result.description = description;
    Ok(result)
}

/// `completion/complete`.
pub(super) fn complete(
    catalog: &Catalog,
    request: &CompleteRequestParams,
) -> Result<CompleteResult, ErrorData> {
    let target = match &request.r#ref {
        Reference::Prompt(prompt) => CompletionTarget::Prompt(&prompt.name),
        Reference::Resource(resource) => CompletionTarget::Resource(&resource.uri),
        _ => {
            return Err(ErrorData::invalid_params(
                "`completion/complete` completes a prompt's argument (`ref/prompt`) or a resource template's variable (`ref/resource`); this reference is neither",
                None,
            ));
        }
    };
    let values = catalog
        .complete(target, &request.argument.name, &request.argument.value)
        .map_err(error)?;
    // The catalog answers at most `MAX_VALUES`, MCP's limit, so this cannot fail.
    let completion = CompletionInfo::with_all_values(values)
        .map_err(|err| ErrorData::internal_error(err, None))?;
    Ok(CompleteResult::new(completion))
}

/// A catalog error as the JSON-RPC error a client acts on.
fn error(err: CatalogError) -> ErrorData {
    let message = err.to_string();
    match err {
        CatalogError::UnknownResource { uri, .. } => {
            ErrorData::resource_not_found(message, Some(json!({ "uri": uri })))
        }
        CatalogError::UnknownPrompt { name, .. } => {
            ErrorData::invalid_params(message, Some(json!({ "prompt": name })))
        }
        CatalogError::InvalidArguments { .. } => ErrorData::invalid_params(message, None),
        _ => ErrorData::internal_error(message, None),
    }
}

/// The URIs one connection's client subscribed to, and whether updates are forwarded to it yet.
#[derive(Clone, Default)]
pub(super) struct Subscriptions(Arc<Mutex<SubscriptionState>>);

#[derive(Default)]
struct SubscriptionState {
    uris: HashSet<String>,
    forwarding: bool,
}

impl Subscriptions {
    /// Subscribes to `uri`, and forwards the catalog's updates of subscribed URIs to `peer`
    /// from now on (one forwarder per connection, ending with it).
    pub(super) fn subscribe(&self, uri: String, catalog: &Catalog, peer: Peer<RoleServer>) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.uris.insert(uri);
        if state.forwarding {
            return;
        }
        state.forwarding = true;
        let subscribed = Arc::clone(&self.0);
        let mut listener = catalog.updates().listen();
        tokio::spawn(async move {
            while let Some(uri) = listener.next().await {
                let wanted = subscribed
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .uris
                    .contains(&*uri);
                if !wanted {
                    continue;
                }
                let param = ResourceUpdatedNotificationParam::new(uri.to_string());
                if let Err(err) = peer.notify_resource_updated(param).await {
                    tracing::debug!("resource updates stop: the client is gone ({err})");
                    break;
                }
            }
        });
    }

    /// Unsubscribes from `uri` (one never subscribed to is no error: the client's state is
    /// what it asked for either way).
    pub(super) fn unsubscribe(&self, uri: &str) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .uris
            .remove(uri);
    }
}
