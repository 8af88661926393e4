//! Prompt definitions: `PromptDefinition` (what `#[prompt]` writes) and the `Prompt` trait
//! registries hold.

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::body::{Body, TypedBody};
use super::complete::{self, Completer};
use super::message::PromptReply;
use crate::BoxFuture;
use crate::binding::BoundContext;
use crate::call::{ArgsError, CallInfo};
use crate::capability::{Capabilities, CapabilitySet, NoCapabilities};
use crate::definition::Schema;
use crate::state::StateType;

/// What a prompt says of itself: its name, title, description and the application state its
/// function reads.
#[derive(Clone, Copy, Debug)]
pub struct PromptMeta {
    name: &'static str,
    title: Option<&'static str>,
    description: &'static str,
    states: &'static [StateType],
}

impl PromptMeta {
    /// The prompt's name (unique among a registry's prompts).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its title, for a person.
    pub fn title(&self) -> Option<&'static str> {
        self.title
    }

    /// What it is for.
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// The application state types its function reads.
    pub fn states(&self) -> &'static [StateType] {
        self.states
    }
}

/// One argument of a prompt as MCP lists it: name, description and whether it is required
/// (its values are sent as strings, and read as the function's types).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is, from the argument's doc comment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the prompt cannot be got without it.
    pub required: bool,
}

/// The arguments of a prompt whose argument schema is `schema`, in the schema's order.
pub(crate) fn arguments_of(schema: &Schema) -> Vec<PromptArgument> {
    let root = schema.value();
    let required: Vec<&str> = root
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = root.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut arguments: Vec<PromptArgument> = properties
        .iter()
        .map(|(name, property)| PromptArgument {
            name: name.clone(),
            description: property
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            required: required.contains(&name.as_str()),
        })
        .collect();
    // Required first, so a person filling a form meets them first; then by name.
    arguments.sort_by(|a, b| b.required.cmp(&a.required).then(a.name.cmp(&b.name)));
    arguments
}

/// A context-free prompt definition with its argument type erased: what a registry holds and
/// a [`BoundPrompt`](crate::catalog::BoundPrompt) gets.
pub trait Prompt: Send + Sync + 'static {
    /// Name, title, description and state types.
    fn meta(&self) -> &PromptMeta;

    /// The context fields its function may touch.
    fn capabilities(&self) -> Capabilities;

    /// The schema of its arguments, as the function takes them.
    ///
    /// # Errors
    /// The function's argument type cannot be a schema.
    fn schema(&self) -> Result<&Schema, String>;

    /// Starts getting the prompt with `args` (strings, or JSON values).
    ///
    /// # Errors
    /// What is wrong with an argument.
    fn start<'a>(
        &'a self,
        context: BoundContext<'a>,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, Result<PromptReply, String>>, ArgsError>;

    /// Values for the argument `argument` beginning with `value`: the function's completer's,
    /// else the argument's schema's `enum` values.
    fn complete(&self, argument: &str, value: &str) -> Vec<String> {
        complete::offer(None, self.schema(), argument, value)
    }
}

/// A typed, context-free prompt definition, in a `static`: its function takes typed arguments
/// `P` and the context narrowed to `C`, and answers the prompt's messages.
///
/// `#[prompt]` writes it; by hand:
///
/// ```
/// use cy_tools::{BoxFuture, CallInfo, Ctx, catalog::{Prompt, PromptDefinition, PromptReply, PromptMessage}};
///
/// fn greet<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, Result<PromptReply, String>> {
///     Box::pin(async { Ok(PromptReply::new(vec![PromptMessage::user("Say hello.")])) })
/// }
/// static GREET: PromptDefinition<()> = PromptDefinition::new("greet", "Greets.", greet);
/// assert_eq!(GREET.meta().name(), "greet");
/// ```
pub struct PromptDefinition<P, C: CapabilitySet = NoCapabilities> {
    meta: PromptMeta,
    body: TypedBody<P, C, Result<PromptReply, String>>,
    completer: Option<Completer>,
}

impl<P, C: CapabilitySet> PromptDefinition<P, C> {
    /// A prompt called `name`.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        body: Body<P, C, Result<PromptReply, String>>,
    ) -> Self {
        PromptDefinition {
            meta: PromptMeta {
                name,
                title: None,
                description,
                states: &[],
            },
            body: TypedBody::new(body),
            completer: None,
        }
    }

    /// Sets the title, for a person.
    #[must_use]
    pub const fn with_title(mut self, title: &'static str) -> Self {
        self.meta.title = Some(title);
        self
    }

    /// Declares the application state its function reads.
    #[must_use]
    pub const fn needs_state(mut self, states: &'static [StateType]) -> Self {
        self.meta.states = states;
        self
    }

    /// Sets what completes an argument's value (see [`Completer`]).
    #[must_use]
    pub const fn with_completer(mut self, completer: Completer) -> Self {
        self.completer = Some(completer);
        self
    }

    /// The function, for calling it directly.
    pub fn body(&self) -> Body<P, C, Result<PromptReply, String>> {
        self.body.body()
    }
}

impl<P, C> Prompt for PromptDefinition<P, C>
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    C: CapabilitySet,
{
    fn meta(&self) -> &PromptMeta {
        &self.meta
    }

    fn capabilities(&self) -> Capabilities {
        C::CAPABILITIES
    }

    fn schema(&self) -> Result<&Schema, String> {
        self.body.schema().map_err(str::to_string)
    }

    fn start<'a>(
        &'a self,
        context: BoundContext<'a>,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, Result<PromptReply, String>>, ArgsError> {
        self.body.start(context, args, call)
    }

    fn complete(&self, argument: &str, value: &str) -> Vec<String> {
        complete::offer(self.completer, self.schema(), argument, value)
    }
}

/// So a registry takes `&MY_PROMPT` as it is.
impl<P, C> From<&'static PromptDefinition<P, C>> for &'static dyn Prompt
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    C: CapabilitySet,
{
    fn from(definition: &'static PromptDefinition<P, C>) -> Self {
        definition
    }
}
