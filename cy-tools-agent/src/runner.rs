//! `ModelRunner`: the [`SubagentRunner`] that runs a subagent with the model its profile
//! names, so `delegate` and `workflow` work without an application's own loop.

use std::path::PathBuf;
use std::sync::Arc;

use cy_tools::{
    BoxFuture,
    services::{ServiceError, ServiceErrorKind},
};

use super::config::{AgentConfig, AgentLimits};
use super::events::Quiet;
use super::run::{Agent, Ending, LimitReached};
use cy_tools_session::{SubagentRun, SubagentRunner};

/// What a subagent is told before its task.
pub const SUBAGENT_PROMPT: &str = "You are a subagent: you do one task, in your own workspace folder, with the tools you are given. Nobody sees your intermediate messages; your final message (a turn without tool calls) is the whole answer your caller gets, so make it complete and say what you did, what you found, and what is left.";

type Secrets = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Runs each subagent with its profile's [`ModelSpec`](cy_tools::session::ModelSpec): the model, the
/// base URL, the key from the variable it names, the profile's turn limit and token budget;
/// a turn's bounds (parallel calls, bytes) and the key's `http://` setting are the runner's
/// ([`with_turn_limits`](Self::with_turn_limits), [`allow_http_key`](Self::allow_http_key)),
/// the defaults unless set.
/// A [`LocalSessionFactory`](cy_tools_session::LocalSessionFactory) runs with it every profile
/// that names a model, given as its model runner; or every profile, given as its runner.
///
/// ```
/// use std::sync::Arc;
/// use cy_tools_agent::ModelRunner;
/// use cy_tools_session::LocalSessionFactory;
///
/// # let dir = tempfile::tempdir().unwrap();
/// let factory = LocalSessionFactory::embedded(dir.path()).unwrap()
///     .with_model_runner(Arc::new(ModelRunner::from_env()));
/// ```
#[derive(Clone)]
pub struct ModelRunner {
    secrets: Secrets,
    stream: bool,
    turn: AgentLimits,
    allow_http_key: bool,
    ca_file: Option<PathBuf>,
}

impl ModelRunner {
    /// A runner reading keys from the process environment.
    pub fn from_env() -> Self {
        ModelRunner::with_secrets(|name| std::env::var(name).ok())
    }

    /// A runner reading keys with `secrets`, given the variable's name.
    pub fn with_secrets(secrets: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        ModelRunner::from_shared(Arc::new(secrets))
    }

    pub(crate) fn from_shared(secrets: Secrets) -> Self {
        ModelRunner {
            secrets,
            stream: false,
            turn: AgentLimits::default(),
            allow_http_key: false,
            ca_file: None,
        }
    }

    /// The same runner holding each subagent's turns to `limits`' `max_parallel_calls` and
    /// `max_turn_bytes` (its turns, tokens and time are its profile's).
    #[must_use]
    pub fn with_turn_limits(mut self, limits: &AgentLimits) -> Self {
        self.turn = *limits;
        self
    }

    /// The same runner sending a key over plain `http://` to another machine, when a profile's
    /// base URL says so (see [`AgentConfig::allow_http_key`]).
    #[must_use]
    pub fn allow_http_key(mut self, allow: bool) -> Self {
        self.allow_http_key = allow;
        self
    }

    /// The same runner trusting the CA certificates of the PEM file `path` besides Mozilla's
    /// roots (see [`AgentConfig::ca_file`]); `None`: the file `SSL_CERT_FILE` names, if set.
    #[must_use]
    pub fn with_ca_file(mut self, path: Option<PathBuf>) -> Self {
        self.ca_file = path;
        self
    }

    /// The same runner asking for streamed answers (for servers that answer only so).
    #[must_use]
    pub fn streaming(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }
}

impl std::fmt::Debug for ModelRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRunner")
            .field("stream", &self.stream)
            .field("max_parallel_calls", &self.turn.max_parallel_calls)
            .field("max_turn_bytes", &self.turn.max_turn_bytes)
            .field("allow_http_key", &self.allow_http_key)
            .field("ca_file", &self.ca_file)
            .finish_non_exhaustive()
    }
}

impl SubagentRunner for ModelRunner {
    fn run<'a>(&'a self, run: SubagentRun<'a>) -> BoxFuture<'a, Result<String, ServiceError>> {
        Box::pin(async move {
            let profile = run.profile;
            let Some(model) = &profile.model else {
                return Err(ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "subagent profile `{}` names no model, so it cannot run; do the task yourself, or ask the operator to add `model` to the profile",
                        profile.name
                    ),
                ));
            };
            let mut config = AgentConfig::from_spec(model, &*self.secrets)?;
            config.stream = self.stream;
            config.system = Some(SUBAGENT_PROMPT.to_string());
            config.limits.max_turns = profile.limits.max_turns;
            config.limits.max_tokens = profile.limits.max_tokens;
            config.limits.max_parallel_calls = self.turn.max_parallel_calls;
            config.limits.max_turn_bytes = self.turn.max_turn_bytes;
            config.allow_http_key = self.allow_http_key;
            config.ca_file.clone_from(&self.ca_file);
            // The factory holds the run to the profile's time limit.
            let agent = Agent::new(config)?;
            let outcome = agent.run(run.session, run.task, run.cancel, &Quiet).await?;
            match outcome.ending {
                Ending::Answer(text) => Ok(text),
                Ending::Limit(LimitReached::Cancelled) => Err(ServiceError::new(
                    ServiceErrorKind::Other,
                    "the subagent was cancelled before it answered",
                )),
                Ending::Limit(limit) => Err(ServiceError::new(
                    ServiceErrorKind::Other,
                    format!("it stopped: {limit}"),
                )),
            }
        })
    }
}
