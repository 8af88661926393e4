//! # cy-tools-agent
//!
//! The model loop: a session's tools meet a model over the OpenAI Chat
//! Completions API (and every server that speaks it: vLLM, Ollama, llama.cpp's server,
//! OpenRouter) or the Anthropic Messages API.
//!
//! * [`Agent`]: runs a task in a [`Session`](cy_tools::Session) until the model answers, a
//!   turn, token or time limit is reached, or the run is cancelled. Tools are declared in the
//!   provider's dialect (strict where [`AgentConfig::strict_tools`] says); a turn's calls run
//!   side by side, at most [`AgentLimits::max_parallel_calls`] at once, each through the
//!   session, so it is validated and logged; arguments that are not JSON go back to the model
//!   as an error result; 429 and 5xx answers are retried after `Retry-After` or a doubling
//!   backoff; an answer is cut off as soon as it passes [`AgentLimits::max_turn_bytes`] or
//!   (counted as it streams) the tokens it may write; each turn's token usage is recorded in
//!   the execution log ([`UsageEntry`](cy_tools::services::UsageEntry)). The key is never sent over
//!   plain `http://` to another machine unless [`AgentConfig::allow_http_key`] says so.
//! * [`ModelRunner`]: the [`SubagentRunner`](cy_tools_session::SubagentRunner) that runs
//!   `delegate`'s and `workflow`'s subagents with the model their profile names; hand it to a
//!   factory with
//!   [`LocalSessionFactory::with_model_runner`](cy_tools_session::LocalSessionFactory::with_model_runner).
//! * `cy-tools agent` (`cy-tools-cli`): the same loop from the command line.
//!
//! The requests go over reqwest with rustls on its `ring` provider: Mozilla's root
//! certificates compiled in, plus the CA file [`AgentConfig::ca_file`] or `SSL_CERT_FILE` names;
//! through the proxies `HTTPS_PROXY`, `HTTP_PROXY` and `ALL_PROXY` name (hosts in `NO_PROXY`
//! excepted); connections kept between turns, HTTP/2 where the server offers it.

#![cfg_attr(docsrs, feature(doc_auto_cfg))]

mod anthropic;
mod calls;
mod config;
mod error;
mod events;
mod exchange;
mod http;
mod openai;
#[cfg(feature = "otel")]
pub mod otel;
mod provider;
mod run;
mod runner;
mod sampler;
mod spans;
mod sse;
mod tool_search;
mod transcript;
mod turn_budget;

pub use config::{
    ANTHROPIC_BASE_URL, AgentConfig, AgentLimits, DEFAULT_MAX_PARALLEL_CALLS,
    DEFAULT_MAX_TURN_BYTES, OPENAI_BASE_URL, default_base_url, default_key_var,
};
pub use error::{AgentError, AgentErrorKind};
pub use events::{AgentEvents, Quiet};
pub use exchange::RetryPolicy;
pub use run::{Agent, AgentRun, Ending, LimitReached};
pub use runner::{ModelRunner, SUBAGENT_PROMPT};
pub use tool_search::{SEARCH_TOOLS, ToolSearchConfig};
pub use transcript::{ModelCall, Usage};
