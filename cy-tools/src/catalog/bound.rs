//! `BoundResource` and `BoundPrompt`: a definition bound to one session's context, and the
//! contract every read and get shares (arguments checked, panics and cancellation answered).

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::contents::ResourceContents;
use super::error::CatalogError;
use super::message::PromptReply;
use super::prompt::{Prompt, PromptArgument, arguments_of};
use super::resource::Resource;
use super::template::UriTemplate;
use crate::BoxFuture;
use crate::binding::{BoundContext, ToolContext};
use crate::call::{ArgsError, CallHooks, CallInfo, args};
use crate::capability::Capabilities;
use crate::state::StateType;

/// Why a resource or a prompt cannot be bound to a session's context: what it needs that the
/// context lacks, or a definition that cannot work.
pub(crate) fn check_context(
    kind: &str,
    name: &str,
    capabilities: Capabilities,
    states: &[StateType],
    context: &ToolContext,
) -> Result<(), String> {
    let session = &context.session().session_id;
    let missing = capabilities.difference(context.provides());
    if !missing.is_empty() {
        return Err(format!(
            "{kind} `{name}` needs capability `{missing}`, which session `{session}` does not provide; give the session's context that service, or leave the {kind} out of this session"
        ));
    }
    let missing: Vec<&str> = states
        .iter()
        .filter(|ty| !context.has_state(**ty))
        .map(|ty| ty.name())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "{kind} `{name}` needs application state `{}`, which session `{session}` does not provide; give the session's context one (`ToolContext::with_state`), or leave the {kind} out of this session",
            missing.join("`, `")
        ));
    }
    Ok(())
}

/// A resource bound to one session: what an MCP server lists and reads.
#[derive(Clone)]
pub struct BoundResource {
    definition: &'static dyn Resource,
    template: &'static UriTemplate,
    context: Arc<ToolContext>,
}

impl BoundResource {
    /// Binds `definition` to `context`.
    ///
    /// # Errors
    /// What the context lacks (a capability, a state type), or why the definition cannot work
    /// (its URI template, its argument types, variables that are not its arguments).
    pub fn bind(
        definition: &'static dyn Resource,
        context: &Arc<ToolContext>,
    ) -> Result<BoundResource, String> {
        let meta = definition.meta();
        let name = meta.name();
        check_context(
            "resource",
            name,
            definition.capabilities(),
            meta.states(),
            context,
        )?;
        let template = definition
            .template()
            .map_err(|err| format!("resource `{name}`: {err}"))?;
        let schema = definition
            .schema()
            .map_err(|err| format!("resource `{name}` has invalid arguments: {err}"))?;
        let variables: Vec<&str> = template.variables().collect();
        if let Some(extra) = schema
            .properties()
            .iter()
            .find(|p| !variables.contains(&p.as_str()))
        {
            return Err(format!(
                "resource `{name}` takes the argument `{extra}`, which its URI `{template}` does not name: add `{{{extra}}}` to the URI, or drop the argument"
            ));
        }
        if let Some(unknown) = variables.iter().find(|v| !schema.has_property(v)) {
            return Err(format!(
                "resource `{name}`'s URI `{template}` names `{{{unknown}}}`, which its function does not take: add an argument `{unknown}`, or drop it from the URI"
            ));
        }
        Ok(BoundResource {
            definition,
            template,
            context: Arc::clone(context),
        })
    }

    /// The resource's name.
    pub fn name(&self) -> &'static str {
        self.definition.meta().name()
    }

    /// Its definition (title, description, media type).
    pub fn definition(&self) -> &'static dyn Resource {
        self.definition
    }

    /// Its URI, or URI template.
    pub fn template(&self) -> &'static UriTemplate {
        self.template
    }

    /// Reads it at `uri`, whose variables `vars` are (as [`UriTemplate::matches`] gives them).
    ///
    /// # Errors
    /// A variable that does not fit its type, the function's error, its panic, or the
    /// cancellation.
    pub async fn read(
        &self,
        uri: &str,
        vars: Vec<(String, String)>,
        cancel: &CancellationToken,
    ) -> Result<Vec<ResourceContents>, CatalogError> {
        let what = format!("resource `{uri}`");
        let args: Map<String, Value> = vars
            .into_iter()
            .map(|(name, value)| (name, Value::String(value)))
            .collect();
        let hooks = CallHooks::default();
        let info = CallInfo::new(self.name(), uri, cancel, None, &hooks);
        let context = BoundContext::new(&self.context);
        let started = catch_unwind(AssertUnwindSafe(|| {
            self.definition.start(context, args, info)
        }));
        let output = drive(&what, started, cancel).await?;
        let output = output.map_err(|message| CatalogError::Failed {
            what: what.clone(),
            message,
        })?;
        Ok(output.into_contents(uri, self.definition.meta().mime_type()))
    }
}

impl std::fmt::Debug for BoundResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundResource")
            .field("name", &self.name())
            .field("uri", &self.template.as_str())
            .finish()
    }
}

/// A prompt bound to one session: what an MCP server lists and gets.
#[derive(Clone)]
pub struct BoundPrompt {
    definition: &'static dyn Prompt,
    arguments: Arc<[PromptArgument]>,
    context: Arc<ToolContext>,
}

impl BoundPrompt {
    /// Binds `definition` to `context`.
    ///
    /// # Errors
    /// What the context lacks (a capability, a state type), or the definition's argument
    /// types cannot be a schema.
    pub fn bind(
        definition: &'static dyn Prompt,
        context: &Arc<ToolContext>,
    ) -> Result<BoundPrompt, String> {
        let meta = definition.meta();
        let name = meta.name();
        check_context(
            "prompt",
            name,
            definition.capabilities(),
            meta.states(),
            context,
        )?;
        let schema = definition
            .schema()
            .map_err(|err| format!("prompt `{name}` has invalid arguments: {err}"))?;
        Ok(BoundPrompt {
            definition,
            arguments: arguments_of(schema).into(),
            context: Arc::clone(context),
        })
    }

    /// The prompt's name.
    pub fn name(&self) -> &'static str {
        self.definition.meta().name()
    }

    /// Its definition (title, description).
    pub fn definition(&self) -> &'static dyn Prompt {
        self.definition
    }

    /// Its arguments, as MCP lists them: required first.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.arguments
    }

    /// Gets the prompt with `args`, each a string (as MCP sends them) or the JSON value of the
    /// function's type.
    ///
    /// # Errors
    /// An argument it does not take or that does not fit its type, a required one missing, the
    /// function's error, its panic, or the cancellation.
    pub async fn get(
        &self,
        args: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<PromptReply, CatalogError> {
        let name = self.name();
        let what = format!("prompt `{name}`");
        let schema = self
            .definition
            .schema()
            .map_err(|message| CatalogError::Failed {
                what: what.clone(),
                message,
            })?;
        args::check_fields(&args, schema).map_err(|err| CatalogError::InvalidArguments {
            what: what.clone(),
            message: format!("{err}; it takes {}", schema.field_list()),
        })?;
        let hooks = CallHooks::default();
        let info = CallInfo::new(name, name, cancel, None, &hooks);
        let context = BoundContext::new(&self.context);
        let started = catch_unwind(AssertUnwindSafe(|| {
            self.definition.start(context, args, info)
        }));
        let started = started.map(|started| {
            started
                .map_err(|err| ArgsError::from(format!("{err}; it takes {}", schema.field_list())))
        });
        drive(&what, started, cancel)
            .await?
            .map_err(|message| CatalogError::Failed { what, message })
    }
}

impl std::fmt::Debug for BoundPrompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundPrompt")
            .field("name", &self.name())
            .finish()
    }
}

type Started<'a, O> = std::thread::Result<Result<BoxFuture<'a, O>, ArgsError>>;

/// Runs a started function to its answer: its arguments' refusal, its panic (at the start or
/// later) and the cancellation each become the error that says so.
async fn drive<O>(
    what: &str,
    started: Started<'_, O>,
    cancel: &CancellationToken,
) -> Result<O, CatalogError> {
    let mut future = match started {
        Ok(Ok(future)) => future,
        Ok(Err(problem)) => {
            return Err(CatalogError::InvalidArguments {
                what: what.to_string(),
                message: problem.to_string(),
            });
        }
        Err(panic) => return Err(panicked(what, panic.as_ref())),
    };
    let mut cancelled = pin!(cancel.cancelled());
    poll_fn(|cx| {
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(out)) => return Poll::Ready(Ok(out)),
            Ok(Poll::Pending) => {}
            Err(panic) => return Poll::Ready(Err(panicked(what, panic.as_ref()))),
        }
        if cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(CatalogError::Cancelled {
                what: what.to_string(),
            }));
        }
        Poll::Pending
    })
    .await
}

fn panicked(what: &str, panic: &(dyn std::any::Any + Send)) -> CatalogError {
    let why = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    CatalogError::Panicked {
        what: what.to_string(),
        why,
    }
}
