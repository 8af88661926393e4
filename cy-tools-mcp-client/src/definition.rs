//! A server's tool as a definition like any other: its schema canonicalized and checked by
//! the session's validator (or passed on unchecked when the validator cannot compile it), its
//! calls sent to the server the session's context holds.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use cy_tools::BoxFuture;
use cy_tools::binding::{BindError, BoundContext};
use cy_tools::call::{ArgsError, Progress};
use cy_tools::capability::Capabilities;
use cy_tools::definition::{
    ArgsCheck, Definition, OutputSchema, Schema, ToolAnnotations, ToolMeta,
};
use cy_tools::state::StateType;
use cy_tools::{CallInfo, ToolResult};
use rmcp::model::Tool;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::servers::McpServers;

/// The state every server tool reads: the session's servers.
static STATES: [StateType; 1] = [StateType::of::<McpServers>()];

/// One tool of one server, bound to sessions like any definition.
pub(crate) struct McpToolDefinition {
    meta: ToolMeta,
    /// The server's name in the session.
    pub(crate) server: String,
    /// The server's own name for the tool.
    pub(crate) tool: String,
    schema: Schema,
    /// The server's `outputSchema`, kept so hosts see the shape of its structured results
    /// (code mode types them as a `TypedDict`).
    output: Option<OutputSchema>,
    /// `None` when the validator cannot compile the server's schema: the arguments then go to
    /// the server unchecked, and the build report says why.
    check: Option<ArgsCheck>,
    pub(crate) unchecked: Option<String>,
}

/// Definitions live as long as the process (a bound tool holds a `'static` one), so each
/// distinct tool (server, name, description, schema, annotations, timeout) is made once and
/// shared by every session that uses it.
static MADE: LazyLock<Mutex<HashMap<[u8; 32], &'static McpToolDefinition>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// What a definition is made from.
pub(crate) struct Made<'a> {
    pub(crate) server: &'a str,
    pub(crate) session_name: &'a str,
    pub(crate) tool: &'a Tool,
    pub(crate) trust_annotations: bool,
    pub(crate) timeout: Duration,
}

/// The definition of `made`'s tool: the one made before for the same tool, or a new one.
///
/// # Errors
/// The server's schema is not an object schema a tool can take (named).
pub(crate) fn definition(made: &Made<'_>) -> Result<&'static McpToolDefinition, String> {
    let tool = made.tool;
    let schema_value = Value::Object((*tool.input_schema).clone());
    let annotations = annotations(made);
    let mut key = Sha256::new();
    for part in [
        made.server,
        made.session_name,
        &tool.name,
        tool.description.as_deref().unwrap_or(""),
    ] {
        key.update(part.as_bytes());
        key.update([0]);
    }
    key.update(schema_value.to_string().as_bytes());
    if let Some(output) = &tool.output_schema {
        key.update(Value::Object((**output).clone()).to_string().as_bytes());
    }
    key.update(format!("{annotations:?}{:?}", made.timeout).as_bytes());
    let key: [u8; 32] = key.finalize().into();
    let mut all = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(made) = all.get(&key) {
        return Ok(made);
    }
    let schema = Schema::canonical(schema_value).map_err(|reason| {
        format!(
            "MCP server `{}`'s tool `{}` has a schema no tool can take ({reason})",
            made.server, tool.name
        )
    })?;
    let (check, unchecked) = match ArgsCheck::new(schema.value()) {
        Ok(check) => (Some(check), None),
        Err(why) => (None, Some(why)),
    };
    let name: &'static str = Box::leak(made.session_name.to_string().into_boxed_str());
    let description = tool
        .description
        .as_deref()
        .map(str::to_string)
        .unwrap_or_else(|| format!("`{}` of MCP server `{}`.", tool.name, made.server));
    let description: &'static str = Box::leak(description.into_boxed_str());
    // `session_name` makes only valid names, so this cannot panic.
    let meta = ToolMeta::new(name, description)
        .with_annotations(annotations)
        .with_timeout(made.timeout)
        .needs_state(&STATES);
    let definition: &'static McpToolDefinition = Box::leak(Box::new(McpToolDefinition {
        meta,
        server: made.server.to_string(),
        tool: tool.name.to_string(),
        schema,
        output: tool
            .output_schema
            .as_ref()
            .map(|output| OutputSchema::new(Value::Object((**output).clone()))),
        check,
        unchecked,
    }));
    all.insert(key, definition);
    Ok(definition)
}

/// The tool's annotations as the session takes them: the server's when the spec trusts them,
/// else destructive and open-world whatever it declares (a third party wrote them), so an
/// approval policy asks before each call. The title is kept either way.
fn annotations(made: &Made<'_>) -> ToolAnnotations {
    let declared = made.tool.annotations.as_ref();
    let title = declared
        .and_then(|a| a.title.clone())
        .or_else(|| made.tool.title.clone())
        .map(|t| &*Box::leak(t.into_boxed_str()));
    let mut annotations = ToolAnnotations {
        title,
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };
    if made.trust_annotations
        && let Some(declared) = declared
    {
        annotations.read_only = declared.read_only_hint.unwrap_or(false);
        annotations.destructive = declared.destructive_hint.unwrap_or(!annotations.read_only);
        annotations.idempotent = declared.idempotent_hint.unwrap_or(false);
        annotations.open_world = declared.open_world_hint.unwrap_or(true);
    }
    annotations
}

/// A call's future that answers `message` as an error at once.
fn answer<'a>(message: String) -> BoxFuture<'a, ToolResult> {
    Box::pin(std::future::ready(ToolResult::error(message)))
}

impl McpToolDefinition {
    /// Its name in sessions.
    pub(crate) fn meta_name(&self) -> &'static str {
        self.meta.name()
    }
}

impl Definition for McpToolDefinition {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE
    }

    fn schema(&self) -> Result<&Schema, BindError> {
        Ok(&self.schema)
    }

    fn output_schema(&self) -> Option<&OutputSchema> {
        self.output.as_ref()
    }

    fn mcp_server(&self) -> Option<(&str, &str)> {
        Some((&self.server, &self.tool))
    }

    fn start<'a>(
        &'a self,
        context: BoundContext<'a>,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, ToolResult>, ArgsError> {
        // Binding checked the state is there (`needs_state`).
        let Some(servers) = context.get().state::<McpServers>() else {
            return Ok(answer(format!(
                "MCP server `{}` is not one of this session's; the session must be built with it",
                self.server
            )));
        };
        // The tool as the server lists it now: its list may have changed since the session
        // was bound (`notifications/tools/list_changed`).
        let Some(current) = servers.current(&self.server, &self.tool) else {
            return Ok(answer(format!(
                "`{}` is gone: MCP server `{}` no longer lists its tool `{}`; use the session's other tools",
                self.meta.name(),
                self.server,
                self.tool
            )));
        };
        let args = Value::Object(args);
        if let Some(check) = &current.check {
            check.check(&args)?;
        }
        let Value::Object(args) = args else {
            unreachable!("built from an object above")
        };
        // What the server asks while it runs goes where the call's host would ask, and its
        // progress where the call's host listens.
        let asker = call.asker().cloned();
        Ok(Box::pin(async move {
            let report = move |p: Progress| {
                call.progress(p.done, p.total, || p.message.unwrap_or_default());
            };
            let progress: Option<&(dyn Fn(Progress) + Sync)> =
                call.wants_progress().then_some(&report);
            match servers.server(&self.server) {
                Some(server) => server.call(&self.tool, args, asker, progress).await,
                None => ToolResult::error(format!(
                    "MCP server `{}` is not one of this session's; the session must be built with it",
                    self.server
                )),
            }
        }))
    }
}
