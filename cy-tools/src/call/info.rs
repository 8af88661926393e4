//! One call of a tool: what the model sent, and what the tool body gets besides its arguments.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::ask::{AskError, Asker, ElicitForm, Elicited, NO_ASKER, SampleRequest, Sampled};
use super::log::{self, LogLevel, LogMessage, LogSink};
use super::progress::{ProgressGate, ProgressSink};
use crate::approval::Approver;

/// A tool call as a model (or an MCP client) sent it.
///
/// `arguments` may be an object, `null`, an empty string, or an object encoded as a JSON string:
/// providers and models send all of these, and all are accepted.
///
/// ```
/// use cy_tools::ToolCall;
/// let call = ToolCall::new("call-1", serde_json::json!({"path": "a.txt"}));
/// assert_eq!(call.id, "call-1");
/// let from_openai = ToolCall::from_json_text("call-2", r#"{"path":"a.txt"}"#);
/// assert_eq!(from_openai.arguments, serde_json::json!(r#"{"path":"a.txt"}"#));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for this call.
    pub id: String,
    /// The arguments.
    pub arguments: Value,
    /// What the host listens with: not part of the call as sent, so never serialized, and not
    /// compared.
    #[serde(skip)]
    hooks: CallHooks,
}

/// What the host of one call gives it besides the call: where its progress and its log
/// messages go, and who is asked to approve it.
#[derive(Clone, Default)]
pub struct CallHooks {
    /// Receives the call's progress reports.
    pub progress: Option<Arc<dyn ProgressSink>>,
    /// Asked before the call runs, when it needs approval (before the session's own).
    pub approver: Option<Arc<dyn Approver>>,
    /// Receives the call's log messages; without one they go to the host's `tracing` log.
    pub log: Option<Arc<dyn LogSink>>,
    /// Asks the caller's model and its user on the call's behalf ([`CallInfo::sample`],
    /// [`CallInfo::elicit`]); without one, asking answers an error saying nobody can be asked.
    pub asker: Option<Arc<dyn Asker>>,
}

impl PartialEq for CallHooks {
    /// Always equal: the hooks are how a call is listened to, not what it is.
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for CallHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallHooks")
            .field("progress", &self.progress.is_some())
            .field("approver", &self.approver.is_some())
            .field("log", &self.log.is_some())
            .field("asker", &self.asker.is_some())
            .finish()
    }
}

impl ToolCall {
    /// A call with JSON arguments.
    pub fn new(id: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            arguments,
            hooks: CallHooks::default(),
        }
    }

    /// A call whose arguments arrived as JSON text (OpenAI sends them so); parsed when executed,
    /// so malformed text becomes an error result the model can act on.
    pub fn from_json_text(id: impl Into<String>, text: impl Into<String>) -> Self {
        ToolCall {
            id: id.into(),
            arguments: Value::String(text.into()),
            hooks: CallHooks::default(),
        }
    }

    /// The same call, its progress reports going to `sink` (see [`CallInfo::progress`]).
    #[must_use]
    // Inlined across crates: each is one move of the call, made on every MCP and model-loop
    // call.
    #[inline]
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.hooks.progress = Some(sink);
        self
    }

    /// The same call, asking `approver` first when it needs approval (see
    /// [`approval`](crate::approval)).
    #[must_use]
    #[inline]
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.hooks.approver = Some(approver);
        self
    }

    /// The same call, its log messages going to `sink` (see [`CallInfo::log`]).
    #[must_use]
    #[inline]
    pub fn with_log(mut self, sink: Arc<dyn LogSink>) -> Self {
        self.hooks.log = Some(sink);
        self
    }

    /// The same call, asking the caller's model and user through `asker` (see
    /// [`CallInfo::sample`]).
    #[must_use]
    #[inline]
    pub fn with_asker(mut self, asker: Arc<dyn Asker>) -> Self {
        self.hooks.asker = Some(asker);
        self
    }

    /// The same call with all of `hooks`.
    #[must_use]
    #[inline]
    pub fn with_hooks(mut self, hooks: CallHooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// What the host gave the call.
    pub fn hooks(&self) -> &CallHooks {
        &self.hooks
    }

    pub(crate) fn into_parts(self) -> (String, Value, CallHooks) {
        (self.id, self.arguments, self.hooks)
    }
}

/// Per-call data a tool body may ask for besides its arguments.
#[derive(Clone, Copy)]
pub struct CallInfo<'a> {
    /// The call's id.
    pub id: &'a str,
    /// Triggered when the call is cancelled or times out. The body's future is dropped at its
    /// next await point anyway; the token is for work outside that future (a child process, a
    /// request on another task) that should stop too.
    pub cancel: &'a CancellationToken,
    progress: Option<&'a ProgressGate>,
    approver: Option<&'a Arc<dyn Approver>>,
    log: Option<&'a Arc<dyn LogSink>>,
    asker: Option<&'a Arc<dyn Asker>>,
    /// The tool's name, for its log messages.
    tool: &'a str,
}

impl std::fmt::Debug for CallInfo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallInfo")
            .field("id", &self.id)
            .field("cancel", self.cancel)
            .field("progress", &self.progress.is_some())
            .field("approver", &self.approver.is_some())
            .field("log", &self.log.is_some())
            .field("asker", &self.asker.is_some())
            .finish()
    }
}

impl<'a> CallInfo<'a> {
    /// Per-call data for calling a tool body directly, in a test.
    pub fn for_test(id: &'a str, cancel: &'a CancellationToken) -> Self {
        CallInfo {
            id,
            cancel,
            progress: None,
            approver: None,
            log: None,
            asker: None,
            tool: "",
        }
    }

    /// The same per-call data, asking through `asker`: for a test of a tool that samples or
    /// elicits.
    #[must_use]
    pub fn with_asker(mut self, asker: &'a Arc<dyn Asker>) -> Self {
        self.asker = Some(asker);
        self
    }

    pub(crate) fn new(
        tool: &'a str,
        id: &'a str,
        cancel: &'a CancellationToken,
        progress: Option<&'a ProgressGate>,
        hooks: &'a CallHooks,
    ) -> Self {
        CallInfo {
            id,
            cancel,
            progress,
            approver: hooks.approver.as_ref(),
            log: hooks.log.as_ref(),
            asker: hooks.asker.as_ref(),
            tool,
        }
    }

    /// Per-call data made from owned copies, for a sync tool's thread (no progress: see
    /// `call::blocking`).
    pub(crate) fn owned(
        tool: &'a str,
        id: &'a str,
        cancel: &'a CancellationToken,
        approver: Option<&'a Arc<dyn Approver>>,
        log: Option<&'a Arc<dyn LogSink>>,
    ) -> Self {
        CallInfo {
            id,
            cancel,
            progress: None,
            approver,
            log,
            // A sync body cannot wait for an answer.
            asker: None,
            tool,
        }
    }

    /// Logs `data` (a string, or any JSON) at `level` for whoever runs the call: an MCP
    /// client as `notifications/message` (when it asked for that level or less, sent before
    /// the call's answer), else the host's own log. See [`LogSink`].
    pub fn log(&self, level: LogLevel, data: impl Into<serde_json::Value>) {
        match self.log {
            Some(sink) if sink.accepts(level) => sink.log(LogMessage {
                level,
                logger: self.tool.to_string(),
                data: log::bounded(data.into()),
            }),
            Some(_) => {}
            None => log::to_tracing(self.tool, self.id, level, &log::bounded(data.into())),
        }
    }

    /// Whether a message at `level` goes anywhere a person sees it from this call: so a tool
    /// can skip making an expensive one. Without a sink, `tracing` decides.
    pub fn wants_log(&self, level: LogLevel) -> bool {
        match self.log {
            Some(sink) => sink.accepts(level),
            None => match level {
                LogLevel::Debug => {
                    tracing::enabled!(target: "cy_tools::tool", tracing::Level::DEBUG)
                }
                LogLevel::Info | LogLevel::Notice => {
                    tracing::enabled!(target: "cy_tools::tool", tracing::Level::INFO)
                }
                LogLevel::Warning => {
                    tracing::enabled!(target: "cy_tools::tool", tracing::Level::WARN)
                }
                _ => tracing::enabled!(target: "cy_tools::tool", tracing::Level::ERROR),
            },
        }
    }

    /// Reports how far the call is: `done` out of `total` (when known), with a line for a
    /// person, which is only made when somebody listens. Costs a branch when nobody does.
    ///
    /// Hosts deliver it as they can (MCP progress notifications, a line on a terminal, an
    /// application's callback). Only values larger than the last one are passed on, at most
    /// one per [`PROGRESS_INTERVAL`](crate::call::PROGRESS_INTERVAL) (one that comes sooner is
    /// held back, and delivered before the answer unless a later one replaced it), none once
    /// the call has answered: a tool can report on every item without a thought for its
    /// listener.
    pub fn progress(&self, done: f64, total: Option<f64>, message: impl FnOnce() -> String) {
        if let Some(gate) = self.progress {
            gate.report(done, total, message);
        }
    }

    /// Whether anybody listens to [`progress`](Self::progress) (so a tool can skip counting).
    pub fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Where the call's log messages go, for a sync tool's thread.
    pub(crate) fn log_sink(&self) -> Option<&'a Arc<dyn LogSink>> {
        self.log
    }

    /// Who the call's host asks to approve calls, for calls this one makes in turn (code run
    /// by `execute_code` calling tools back): they ask the same person.
    pub fn approver(&self) -> Option<&'a Arc<dyn Approver>> {
        self.approver
    }

    /// Who the call asks its caller's model and user through, for calls this one makes in
    /// turn: they ask the same.
    pub fn asker(&self) -> Option<&'a Arc<dyn Asker>> {
        self.asker
    }

    /// Has the caller's model continue a conversation: over MCP the client's model
    /// (`sampling/createMessage`). The host decides how; one without a way answers an error the
    /// tool can handle (fall back, or tell the model what it needs).
    ///
    /// ```
    /// use cy_tools::prelude::*;
    /// use cy_tools::call::{SampleMessage, SampleRequest};
    ///
    /// /// Name the given colour in French.
    /// #[tool(read_only)]
    /// async fn in_french(call: CallInfo<'_>, /** The colour. */ colour: String) -> Result<String, ToolError> {
    ///     let asked = SampleRequest::new(vec![SampleMessage::user(format!("`{colour}` in French, one word"))], 10);
    ///     Ok(call.sample(asked).await?.text().to_string())
    /// }
    /// ```
    ///
    /// # Errors
    /// Nobody can be asked (the message says why and what would work), or the host failed.
    pub async fn sample(&self, request: SampleRequest) -> Result<Sampled, AskError> {
        match self.asker {
            Some(asker) => asker.sample(&request).await,
            None => Err(AskError::new(NO_ASKER)),
        }
    }

    /// Asks the user `message`, with `form` to fill (an empty form asks yes or no): over MCP
    /// the client's user (`elicitation/create`). Accepting answers the values, declining and
    /// dismissing say so; each reaches the tool.
    ///
    /// ```
    /// use cy_tools::prelude::*;
    /// use cy_tools::call::{ElicitField, ElicitForm, Elicited};
    ///
    /// /// Book a table, asking for the details.
    /// #[tool]
    /// async fn book_table(call: CallInfo<'_>) -> Result<String, ToolError> {
    ///     let form = ElicitForm::new()
    ///         .field("guests", ElicitField::integer().range(1, 12).default_value(2).required());
    ///     Ok(match call.elicit("How many guests?", &form).await? {
    ///         Elicited::Accept(values) => format!("booked for {}", values["guests"]),
    ///         Elicited::Decline => "not booked: the user said no".to_string(),
    ///         Elicited::Cancel => "not booked: the user dismissed the question".to_string(),
    ///     })
    /// }
    /// ```
    ///
    /// # Errors
    /// Nobody can be asked (the message says why and what would work), or the host failed.
    pub async fn elicit(&self, message: &str, form: &ElicitForm) -> Result<Elicited, AskError> {
        match self.asker {
            Some(asker) => asker.elicit(message, form).await,
            None => Err(AskError::new(NO_ASKER)),
        }
    }
}
