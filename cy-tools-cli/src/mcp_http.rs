//! `cy-tools mcp --http ADDR`: the MCP server over streamable HTTP (see
//! [`mcp::http`](cy_tools_mcp::http)), with the token from `CY_TOOLS_MCP_TOKEN`, else one it
//! makes and prints, else (`--no-token`, loopback only) none.

use std::net::{SocketAddr, ToSocketAddrs as _};

use super::error::CliError;
use super::runtime::{CommandRuntime, Outcome};
use cy_tools_mcp::McpServer;
use cy_tools_mcp::http::{ENDPOINT, McpHttpAuth, McpHttpConfig, McpHttpServer, TOKEN_ENV};

/// The options of `mcp` for HTTP.
#[derive(Debug, clap::Args)]
pub(super) struct HttpArgs {
    /// Serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio. Every request must
    /// carry `Authorization: Bearer <token>`: the token in the environment variable
    /// `CY_TOOLS_MCP_TOKEN`, else a random one made at start and printed on stderr with how to
    /// connect. Plain HTTP: put a TLS proxy in front of it for other machines
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<String>,
    /// Serve over HTTP without a token: anyone who can connect may call the tools, which on a
    /// loopback address is every user of this machine. Accepted on loopback addresses only
    #[arg(long, requires = "http")]
    no_token: bool,
    /// A browser origin allowed to call the HTTP server (repeatable), as `scheme://host[:port]`
    /// or `scheme://host:*` for any port [default: on a loopback address, pages from
    /// `localhost`, `127.0.0.1` and `[::1]`; else none]
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// Keep a session per client of protocol 2025-11-25 and earlier (`Mcp-Session-Id`, a GET
    /// stream, event ids and resumption), so a tool can ask the client's model and user in the
    /// middle of a call and subscribed resources' updates reach it. Sessions live in this
    /// process: one replica, or a balancer with session affinity [default: stateless]
    #[arg(long, requires = "http")]
    http_sessions: bool,
}

impl HttpArgs {
    pub(super) fn enabled(&self) -> bool {
        self.http.is_some()
    }

    /// Whether the HTTP server keeps a session per client (`--http-sessions`).
    pub(super) fn sessions(&self) -> bool {
        self.http_sessions
    }
}

/// Serves `server` over HTTP until the process is asked to stop.
///
/// Connections and their calls share the runtime's workers, as the control server's runs do: a
/// call runs on the task that reads its request, with no hop to another thread and back (which
/// cost a quarter of the throughput of one client calling back to back). Each request is a
/// task of its own, so a call that blocks its thread leaves the other worker to the rest; one
/// per worker would stall answers until they end, though never stopping: that is watched on
/// this thread, and stopping drops every call and kills its commands.
pub(super) fn serve(
    server: McpServer,
    args: &HttpArgs,
    runtime: &CommandRuntime,
) -> Result<(), CliError> {
    let Some(address) = &args.http else {
        return Err(CliError::new("`--http` was not given"));
    };
    let (auth, made) = auth(args.no_token)?;
    let mut config = McpHttpConfig::new(resolve(address)?, auth);
    config.allowed_origins.clone_from(&args.allow_origin);
    config.sessions = args.http_sessions;
    let token = config.auth.token().map(str::to_string);
    let serve = async move {
        let server = McpHttpServer::bind(config, server)
            .await
            .map_err(|err| CliError::new(err.to_string()))?;
        let addr = server
            .local_addr()
            .map_err(|err| CliError::new(format!("cannot read the listening address: {err}")))?;
        // On stderr, and always, so a script that bound port 0 learns the port.
        let url = format!("http://{addr}{ENDPOINT}");
        match &token {
            Some(token) if made => eprintln!("{}", made_token_notice(&url, token)),
            Some(_) => {
                eprintln!("serving MCP over streamable HTTP at {url} (bearer token required)")
            }
            None => eprintln!(
                "serving MCP over streamable HTTP at {url} (no token: every local user can call the tools)"
            ),
        }
        server
            .run()
            .await
            .map_err(|err| CliError::new(format!("MCP server stopped: {err}")))
    };
    match runtime.run(serve)? {
        Outcome::Done(served) => served,
        // The caller drops the runtime next: every connection and the call in flight on it are
        // dropped, which stops the call and kills its commands.
        Outcome::Interrupted(_) => {
            tracing::info!("interrupted: stopping the MCP server; calls still going are killed");
            Ok(())
        }
    }
}

/// `HOST:PORT` as an address to listen on (`localhost:8765` resolves).
fn resolve(address: &str) -> Result<SocketAddr, CliError> {
    let resolved = address.to_socket_addrs().map_err(|err| {
        CliError::new(format!(
            "`--http {address}` is not an address to listen on ({err}); give HOST:PORT, such as 127.0.0.1:8765"
        ))
    })?;
    let mut resolved = resolved.peekable();
    let first = resolved.peek().copied();
    first.ok_or_else(|| {
        CliError::new(format!(
            "`--http {address}` resolves to no address; give HOST:PORT, such as 127.0.0.1:8765"
        ))
    })
}

/// How callers are checked: the token from the environment, else none with `--no-token`,
/// else a random one; and whether it was made here (then it is printed).
fn auth(no_token: bool) -> Result<(McpHttpAuth, bool), CliError> {
    match std::env::var(TOKEN_ENV) {
        Ok(_) if no_token => Err(CliError::new(format!(
            "`--no-token` was given and `{TOKEN_ENV}` is set; unset `{TOKEN_ENV}` to serve without a token, or leave out `--no-token` to require it"
        ))),
        Ok(token) => Ok((McpHttpAuth::Bearer(token), false)),
        Err(std::env::VarError::NotPresent) if no_token => Ok((McpHttpAuth::NoToken, false)),
        Err(std::env::VarError::NotPresent) => McpHttpAuth::random_token()
            .map(|auth| (auth, true))
            .map_err(|err| {
                CliError::new(format!(
                    "cannot make a token: {err}; set `{TOKEN_ENV}` to a secret, such as the output of `openssl rand -hex 32`"
                ))
            }),
        Err(std::env::VarError::NotUnicode(_)) => Err(CliError::new(format!(
            "`{TOKEN_ENV}` is not valid UTF-8; set it to a secret of printable ASCII, such as the output of `openssl rand -hex 32`"
        ))),
    }
}

/// What is printed when the token was made here, as Jupyter prints its URL with its token: the
/// token itself (only whoever reads this process's stderr sees it), and how to connect.
fn made_token_notice(url: &str, token: &str) -> String {
    format!(
        "serving MCP over streamable HTTP at {url} (bearer token required)\n\
         `{TOKEN_ENV}` is not set, so this server made a token for this run; connect with the header\n\
         \x20   Authorization: Bearer {token}\n\
         for example: npx @modelcontextprotocol/inspector --cli {url} --header \"Authorization: Bearer {token}\" --method tools/list\n\
         (set `{TOKEN_ENV}` to choose the token, or pass `--no-token` on a loopback address to serve without one)"
    )
}
