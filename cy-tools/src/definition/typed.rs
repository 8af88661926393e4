//! `ToolDefinition`: a typed, context-free tool definition that can sit in a `static`.

use std::marker::PhantomData;
use std::sync::OnceLock;
use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::annotations::ToolAnnotations;
use super::erased::Definition;
use super::meta::ToolMeta;
use super::output::OutputSchema;
use super::schema::{self, Schema};
use super::validate;
use crate::BoxFuture;
use crate::binding::{BindError, BoundContext};
use crate::call::{ArgsError, CallInfo, ToolResult, args};
use crate::capability::{Capabilities, CapabilitySet, Ctx, NoCapabilities};
use crate::state::StateType;

/// The body of a typed tool: typed arguments, the narrowed context and per-call data in, a
/// boxed future of the result out.
pub type Handler<P, C> = for<'a> fn(P, Ctx<'a, C>, CallInfo<'a>) -> BoxFuture<'a, ToolResult>;

/// A context-free tool definition whose arguments deserialize into `P`.
///
/// It holds no live reference, so it lives in a `static`; the session context arrives only
/// when it is bound ([`bind_tool`](crate::binding::bind_tool)). `C` is the declared capability set: the
/// body's [`Ctx`] offers exactly those fields. The canonical schema of `P` is generated on first
/// use and shared by every session the definition is bound into.
///
/// The `#[tool]` attribute writes all of this for you. By hand:
///
/// ```
/// use cy_tools::{BoxFuture, CallInfo, Ctx, ToolResult, capability::capability_set, definition::ToolDefinition};
/// use cy_tools::definition::{Definition, ToolAnnotations};
///
/// /// Adds two numbers.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(deny_unknown_fields)]
/// struct AddParams {
///     /// The first addend.
///     a: i64,
///     /// The second addend.
///     b: i64,
/// }
///
/// capability_set!(AddCaps:);
///
/// fn add<'a>(p: AddParams, _ctx: Ctx<'a, AddCaps>, _call: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
///     Box::pin(async move { ToolResult::text((p.a + p.b).to_string()) })
/// }
///
/// static ADD: ToolDefinition<AddParams, AddCaps> =
///     ToolDefinition::new("add", "Adds two integers.", add)
///         .with_annotations(ToolAnnotations::DEFAULT.read_only().idempotent().open_world(false));
///
/// assert_eq!(ADD.schema().unwrap().field_list(), "`a` (integer, required), `b` (integer, required)");
/// ```
pub struct ToolDefinition<P, C: CapabilitySet = NoCapabilities> {
    meta: ToolMeta,
    handler: Handler<P, C>,
    schema: OnceLock<Result<Checked, String>>,
    output: Option<fn() -> Value>,
    output_schema: OnceLock<OutputSchema>,
    refuse_lone_struct: bool,
    _params: PhantomData<fn() -> P>,
}

/// The canonical schema, and a validator when the schema constrains more than the type does.
pub(crate) struct Checked {
    pub(crate) schema: Schema,
    pub(crate) validator: Option<validate::Validator>,
}

impl Checked {
    pub(crate) fn generate<P: JsonSchema>(refuse_lone_struct: bool) -> Result<Checked, String> {
        let schema = schema::generate::<P>()?;
        if refuse_lone_struct && let Some(problem) = schema::lone_struct_argument(schema.value()) {
            return Err(problem);
        }
        // Most types say all there is to say, and serde checks it: only a schema with extra
        // constraints (`#[schemars(length(min = 1))]`) pays for a second, schema-level check,
        // so what the model is shown is also what is enforced.
        let validator = if validate::has_constraints_beyond_serde(schema.value()) {
            Some(
                validate::Validator::new(schema.value())
                    .map_err(|err| format!("the generated schema does not compile: {err}"))?,
            )
        } else {
            None
        };
        Ok(Checked { schema, validator })
    }
}

impl<P, C: CapabilitySet> ToolDefinition<P, C> {
    /// A definition with MCP's default annotations and no timeout.
    ///
    /// # Panics
    /// When `name` is not a valid tool name (`^[A-Za-z0-9_.-]{1,128}$`); in a `static` that is a
    /// compile error.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        handler: Handler<P, C>,
    ) -> Self {
        ToolDefinition {
            meta: ToolMeta::new(name, description),
            handler,
            schema: OnceLock::new(),
            output: None,
            output_schema: OnceLock::new(),
            refuse_lone_struct: false,
            _params: PhantomData,
        }
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

    /// Declares the application state the body reads ([`ToolMeta::needs_state`]); `#[tool]`
    /// declares the types of its `State<'_, T>` parameters.
    #[must_use]
    pub const fn needs_state(mut self, states: &'static [StateType]) -> Self {
        self.meta = self.meta.needs_state(states);
        self
    }

    /// Declares the schema of the structured JSON the tool returns (MCP `outputSchema`, made an
    /// object as MCP requires: see [`OutputSchema`]); `#[tool]` sets it for a tool returning
    /// `Json<T>`.
    #[must_use]
    pub const fn with_output_schema(mut self, schema: fn() -> Value) -> Self {
        self.output = Some(schema);
        self
    }

    /// Not public API: `#[tool]` sets it for a tool with one inline argument, so a struct
    /// there (which the model would have to send nested under the argument's name) is refused
    /// with the fix when the schema is generated, unless the argument is `#[arg(nested)]`.
    #[doc(hidden)]
    #[must_use]
    pub const fn refuse_lone_struct(mut self) -> Self {
        self.refuse_lone_struct = true;
        self
    }

    /// The body, for calling it directly (in a unit test, say).
    pub fn handler(&self) -> Handler<P, C> {
        self.handler
    }
}

impl<P, C> Definition for ToolDefinition<P, C>
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    C: CapabilitySet,
{
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn capabilities(&self) -> Capabilities {
        C::CAPABILITIES
    }

    fn schema(&self) -> Result<&Schema, BindError> {
        self.checked().map(|c| &c.schema)
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
        let args = Value::Object(args);
        if let Some(validator) = &self.checked().map_err(|err| err.to_string())?.validator {
            validate::check(validator, &args)?;
        }
        let params = args::deserialize::<P>(args)?;
        Ok((self.handler)(params, ctx, call))
    }
}

impl<P, C> ToolDefinition<P, C>
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    C: CapabilitySet,
{
    fn checked(&self) -> Result<&Checked, BindError> {
        self.schema
            .get_or_init(|| Checked::generate::<P>(self.refuse_lone_struct))
            .as_ref()
            .map_err(|reason| BindError::InvalidSchema {
                tool: self.meta.name().to_string(),
                reason: reason.clone(),
            })
    }
}

/// So a registry takes `&MY_TOOL` as it is: `registry.register("name", &MY_TOOL)`.
impl<P, C> From<&'static ToolDefinition<P, C>> for &'static dyn Definition
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    C: CapabilitySet,
{
    fn from(definition: &'static ToolDefinition<P, C>) -> Self {
        definition
    }
}
