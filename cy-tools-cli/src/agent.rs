//! `cy-tools agent`: run a task with a model over the session's tools, streaming what the model
//! writes and each tool call with its result.
//!
//! Exit codes: 0 the model gave its final answer; 1 a turn, token, byte or time limit (or
//! Ctrl-C) ended the run first; 2 a usage or provider error.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use cy_tools::memory::{MemoryLog, MemorySpecs};
use cy_tools::{
    CancellationToken, Session, SessionSpec,
    services::ServiceErrorKind,
    session::{ModelProvider, ModelSpec, SubagentProfile},
};

use super::agent_terminal::{self, Terminal};
use super::error::CliError;
use super::runtime::{CommandRuntime, Outcome};
use super::session::{self, SessionArgs, registry};
use super::stored;
use super::tool_search;
use cy_tools_agent::{
    Agent, AgentConfig, AgentRun, DEFAULT_MAX_PARALLEL_CALLS, DEFAULT_MAX_TURN_BYTES, Ending,
    ModelRunner, ToolSearchConfig, default_key_var,
};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::compose::EXECUTE_CODE;
use cy_tools_session::store::StoreLocation;

/// How long an interrupted run has to stop before it is abandoned.
const STOP_WAIT: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ProviderArg {
    /// OpenAI Chat Completions (also vLLM, Ollama, llama.cpp's server, OpenRouter)
    Openai,
    /// Anthropic Messages
    Anthropic,
}

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The task, for example "summarize README.md"
    task: String,
    /// The API's wire format
    #[arg(long, value_enum)]
    provider: ProviderArg,
    /// The model, as the provider names it
    #[arg(long)]
    model: String,
    /// Where the API is [default: the provider's own API]
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The environment variable holding the API key [default: OPENAI_API_KEY or
    /// ANTHROPIC_API_KEY; needed for the providers' own APIs only]
    #[arg(long, value_name = "NAME")]
    key_var: Option<String>,
    /// Declare tools with strict schemas (on by default for OpenAI's own API only)
    #[arg(long)]
    strict: bool,
    /// Model turns the run may take
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_turns: u32,
    /// Tokens (input and output, every turn) the run may use [default: no budget]
    #[arg(long, value_name = "N")]
    max_tokens: Option<u64>,
    /// Seconds the run may take [default: no limit]
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// How many of one turn's tool calls run at once; the others wait their turn
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PARALLEL_CALLS)]
    max_parallel_calls: usize,
    /// The bytes one answer may send (as received, event framing included); an answer
    /// passing it is cut off and ends the run [default: 16 MiB]
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TURN_BYTES, hide_default_value = true)]
    max_turn_bytes: u64,
    /// Send the API key even over plain http:// to another machine, where anybody on the way
    /// can read it (refused otherwise; loopback addresses need no flag)
    #[arg(long)]
    allow_http_key: bool,
    /// A PEM file of CA certificates to trust besides the Mozilla roots compiled in (a company
    /// proxy's, a private model server's) [default: the file `SSL_CERT_FILE` names, if set]
    #[arg(long, value_name = "FILE")]
    ca_file: Option<std::path::PathBuf>,
    /// Wait for each whole answer instead of streaming it
    #[arg(long)]
    no_stream: bool,
    /// A system prompt for the model
    #[arg(long, value_name = "TEXT")]
    system: Option<String>,
    /// A JSON list of subagent profiles the session may delegate to, for example
    /// [{"name": "helper", "tools": ["read_file"]}]; a profile without a `model` runs on this
    /// command's model
    #[arg(long, value_name = "FILE")]
    subagents: Option<PathBuf>,
    /// Tool search: the model is declared the `--always` tools and a way to search the
    /// others, not every definition: Anthropic's own deferred loading with its search tool; for
    /// OpenAI-compatible APIs a `search_tools` function this command answers, whose finds are
    /// declared from the next turn on. For sessions with many tools (a spec's MCP servers)
    #[arg(long, conflicts_with = "code_only")]
    tool_search: bool,
    /// With `--tool-search`: tools declared from the start, comma-separated or repeated (the
    /// few the model needs most), each one of the session's [default: none]
    #[arg(
        long,
        value_name = "A,B,C",
        value_delimiter = ',',
        requires = "tool_search"
    )]
    always: Vec<String>,
    #[command(flatten)]
    session: SessionArgs,
}

pub(super) fn run(args: Args) -> Result<ExitCode, CliError> {
    let model = model_spec(&args);
    let config = config(&args, &model)?;
    let profiles = match &args.subagents {
        Some(path) => load_profiles(path, &model)?,
        None => Vec::new(),
    };
    let asked = session::asked(&args.session)?;
    let agent = Agent::new(config).map_err(|err| CliError::new(err.to_string()))?;
    let runtime = CommandRuntime::new()?;
    tool_search::check_always_names(&args.always)?;
    let session = open_session(&args, asked, profiles, agent.config(), &runtime)?;
    if args.tool_search {
        let code_only = session.spec().is_some_and(|spec| spec.code_only);
        let more = "add it to the spec file's `tools`";
        tool_search::check_served(&args.always, &session, code_only, more)?;
    }
    let cancel = CancellationToken::new();
    let terminal = Arc::new(Terminal::detect());
    let work = {
        let (cancel, session) = (cancel.clone(), session.clone());
        let (task, terminal) = (args.task.clone(), Arc::clone(&terminal));
        async move { agent.run(&session, &task, &cancel, &*terminal).await }
    };
    let outcome = match runtime.run(work)? {
        Outcome::Done(outcome) => outcome,
        Outcome::Interrupted(task) => {
            cancel.cancel();
            match runtime.wait(task, STOP_WAIT)? {
                Some(outcome) => outcome,
                None => {
                    eprintln!("\nstopped: interrupted");
                    return Ok(ExitCode::FAILURE);
                }
            }
        }
    };
    drop(session);
    drop(runtime);
    // The API's own words are in its errors.
    let run = outcome.map_err(|err| CliError::new(terminal.for_stderr(&err.to_string())))?;
    Ok(finish(&run))
}

/// Ends the streamed output, and says why a run stopped short.
fn finish(run: &AgentRun) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out).and_then(|()| out.flush());
    match &run.ending {
        Ending::Answer(_) => {
            eprintln!(
                "done: {} turns, {} tokens ({} in, {} out)",
                run.turns,
                run.usage.total(),
                run.usage.input_tokens,
                run.usage.output_tokens
            );
            ExitCode::SUCCESS
        }
        Ending::Limit(limit) => {
            eprintln!("stopped: {limit}");
            ExitCode::FAILURE
        }
    }
}

fn model_spec(args: &Args) -> ModelSpec {
    let provider = match args.provider {
        ProviderArg::Openai => ModelProvider::OpenAi,
        ProviderArg::Anthropic => ModelProvider::Anthropic,
    };
    ModelSpec {
        provider,
        model: args.model.clone(),
        base_url: args.base_url.clone(),
        key_var: args.key_var.clone(),
        strict: args.strict.then_some(true),
    }
}

fn config(args: &Args, model: &ModelSpec) -> Result<AgentConfig, CliError> {
    let mut config = AgentConfig::from_spec(model, &|name| std::env::var(name).ok())
        .map_err(|err| CliError::new(err.to_string()))?;
    config.stream = !args.no_stream;
    config.system.clone_from(&args.system);
    config.limits.max_turns = args.max_turns;
    config.limits.max_tokens = args.max_tokens;
    config.limits.max_parallel_calls = args.max_parallel_calls;
    config.limits.max_turn_bytes = args.max_turn_bytes;
    config.allow_http_key = args.allow_http_key;
    config.ca_file.clone_from(&args.ca_file);
    if args.tool_search {
        config.tool_search = Some(ToolSearchConfig::keeping(args.always.iter().cloned()));
    }
    if args.max_parallel_calls == 0 {
        return Err(CliError::new(
            "--max-parallel-calls 0 would run no tool call; give at least 1",
        ));
    }
    if args.max_turn_bytes == 0 {
        return Err(CliError::new(
            "--max-turn-bytes 0 would cut off every answer; give a number of bytes, 16777216 by default",
        ));
    }
    if let Some(seconds) = args.timeout {
        let limit = Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                CliError::new(format!(
                    "--timeout {seconds}: expected a positive number of seconds"
                ))
            })?;
        config.limits.timeout = Some(limit);
    }
    if args.max_turns == 0 {
        return Err(CliError::new(
            "--max-turns 0 leaves the model no turn; give at least 1",
        ));
    }
    if model.key_var.is_some() && config.api_key.is_none() {
        let var = model
            .key_var
            .clone()
            .unwrap_or_else(|| default_key_var(model.provider).to_string());
        return Err(CliError::new(format!(
            "--key-var {var}: the environment variable `{var}` is not set; set it to the API key"
        )));
    }
    Ok(config)
}

fn load_profiles(path: &Path, model: &ModelSpec) -> Result<Vec<SubagentProfile>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        CliError::new(format!(
            "cannot read the subagents file `{}`: {err}",
            path.display()
        ))
    })?;
    let mut profiles: Vec<SubagentProfile> = serde_json::from_str(&text).map_err(|err| {
        CliError::new(format!(
            "invalid subagents file `{}`: {err}; expected a JSON list such as [{{\"name\": \"helper\", \"tools\": [\"read_file\"]}}]",
            path.display()
        ))
    })?;
    for profile in &mut profiles {
        if profile.model.is_none() {
            profile.model = Some(model.clone());
        }
    }
    Ok(profiles)
}

/// The session the run works in, from a factory (so `delegate` gets children, each logged):
/// in the store `--store` (or `CY_TOOLS_STORE`) names, resumed when its id is stored there;
/// else in memory for this run. A new session is in code mode (or code-only mode) when
/// `--code-mode` (`--code-only`) or the spec file asks for it, as with `call` and `mcp`.
fn open_session(
    args: &Args,
    asked: session::Asked,
    profiles: Vec<SubagentProfile>,
    config: &AgentConfig,
    runtime: &CommandRuntime,
) -> Result<Session, CliError> {
    let fail = CliError::from;
    let location = match &args.session.store {
        Some(text) => Some(
            StoreLocation::parse(text).map_err(|err| CliError::new(format!("--store: {err}")))?,
        ),
        None => StoreLocation::from_env().map_err(|err| CliError::new(err.to_string()))?,
    };
    let registry = Arc::new(registry()?);
    let limits = args.session.limits.exec_limits();
    let runner = Arc::new(
        ModelRunner::from_env()
            .with_turn_limits(&config.limits)
            .allow_http_key(config.allow_http_key)
            .with_ca_file(config.ca_file.clone()),
    );
    runtime.work()?.block_on(async move {
        let mut factory = match location {
            Some(location) => LocalSessionFactory::open(location, &asked.tenant)
                .await
                .map_err(fail)?,
            None => LocalSessionFactory::new(
                Arc::clone(&registry),
                Arc::new(MemorySpecs::new()),
                Arc::new(MemoryLog::new()),
            ),
        }
        .with_exec_limits(limits)
        // On the factory, so the code of a code-mode session and the subagents ask too.
        .with_approver(agent_terminal::approver())
        // Subagents' turns bounded as this run's are.
        .with_runner(runner)
        .with_hooks(args.session.hooks.hooks())
        .with_result_limits(args.session.hooks.limits());
        if let Some(approve) = asked.approve {
            tracing::info!(%approve, "approval policy");
            factory = factory.with_approval_policy(approve);
        }
        let id = asked.id.unwrap_or_else(|| {
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            format!("agent-{}-{ms}", std::process::id())
        });
        // A stored session is narrowed to the spec file's `tools` (and `execute_code`, which
        // every stored session has), never widened, as `call` and `mcp` do: its code reaches
        // only these too, since the session is built with them alone.
        let resumed = match &asked.tools {
            Some(tools) => {
                let mut only = vec![EXECUTE_CODE.to_string()];
                only.extend(tools.iter().filter(|t| *t != EXECUTE_CODE).cloned());
                super::servers::resume_within(&factory, &id, &only).await
            }
            None => factory.resume(&id).await,
        };
        match resumed {
            // As `call` and `mcp` refuse it: the session would run without what was asked.
            Ok(session) if asked.code_only && !session.spec().is_some_and(|s| s.code_only) => {
                return Err(stored::stored_without_code_only(&id));
            }
            Ok(session)
                if asked.code_mode && !session.spec().is_some_and(|s| session::in_code_mode(s)) =>
            {
                return Err(stored::stored_without_code_mode(&id));
            }
            Ok(session) => {
                if !profiles.is_empty() {
                    eprintln!(
                        "note: session `{id}` is stored already and keeps its own subagents; --subagents applies to new sessions only"
                    );
                }
                return Ok(session);
            }
            Err(err) if err.kind() == ServiceErrorKind::NotFound => {}
            Err(err) => return Err(fail(err)),
        }
        // Every linked tool, but those that talk to people: this session has no chat.
        let tools = asked.tools.unwrap_or_else(|| {
            let registry = factory.registry();
            registry
                .names()
                .iter()
                .filter(|name| {
                    registry.definition(name).is_some_and(|d| {
                        !d.capabilities().contains(cy_tools::capability::Capability::Chat)
                    })
                })
                .map(|n| n.to_string())
                .collect()
        });
        let workspace = std::path::absolute(&asked.root).unwrap_or(asked.root);
        let mut spec = SessionSpec::root(id, asked.tenant, workspace.to_string_lossy())
            .with_tools(tools)
            .with_code_mode(asked.code_mode)
            .with_code_only(asked.code_only);
        // Started with the session, stored with it, started again whenever it is resumed.
        spec.mcp_servers = asked.mcp_servers;
        for profile in profiles {
            spec = spec.with_subagent(profile);
        }
        factory.create(spec).await.map_err(fail)
    })
}
