//! A session with the `execute_code` tool on either backend, and `read_file` on the same
//! workspace: what the `execute_code` cases and the resource-limit tests run code through.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cy_tools::{
    BoundTool, CancellationToken, SessionIdentity, ToolCall, ToolContext, ToolResult,
    binding::bind_tool, services::CodeExecutor,
};
use cy_tools_remote::RemoteExecutor;
use cy_tools_remote::control_server::ControlServerConfig;
use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::executor::LocalExecutor;
use cy_tools_sandbox::tools::execute_code::EXECUTE_CODE;
use cy_tools_sandbox::tools::read_file::READ_FILE;
use serde_json::Value;
use tempfile::TempDir;

use crate::backend::Backend;
use crate::loopback_server::{Server, TOKEN};

pub const SESSION: &str = "s-1";

/// A session bound to one backend: the `execute_code` tool, `read_file` on the same workspace,
/// and that workspace's host path.
pub struct Session {
    pub execute: BoundTool,
    pub read_file: BoundTool,
    pub workspace: PathBuf,
    pub server: Option<Server>,
    _dir: TempDir,
}

impl Session {
    pub async fn run(&self, args: Value) -> ToolResult {
        self.execute
            .execute(ToolCall::new("call-1", args), &CancellationToken::new())
            .await
    }

    /// The text of a run that ended normally (with any exit code), checked to carry its
    /// structured copy.
    pub async fn ok(&self, args: Value) -> String {
        let result = self.run(args).await;
        assert!(!result.is_error, "{}", result.text_content());
        assert!(
            crate::outcome::structured(&result).is_some(),
            "no structured copy: {result:?}"
        );
        crate::outcome::text(&result)
    }

    pub async fn failed(&self, args: Value) -> String {
        let result = self.run(args).await;
        assert!(result.is_error, "{}", result.text_content());
        result.text_content()
    }

    pub fn script(&self, name: &str) -> String {
        self.workspace.join(name).display().to_string()
    }
}

fn bind(workspace: &Path, executor: Arc<dyn CodeExecutor>) -> (BoundTool, BoundTool) {
    let env = LocalSandbox::new(workspace).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root(SESSION, "acme"))
        .with_env(Arc::new(env))
        .with_executor(executor);
    (
        bind_tool(&EXECUTE_CODE, context.clone()).unwrap(),
        bind_tool(&READ_FILE, context).unwrap(),
    )
}

/// A session whose code runs on `backend`, with the default limits.
pub fn session(backend: Backend) -> Session {
    match backend {
        Backend::Local => local(),
        Backend::Remote => remote(),
    }
}

/// A session whose code runs through a `LocalExecutor` on its own sandbox.
pub fn local() -> Session {
    local_with(ExecLimits::default())
}

/// The same, with runs held to `limits`.
pub fn local_with(limits: ExecLimits) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let env = LocalSandbox::new(&workspace)
        .unwrap()
        .with_limits(limits)
        .env();
    let executor = LocalExecutor::new(Arc::new(env));
    let (execute, read_file) = bind(&workspace, Arc::new(executor));
    Session {
        execute,
        read_file,
        workspace,
        server: None,
        _dir: dir,
    }
}

/// A session whose code runs on a control server on loopback, started for it.
pub fn remote() -> Session {
    remote_with(|_| {}, |executor| executor)
}

pub fn remote_with(
    tune: impl FnOnce(&mut ControlServerConfig),
    client: impl FnOnce(RemoteExecutor) -> RemoteExecutor,
) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), tune);
    let workspace = server.root.join(SESSION);
    let executor = client(RemoteExecutor::new(&server.endpoint(), SESSION, TOKEN).unwrap());
    let (execute, read_file) = bind(&workspace, Arc::new(executor));
    Session {
        execute,
        read_file,
        workspace,
        server: Some(server),
        _dir: dir,
    }
}
