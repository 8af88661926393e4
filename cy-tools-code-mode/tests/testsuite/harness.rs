//! A code-mode session for the tests: a temp workspace, `python3`, the built-in file tools,
//! application tools defined here with `#[tool]`, and an in-memory execution log; its code runs
//! on either backend.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use cy_tools::memory::MemoryLog;
use cy_tools::prelude::*;
use cy_tools::{
    BoxFuture, CancellationToken, Session, SessionIdentity, ToolCall, ToolContext, ToolRegistry,
    ToolResult, Toolset,
    services::{CodeExecutor, Sandbox},
};
use cy_tools_code_mode::{
    Approval, ApprovalHook, ApprovalRequest, CodeModeExecutor, CodeModeLimits,
};
use cy_tools_remote::RemoteExecutor;
use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
use cy_tools_sandbox::{LocalSandbox, executor::LocalExecutor};
use serde::Serialize;
use serde_json::{Value, json};

use crate::support::backend::Backend;

/// Word counts.
#[derive(Serialize)]
pub struct Tally {
    words: usize,
    distinct: usize,
}

// A `Serialize` struct without a schema: sent as JSON, with no output schema declared.
/// Count the words of a text, and the distinct ones, as structured JSON.
#[tool(read_only, open_world = false)]
async fn tally(
    /// The text, words separated by whitespace.
    text: String,
) -> Tally {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    let count = words.len();
    words.sort_unstable();
    words.dedup();
    Tally {
        words: count,
        distinct: words.len(),
    }
}

/// Wait, then answer `done`.
#[tool(read_only, open_world = false)]
async fn pause(
    /// Milliseconds to wait.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "done".to_string()
}

/// The file a `hold` call that ran to its end leaves in its session's workspace.
pub const HELD: &str = "held";

/// Wait, leave the file [`HELD`] in the workspace, then answer `held`.
// A file in the session's own workspace, not a counter in this process: the tests calling
// `hold` run beside each other, and each must see only its own calls finish.
#[tool(capabilities(env), open_world = false)]
async fn hold(
    env: &dyn Sandbox,
    /// Milliseconds to wait.
    ms: u64,
) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    env.write(HELD, Vec::new()).await?;
    Ok("held".to_string())
}

/// Denies calls of one tool, with a reason.
struct DenyTool(&'static str);

impl ApprovalHook for DenyTool {
    fn approve<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
        let deny = request.tool == self.0;
        Box::pin(async move {
            if deny {
                Approval::Deny("writes need a person's approval in this session".into())
            } else {
                Approval::Allow
            }
        })
    }
}

pub const SESSION: &str = "s-code";
pub const TOOLS: &[&str] = &[
    "execute_code",
    "read_file",
    "write_file",
    "tally",
    "pause",
    "hold",
];

pub struct Harness {
    /// The control server's address, on `Remote`.
    pub server: Option<std::net::SocketAddr>,
    /// The temporary folder holding the workspace, removed with the harness.
    _dir: tempfile::TempDir,
    workspace: std::path::PathBuf,
    tools: Toolset,
    pub log: Arc<MemoryLog>,
    session: Arc<Session>,
}

const SERVER_TOKEN: &str = "code-mode-test-token-0123456789";

enum Mode {
    Bound(CodeModeLimits, Option<&'static str>),
    Remote(CodeModeLimits, Option<&'static str>),
    Unbound,
    Plain,
}

impl Harness {
    /// A code-mode session on `backend`; `deny` names a tool the approval hook refuses. On
    /// `Remote`, the control server's workspace for the session is the runtime's sandbox folder,
    /// so the file tools and the code see the same files.
    pub async fn start(
        backend: Backend,
        limits: CodeModeLimits,
        deny: Option<&'static str>,
    ) -> Self {
        match backend {
            Backend::Local => Harness::build(Mode::Bound(limits, deny), None),
            Backend::Remote => {
                let root = tempfile::tempdir().unwrap();
                let config = ControlServerConfig {
                    token: Some(SERVER_TOKEN.into()),
                    ..ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), root.path())
                };
                let server = ControlServer::bind(config).await.unwrap();
                let addr = server.local_addr().unwrap();
                tokio::spawn(server.run());
                let remote =
                    RemoteExecutor::new(&format!("http://{addr}"), SESSION, SERVER_TOKEN).unwrap();
                let mut h = Harness::build(Mode::Remote(limits, deny), Some((root, remote)));
                h.server = Some(addr);
                h
            }
        }
    }

    /// A session whose code-mode executor was never bound.
    pub fn unbound() -> Self {
        Harness::build(Mode::Unbound, None)
    }

    /// A session with the plain local executor (no code mode).
    pub fn plain() -> Self {
        Harness::build(Mode::Plain, None)
    }

    fn build(mode: Mode, remote: Option<(tempfile::TempDir, RemoteExecutor)>) -> Self {
        let (dir, workspace, inner) = match remote {
            Some((dir, remote)) => {
                let workspace = dir.path().join(SESSION);
                (
                    dir,
                    workspace,
                    Some(Arc::new(remote) as Arc<dyn CodeExecutor>),
                )
            }
            None => {
                let dir = tempfile::tempdir().unwrap();
                let workspace = dir.path().to_path_buf();
                (dir, workspace, None)
            }
        };
        std::fs::create_dir_all(&workspace).unwrap();
        let env: Arc<dyn Sandbox> = Arc::new(LocalSandbox::new(&workspace).unwrap().env());
        let log = Arc::new(MemoryLog::new());
        let local: Arc<dyn CodeExecutor> =
            inner.unwrap_or_else(|| Arc::new(LocalExecutor::new(Arc::clone(&env))));
        let (executor, code_mode): (Arc<dyn CodeExecutor>, Option<Arc<CodeModeExecutor>>) =
            match &mode {
                Mode::Plain => (local, None),
                Mode::Unbound => {
                    let cm = Arc::new(CodeModeExecutor::new(local));
                    (cm.clone(), Some(cm))
                }
                Mode::Bound(limits, deny) | Mode::Remote(limits, deny) => {
                    let mut cm = CodeModeExecutor::new(local).with_limits(limits.clone());
                    if let Some(tool) = deny {
                        cm = cm.with_approval(Arc::new(DenyTool(tool)));
                    }
                    let cm = Arc::new(cm);
                    (cm.clone(), Some(cm))
                }
            };
        let context = ToolContext::new(SessionIdentity::root(SESSION, "tenant"))
            .with_env(env)
            .with_executor(executor)
            .with_log(log.clone());
        let tools = ToolRegistry::linked().unwrap().build(TOOLS, &context);
        assert_eq!(tools.names(), TOOLS);
        let session = Arc::new(Session::new(Arc::new(context), tools.clone()));
        if let (Mode::Bound(..) | Mode::Remote(..), Some(cm)) = (&mode, code_mode) {
            cm.bind(&session).unwrap();
        }
        Harness {
            server: None,
            _dir: dir,
            workspace,
            tools,
            log,
            session,
        }
    }

    /// The session's workspace folder (the server's folder for the session, on `Remote`).
    pub fn root(&self) -> &Path {
        &self.workspace
    }

    pub fn tools(&self) -> &Toolset {
        &self.tools
    }

    /// The session the code calls back into.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// The model's `execute_code` call `id`, recorded in the log.
    pub async fn run(&self, id: &str, code: &str) -> ToolResult {
        self.run_until(id, code, &CancellationToken::new()).await
    }

    /// The same, cancelled when `cancel` is.
    pub async fn run_until(&self, id: &str, code: &str, cancel: &CancellationToken) -> ToolResult {
        self.session
            .execute(
                "execute_code",
                ToolCall::new(id, json!({ "code": code })),
                cancel,
            )
            .await
    }

    /// The model calling `name` directly (not recorded), to compare with what Python got.
    pub async fn direct(&self, name: &str, arguments: Value) -> ToolResult {
        self.tools
            .execute(
                name,
                ToolCall::new("direct", arguments),
                &CancellationToken::new(),
            )
            .await
    }
}

/// Runs `body` after `import json, os, cy_sdk` and parses what it printed as JSON.
pub async fn python_json(h: &Harness, body: &str) -> Value {
    let result = h
        .run("py", &format!("import json, os, cy_sdk\n{body}"))
        .await;
    assert!(!result.is_error, "{}", result.text_content());
    serde_json::from_str(&crate::support::outcome::text(&result))
        .unwrap_or_else(|err| panic!("not JSON ({err}): {}", result.text_content()))
}
