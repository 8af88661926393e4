//! One MCP server of a session: started confined in the session's sandbox, spoken to over its
//! stdin and stdout, started again (with backoff) when it died, and killed with its session.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use cy_tools::session::McpServerSpec;
use cy_tools_sandbox::{SandboxView, ServerOptions, ServerProcess};
use rmcp::ServiceExt as _;
use rmcp::model::Tool;
use rmcp::service::{Peer, RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::upstream::{Askers, Handler, ListChanged, Progressing};

mod call;

/// The longest wait between two starts of a server that keeps dying.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How long a server that failed to start is given to finish writing why, on stderr.
const STDERR_WAIT: Duration = Duration::from_secs(2);

/// The first wait after a server died.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);

/// A running server: the protocol, and the process under it for a local server.
struct Live {
    /// Dropped after `service`, so the process is killed once the protocol has stopped.
    service: RunningService<RoleClient, Handler>,
    process: Option<ServerProcess>,
    /// Which start of the server this is, so a call that saw it fail discards this one only.
    generation: u64,
}

/// When the server was last started, and how long to wait before the next start.
struct Backoff {
    last_start: Option<Instant>,
    wait: Duration,
}

/// One server of a session.
pub(crate) struct Server {
    pub(crate) spec: McpServerSpec,
    view: SandboxView,
    live: tokio::sync::Mutex<Option<Live>>,
    backoff: Mutex<Backoff>,
    /// Why it stopped last, for the answer of the calls that find it stopped.
    stopped: Mutex<Option<String>>,
    /// How many times it was started.
    starts: std::sync::atomic::AtomicU64,
    /// Who its calls in flight ask on its behalf, for what it asks of the session.
    askers: Askers,
    /// Its calls in flight that listen to their progress.
    progressing: Progressing,
    /// Told when its tool list may have changed: it said so, or it was started again.
    list_changed: ListChanged,
}

impl Server {
    pub(crate) fn new(spec: McpServerSpec, view: SandboxView, list_changed: ListChanged) -> Self {
        Server {
            spec,
            view,
            live: tokio::sync::Mutex::new(None),
            backoff: Mutex::new(Backoff {
                last_start: None,
                wait: Duration::ZERO,
            }),
            stopped: Mutex::new(None),
            starts: std::sync::atomic::AtomicU64::new(0),
            askers: Askers::default(),
            progressing: Progressing::default(),
            list_changed,
        }
    }

    fn name(&self) -> &str {
        &self.spec.name
    }

    /// The protocol peer of the running server and which start it is, started (again) when
    /// it is not running. A start that is not for `listing` its tools has them listed again
    /// (a server started again may have changed them; a lazy server's came from an earlier
    /// start).
    async fn peer(&self, listing: bool) -> Result<(Peer<RoleClient>, u64), String> {
        let mut live = self.live.lock().await;
        if let Some(running) = live.as_mut() {
            let exited = running.process.as_mut().is_some_and(ServerProcess::exited);
            if !running.service.is_closed() && !exited {
                return Ok((running.service.peer().clone(), running.generation));
            }
            let said = running
                .process
                .as_ref()
                .map(ServerProcess::stderr_tail)
                .unwrap_or_default();
            tracing::warn!(server = self.name(), %said, "MCP server stopped; starting it again");
            *self.stopped.lock().unwrap_or_else(|e| e.into_inner()) = Some(said);
            *live = None;
        }
        self.wait_backoff().await;
        let started = self.start().await?;
        let peer = (started.service.peer().clone(), started.generation);
        *live = Some(started);
        if !listing {
            self.list_changed.tell();
        }
        Ok(peer)
    }

    /// Forgets start `generation` of the server, which a call saw fail under it: the next call
    /// starts it again rather than finding its dead protocol (the process may not be reaped
    /// yet). The process is killed with it.
    async fn discard(&self, generation: u64) {
        let mut live = self.live.lock().await;
        if live.as_ref().is_some_and(|l| l.generation == generation) {
            let said = live
                .as_ref()
                .and_then(|l| l.process.as_ref())
                .map(ServerProcess::stderr_tail)
                .unwrap_or_default();
            *self.stopped.lock().unwrap_or_else(|e| e.into_inner()) = Some(said);
            *live = None;
        }
    }

    /// Waits out the backoff of a server that died soon after it started, doubling it;
    /// a server that ran a while starts again at once.
    async fn wait_backoff(&self) {
        let wait = {
            let mut backoff = self.backoff.lock().unwrap_or_else(|e| e.into_inner());
            let ran = backoff.last_start.map(|at| at.elapsed());
            backoff.wait = match ran {
                None => Duration::ZERO,
                Some(ran) if ran > MAX_BACKOFF => Duration::ZERO,
                Some(_) => (backoff.wait * 2).clamp(FIRST_BACKOFF, MAX_BACKOFF),
            };
            backoff.wait
        };
        if !wait.is_zero() {
            tracing::info!(
                server = self.name(),
                ?wait,
                "waiting before starting the MCP server again"
            );
            tokio::time::sleep(wait).await;
        }
        self.backoff
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last_start = Some(Instant::now());
    }

    /// Starts the server (or connects to it) and opens the protocol, within its startup
    /// timeout.
    async fn start(&self) -> Result<Live, String> {
        let handler = Handler {
            server: self.name().to_string(),
            askers: std::sync::Arc::clone(&self.askers),
            progressing: std::sync::Arc::clone(&self.progressing),
            list_changed: self.list_changed.clone(),
        };
        match &self.spec.url {
            Some(url) => self.connect(url, handler).await,
            None => self.start_local(handler).await,
        }
    }

    /// Connects to the server at `url` over streamable HTTP, through the shared HTTPS client
    /// (its proxies and trusted roots).
    async fn connect(&self, url: &str, handler: Handler) -> Result<Live, String> {
        let name = self.name();
        let var = |name: &str| std::env::var(name).ok();
        let ca_file = cy_tools_http_client::CaFile::choose(None, "", &var);
        let (builder, _) = cy_tools_http_client::builder(ca_file.as_ref(), &var)
            .map_err(|err| format!("MCP server `{name}` cannot be reached: {err}"))?;
        let client = builder.build().map_err(|err| {
            format!("MCP server `{name}`: the HTTP client could not be set up ({err})")
        })?;
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
        if let Some(var) = &self.spec.bearer_env {
            let Ok(token) = std::env::var(var) else {
                return Err(format!(
                    "MCP server `{name}`'s token is to be in the host variable `{var}`, which is not set here; set it on this worker, or remove `bearer_env`"
                ));
            };
            config = config.auth_header(token);
        }
        let transport = StreamableHttpClientTransport::with_client(client, config);
        let timeout = self.spec.startup_timeout();
        match tokio::time::timeout(timeout, handler.serve(transport)).await {
            Ok(Ok(service)) => {
                tracing::info!(server = name, url, "MCP server connected");
                Ok(self.live(service, None))
            }
            Ok(Err(err)) => {
                let why = with_sources(&err);
                // rmcp says "Auth required" for a 401 with a challenge (`WWW-Authenticate`),
                // "HTTP 401 Unauthorized: …" for one without; likewise for 403.
                let status = if why.contains("Auth required") || why.contains("HTTP 401") {
                    Some("HTTP 401 Unauthorized")
                } else if why.contains("Insufficient scope") || why.contains("HTTP 403") {
                    Some("HTTP 403 Forbidden")
                } else {
                    None
                };
                if let Some(status) = status {
                    return Err(match &self.spec.bearer_env {
                        Some(var) => format!(
                            "MCP server `{name}` at `{url}` refused the bearer token in the host variable `{var}` ({status}); check that `{var}` holds a token it accepts"
                        ),
                        None => format!(
                            "MCP server `{name}` at `{url}` requires a bearer token ({status}); name the host variable holding it in the server's `bearer_env`"
                        ),
                    });
                }
                Err(format!(
                    "MCP server `{name}` at `{url}` did not complete the MCP handshake ({why}); check its `url` and its token"
                ))
            }
            Err(_) => Err(format!(
                "MCP server `{name}` at `{url}` did not complete the MCP handshake within {}s; check that it is up, or raise its `startup_timeout_secs`",
                timeout.as_secs()
            )),
        }
    }

    /// A running start of the server, numbered.
    fn live(
        &self,
        service: RunningService<RoleClient, Handler>,
        process: Option<ServerProcess>,
    ) -> Live {
        let generation = self
            .starts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Live {
            service,
            process,
            generation,
        }
    }

    /// Starts the local server confined in the session's sandbox and opens the protocol over
    /// its stdin and stdout.
    async fn start_local(&self, handler: Handler) -> Result<Live, String> {
        let name = self.name();
        let mut env = Vec::with_capacity(self.spec.env.len());
        for var in &self.spec.env {
            match std::env::var(var) {
                Ok(value) => env.push((var.clone(), value)),
                Err(_) => {
                    return Err(format!(
                        "MCP server `{name}` is to receive the host variable `{var}`, which is not set here; set it on this worker, or remove it from the server's `env`"
                    ));
                }
            }
        }
        let options = ServerOptions {
            env,
            read_only: with_base_interpreters(&self.spec.read_only),
            network: self.spec.network,
            ..ServerOptions::default()
        };
        let line = shell_line(&self.spec.command, &self.spec.args);
        let mut process = self
            .view
            .start_server(&line, &options)
            .map_err(|err| format!("MCP server `{name}` could not be started: {err}"))?;
        let Some((stdin, stdout)) = process.take_stdio() else {
            return Err(format!(
                "MCP server `{name}` has no stdin or stdout to speak over"
            ));
        };
        let timeout = self.spec.startup_timeout();
        match tokio::time::timeout(timeout, handler.serve((stdout, stdin))).await {
            Ok(Ok(service)) => {
                tracing::info!(server = name, pid = process.pid(), "MCP server started");
                Ok(self.live(service, Some(process)))
            }
            // What it wrote to stderr says why, once it has all been read.
            Ok(Err(err)) => Err(format!(
                "MCP server `{name}` did not complete the MCP handshake ({err}){}; check its `command` and `args`",
                clause(&process.final_stderr(STDERR_WAIT).await)
            )),
            Err(_) => Err(format!(
                "MCP server `{name}` did not complete the MCP handshake within {}s{}; check its command, or raise its `startup_timeout_secs`",
                timeout.as_secs(),
                clause(&process.stderr_tail())
            )),
        }
    }

    /// Its tools, every page of them, within its startup timeout.
    pub(crate) async fn list_tools(&self) -> Result<Vec<Tool>, String> {
        let name = self.name();
        let timeout = self.spec.startup_timeout();
        let listed = tokio::time::timeout(timeout, async {
            let (peer, _) = self.peer(true).await?;
            peer.list_all_tools()
                .await
                .map_err(|err| format!("MCP server `{name}` could not list its tools ({err})"))
        })
        .await;
        listed.unwrap_or_else(|_| {
            Err(format!(
                "MCP server `{name}` did not list its tools within {}s; raise its `startup_timeout_secs` if it is slow to start",
                timeout.as_secs()
            ))
        })
    }

    /// Discards start `generation`, which stopped under a call, and what it said on stderr
    /// before, as a clause of a message.
    async fn stopped_saying(&self, generation: u64) -> String {
        self.discard(generation).await;
        let tail = self
            .stopped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default();
        clause(&tail)
    }
}

/// `read_only`, and for each virtual environment among them the installation its Python comes
/// from (`home` in its `pyvenv.cfg`): a venv's `python` is a link to that interpreter, which
/// the server must be able to run.
fn with_base_interpreters(read_only: &[String]) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<std::path::PathBuf> = read_only.iter().map(Into::into).collect();
    for dir in read_only {
        let Ok(cfg) = std::fs::read_to_string(std::path::Path::new(dir).join("pyvenv.cfg")) else {
            continue;
        };
        let home = cfg.lines().find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "home").then(|| std::path::PathBuf::from(value.trim()))
        });
        // `home` is the interpreter's `bin`; its installation (the standard library) is the
        // folder above.
        if let Some(install) = home.as_deref().and_then(std::path::Path::parent) {
            paths.push(install.to_path_buf());
        }
    }
    paths
}

/// Why a call's request failed, without the transport's Rust type rmcp names: a transport's
/// failure ("Transport send error: Transport [rmcp::…] error: Client error: …") reads
/// "its connection failed: …".
fn plain(err: &ServiceError) -> String {
    let said = err.to_string();
    match said.split_once("] error: ") {
        Some((_, why)) if said.starts_with("Transport") => {
            let why = why.strip_prefix("Client error: ").unwrap_or(why);
            format!("its connection failed: {why}")
        }
        _ => said,
    }
}

/// `err` and the errors under it, as one line.
fn with_sources(err: &dyn std::error::Error) -> String {
    let mut line = err.to_string();
    let mut source = err.source();
    while let Some(under) = source {
        let said = under.to_string();
        if !line.contains(&said) {
            line.push_str(": ");
            line.push_str(&said);
        }
        source = under.source();
    }
    line
}

fn clause(tail: &str) -> String {
    match tail.lines().last() {
        Some(last) if !last.trim().is_empty() => format!("; it said: {}", last.trim()),
        _ => String::new(),
    }
}

/// `command` and `args` as one `/bin/sh -c` line, each word quoted, `exec`ed so the shell
/// does not stay between the session and the server.
fn shell_line(command: &str, args: &[String]) -> String {
    let mut line = String::from("exec");
    for word in std::iter::once(command).chain(args.iter().map(String::as_str)) {
        line.push_str(" '");
        line.push_str(&word.replace('\'', r"'\''"));
        line.push('\'');
    }
    line
}

#[cfg(test)]
mod tests {
    use super::shell_line;

    #[test]
    fn words_are_quoted() {
        assert_eq!(
            shell_line("node", &["it's.js".into(), "$HOME".into()]),
            r"exec 'node' 'it'\''s.js' '$HOME'"
        );
    }
}
