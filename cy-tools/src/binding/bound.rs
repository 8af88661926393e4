//! `BoundTool`: a definition bound to one session, and the call contract every tool shares.

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::Value;
use tokio_util::either::Either;
use tokio_util::sync::CancellationToken;

use super::context::{BoundContext, IntoSharedContext, SessionIdentity, ToolContext};
use super::custom::Custom;
use super::ending::{cancelled, panicked, timed_out};
use super::error::BindError;
use super::name::ToolName;
use super::resolved::check_context;
use crate::approval::ApprovalPolicy;
use crate::approval::hook::ApprovalStep;
use crate::call::hook::{self, chain};
use crate::call::{CallHooks, CallInfo, ProgressGate, ToolCall, ToolResult, args};
use crate::capability::Capabilities;
use crate::definition::{Definition, OutputSchema, Schema, ToolAnnotations};

/// A tool bound to one session's context: what a model loop or an MCP server calls.
///
/// Cloning is cheap (a reference count); the schema is the definition's, shared by every
/// session, never copied.
///
/// Every call follows one contract: whatever the model sends and whatever the body does, the
/// answer is a [`ToolResult`] — invalid arguments, a body's error, a body's panic, the timeout
/// and cancellation all come back as results with `is_error` set and a message that names the
/// problem and the fix. The host keeps running.
#[derive(Clone)]
pub struct BoundTool {
    name: ToolName,
    definition: &'static dyn Definition,
    schema: &'static Schema,
    context: Arc<ToolContext>,
    /// What this binding says differently from the definition (its timeout, its
    /// description), when anything: a session's tools are 64 bytes each without it.
    custom: Option<Arc<Custom>>,
}

/// Binds one context-free definition to a session's context (a session's whole toolset comes
/// from [`ToolRegistry::build`](crate::ToolRegistry::build) instead).
///
/// # Errors
/// [`BindError::MissingCapabilities`] when the context lacks a declared capability,
/// [`BindError::MissingState`] when it lacks a declared application state type (the error
/// names what is missing); [`BindError::InvalidSchema`] when the definition's schema is not a
/// tool schema.
///
/// ```
/// use std::sync::Arc;
/// use cy_tools::{BoxFuture, CallInfo, Ctx, SessionIdentity, ToolContext, ToolResult, binding::bind_tool, capability::capability_set, definition::ToolDefinition};
///
/// capability_set!(ChatCaps: chat);
/// fn say<'a>(_: (), _ctx: Ctx<'a, ChatCaps>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
///     Box::pin(async { ToolResult::text("sent") })
/// }
/// static SAY: ToolDefinition<(), ChatCaps> = ToolDefinition::new("say", "Says hello.", say);
///
/// let subagent = ToolContext::new(SessionIdentity::root("s-2", "acme")); // no chat
/// let err = bind_tool(&SAY, subagent).unwrap_err();
/// assert_eq!(err.to_string(), "tool `say` needs capability `chat`, which session `s-2` does not provide; \
///     give the session's context that service, or leave the tool out of this session");
/// ```
pub fn bind_tool(
    definition: &'static dyn Definition,
    context: impl IntoSharedContext,
) -> Result<BoundTool, BindError> {
    BoundTool::bind_as(
        ToolName::Own(definition.name()),
        definition,
        &context.into_shared(),
    )
}

impl BoundTool {
    /// Binds `definition` under `name` to a shared context, checking the context against it:
    /// [`bind_tool`], a rebinding, and a registry's tool whose context lacks something (the
    /// error names what).
    pub(crate) fn bind_as(
        name: ToolName,
        definition: &'static dyn Definition,
        context: &Arc<ToolContext>,
    ) -> Result<BoundTool, BindError> {
        check_context(&name, definition, context)?;
        Ok(BoundTool::checked(
            name,
            definition,
            definition.schema()?,
            context,
        ))
    }

    /// A tool of `definition` under `name` with `schema`, for a context already checked
    /// against it (by [`check_context`], or by a registry with [`Resolved::fits`](super::resolved::Resolved::fits)).
    #[inline]
    pub(crate) fn checked(
        name: ToolName,
        definition: &'static dyn Definition,
        schema: &'static Schema,
        context: &Arc<ToolContext>,
    ) -> BoundTool {
        BoundTool {
            name,
            definition,
            schema,
            context: Arc::clone(context),
            custom: None,
        }
    }

    /// The same definition under the same name, bound to `context` instead (a session whose
    /// settings changed).
    pub(crate) fn rebind(&self, context: &Arc<ToolContext>) -> Result<BoundTool, BindError> {
        BoundTool::bind_as(self.name.clone(), self.definition, context)
            .map(|tool| tool.with_timeout(self.timeout()))
    }

    /// The name the model calls the tool by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the tool does, for the model: the definition's description, unless this binding
    /// was given its own ([`with_description`](Self::with_description)).
    pub fn description(&self) -> &str {
        self.custom
            .as_ref()
            .and_then(|c| c.description.as_deref())
            .unwrap_or_else(|| self.definition.description())
    }

    /// The same tool described to the model by `description`, for this binding only: what the
    /// tool can do in this session (code mode's `execute_code` lists the functions its code
    /// may call).
    ///
    /// ```
    /// use cy_tools::{SessionIdentity, ToolContext, ToolRegistry};
    /// # use cy_tools::{tool, ToolError};
    /// # /// Answers `pong`.
    /// # #[tool] async fn ping_described() -> Result<String, ToolError> { Ok("pong".into()) }
    /// let tools = ToolRegistry::linked().unwrap().build(&["ping_described"], &ToolContext::new(SessionIdentity::root("s", "t")));
    /// let tool = tools.get("ping_described").unwrap().clone().with_description("Answers `pong`. Here: twice.");
    /// assert_eq!(tool.description(), "Answers `pong`. Here: twice.");
    /// assert_eq!(tool.definition().description(), "Answers `pong`.");
    /// ```
    #[must_use]
    pub fn with_description(mut self, description: impl Into<Arc<str>>) -> Self {
        let description = description.into();
        self.custom = Custom::changed(self.custom.as_ref(), |c| c.description = Some(description));
        self
    }

    /// The name, shared: a toolset's index holds it without copying its text.
    pub(super) fn shared_name(&self) -> &ToolName {
        &self.name
    }

    /// The canonical parameter schema (JSON Schema 2020-12).
    pub fn parameters(&self) -> &'static Value {
        self.schema.value()
    }

    /// The canonical schema with what is derived from it.
    pub fn schema(&self) -> &'static Schema {
        self.schema
    }

    /// The schema of the structured JSON the tool returns, when it declares one.
    pub fn output_schema(&self) -> Option<&'static OutputSchema> {
        self.definition.output_schema()
    }

    /// Behaviour hints.
    pub fn annotations(&self) -> ToolAnnotations {
        self.definition.annotations()
    }

    /// The declared capabilities.
    pub fn capabilities(&self) -> Capabilities {
        self.definition.capabilities()
    }

    /// The timeout each call runs under, if any.
    pub fn timeout(&self) -> Option<Duration> {
        match self.custom.as_ref().and_then(|c| c.timeout) {
            Some(own) => own,
            None => self.definition.timeout(),
        }
    }

    /// The same tool with another timeout (`None`: no limit) for this binding only.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        // The definition's own timeout is no setting of this binding's.
        let own = (timeout != self.definition.timeout()).then_some(timeout);
        self.custom = Custom::changed(self.custom.as_ref(), |c| c.timeout = own);
        self
    }

    /// The context-free definition this tool was bound from.
    pub fn definition(&self) -> &'static dyn Definition {
        self.definition
    }

    /// Whether a call of this tool asks for a person's approval before it runs, under its
    /// session's [approval policy](crate::approval::ApprovalPolicy) and its annotations.
    pub fn needs_approval(&self) -> bool {
        // Every call asks this: under no policy, the annotations are not read at all.
        match self.context.approval().policy {
            ApprovalPolicy::None => false,
            policy => policy.needs(self.annotations()),
        }
    }

    /// Brings `arguments` to the form the call runs with (an object, whichever payload form
    /// the model sent) and checks its root fields, in place: `true` when the call can start
    /// (its body may still refuse a value). A host that asks for approval on its own ahead of
    /// the call (MCP's multi-round form) asks only about calls that can run, and the call then
    /// finds its arguments parsed already. Arguments that cannot run are left as they were,
    /// for the call to answer with what is wrong.
    ///
    /// ```
    /// # use cy_tools::{tool, SessionIdentity, ToolContext, ToolRegistry};
    /// # /// Echoes.
    /// # #[tool] async fn echo_checked(/** What. */ text: String) -> String { text }
    /// let tools = ToolRegistry::linked().unwrap().build(&["echo_checked"], &ToolContext::new(SessionIdentity::root("s", "t")));
    /// let tool = tools.get("echo_checked").unwrap();
    /// let mut sent = serde_json::json!(r#"{"text": "hi"}"#); // double-encoded, as some models send
    /// assert!(tool.check_arguments(&mut sent));
    /// assert_eq!(sent, serde_json::json!({"text": "hi"}));
    /// let mut unknown = serde_json::json!({"txt": "hi"});
    /// assert!(!tool.check_arguments(&mut unknown));
    /// ```
    pub fn check_arguments(&self, arguments: &mut Value) -> bool {
        args::normalize_in_place(arguments).is_ok()
            && arguments
                .as_object()
                .is_some_and(|args| args::check_fields(args, self.schema).is_ok())
    }

    /// The approval policy of the session this tool is bound to.
    pub fn approval_policy(&self) -> crate::approval::ApprovalPolicy {
        self.context.approval().policy
    }

    /// The identity of the session this tool is bound to.
    pub fn session(&self) -> &SessionIdentity {
        self.context.session()
    }

    /// Runs one call. Never fails: every problem is an error result the model can act on.
    ///
    /// When `cancel` is triggered, or the timeout passes, the body's future is dropped at once
    /// and the per-call token handed to the body ([`CallInfo::cancel`]) is cancelled, so work
    /// outside that future stops too. A timeout needs a Tokio runtime with time enabled.
    pub fn execute<'a>(
        &'a self,
        call: ToolCall,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        // Without hooks, a call that needs no approval pays one branch for them; the result
        // limit is a sum of lengths (the call's id names a cut result's file only through the
        // hooked path, which has it at hand: here the tool's name does, made unique). Decided
        // here, not in a future of its own: hosts move a call's future before they run it, and
        // every layer around the body would be copied with it on every call.
        if self.context.hooks.is_empty() && !self.needs_approval() {
            let (call_id, arguments, hooks) = call.into_parts();
            Either::Left(self.run(call_id, arguments, hooks, cancel, Limit::Here))
        } else {
            Either::Right(Box::pin(self.hooked(call, cancel)))
        }
    }

    /// A call through the session's hooks, approval among them: before (which may rewrite,
    /// refuse or answer it), the call, after (which may replace its result), then the result
    /// limit.
    async fn hooked(&self, call: ToolCall, cancel: &CancellationToken) -> ToolResult {
        let name: &str = &self.name;
        if cancel.is_cancelled() {
            return cancelled(name);
        }
        let (call_id, arguments, hooks) = call.into_parts();
        // Checked before any hook sees them: a person is not asked about a call that would
        // fail anyway, and a hook sees an object of the fields the tool declares.
        let args = match args::normalize(arguments)
            .and_then(|args| args::check_fields(&args, self.schema).map(|()| args))
        {
            Ok(args) => args,
            Err(problem) => return args::invalid(name, &problem, self.schema),
        };
        let approval = self.context.approval();
        let step = self.needs_approval().then(|| ApprovalStep {
            approval,
            approver: hooks.approver.as_ref(),
            chat: self.context.fields.chat.as_ref(),
            title: self.annotations().title,
            cancel,
            record: std::sync::Mutex::new(None),
        });
        let seen = chain::Seen {
            session: self.context.session(),
            tool: name,
            call_id: &call_id,
            schema: self.schema,
            approval: step.as_ref(),
        };
        let args = match hook::before(&self.context.hooks, &seen, args).await {
            Ok(args) => args,
            Err(answered) => return answered,
        };
        let result = self
            .run(
                call_id.clone(),
                Value::Object(args.clone()),
                hooks.clone(),
                cancel,
                Limit::Caller,
            )
            .await;
        let result = hook::after(&self.context.hooks, &seen, &args, result).await;
        self.limited(&call_id, result).await
    }

    /// `result` held to the session's result limits; a cut one is kept in a file named after
    /// `call_id`.
    async fn limited(&self, call_id: &str, result: ToolResult) -> ToolResult {
        crate::call::hook::apply_limits(
            &self.context.limits,
            &self.name,
            call_id,
            self.context.fields.env.as_ref(),
            result,
        )
        .await
    }

    /// The call itself: arguments, the body under cancellation and the timeout (approval is
    /// one of the hooks, asked before this), then the result limits when `limit` says so.
    ///
    /// A plain function around one `async` block that uses its arguments in place: an
    /// `async fn` keeps a second copy of each argument in its future.
    #[allow(clippy::manual_async_fn)] // written out on purpose: see above
    fn run<'a>(
        &'a self,
        call_id: String,
        arguments: Value,
        hooks: CallHooks,
        cancel: &'a CancellationToken,
        limit: Limit,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        async move {
            let name: &str = &self.name;
            if cancel.is_cancelled() {
                return cancelled(name);
            }
            let args = match args::normalize(arguments)
                .and_then(|args| args::check_fields(&args, self.schema).map(|()| args))
            {
                Ok(args) => args,
                Err(problem) => return args::invalid(name, &problem, self.schema),
            };
            // With a timeout the call gets a token of its own, cancelled when the call ends by any
            // path (result, timeout, cancellation, the caller dropping it), so work the body started
            // outside its future stops too. Without one, the caller's token is all that can end the
            // call early, so the body gets that: no per-call allocation and no extra locking.
            // Read once; not kept past the start, so not in the call's future.
            let timeout = self.timeout();
            let own_token = timeout.map(|_| CancellationToken::new());
            let _stop_on_exit = own_token.as_ref().map(|t| t.clone().drop_guard());
            // Boxed: only a call somebody listens to carries a gate.
            let progress = hooks
                .progress
                .clone()
                .map(|sink| Box::new(ProgressGate::new(sink)));
            // Closed however the call ends, so nothing is reported once it has answered.
            let _close_progress = progress.as_deref().map(CloseOnDrop);
            // Made and matched in a block of their own: what only starting the body needs is
            // then not kept in the call's future while the body runs.
            let mut body = {
                let info = CallInfo::new(
                    name,
                    &call_id,
                    own_token.as_ref().unwrap_or(cancel),
                    progress.as_deref(),
                    &hooks,
                );
                // Binding checked the context against this definition: the body's view needs
                // no second check.
                let context = BoundContext::new(&self.context);
                let started = catch_unwind(AssertUnwindSafe(|| {
                    self.definition.start(context, args, info)
                }));
                match started {
                    Ok(Ok(body)) => body,
                    Ok(Err(problem)) => return args::invalid(name, &problem, self.schema),
                    Err(panic) => return panicked(name, panic.as_ref()),
                }
            };
            let mut cancelled_signal = pin!(cancel.cancelled());
            // Boxed so a call without a timeout does not carry a timer entry in its future.
            let mut deadline = timeout.map(|after| Box::pin(tokio::time::sleep(after)));
            let result = poll_fn(|cx| {
                match catch_unwind(AssertUnwindSafe(|| body.as_mut().poll(cx))) {
                    // A body may see the cancellation and finish within one poll when another
                    // thread drives its I/O meanwhile (a multi-thread runtime): the caller that
                    // cancelled still gets the cancellation's answer, whichever side won.
                    Ok(Poll::Ready(_)) if cancel.is_cancelled() => {
                        return Poll::Ready(cancelled(name));
                    }
                    Ok(Poll::Ready(result)) => return Poll::Ready(result),
                    Ok(Poll::Pending) => {}
                    Err(panic) => return Poll::Ready(panicked(name, panic.as_ref())),
                }
                if cancelled_signal.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(cancelled(name));
                }
                if let Some(sleep) = deadline.as_mut()
                    && sleep.as_mut().poll(cx).is_ready()
                {
                    return Poll::Ready(timed_out(name, self.timeout().unwrap_or_default()));
                }
                Poll::Pending
            })
            .await;
            match limit {
                Limit::Here if !self.over_limits(&result) => result,
                // Boxed: only a result over the limits carries the cutting's state.
                Limit::Here => Box::pin(self.limited(name, result)).await,
                Limit::Caller => result,
            }
        }
    }

    /// Whether `result` passes the session's result limits as it is.
    fn over_limits(&self, result: &ToolResult) -> bool {
        !crate::call::hook::within_limits(&self.context.limits, &self.name, result)
    }
}

/// Who holds a call's result to the session's result limits.
#[derive(Clone, Copy)]
enum Limit {
    /// The call itself, as it ends.
    Here,
    /// Its caller, after the hooks that may replace the result.
    Caller,
}

/// Closes a call's progress when the call ends, by whatever path.
struct CloseOnDrop<'a>(&'a ProgressGate);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

impl std::fmt::Debug for BoundTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundTool")
            .field("name", &self.name)
            .field("session", &self.context.session().session_id)
            .field("capabilities", &self.capabilities().to_string())
            .field("timeout", &self.timeout())
            .finish()
    }
}
