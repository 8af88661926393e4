//! `Agent`: the model loop. Ask the model, run the tools it calls (a turn's calls side by side,
//! up to [`AgentLimits::max_parallel_calls`](super::AgentLimits::max_parallel_calls) at once,
//! each through the session so it is validated and logged), send the results back, until it
//! answers without calling a tool or a limit ends the run.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cy_tools::call::Asker;
use cy_tools::{CancellationToken, Session, services::UsageEntry};
use tracing::Instrument;

use super::anthropic::Anthropic;
use super::calls::run_calls;
use super::config::AgentConfig;
use super::error::AgentError;
use super::events::AgentEvents;
use super::exchange::{Answered, Target, exchange};
use super::http::{BaseUrl, Client};
use super::openai::OpenAi;
use super::provider::{Declared, Provider, RequestParts, declare};
use super::sampler::LoopAsker;
use super::spans;
use super::tool_search::Search;
use super::transcript::{Message, Usage};
use cy_tools_http_client::CaFile;

/// Where a CA file the loop trusts is set, for the messages about it.
const CA_FILE_SETTING: &str = "`AgentConfig::ca_file` (`--ca-file`)";
use super::turn_budget::{Overrun, TurnBudget};

/// How a run ended, when it did not fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The model's final answer: a turn without tool calls.
    Answer(String),
    /// A limit ended the run first.
    Limit(LimitReached),
}

/// The limit that ended a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitReached {
    /// Every allowed turn was taken, the last one still calling tools.
    Turns(u32),
    /// The token budget was used up.
    Tokens {
        /// Tokens used.
        used: u64,
        /// The budget.
        budget: u64,
    },
    /// The run's time was up.
    Time(Duration),
    /// An answer passed the byte budget of one turn
    /// ([`AgentLimits::max_turn_bytes`](super::AgentLimits::max_turn_bytes)) and was cut off.
    AnswerBytes {
        /// Bytes received when it was cut off.
        received: u64,
        /// The budget.
        budget: u64,
    },
    /// The run was cancelled.
    Cancelled,
}

impl std::fmt::Display for LimitReached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LimitReached::Turns(n) => write!(
                f,
                "the turn limit ({n}) was reached before a final answer; give the task fewer steps, or allow more turns"
            ),
            LimitReached::Tokens { used, budget } => write!(
                f,
                "the token budget ({budget}) was used up ({used} tokens) before a final answer; give a smaller task, or a larger budget"
            ),
            LimitReached::Time(limit) => write!(
                f,
                "the time limit ({} s) was reached before a final answer; give a smaller task, or more time",
                limit.as_secs_f64()
            ),
            LimitReached::AnswerBytes { received, budget } => write!(
                f,
                "an answer passed the byte budget of one turn ({budget} bytes) and was cut off, {received} bytes in; check that the server ends its answers, or allow more bytes per turn"
            ),
            LimitReached::Cancelled => f.write_str("the run was cancelled"),
        }
    }
}

/// What a run did: how it ended, its turns and the tokens it used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentRun {
    /// The answer, or the limit that came first.
    pub ending: Ending,
    /// Model requests made.
    pub turns: u32,
    /// Tokens used, over every turn.
    pub usage: Usage,
}

/// The model loop over one model API; [`run`](Self::run) it on any number of sessions.
///
/// ```no_run
/// # async fn demo(session: cy_tools::Session) -> Result<(), Box<dyn std::error::Error>> {
/// use cy_tools::{CancellationToken, session::ModelProvider};
/// use cy_tools_agent::{Agent, AgentConfig, Ending, Quiet};
///
/// let mut config = AgentConfig::new(ModelProvider::Anthropic, "claude-sonnet-4-5");
/// config.api_key = std::env::var("ANTHROPIC_API_KEY").ok();
/// let agent = Agent::new(config)?;
/// let run = agent.run(&session, "list the files", &CancellationToken::new(), &Quiet).await?;
/// if let Ending::Answer(text) = run.ending {
///     println!("{text} ({} tokens)", run.usage.total());
/// }
/// # Ok(()) }
/// ```
pub struct Agent {
    config: AgentConfig,
    provider: Arc<dyn Provider>,
    base: BaseUrl,
    client: Client,
}

impl Agent {
    /// A loop with `config`.
    ///
    /// Its requests go through the proxies `HTTPS_PROXY`, `HTTP_PROXY` and `ALL_PROXY` name
    /// (hosts in `NO_PROXY` excepted), and trust Mozilla's roots and the CA file
    /// [`ca_file`](AgentConfig::ca_file) (else `SSL_CERT_FILE`) names.
    ///
    /// # Errors
    /// The base URL is not an `http://` or `https://` URL, or it is plain `http://` to another
    /// machine and there is a key to send, which
    /// [`allow_http_key`](AgentConfig::allow_http_key) does not allow; a proxy variable holds
    /// no usable URL; the CA file cannot be read or holds no certificate.
    pub fn new(config: AgentConfig) -> Result<Agent, AgentError> {
        Agent::with_env(config, &|name| std::env::var(name).ok())
    }

    /// [`new`](Self::new), the environment read with `var`.
    pub(crate) fn with_env(
        config: AgentConfig,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Agent, AgentError> {
        let base = BaseUrl::parse(&config.base_url)?;
        if config.api_key.is_some() && base.exposed() && !config.allow_http_key {
            return Err(AgentError::usage(format!(
                "base URL `{base}` is plain http:// to another machine, so the API key would cross the network unencrypted; use an https:// base URL, or allow it with `--allow-http-key` (`AgentConfig::allow_http_key` in the library)"
            )));
        }
        let provider: Arc<dyn Provider> = match config.provider {
            cy_tools::session::ModelProvider::OpenAi => Arc::new(OpenAi),
            cy_tools::session::ModelProvider::Anthropic => Arc::new(Anthropic),
        };
        let ca_file = CaFile::choose(config.ca_file.as_deref(), CA_FILE_SETTING, var);
        let client = Client::new(ca_file, var)?;
        Ok(Agent {
            config,
            provider,
            base,
            client,
        })
    }

    /// Its configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// Runs `task` in `session` with its tools until the model answers without calling one, or
    /// a limit (turns, tokens, time, `cancel`) ends the run. What happens goes to `events` as
    /// it happens. Each turn's token usage is recorded in the session's execution log.
    ///
    /// # Errors
    /// A tool cannot be declared in the provider's dialect, or the API fails (after the
    /// retries of 429 and 5xx answers). Tool failures are not errors: they go back to the
    /// model as error results.
    pub async fn run(
        &self,
        session: &Session,
        task: &str,
        cancel: &CancellationToken,
        events: &dyn AgentEvents,
    ) -> Result<AgentRun, AgentError> {
        let declared = declare(
            self.provider.as_ref(),
            session.tools(),
            self.config.strict_tools(),
        )?;
        let mut search = Search::for_run(
            self.config.tool_search.as_ref(),
            self.provider.as_ref(),
            session.tools(),
        )?;
        let limits = self.config.limits;
        let started = Instant::now();
        let mut turns = 0;
        let mut usage = Usage::default();
        let calls_cancel = cancel.child_token();
        let _stop_calls = calls_cancel.clone().drop_guard();
        let span = spans::run_span(&self.config, session);
        let ending = {
            let work = self
                .turns(
                    session,
                    task,
                    &declared,
                    &mut search,
                    &calls_cancel,
                    events,
                    &mut turns,
                    &mut usage,
                )
                .instrument(span.clone());
            let deadline = async {
                match limits.timeout {
                    Some(limit) => tokio::time::sleep(limit).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                ending = work => ending?,
                () = deadline => Ending::Limit(LimitReached::Time(limits.timeout.unwrap_or_default())),
                () = cancel.cancelled() => Ending::Limit(LimitReached::Cancelled),
            }
        };
        spans::record_run(&span, turns, usage);
        tracing::debug!(
            turns,
            tokens = usage.total(),
            "model run ended after {} ms",
            started.elapsed().as_millis()
        );
        Ok(AgentRun {
            ending,
            turns,
            usage,
        })
    }

    #[allow(clippy::too_many_arguments)]
    async fn turns(
        &self,
        session: &Session,
        task: &str,
        declared: &Declared,
        search: &mut Option<Search>,
        cancel: &CancellationToken,
        events: &dyn AgentEvents,
        turns: &mut u32,
        usage: &mut Usage,
    ) -> Result<Ending, AgentError> {
        let limits = self.config.limits;
        let target = Target {
            client: &self.client,
            base: &self.base,
            key: self.config.api_key.as_deref(),
            retry: self.config.retry,
            strict: !declared.strict.is_empty(),
            tool_search: search.is_some(),
        };
        let mut messages = vec![Message::User(task.to_string())];
        // The tools this run calls ask its own model when they sample.
        let asker: Arc<dyn Asker> = Arc::new(LoopAsker {
            provider: Arc::clone(&self.provider),
            client: self.client.clone(),
            base: self.base.clone(),
            config: self.config.clone(),
        });
        loop {
            if *turns >= limits.max_turns {
                return Ok(Ending::Limit(LimitReached::Turns(limits.max_turns)));
            }
            let remaining = match limits.max_tokens {
                Some(budget) if usage.total() >= budget => {
                    return Ok(Ending::Limit(LimitReached::Tokens {
                        used: usage.total(),
                        budget,
                    }));
                }
                Some(budget) => budget - usage.total(),
                None => u64::MAX,
            };
            *turns += 1;
            let turn_span = spans::turn_span(*turns);
            let max_tokens = self.config.max_output_tokens.min(remaining).max(1);
            let tools = Search::declarations(search.as_ref(), self.provider.as_ref(), declared);
            let body = self.provider.request(&RequestParts {
                model: &self.config.model,
                system: self.config.system.as_deref(),
                messages: &messages,
                tools: &tools,
                max_tokens,
                stream: self.config.stream,
                official: self.config.is_official(),
            });
            let budget = TurnBudget {
                bytes: limits.max_turn_bytes,
                tokens: max_tokens,
            };
            let mut streamed = false;
            let chat_span = spans::chat_span(&turn_span, &self.config, &self.base, max_tokens);
            let answered = exchange(
                self.provider.as_ref(),
                &target,
                &body,
                self.config.stream,
                budget,
                &mut |piece: &str| {
                    streamed = true;
                    if !piece.is_empty() {
                        events.text(piece);
                    }
                },
            )
            .instrument(chat_span.clone())
            .await
            .inspect_err(|err| spans::record_error(&chat_span, err))?;
            let reply = match answered {
                Answered::Reply(reply) => {
                    spans::record_reply(&chat_span, &reply);
                    reply
                }
                Answered::Stopped(overrun) => {
                    return self.stopped(session, *turns, usage, overrun).await;
                }
            };
            if !streamed && !reply.text.is_empty() {
                events.text(&reply.text);
            }
            usage.add(reply.usage);
            self.record_usage(session, *turns, reply.model.as_deref(), reply.usage)
                .await;
            events.turn_end(*turns, reply.usage);
            if reply.calls.is_empty() && reply.stop_reason.as_deref() == Some("pause_turn") {
                // The API paused a long turn of its own tools: sent back, it goes on.
                messages.push(Message::Assistant {
                    text: reply.text,
                    calls: Vec::new(),
                    server_blocks: reply.server_blocks,
                });
                continue;
            }
            if reply.calls.is_empty() {
                let cut_short =
                    matches!(reply.stop_reason.as_deref(), Some("length" | "max_tokens"));
                if let Some(budget) = limits.max_tokens
                    && cut_short
                    && usage.total() >= budget
                {
                    return Ok(Ending::Limit(LimitReached::Tokens {
                        used: usage.total(),
                        budget,
                    }));
                }
                return Ok(Ending::Answer(reply.text));
            }
            // The loop's own search calls are answered here; the others run in the session.
            let portable = search.as_mut().filter(|_| !self.provider.searches_itself());
            let (answered, rest) = Search::split(portable, session.tools(), &reply.calls);
            let ran = run_calls(
                session,
                &rest,
                declared,
                limits.max_parallel_calls,
                cancel,
                events,
                &asker,
            )
            .instrument(turn_span.clone())
            .await;
            let results = Search::merge(answered, ran);
            messages.push(Message::Assistant {
                text: reply.text,
                calls: reply.calls,
                server_blocks: reply.server_blocks,
            });
            messages.push(Message::Results(results));
        }
    }

    /// How a turn cut off at `overrun` ends the run. One cut off for its tokens has used what
    /// it wrote (counted low, see [`Written::tokens`](super::turn_budget::Written::tokens)),
    /// which is recorded: the provider bills it whether or not the answer was read to its end.
    async fn stopped(
        &self,
        session: &Session,
        turn: u32,
        usage: &mut Usage,
        overrun: Overrun,
    ) -> Result<Ending, AgentError> {
        match overrun {
            Overrun::Bytes { received, budget } => {
                tracing::warn!(
                    turn,
                    received,
                    budget,
                    "an answer passed the byte budget: cut off"
                );
                Ok(Ending::Limit(LimitReached::AnswerBytes {
                    received,
                    budget,
                }))
            }
            Overrun::Tokens { counted, allowed } => {
                let turn_usage = Usage {
                    input_tokens: 0,
                    output_tokens: counted,
                };
                usage.add(turn_usage);
                self.record_usage(session, turn, None, turn_usage).await;
                match self.config.limits.max_tokens {
                    Some(budget) if usage.total() >= budget => {
                        Ok(Ending::Limit(LimitReached::Tokens {
                            used: usage.total(),
                            budget,
                        }))
                    }
                    _ => Err(AgentError::provider(format!(
                        "the {} API streamed past the {allowed} tokens the answer was allowed (at least {counted} counted) and was cut off; check that the server honours `max_tokens`",
                        self.provider.name()
                    ))),
                }
            }
        }
    }

    /// The log keeps the usage; a log that cannot is the host's problem, not the run's.
    async fn record_usage(&self, session: &Session, turn: u32, model: Option<&str>, usage: Usage) {
        let Some(log) = session.log() else {
            return;
        };
        let entry = UsageEntry {
            session_id: session.id().to_string(),
            turn,
            provider: self.provider.name().to_string(),
            model: model.unwrap_or(&self.config.model).to_string(),
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            recorded_at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        };
        if let Err(err) = log.record_usage(entry).await {
            tracing::warn!(session = session.id(), "token usage not recorded: {err}");
        }
    }
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
