//! Resource definitions: `ResourceDefinition` (what `#[resource]` writes) and the `Resource`
//! trait registries hold.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::body::{Body, TypedBody};
use super::complete::{self, Completer};
use super::contents::ReadOutput;
use super::template::UriTemplate;
use crate::BoxFuture;
use crate::binding::BoundContext;
use crate::call::{ArgsError, CallInfo};
use crate::capability::{Capabilities, CapabilitySet, NoCapabilities};
use crate::definition::Schema;
use crate::state::StateType;

/// What a resource says of itself: its name, URI (or URI template), title, description, media
/// type and the application state its function reads.
#[derive(Clone, Copy, Debug)]
pub struct ResourceMeta {
    name: &'static str,
    uri: &'static str,
    title: Option<&'static str>,
    description: &'static str,
    mime_type: Option<&'static str>,
    states: &'static [StateType],
}

impl ResourceMeta {
    /// The resource's name (unique among a registry's resources).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its URI, or its URI template (`test://template/{id}/data`).
    pub fn uri(&self) -> &'static str {
        self.uri
    }

    /// Its title, for a person.
    pub fn title(&self) -> Option<&'static str> {
        self.title
    }

    /// What it is.
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// Its media type, when declared.
    pub fn mime_type(&self) -> Option<&'static str> {
        self.mime_type
    }

    /// The application state types its function reads.
    pub fn states(&self) -> &'static [StateType] {
        self.states
    }
}

/// A context-free resource definition with its argument type erased: what a registry holds
/// and a [`BoundResource`](crate::catalog::BoundResource) reads.
pub trait Resource: Send + Sync + 'static {
    /// Name, URI, title, description, media type and state types.
    fn meta(&self) -> &ResourceMeta;

    /// The context fields its function may touch.
    fn capabilities(&self) -> Capabilities;

    /// Its URI as a template (a fixed URI is a template without variables).
    ///
    /// # Errors
    /// The URI is not a valid template; the message says why.
    fn template(&self) -> Result<&UriTemplate, String>;

    /// The schema of the template's variables, as the function takes them.
    ///
    /// # Errors
    /// The function's argument type cannot be a schema.
    fn schema(&self) -> Result<&Schema, String>;

    /// Starts a read, the URI's variables in `args` (as strings).
    ///
    /// # Errors
    /// What is wrong with a variable's value.
    fn start<'a>(
        &'a self,
        context: BoundContext<'a>,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, Result<ReadOutput, String>>, ArgsError>;

    /// Values for the variable `argument` beginning with `value`: the function's completer's,
    /// else the variable's schema's `enum` values.
    fn complete(&self, argument: &str, value: &str) -> Vec<String> {
        complete::offer(None, self.schema(), argument, value)
    }
}

/// A typed, context-free resource definition, in a `static`: its function takes the URI's
/// variables as typed arguments `P` (`()` for a fixed URI) and the context narrowed to `C`.
///
/// `#[resource]` writes it; by hand:
///
/// ```
/// use cy_tools::{BoxFuture, CallInfo, Ctx, catalog::{ReadOutput, Resource, ResourceDefinition}};
///
/// fn motd<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, Result<ReadOutput, String>> {
///     Box::pin(async { Ok(ReadOutput::Text("Be kind.".into())) })
/// }
/// static MOTD: ResourceDefinition<()> =
///     ResourceDefinition::new("motd", "text://motd", "The message of the day.", motd).with_mime_type("text/plain");
/// assert_eq!(MOTD.meta().uri(), "text://motd");
/// assert!(!MOTD.template().unwrap().is_template());
/// ```
pub struct ResourceDefinition<P, C: CapabilitySet = NoCapabilities> {
    meta: ResourceMeta,
    body: TypedBody<P, C, Result<ReadOutput, String>>,
    template: OnceLock<Result<UriTemplate, String>>,
    completer: Option<Completer>,
}

impl<P, C: CapabilitySet> ResourceDefinition<P, C> {
    /// A resource called `name` at `uri` (a URI, or a URI template whose variables are the
    /// fields of `P`).
    pub const fn new(
        name: &'static str,
        uri: &'static str,
        description: &'static str,
        body: Body<P, C, Result<ReadOutput, String>>,
    ) -> Self {
        ResourceDefinition {
            meta: ResourceMeta {
                name,
                uri,
                title: None,
                description,
                mime_type: None,
                states: &[],
            },
            body: TypedBody::new(body),
            template: OnceLock::new(),
            completer: None,
        }
    }

    /// Sets the media type of what it reads.
    #[must_use]
    pub const fn with_mime_type(mut self, mime_type: &'static str) -> Self {
        self.meta.mime_type = Some(mime_type);
        self
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

    /// Sets what completes a variable's value: `completer(argument, typed)` answers the values
    /// to offer (the schema's `enum` values are offered without one).
    #[must_use]
    pub const fn with_completer(mut self, completer: Completer) -> Self {
        self.completer = Some(completer);
        self
    }

    /// The function, for calling it directly.
    pub fn body(&self) -> Body<P, C, Result<ReadOutput, String>> {
        self.body.body()
    }
}

impl<P, C> Resource for ResourceDefinition<P, C>
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    C: CapabilitySet,
{
    fn meta(&self) -> &ResourceMeta {
        &self.meta
    }

    fn capabilities(&self) -> Capabilities {
        C::CAPABILITIES
    }

    fn template(&self) -> Result<&UriTemplate, String> {
        self.template
            .get_or_init(|| UriTemplate::parse(self.meta.uri))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn schema(&self) -> Result<&Schema, String> {
        self.body.schema().map_err(str::to_string)
    }

    fn start<'a>(
        &'a self,
        context: BoundContext<'a>,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, Result<ReadOutput, String>>, ArgsError> {
        self.body.start(context, args, call)
    }

    fn complete(&self, argument: &str, value: &str) -> Vec<String> {
        complete::offer(self.completer, self.schema(), argument, value)
    }
}

/// So a registry takes `&MY_RESOURCE` as it is.
impl<P, C> From<&'static ResourceDefinition<P, C>> for &'static dyn Resource
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    C: CapabilitySet,
{
    fn from(definition: &'static ResourceDefinition<P, C>) -> Self {
        definition
    }
}
