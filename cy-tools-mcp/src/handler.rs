//! The MCP methods an [`McpServer`] answers: `rmcp`'s [`ServerHandler`] over the server's
//! session (`tools/call` itself is in `call.rs`).

// MCP 2026-07-28 deprecates logging and the resource subscriptions; 2025-11-25 clients use them.
#![allow(deprecated)]

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    SetLevelRequestParams, SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use tracing::Instrument;

use super::catalog;
use super::logging;
use super::server::McpServer;
use super::unsupported;

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.inner.info.clone();
        // Told when the tools change, where a notification can reach the client.
        if self.live.is_some()
            && !self.stateless
            && let Some(tools) = info.capabilities.tools.as_mut()
        {
            tools.list_changed = Some(true);
        }
        // No update can reach a client between stateless requests: subscriptions are not
        // offered there (a `resources/subscribe` is still acknowledged, see `subscribe`).
        if self.stateless
            && let Some(resources) = info.capabilities.resources.as_mut()
        {
            resources.subscribe = None;
        }
        // The list changes as searches find tools: only a connection that lasts can be told.
        if self.search.is_some()
            && !self.stateless
            && let Some(tools) = info.capabilities.tools.as_mut()
        {
            tools.list_changed = Some(true);
        }
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let current = self.current();
        // What a search finds is kept by a connection that lasts: not between stateless
        // requests, nor for a 2026-07-28 request over HTTP (a connection of its own), which
        // are listed every tool.
        let one_shot = self.over_http && super::protocol::is_modern(&context);
        let searching = self.search.is_some() && !self.stateless && !one_shot;
        let listed = match &self.search {
            Some(search) if searching => search.listed(&current.declarations, &self.found),
            _ => current.declarations.clone(),
        };
        let list = ListToolsResult::with_all_items(listed);
        // The caching fields are 2026-07-28's; older clients get the list as they know it.
        let caching = context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        Ok(if caching && searching {
            // The connection's own list, which its next search may change: not to be kept,
            // nor shared with another connection.
            list.with_ttl_ms(0).with_cache_scope(CacheScope::Private)
        } else if caching {
            list.with_ttl_ms(self.list_ttl_ms())
                .with_cache_scope(self.list_scope)
        } else {
            list
        })
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.current()
            .declarations
            .iter()
            .find(|d| d.name == name)
            .cloned()
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        // The request's span (see `trace`): the tool call's span is its child. Made here and
        // the call's future wrapped in it as it is: an `async fn` would keep a second copy of
        // the request and of the call's whole future, and the transport moves the future
        // (into its task) on every call. A span nobody traces costs a branch per poll.
        let span = super::trace::request_span(&request, &context);
        self.call(request, context, span.clone()).instrument(span)
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        // A connection that carries notifications hears of tool list changes.
        self.listen_for_tool_changes(context.peer);
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // Stateless HTTP keeps nothing between requests: a level set here would be every
        // client's. Each call there is at its own `_meta` level, else the default.
        if self.stateless {
            tracing::debug!(level = ?request.level, "logging/setLevel over stateless HTTP changes nothing");
        } else {
            self.log_level.set(logging::from_mcp(request.level));
        }
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.serves("completion/complete")?;
        catalog::complete(self.inner.session.catalog(), &request)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.serves("prompts/get")?;
        let catalog = self.inner.session.catalog();
        catalog::get(catalog, &request.name, request.arguments, &context.ct)
            .await
            .map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.serves("prompts/list")?;
        Ok(ListPromptsResult::with_all_items(
            self.inner.catalog.prompts.clone(),
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.serves("resources/list")?;
        Ok(ListResourcesResult::with_all_items(
            self.inner.catalog.resources.clone(),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.serves("resources/templates/list")?;
        Ok(ListResourceTemplatesResult::with_all_items(
            self.inner.catalog.templates.clone(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.serves("resources/read")?;
        catalog::read(self.inner.session.catalog(), &request.uri, &context.ct)
            .await
            .map(Into::into)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.serves("resources/subscribe")?;
        let catalog = self.inner.session.catalog();
        if catalog.resource(&request.uri).is_none() {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource at `{}` to subscribe to; `resources/list` and `resources/templates/list` list this server's resources",
                    request.uri
                ),
                Some(json!({ "uri": request.uri })),
            ));
        }
        // Stateless HTTP keeps nothing between requests and has no stream to send an update
        // on: the subscription is acknowledged (the capability does not offer it) and the
        // client re-reads the resource to see changes.
        if self.stateless {
            tracing::debug!(uri = %request.uri, "resources/subscribe over stateless HTTP: no updates can be sent");
        } else {
            self.subscriptions
                .subscribe(request.uri, catalog, context.peer.clone());
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.serves("resources/unsubscribe")?;
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    /// `rmcp` hands over as a custom request whatever does not parse as a known one, so a
    /// `tools/call` with malformed params lands here; it is answered `-32602` with what is
    /// wrong, not "method not found".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method == "tools/call" {
            let problem = match request.params_as::<CallToolRequestParams>() {
                Ok(None) => "the request has no params".to_string(),
                Err(err) => err.to_string(),
                Ok(Some(_)) => "its params were not understood".to_string(),
            };
            tracing::debug!(%problem, "malformed tools/call");
            return Err(ErrorData::invalid_params(
                format!(
                    "invalid `tools/call` request: {problem}; send params {{\"name\": \"<tool>\", \"arguments\": {{...}}}} with one of the tools `tools/list` names"
                ),
                None,
            ));
        }
        Err(unsupported::method(&request.method, &self.inner.served))
    }
}
