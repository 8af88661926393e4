//! `cy-tools control-server`: run code for remote executors (see
//! [`control_server`](crate::control_server)).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use cy_tools_remote::control_server::{ControlServer, ControlServerConfig, DEFAULT_TOKEN_ENV};

use super::error::CliError;
use super::limits::LimitArgs;
use super::runtime::{CommandRuntime, Outcome};

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// Address to listen on; port 0 picks a free one. Plain HTTP: keep it on loopback or
    /// behind a tunnel or TLS proxy
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8700")]
    bind: SocketAddr,
    /// Folder holding one workspace folder per session id; created if missing
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
    /// Environment variable holding the bearer token (at least 16 characters)
    #[arg(long, value_name = "NAME", default_value = DEFAULT_TOKEN_ENV)]
    token_env: String,
    /// The run command, with `{file}` where the script's path goes and `{python}` for `uv run
    /// --script` where uv is installed, else `python3`
    #[arg(long, value_name = "COMMAND", default_value = cy_tools_sandbox::executor::DEFAULT_COMMAND)]
    command: String,
    /// Seconds a connection may take to send a whole request head, counted from its opening or
    /// from the end of its previous answer; so also how long an idle connection stays open
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = positive)]
    header_timeout_seconds: u64,
    /// Seconds a request body may pause before it is answered `408` and its connection closed
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = positive)]
    idle_timeout_seconds: u64,
    /// Connections open at once; at the cap a new one closes the oldest that has not shown the
    /// token [default: a quarter of the open-file limit, 16 to 1024]
    #[arg(long, value_name = "COUNT", value_parser = positive)]
    max_connections: Option<u64>,
    /// Seconds a session's workspace view is kept after its last request once none of its
    /// background processes runs; then it is released with its ended processes' output, and
    /// a large write's staging file waiting that long for its next part is removed
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = positive)]
    view_idle_seconds: u64,
    /// Workspace views kept at once; at the cap a new one releases the least recently used
    /// one that runs nothing, or is refused `503` when every one is in use or runs a process
    #[arg(long, value_name = "COUNT", default_value_t = 128, value_parser = positive)]
    max_views: u64,
    #[command(flatten)]
    limits: LimitArgs,
}

/// A whole number above zero: a zero timeout or cap would refuse everything.
fn positive(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("0 would refuse every connection; give a positive number".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "`{text}` is not a whole number; give a positive number"
        )),
    }
}

pub(super) fn run(args: Args) -> Result<ExitCode, CliError> {
    let mut config = ControlServerConfig::new(args.bind, args.root);
    config.token_env = args.token_env;
    config.command = args.command;
    config.limits = args.limits.exec_limits();
    config.header_timeout = Duration::from_secs(args.header_timeout_seconds);
    config.idle_timeout = Duration::from_secs(args.idle_timeout_seconds);
    config.view_idle_timeout = Duration::from_secs(args.view_idle_seconds);
    config.max_views = usize::try_from(args.max_views).unwrap_or(usize::MAX);
    if let Some(max) = args.max_connections {
        config.max_connections = usize::try_from(max).unwrap_or(usize::MAX);
    }
    let runtime = CommandRuntime::new()?;
    let serve = async move {
        let server = ControlServer::bind(config)
            .await
            .map_err(|err| CliError::new(err.to_string()))?;
        let addr = server
            .local_addr()
            .map_err(|err| CliError::new(format!("cannot read the listening address: {err}")))?;
        // On stderr like every log, and always, so a script that bound port 0 learns the port.
        eprintln!("control server listening on http://{addr}");
        server
            .run()
            .await
            .map_err(|err| CliError::new(format!("control server stopped: {err}")))
    };
    match runtime.run(serve)? {
        Outcome::Done(served) => served?,
        // Without this, SIGTERM or Ctrl-C would end the process on the spot and leave every
        // run going, in process groups of their own that the signal does not reach.
        Outcome::Interrupted(_) => {
            tracing::warn!("interrupted: stopping the control server; runs still going are killed");
        }
    }
    // Dropping the runtime drops each connection's task and the run inside it, which kills the
    // run with every process it started; its client sees the connection close.
    drop(runtime);
    Ok(ExitCode::SUCCESS)
}
