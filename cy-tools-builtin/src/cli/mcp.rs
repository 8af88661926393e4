//! `cy-tools mcp`: serve a session's tools to an MCP client over stdin and stdout.

use std::process::ExitCode;

use super::error::CliError;
use super::session::{self, SessionArgs};
use super::{interrupted, runtime};

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArgs,
    /// The tools to serve, comma-separated [default: the spec's `tools`, else every linked
    /// tool this session can run]
    #[arg(long, value_name = "A,B,C", value_delimiter = ',')]
    tools: Option<Vec<String>>,
}

pub(super) fn run(args: Args) -> Result<ExitCode, CliError> {
    let tools = session::open(&args.session, args.tools.as_deref())?;
    tracing::info!(tools = ?tools.names(), "serving MCP on stdio");
    runtime()?
        .block_on(async {
            tokio::select! {
                served = crate::mcp::serve_stdio(tools) => served,
                () = interrupted() => {
                    tracing::info!("interrupted: stopping the MCP server");
                    Ok(())
                }
            }
        })
        .map_err(|err| CliError::new(err.to_string()))?;
    // Dropping the runtime drops the session, which kills the processes its tools started.
    Ok(ExitCode::SUCCESS)
}
