//! # cy-tools-cli
//!
//! The `cy-tools` command line: list, inspect and call the linked tools, serve them over MCP,
//! run a control server, or (feature `agent`, on by default) run the model loop. It links every
//! built-in tool. The `cy-tools` binary is [`main`]; an application that links tools of its own
//! ships the same command line with them by calling [`main`] (or [`run`]) from its own binary,
//! where its `#[tool]`s are linked beside the built-ins:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     cy_tools_cli::main()
//! }
//! ```
//!
//! Exit codes: 0 success, 1 the tool answered with an error result, 2 anything else (usage,
//! unknown tool, bad JSON, a folder that does not exist, ...). Errors are one line on stderr.

#![cfg_attr(docsrs, feature(doc_auto_cfg))]

#[cfg(feature = "agent")]
mod agent;
#[cfg(feature = "agent")]
mod agent_terminal;
mod call;
mod catalog;
mod control_server;
mod error;
mod hooks;
mod hooks_file;
mod limits;
mod list;
mod mcp;
mod mcp_http;
mod runtime;
mod schema;
mod servers;
mod session;
mod spec_file;
mod stored;
mod terminal;
mod tool_search;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use error::CliError;

/// Tools for LLM agents: list, inspect and run the linked tools, or serve them over MCP.
#[derive(Debug, Parser)]
#[command(name = "cy-tools", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the linked tools: name, capabilities, annotations and a one-line description.
    List,
    /// Print a tool's parameter schema (canonical JSON Schema) or its declaration in a dialect.
    Schema(schema::Args),
    /// Run one tool in a session over a folder and print its result.
    Call(call::Args),
    /// Serve tools to an MCP client over stdin and stdout, or over streamable HTTP (`--http`).
    Mcp(mcp::Args),
    /// Run code for remote sessions: the host end of the remote `execute_code` executor.
    ///
    /// The limits given here (`--cpu-seconds`, `--memory-mb`, `--max-processes`) and the 64 KiB
    /// output cap hold for every request: a client may ask for less, never for more or none.
    ControlServer(control_server::Args),
    /// Run a task with a model (OpenAI-compatible or Anthropic API) over the session's tools,
    /// streaming what it says and each tool call; exit 0 on its answer, 1 when a limit ends
    /// the run, 2 on a usage or provider error.
    #[cfg(feature = "agent")]
    Agent(agent::Args),
}

/// Runs the command line on this process's arguments.
pub fn main() -> ExitCode {
    run(std::env::args_os())
}

/// Runs the command line on `args` (the first is the program name).
///
/// It is meant to be a process's `main`: on the way out it kills every command still running
/// that the process's sandboxes started, including other sessions'.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    install_panic_hook();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    let traces = match init_logging() {
        Ok(traces) => traces,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command {
        Command::List => list::run(),
        Command::Schema(args) => schema::run(&args),
        Command::Call(args) => call::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::ControlServer(args) => control_server::run(args),
        #[cfg(feature = "agent")]
        Command::Agent(args) => agent::run(args),
    };
    traces.finish();
    match outcome {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}

/// Help and version go out as clap writes them; a usage error becomes one line.
fn usage_error(err: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = err.print();
        return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
    }
    eprintln!("{}", one_line(&err.render().to_string()));
    ExitCode::from(2)
}

/// Clap's message without the usage block that follows it, joined into one line.
fn one_line(rendered: &str) -> String {
    let message: Vec<&str> = rendered
        .lines()
        .take_while(|line| !line.trim_start().starts_with("Usage:"))
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("For more information"))
        .collect();
    format!(
        "{}; run `cy-tools --help` for usage",
        message.join(" ").trim_end_matches('.')
    )
}

/// Tool panics are caught and answered as error results; the hook still runs for them, so it
/// says what happened in one line instead of a backtrace.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("warning: panic{location}: {}", message.replace('\n', " "));
    }));
}

/// Logs go to stderr (stdout belongs to results and to the MCP protocol), at the level in
/// `CY_TOOLS_LOG` (`error`, `warn`, `info`, `debug`, `trace`; `warn` when unset). Built with
/// `otel`, spans also go to the OTLP endpoint `OTEL_EXPORTER_OTLP_ENDPOINT` names, if set.
///
/// # Errors
/// The OTLP endpoint, the CA file or a proxy variable cannot be used.
fn init_logging() -> Result<Traces, CliError> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let level = std::env::var("CY_TOOLS_LOG")
        .ok()
        .and_then(|value| value.parse::<tracing::level_filters::LevelFilter>().ok())
        .unwrap_or(tracing::level_filters::LevelFilter::WARN);
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_filter(level);
    #[cfg(feature = "otel")]
    {
        let otel =
            cy_tools_agent::otel::Otel::from_env().map_err(|err| CliError::new(err.to_string()))?;
        let _ = tracing_subscriber::registry()
            .with(logs)
            .with(otel.as_ref().map(|otel| otel.layer()))
            .try_init();
        Ok(Traces(otel))
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = tracing_subscriber::registry().with(logs).try_init();
        Ok(Traces)
    }
}

/// The trace exporter of the process, if any, to flush on the way out.
#[cfg(feature = "otel")]
struct Traces(Option<cy_tools_agent::otel::Otel>);
#[cfg(not(feature = "otel"))]
struct Traces;

impl Traces {
    /// Sends the last spans; an endpoint that refused them is said on stderr (the command's
    /// own outcome stands).
    fn finish(self) {
        #[cfg(feature = "otel")]
        if let Some(otel) = self.0
            && let Err(err) = otel.shutdown()
        {
            eprintln!("warning: {err}");
        }
    }
}

/// Writes `text` and a newline to stdout. A closed pipe (`cy-tools list | head -3`) ends the
/// output quietly instead of panicking as `println!` does.
fn print_stdout(text: &str) -> Result<(), CliError> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::new(format!("cannot write to stdout: {err}")))
        }
        _ => Ok(()),
    }
}

/// Resolves when the process is asked to stop (SIGINT from Ctrl-C, or SIGTERM). The sandbox
/// runs commands in process groups of their own, which the terminal's Ctrl-C does not reach:
/// every command stops its work on this (see [`runtime`]), so those commands are killed, not
/// orphaned.
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut int), Ok(mut term)) => {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            }
            // Without handlers the default action (exit) stays in place.
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    std::future::pending::<()>().await;
}
