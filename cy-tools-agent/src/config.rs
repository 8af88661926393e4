//! `AgentConfig`: which model a run talks to, how, and within which limits.

use std::time::Duration;

use cy_tools::session::{ModelProvider, ModelSpec};

use super::error::AgentError;
use super::exchange::RetryPolicy;

/// OpenAI's own API.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Anthropic's own API.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// How many of a turn's tool calls run at once unless told otherwise: a model asking for
/// hundreds in one turn gets them four at a time, each with its own commands and processes.
pub const DEFAULT_MAX_PARALLEL_CALLS: usize = 4;

/// The most one answer may send unless told otherwise: 16 MiB. A streamed token costs about
/// 200 bytes of event framing, so this holds some 80,000 tokens, more than any model writes in
/// one answer; it bounds a server that streams without end.
pub const DEFAULT_MAX_TURN_BYTES: u64 = 16 << 20;

/// The limits of one run: it ends at the first one reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentLimits {
    /// Model requests the run may make.
    pub max_turns: u32,
    /// Tokens (input and output, every turn) the run may use; none when `None`. Counted as an
    /// answer streams too, so a server writing past what a turn may use is cut off at once.
    pub max_tokens: Option<u64>,
    /// Wall-clock time of the whole run; none when `None`.
    pub timeout: Option<Duration>,
    /// How many of one turn's tool calls run at once; the others wait for a free place (0 is
    /// taken as 1).
    pub max_parallel_calls: usize,
    /// The bytes one answer may send (its body as received, event framing included); the run
    /// ends when a turn passes it.
    pub max_turn_bytes: u64,
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits {
            max_turns: 20,
            max_tokens: None,
            timeout: None,
            max_parallel_calls: DEFAULT_MAX_PARALLEL_CALLS,
            max_turn_bytes: DEFAULT_MAX_TURN_BYTES,
        }
    }
}

/// A run's model, API and limits.
///
/// ```
/// use cy_tools::session::ModelProvider;
/// use cy_tools_agent::AgentConfig;
///
/// let official = AgentConfig::new(ModelProvider::OpenAi, "gpt-4.1");
/// assert!(official.strict_tools());
/// // Other OpenAI-compatible servers often refuse `strict`: off unless asked for.
/// let local = official.clone().with_base_url("http://127.0.0.1:11434/v1");
/// assert!(!local.strict_tools());
/// assert!(local.with_strict(true).strict_tools());
/// ```
#[derive(Clone)]
pub struct AgentConfig {
    /// The wire format.
    pub provider: ModelProvider,
    /// The model's name, as the provider spells it.
    pub model: String,
    /// Where the API is.
    pub base_url: String,
    /// The API key; `None` sends none (local servers need none).
    pub api_key: Option<String>,
    /// Strict tool schemas: `None` means on for OpenAI's own API, off otherwise.
    pub strict: Option<bool>,
    /// Whether answers are streamed (text reaches [`AgentEvents::text`](super::AgentEvents::text) as it comes).
    pub stream: bool,
    /// The system prompt.
    pub system: Option<String>,
    /// The most one answer may write (Anthropic requires a number; the token budget can lower
    /// it).
    pub max_output_tokens: u64,
    /// The run's limits.
    pub limits: AgentLimits,
    /// How 429 and 5xx answers are retried.
    pub retry: RetryPolicy,
    /// Send the API key over plain `http://` to a host that is not this machine (anybody on
    /// the way can read it); off by default, when such a run is refused.
    pub allow_http_key: bool,
    /// A PEM file of CA certificates trusted besides Mozilla's roots (which are compiled in);
    /// when `None`, the file `SSL_CERT_FILE` names, if set. For a company proxy that inspects
    /// TLS, or a model server whose certificate a private CA signed.
    pub ca_file: Option<std::path::PathBuf>,
    /// Tool search for direct calling: the model is declared the kept tools and a search tool
    /// instead of every definition, and what it finds becomes callable (Anthropic's deferred
    /// loading, a portable `search_tools` for OpenAI). `None` (the default): every tool is
    /// declared every turn.
    pub tool_search: Option<super::ToolSearchConfig>,
}

impl AgentConfig {
    /// `model` on `provider`'s own API, no key, not streamed, the default limits.
    pub fn new(provider: ModelProvider, model: impl Into<String>) -> Self {
        AgentConfig {
            provider,
            model: model.into(),
            base_url: default_base_url(provider).to_string(),
            api_key: None,
            strict: None,
            stream: false,
            system: None,
            max_output_tokens: 4096,
            limits: AgentLimits::default(),
            retry: RetryPolicy::default(),
            allow_http_key: false,
            ca_file: None,
            tool_search: None,
        }
    }

    /// The configuration a subagent profile's [`ModelSpec`] describes, the key read through
    /// `secrets` (given the variable's name).
    ///
    /// # Errors
    /// The key's variable is not set while the base URL is the provider's own API (which
    /// always needs one).
    pub fn from_spec(
        spec: &ModelSpec,
        secrets: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, AgentError> {
        let mut config = AgentConfig::new(spec.provider, spec.model.clone());
        if let Some(url) = &spec.base_url {
            config.base_url.clone_from(url);
        }
        config.strict = spec.strict;
        let var = spec
            .key_var
            .clone()
            .unwrap_or_else(|| default_key_var(spec.provider).to_string());
        config.api_key = secrets(&var).filter(|key| !key.is_empty());
        if config.api_key.is_none() && config.is_official() {
            return Err(AgentError::usage(format!(
                "the {} API key is read from the environment variable `{var}`, which is not set; set it, or name another variable in the profile's `model.key_var`",
                spec.provider.name()
            )));
        }
        Ok(config)
    }

    /// The same configuration at another base URL.
    #[must_use]
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// The same configuration with strict tool schemas on or off.
    #[must_use]
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = Some(strict);
        self
    }

    /// Whether tools are declared strict: as set, else on for OpenAI's own API only.
    /// Anthropic's strict mode caps a request at 20 strict tools and 24 optional parameters,
    /// which a session's toolset easily passes, so it is never on by default.
    pub fn strict_tools(&self) -> bool {
        self.strict
            .unwrap_or(self.provider == ModelProvider::OpenAi && self.is_official())
    }

    /// Whether the base URL is the provider's own API.
    pub fn is_official(&self) -> bool {
        let official = default_base_url(self.provider);
        let host = |url: &str| {
            url.split("://")
                .nth(1)
                .and_then(|rest| rest.split(['/', ':']).next())
                .map(str::to_ascii_lowercase)
        };
        host(&self.base_url) == host(official)
    }
}

impl std::fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("AgentConfig")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("strict", &self.strict)
            .field("stream", &self.stream)
            .field("limits", &self.limits)
            .field("allow_http_key", &self.allow_http_key)
            .field("ca_file", &self.ca_file)
            .field("tool_search", &self.tool_search)
            .finish_non_exhaustive()
    }
}

/// The provider's own API.
pub fn default_base_url(provider: ModelProvider) -> &'static str {
    match provider {
        ModelProvider::OpenAi => OPENAI_BASE_URL,
        ModelProvider::Anthropic => ANTHROPIC_BASE_URL,
    }
}

/// The environment variable a provider's key is read from unless another is named.
pub fn default_key_var(provider: ModelProvider) -> &'static str {
    match provider {
        ModelProvider::OpenAi => "OPENAI_API_KEY",
        ModelProvider::Anthropic => "ANTHROPIC_API_KEY",
    }
}
