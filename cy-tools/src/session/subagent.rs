//! Subagent profiles: the kinds of child session a spec allows, the model that runs each and its limits.

use serde::{Deserialize, Serialize};

/// A kind of subagent a session may start: its name, its tools and its limits.
///
/// A child made from a profile gets the profile's tools and no others, and the profiles it may
/// in turn use are its parent's, cut down to its own tools: nothing widens down the tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentProfile {
    /// The name the model uses to pick it.
    pub name: String,
    /// Its tools, by registry name (`execute_code` is always added).
    #[serde(default)]
    pub tools: Vec<String>,
    /// Its resources, by registry name: a child offers these and no others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Its prompts, by registry name: a child offers these and no others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<String>,
    /// What one run of it may use.
    #[serde(default)]
    pub limits: SubagentLimits,
    /// The model that runs it, for a host whose agent loop reads it (`cy-tools-builtin`'s
    /// feature `agent`); absent in specs written before profiles named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelSpec>,
}

impl SubagentProfile {
    /// A profile with these tools and the default limits.
    pub fn new<S: Into<String>>(
        name: impl Into<String>,
        tools: impl IntoIterator<Item = S>,
    ) -> Self {
        SubagentProfile {
            name: name.into(),
            tools: tools.into_iter().map(Into::into).collect(),
            resources: Vec::new(),
            prompts: Vec::new(),
            limits: SubagentLimits::default(),
            model: None,
        }
    }

    /// The same profile offering these resources and prompts, by registry name.
    #[must_use]
    pub fn with_catalog<R: Into<String>, P: Into<String>>(
        mut self,
        resources: impl IntoIterator<Item = R>,
        prompts: impl IntoIterator<Item = P>,
    ) -> Self {
        self.resources = resources.into_iter().map(Into::into).collect();
        self.prompts = prompts.into_iter().map(Into::into).collect();
        self
    }

    /// The same profile with other limits.
    #[must_use]
    pub fn with_limits(mut self, limits: SubagentLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The same profile run by `model`.
    #[must_use]
    pub fn with_model(mut self, model: ModelSpec) -> Self {
        self.model = Some(model);
        self
    }
}

/// Which model runs a subagent, and how to reach it. Names only: the API key is read from the
/// environment variable `key_var` names, so no secret is ever stored in a spec.
///
/// ```
/// use cy_tools::session::{ModelProvider, ModelSpec, SubagentProfile};
///
/// let profile = SubagentProfile::new("researcher", ["read_file"])
///     .with_model(ModelSpec::new(ModelProvider::Anthropic, "claude-sonnet-4-5"));
/// let json = serde_json::to_value(&profile).unwrap();
/// assert_eq!(json["model"]["provider"], "anthropic");
/// // A profile written before profiles named a model still loads.
/// let old: SubagentProfile = serde_json::from_str(r#"{"name": "w", "tools": []}"#).unwrap();
/// assert_eq!(old.model, None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// Whose wire format the loop speaks.
    pub provider: ModelProvider,
    /// The model's name, as the provider spells it (`gpt-4.1`, `claude-sonnet-4-5`, `qwen3:8b`).
    pub model: String,
    /// Where the API is, such as `http://127.0.0.1:11434/v1` for a local OpenAI-compatible
    /// server [default: the provider's own API].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The environment variable holding the API key (never the key) [default:
    /// `OPENAI_API_KEY` or `ANTHROPIC_API_KEY`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_var: Option<String>,
    /// Whether tools are declared with `strict: true` [default: on for the provider's own API,
    /// off for other base URLs, whose servers often reject it].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

impl ModelSpec {
    /// `model` on `provider`'s own API, with its usual key variable.
    pub fn new(provider: ModelProvider, model: impl Into<String>) -> Self {
        ModelSpec {
            provider,
            model: model.into(),
            base_url: None,
            key_var: None,
            strict: None,
        }
    }

    /// The same model at another base URL.
    #[must_use]
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self
    }

    /// The same model, its key read from the environment variable `key_var`.
    #[must_use]
    pub fn with_key_var(mut self, key_var: impl Into<String>) -> Self {
        self.key_var = Some(key_var.into());
        self
    }
}

/// A model API's wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ModelProvider {
    /// OpenAI Chat Completions, which vLLM, Ollama, llama.cpp's server and OpenRouter speak too.
    #[serde(rename = "openai")]
    OpenAi,
    /// The Anthropic Messages API.
    #[serde(rename = "anthropic")]
    Anthropic,
}

impl ModelProvider {
    /// The name in specs and on the command line: `openai`, `anthropic`.
    pub const fn name(self) -> &'static str {
        match self {
            ModelProvider::OpenAi => "openai",
            ModelProvider::Anthropic => "anthropic",
        }
    }
}

/// Limits of one subagent run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentLimits {
    /// Model turns the runner may take (the runner keeps this limit: `cy-tools-builtin`'s
    /// model loop does, and so must an application's own).
    #[serde(default = "default_max_turns")]
    pub max_turns: u32,
    /// Wall-clock limit of the whole run, in milliseconds.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// Tokens (input and output, over every turn) the run may use; none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
}

fn default_max_turns() -> u32 {
    20
}

fn default_timeout_ms() -> u64 {
    600_000
}

impl Default for SubagentLimits {
    fn default() -> Self {
        SubagentLimits {
            max_turns: default_max_turns(),
            timeout_ms: default_timeout_ms(),
            max_tokens: None,
        }
    }
}
