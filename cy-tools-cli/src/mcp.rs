//! `cy-tools mcp`: serve a session's tools to an MCP client over stdin and stdout, or over
//! streamable HTTP with `--http`.

use std::process::ExitCode;

use cy_tools::approval::ApprovalPolicy;

use super::error::CliError;
use super::mcp_http::{self, HttpArgs};
use super::runtime::CommandRuntime;
use super::servers;
use super::session::{self, SessionArgs};
use super::tool_search;
use cy_tools_mcp::McpServer;
use cy_tools_mcp_client::McpServers;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArgs,
    /// The tools to serve, comma-separated, a spec's MCP servers' tools named
    /// `{server}__{tool}`; in code-only mode, the tools its code may call (`execute_code` is
    /// what is served) [default: the spec's `tools` and its servers' tools, else every linked
    /// tool this session can run]
    #[arg(long, value_name = "A,B,C", value_delimiter = ',')]
    tools: Option<Vec<String>>,
    /// Tool calls that run at once over stdio; a client's further calls wait their turn
    #[arg(long, value_name = "COUNT", default_value_t = cy_tools_mcp::DEFAULT_MAX_CONCURRENT_CALLS as u64, value_parser = clap::value_parser!(u64).range(1..))]
    max_concurrent_calls: u64,
    /// Tool search: `tools/list` lists the `--always` tools and a `search_tools` tool, not
    /// every tool served; a search adds the tools it finds to the connection's list and tells
    /// the client (`notifications/tools/list_changed`), and they are called as usual. For
    /// sessions with many tools (a spec's MCP servers). On stdio, or over HTTP with
    /// `--http-sessions` (a stateless HTTP client cannot be told of a change)
    #[arg(long, conflicts_with = "code_only")]
    tool_search: bool,
    /// With `--tool-search`: tools listed from the start, comma-separated or repeated (the
    /// few the client's model needs most), each one of the tools served [default: none; the
    /// list starts as `search_tools` alone]
    #[arg(
        long,
        value_name = "A,B,C",
        value_delimiter = ',',
        requires = "tool_search"
    )]
    always: Vec<String>,
    #[command(flatten)]
    http: HttpArgs,
}

pub(super) fn run(args: Args) -> Result<ExitCode, CliError> {
    // Before anything starts: the list a search changes must reach the client.
    if args.tool_search && args.http.enabled() && !args.http.sessions() {
        return Err(CliError::new(
            "`--tool-search` needs a client the server can tell that its tool list changed: stdio, or HTTP with `--http-sessions`; stateless HTTP (the default of `--http`) cannot send `notifications/tools/list_changed`, so its clients would never see what a search finds. Add `--http-sessions`, or leave out `--tool-search` (every tool is then listed)",
        ));
    }
    tool_search::check_always_names(&args.always)?;
    let runtime = CommandRuntime::new()?;
    // Over HTTP the client may be anybody the token reaches, so destructive calls ask by
    // default; on stdio the client is the person's own program, which usually asks already.
    let default_approve = if args.http.enabled() {
        ApprovalPolicy::Destructive
    } else {
        ApprovalPolicy::None
    };
    let opened = session::open(
        &args.session,
        args.tools.as_deref(),
        false,
        &runtime,
        default_approve,
    )?;
    // Every call goes through the session (a stored one records it in its log). The approval
    // state names the workspace: a stored session's from its spec, else this folder, so an
    // answer is good over this folder only.
    let workspace = opened.workspace.to_string_lossy().into_owned();
    let stored = opened.session.spec().is_some();
    let fronted = opened.fronted;
    if args.tool_search {
        let more = "serve it with `--tools` or the spec's `tools`";
        tool_search::check_served(&args.always, &opened.session, opened.code_only, more)?;
    }
    // Its MCP servers' tool lists may change while it runs: what is served follows them. Not
    // in code-only mode, where `execute_code` alone is served (its code reaches the tools
    // the session was built with).
    let upstream = opened
        .session
        .context()
        .state::<McpServers>()
        .filter(|_| !opened.code_only)
        .cloned()
        .map(|servers| (servers, opened.session.clone()));
    let server = McpServer::for_session(opened.session)
        .map(|server| {
            if stored {
                server
            } else {
                server.with_workspace(workspace)
            }
        })
        .map(|server| server.with_fronted_servers(fronted))
        .and_then(McpServer::with_state_key_from_env)
        .and_then(|server| {
            if args.tool_search {
                server.with_tool_search(&args.always)
            } else {
                Ok(server)
            }
        })
        .map_err(CliError::from)?;
    // With a store, each approval is spent in it: one replica runs it.
    let server = match opened.spent_nonces {
        Some(nonces) => server.with_spent_nonces(nonces),
        None => server,
    };
    let server = match upstream {
        Some((servers, session)) => {
            let (server, updates) = server.with_tool_updates();
            let requested = args.tools.clone();
            servers::follow(servers, session, requested, updates, &runtime.work()?);
            server
        }
        None => server,
    };
    if args.http.enabled() {
        mcp_http::serve(server, &args.http, &runtime)?;
    } else {
        tracing::info!(tools = ?server.declarations().iter().map(|d| &d.name).collect::<Vec<_>>(), "serving MCP on stdio");
        // The protocol runs on this thread and the calls on the runtime's workers: a call stuck
        // on its thread cannot keep the server from answering `ping`, nor from stopping.
        let server = server
            .with_call_runtime(runtime.work()?)
            .with_max_concurrent_calls(
                usize::try_from(args.max_concurrent_calls).unwrap_or(usize::MAX),
            );
        match runtime.run_here(cy_tools_mcp::serve_stdio(server))? {
            Some(served) => served.map_err(CliError::from)?,
            None => tracing::info!("interrupted: stopping the MCP server"),
        }
    }
    // Dropping the runtime drops the session, which kills the processes its tools started.
    drop(runtime);
    Ok(ExitCode::SUCCESS)
}
