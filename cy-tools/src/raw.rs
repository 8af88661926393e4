//! `RawToolDefinition`: a tool with a hand-written JSON Schema and untyped arguments, which are
//! still validated against that schema before the body runs.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::capability::{CapabilitySet, NoCapabilities};
use crate::validate;
use crate::{
    BindError, BoxFuture, CallInfo, Capabilities, Ctx, DynTool, Schema, ToolAnnotations,
    ToolContext, ToolResult, is_valid_tool_name,
};

/// The body of a raw tool: the validated argument object, the narrowed context and per-call data.
pub type RawHandler<C> = for<'a> fn(Value, Ctx<'a, C>, CallInfo<'a>) -> BoxFuture<'a, ToolResult>;

/// A context-free tool definition with a hand-written JSON Schema (draft 2020-12).
///
/// The schema is canonicalized like a typed one, compiled once per process, and every call's
/// arguments are validated against it before the body runs, so a raw tool cannot drift from
/// its schema either.
///
/// ```
/// use cy_tools::{BoxFuture, CallInfo, Ctx, DynTool, RawToolDefinition, ToolResult};
/// use serde_json::{json, Value};
///
/// fn schema() -> Value {
///     json!({"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]})
/// }
///
/// fn run<'a>(args: Value, _ctx: Ctx<'a>, _call: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
///     Box::pin(async move { ToolResult::text(args["code"].as_str().unwrap_or_default().len().to_string()) })
/// }
///
/// static COUNT: RawToolDefinition = RawToolDefinition::new("count_code", "Counts bytes.", schema, run);
/// assert_eq!(COUNT.schema().unwrap().field_list(), "`code` (string, required)");
/// ```
pub struct RawToolDefinition<C: CapabilitySet = NoCapabilities> {
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
    timeout: Option<Duration>,
    schema_source: fn() -> Value,
    handler: RawHandler<C>,
    compiled: OnceLock<Result<Compiled, String>>,
}

struct Compiled {
    schema: Schema,
    validator: validate::Validator,
}

impl<C: CapabilitySet> RawToolDefinition<C> {
    /// A definition whose parameter schema `schema` returns (called once per process).
    ///
    /// # Panics
    /// When `name` is not a valid tool name; in a `static` that is a compile error.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        schema: fn() -> Value,
        handler: RawHandler<C>,
    ) -> Self {
        assert!(
            is_valid_tool_name(name),
            "invalid tool name: use 1 to 64 ASCII letters, digits, `_` or `-`"
        );
        RawToolDefinition {
            name,
            description,
            annotations: ToolAnnotations::DEFAULT,
            timeout: None,
            schema_source: schema,
            handler,
            compiled: OnceLock::new(),
        }
    }

    /// Sets the behaviour hints.
    #[must_use]
    pub const fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets the default timeout of one call.
    #[must_use]
    pub const fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    fn compiled(&self) -> Result<&Compiled, BindError> {
        self.compiled
            .get_or_init(|| {
                let schema = Schema::canonical((self.schema_source)())?;
                let validator = validate::Validator::new(schema.value())
                    .map_err(|err| format!("it is not valid JSON Schema 2020-12: {err}"))?;
                Ok(Compiled { schema, validator })
            })
            .as_ref()
            .map_err(|reason| BindError::InvalidSchema {
                tool: self.name.to_string(),
                reason: reason.clone(),
            })
    }
}

impl<C: CapabilitySet> DynTool for RawToolDefinition<C> {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> &str {
        self.description
    }

    fn capabilities(&self) -> Capabilities {
        C::CAPABILITIES
    }

    fn annotations(&self) -> ToolAnnotations {
        self.annotations
    }

    fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    fn schema(&self) -> Result<&Schema, BindError> {
        self.compiled().map(|c| &c.schema)
    }

    fn start<'a>(
        &'a self,
        context: &'a ToolContext,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, ToolResult>, String> {
        let ctx = Ctx::<C>::new(context).map_err(|err| err.to_string())?;
        let compiled = self.compiled().map_err(|err| err.to_string())?;
        let args = Value::Object(args);
        validate::check(&compiled.validator, &args)?;
        Ok((self.handler)(args, ctx, call))
    }
}
