//! `RawToolDefinition`: a tool with a hand-written JSON Schema and untyped arguments, which are
//! still validated against that schema before the body runs.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Map, Value};

use super::annotations::ToolAnnotations;
use super::erased::Definition;
use super::meta::ToolMeta;
use super::output::OutputSchema;
use super::schema::Schema;
use super::validate;
use crate::BoxFuture;
use crate::binding::{BindError, BoundContext};
use crate::call::{ArgsError, CallInfo, ToolResult};
use crate::capability::{Capabilities, CapabilitySet, Ctx, NoCapabilities};
use crate::state::StateType;

/// The body of a raw tool: the validated argument object, the narrowed context and per-call data.
pub type RawHandler<C> = for<'a> fn(Value, Ctx<'a, C>, CallInfo<'a>) -> BoxFuture<'a, ToolResult>;

/// A context-free tool definition with a hand-written JSON Schema (draft 2020-12).
///
/// The schema is canonicalized like a typed one, compiled once per process, and every call's
/// arguments are validated against it before the body runs, so a raw tool cannot drift from
/// its schema either.
///
/// ```
/// use cy_tools::{BoxFuture, CallInfo, Ctx, ToolResult, definition::RawToolDefinition};
/// use cy_tools::definition::Definition;
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
    meta: ToolMeta,
    schema_source: fn() -> Value,
    handler: RawHandler<C>,
    compiled: OnceLock<Result<Compiled, String>>,
    output: Option<fn() -> Value>,
    output_schema: OnceLock<OutputSchema>,
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
        RawToolDefinition {
            meta: ToolMeta::new(name, description),
            schema_source: schema,
            handler,
            compiled: OnceLock::new(),
            output: None,
            output_schema: OnceLock::new(),
        }
    }

    /// Declares the schema of the structured JSON the tool returns (MCP `outputSchema`, made an
    /// object as MCP requires: see [`OutputSchema`]), as
    /// [`ToolDefinition::with_output_schema`](super::ToolDefinition::with_output_schema) does
    /// for a typed tool. The body then answers a successful call with one
    /// [`Content::json`](crate::call::Content::json) block that matches it.
    ///
    /// ```
    /// use cy_tools::{BoxFuture, CallInfo, Ctx, ToolResult, definition::RawToolDefinition};
    /// use cy_tools::definition::Definition;
    /// use serde_json::{json, Value};
    ///
    /// fn schema() -> Value {
    ///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    /// }
    /// fn output() -> Value {
    ///     json!({"type": "object", "properties": {"bytes": {"type": "integer"}}, "required": ["bytes"]})
    /// }
    /// fn run<'a>(args: Value, _ctx: Ctx<'a>, _call: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    ///     let bytes = args["text"].as_str().unwrap_or_default().len();
    ///     Box::pin(async move { ToolResult::json(json!({"bytes": bytes})) })
    /// }
    ///
    /// static COUNT: RawToolDefinition =
    ///     RawToolDefinition::new("count", "Counts bytes.", schema, run).with_output_schema(output);
    /// assert_eq!(COUNT.output_schema().unwrap().value()["required"], json!(["bytes"]));
    /// ```
    #[must_use]
    pub const fn with_output_schema(mut self, schema: fn() -> Value) -> Self {
        self.output = Some(schema);
        self
    }

    /// Sets the behaviour hints ([`ToolMeta::with_annotations`]).
    #[must_use]
    pub const fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.meta = self.meta.with_annotations(annotations);
        self
    }

    /// Sets the default timeout of one call ([`ToolMeta::with_timeout`]).
    #[must_use]
    pub const fn with_timeout(mut self, timeout: Duration) -> Self {
        self.meta = self.meta.with_timeout(timeout);
        self
    }

    /// Declares the application state the body reads ([`ToolMeta::needs_state`]).
    #[must_use]
    pub const fn needs_state(mut self, states: &'static [StateType]) -> Self {
        self.meta = self.meta.needs_state(states);
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
                tool: self.meta.name().to_string(),
                reason: reason.clone(),
            })
    }
}

impl<C: CapabilitySet> Definition for RawToolDefinition<C> {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn capabilities(&self) -> Capabilities {
        C::CAPABILITIES
    }

    fn schema(&self) -> Result<&Schema, BindError> {
        self.compiled().map(|c| &c.schema)
    }

    fn output_schema(&self) -> Option<&OutputSchema> {
        let schema = self.output?;
        Some(
            self.output_schema
                .get_or_init(|| OutputSchema::new(schema())),
        )
    }

    fn start<'a>(
        &'a self,
        context: BoundContext<'a>,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, ToolResult>, ArgsError> {
        let ctx = Ctx::<C>::assume_checked(context.get());
        let compiled = self
            .compiled()
            .map_err(|err| ArgsError::from(err.to_string()))?;
        let args = Value::Object(args);
        validate::check(&compiled.validator, &args)?;
        Ok((self.handler)(args, ctx, call))
    }
}

/// So a registry takes `&MY_TOOL` as it is: `registry.register("name", &MY_TOOL)`.
impl<C: CapabilitySet> From<&'static RawToolDefinition<C>> for &'static dyn Definition {
    fn from(definition: &'static RawToolDefinition<C>) -> Self {
        definition
    }
}
